package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.system.FilesystemSpace;
import dev.appliance.installer.testing.FakeHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real directories as the drives, with a fake {@code /proc/self/mountinfo}, {@code /etc/fstab} and sysfs saying what
 * is mounted where: each drive {@code diskN} is its own XFS partition {@code sdX1}, mounted noatime by label, and the
 * root filesystem is {@code sda1}.
 */
class DriveChecksTest {
    @TempDir
    Path tmp;

    private FakeHost host;
    private final List<Path> drives = new ArrayList<>();
    private final StringBuilder fstab = new StringBuilder("UUID=0a1b / xfs defaults 0 0\n");
    private int mountId = 100;

    private void lay(int count) throws IOException {
        host = FakeHost.healthy(tmp.resolve("root")).blockDevice("8:1", "sda/sda1", true);
        for (int i = 1; i <= count; i++) {
            Path d = Files.createDirectories(tmp.resolve("disk" + i)).toRealPath();
            drives.add(d);
            String sd = "sd" + (char) ('a' + i);
            String device = "8:" + (16 * i + 1);
            host.mount(mountId++, device, d, "rw,noatime", "xfs", "/dev/" + sd + "1");
            host.blockDevice(device, sd + "/" + sd + "1", true);
            fstab.append("LABEL=disk").append(i).append(' ').append(d).append(" xfs noatime 0 0\n");
        }
        host.file("/etc/fstab", fstab.toString());
    }

    private List<Check> run() {
        return DriveChecks.run(host.view(), DriveFacts.inspect(host.view(), drives));
    }

    private Check run(String id) {
        return check(run(), id);
    }

    @Test
    void wellPreparedDrives_passEveryRule() throws IOException {
        lay(4);
        List<Check> checks = run();
        assertThat(checks)
                .extracting(Check::id)
                .containsExactly(
                        "drives.exist",
                        "drives.count",
                        "drives.distinct",
                        "drives.sizes",
                        "drives.root-disk",
                        "drives.filesystem",
                        "drives.noatime",
                        "drives.fstab",
                        "drives.raid",
                        "drives.free-space",
                        "drives.inodes");
        // free space and inodes are this machine's temporary filesystem's: judged in their own tests
        assertThat(checks)
                .filteredOn(c -> !c.id().equals("drives.free-space") && !c.id().equals("drives.inodes"))
                .allSatisfy(c -> assertThat(c.result()).as(c.toString()).isEqualTo(Result.PASS));
        assertThat(check(checks, "drives.count").measured()).isEqualTo("4 drives: 1 set of 4");
    }

    @Test
    void noDrivesGiven_warnsThatTheDriveRulesDidNotRun() {
        List<Check> checks = DriveChecks.run(FakeHost.healthy(tmp).view(), List.of());
        assertThat(checks).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo("drives");
            assertThat(c.result()).isEqualTo(Result.WARN);
            assertThat(c.remediation()).contains("--drives");
        });
    }

    @Test
    void aMissingDirectory_failsAndIsLeftOutOfTheOtherRules() throws IOException {
        lay(4);
        drives.set(2, tmp.resolve("not-mounted"));
        List<Check> checks = run();
        Check exist = check(checks, "drives.exist");
        assertThat(exist.result()).isEqualTo(Result.FAIL);
        assertThat(exist.measured()).isEqualTo(tmp.resolve("not-mounted") + ": not a directory");
        assertThat(check(checks, "drives.filesystem").measured()).isEqualTo("xfs on every drive (3)");
    }

    @ParameterizedTest
    @CsvSource({
        "4, PASS, 4 drives: 1 set of 4",
        "8, PASS, 8 drives: 1 set of 8",
        "16, PASS, 16 drives: 1 set of 16",
        "32, PASS, 32 drives: 2 sets of 16",
        "12, WARN, 12 drives: 1 set of 12",
        "6, WARN, 6 drives: 1 set of 6",
        "2, WARN, 2 drives: 1 set of 2",
        "17, FAIL, 17 drives: no equal sets of 2 to 16",
        "1, FAIL, 1 drives: no equal sets of 2 to 16"
    })
    void count_setsOf4_8or16(int drives, Result expected, String measured) {
        Check c = DriveChecks.count(drives);
        assertThat(c.result()).isEqualTo(expected);
        assertThat(c.measured()).isEqualTo(measured);
    }

    @ParameterizedTest
    @CsvSource({"990, PASS", "989, WARN", "500, WARN"})
    void sizes_equalWithinOnePercent(long smaller, Result expected) {
        List<DriveFacts> facts = List.of(
                facts("d1", 1000, 1000, 0, 0), facts("d2", smaller, smaller, 0, 0), facts("d3", 1000, 1000, 0, 0));
        Check c = DriveChecks.sizes(facts);
        assertThat(c.result()).isEqualTo(expected);
        if (expected == Result.WARN) {
            assertThat(c.measured()).isEqualTo("smallest d2 " + Sizes.decimal(smaller) + ", largest d1 1.0 KB");
        }
    }

    @ParameterizedTest
    @CsvSource({"100, 100, PASS", "10, 100, PASS", "9, 100, WARN", "2, 100, WARN", "1, 100, FAIL", "0, 100, FAIL"})
    void freeSpace_warnsBelow10PercentAndFailsBelow2(long free, long total, Result expected) {
        assertThat(DriveChecks.freeVerdict(free, total, "x").result()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"0, 0, PASS", "1000, 100, PASS", "1000, 99, WARN", "1000, 19, FAIL", "-1, -1, WARN"})
    void inodes_warnBelow10PercentFreeAndFailBelow2(long total, long free, Result expected) {
        assertThat(DriveChecks.inodeVerdict(new FilesystemSpace(1000, 1000, total, free))
                        .result())
                .isEqualTo(expected);
    }

    @Test
    void freeSpaceAndInodes_areReadFromTheDrivesFilesystem() throws IOException {
        lay(4);
        List<DriveFacts> facts = DriveFacts.inspect(host.view(), drives);
        FilesystemSpace real = facts.getFirst().space().orElseThrow();
        assertThat(real.totalBytes()).isPositive();
        assertThat(real.usableBytes()).isBetween(0L, real.totalBytes());
        // statvfs through the foreign-function API: known on Linux (0 only where inodes are made on demand)
        assertThat(real.totalInodes()).isGreaterThanOrEqualTo(0);
        assertThat(real.freeInodes()).isBetween(0L, Math.max(0, real.totalInodes()));
    }

    @Test
    void capacity_comesFromTheDrivesTotal_forTheCoresRule() throws IOException {
        lay(4);
        List<Check> checks = Preflight.run(
                host.view(),
                new Preflight.Options(drives, OptionalLong.empty(), Requirements.DEFAULT_REQUESTS_IN_FLIGHT));
        assertThat(check(checks, "cpu.cores").expected()).contains("(the 4 drives' total size)");
        List<Check> given =
                Preflight.run(host.view(), new Preflight.Options(drives, OptionalLong.of(200 * Requirements.TB), 256));
        assertThat(check(given, "cpu.cores").expected())
                .isEqualTo(">= 64 physical cores for 200.0 TB stored (--capacity)");
    }

    @ParameterizedTest
    @CsvSource({"ext4, WARN", "btrfs, WARN", "tmpfs, FAIL", "xfs, PASS"})
    void filesystem_xfs(String type, Result expected) throws IOException {
        lay(4);
        host.mount(mountId++, "8:33", drives.get(1), "rw,noatime", type, "/dev/sdc1"); // mounted over the first
        Check c = run("drives.filesystem");
        assertThat(c.result()).isEqualTo(expected);
        if (expected != Result.PASS) {
            assertThat(c.measured()).startsWith(drives.get(1) + ": " + type);
        }
    }

    @Test
    void withoutNoatime_warns() throws IOException {
        lay(4);
        host.mount(mountId++, "8:49", drives.get(2), "rw,relatime", "xfs", "/dev/sdd1");
        Check c = run("drives.noatime");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo(drives.get(2) + ": relatime on " + drives.get(2));
    }

    @Test
    void fstab_byDeviceName_warns() throws IOException {
        lay(4);
        host.file("/etc/fstab", fstab.toString().replace("LABEL=disk2", "/dev/sdc1"));
        Check c = run("drives.fstab");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo(drives.get(1) + ": " + drives.get(1) + " by /dev/sdc1");
    }

    @Test
    void fstab_missingEntry_warns() throws IOException {
        lay(4);
        host.file("/etc/fstab", "UUID=0a1b / xfs defaults 0 0\n");
        Check c = run("drives.fstab");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).contains("not in /etc/fstab");
    }

    @Test
    void onTheRootFilesystem_fails() throws IOException {
        lay(4);
        host.mount(mountId++, "8:1", drives.getFirst(), "rw,noatime", "xfs", "/dev/sda1"); // a bind of the root
        Check c = run("drives.root-disk");
        assertThat(c.result()).isEqualTo(Result.FAIL);
        assertThat(c.measured()).isEqualTo(drives.getFirst() + ": on the root filesystem (8:1)");
    }

    @Test
    void onAnotherPartitionOfTheRootDisk_warns() throws IOException {
        lay(4);
        host.blockDevice("8:2", "sda/sda2", true);
        host.mount(mountId++, "8:2", drives.getFirst(), "rw,noatime", "xfs", "/dev/sda2");
        Check c = run("drives.root-disk");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo(drives.getFirst() + ": on the root disk sda (partition sda2)");
    }

    @Test
    void twoDrivesOnOneFilesystem_fail() throws IOException {
        lay(4);
        Path shared = Files.createDirectories(tmp.resolve("shared")).toRealPath();
        Path a = Files.createDirectories(shared.resolve("a"));
        Path b = Files.createDirectories(shared.resolve("b"));
        host.mount(mountId++, "8:200", shared, "rw,noatime", "xfs", "/dev/sdz1");
        drives.set(0, a);
        drives.set(1, b);
        Check c = run("drives.distinct");
        assertThat(c.result()).isEqualTo(Result.FAIL);
        assertThat(c.measured()).isEqualTo(a + ", " + b + " share 8:200 at " + shared);
    }

    @ParameterizedTest
    @CsvSource({"LVM-Vx3, WARN, LVM", "CRYPT-LUKS2-77, PASS, ''", "mpath-3600, WARN, device-mapper"})
    void deviceMapperVolumes_warnUnlessEncryption(String uuid, Result expected, String layer) throws IOException {
        lay(4);
        host.blockDevice("253:0", "dm-0", false).file("/sys/devices/virtual/block/dm-0/dm/uuid", uuid);
        host.mount(mountId++, "253:0", drives.get(3), "rw,noatime", "xfs", "/dev/mapper/vg-data");
        Check c = run("drives.raid");
        assertThat(c.result()).isEqualTo(expected);
        if (expected == Result.WARN) {
            assertThat(c.measured()).isEqualTo(drives.get(3) + ": on " + layer + " (dm-0)");
        }
    }

    @Test
    void mdraid_warns() throws IOException {
        lay(4);
        host.blockDevice("9:127", "md127", false).file("/sys/devices/virtual/block/md127/md/level", "raid6");
        host.mount(mountId++, "9:127", drives.get(3), "rw,noatime", "xfs", "/dev/md127");
        Check c = run("drives.raid");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo(drives.get(3) + ": on mdraid (md127)");
    }

    @Test
    void aRaidControllersLogicalDrive_warns() throws IOException {
        lay(4);
        host.file("/sys/devices/virtual/block/sdc/device/vendor", "DELL")
                .file("/sys/devices/virtual/block/sdc/device/model", "PERC H730P Adp");
        Check c = run("drives.raid");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith(drives.get(1) + ": sdc is 'DELL PERC H730P Adp'");
    }

    @Test
    void aMountPointWithASpace_isFound() throws IOException {
        lay(4);
        Path spaced = Files.createDirectories(tmp.resolve("disk five")).toRealPath();
        host.mount(mountId++, "8:90", spaced, "rw,noatime", "xfs", "/dev/sdq1");
        drives.set(0, spaced);
        Check c = run("drives.fstab");
        assertThat(c.measured())
                .isEqualTo(spaced + ": " + spaced + " not in /etc/fstab (not mounted again after a reboot)");
    }

    private static DriveFacts facts(String name, long total, long usable, long inodes, long freeInodes) {
        return new DriveFacts(
                Path.of(name),
                true,
                Optional.empty(),
                Optional.of(new FilesystemSpace(total, usable, inodes, freeInodes)),
                Optional.empty());
    }
}
