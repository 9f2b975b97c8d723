package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.smart.SmartHealth;
import dev.appliance.installer.smart.SmartReading;
import dev.appliance.installer.smart.SmartSource;
import dev.appliance.installer.testing.FakeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four drives on the partitions sdb1..sde1 of a fake sysfs, each disk answering with a recorded smartctl report
 * (src/test/resources/smart/, written after smartmontools' JSON field names).
 */
class SmartChecksTest {
    @TempDir
    Path tmp;

    private FakeHost host;
    private final List<Path> drives = new ArrayList<>();
    private final Map<String, String> reports = new HashMap<>();
    private final List<String> asked = new ArrayList<>();
    private int mountId = 100;

    @BeforeEach
    void lay() throws IOException {
        host = FakeHost.healthy(tmp.resolve("root")).blockDevice("8:1", "sda/sda1", true);
        for (int i = 1; i <= 4; i++) {
            Path d = Files.createDirectories(tmp.resolve("disk" + i)).toRealPath();
            drives.add(d);
            String sd = "sd" + (char) ('a' + i);
            String device = "8:" + (16 * i + 1);
            host.mount(mountId++, device, d, "rw,noatime", "xfs", "/dev/" + sd + "1");
            host.blockDevice(device, sd + "/" + sd + "1", true);
            reports.put("/dev/" + sd, "ata-healthy");
        }
    }

    static String fixture(String name) {
        try (InputStream in = SmartChecksTest.class.getResourceAsStream("/smart/" + name + ".json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final SmartSource recorded = device -> {
        asked.add(device);
        String name = reports.get(device);
        return name == null
                ? new SmartReading.Unreadable("no report recorded for " + device)
                : SmartHealth.parse(fixture(name));
    };

    private List<Check> run() {
        return SmartChecks.run(DriveFacts.inspect(host.view(), drives), recorded);
    }

    private String label(int drive) {
        return "/dev/sd" + (char) ('a' + drive) + " (" + drives.get(drive - 1) + ")";
    }

    @Test
    void healthyDisks_passEveryRule_oneReadPerDisk() {
        reports.put("/dev/sde", "nvme-healthy");
        List<Check> checks = run();
        assertThat(checks)
                .extracting(Check::id)
                .containsExactly(
                        "smart", "smart.health", "smart.sectors", "smart.error-log", "smart.nvme", "smart.wear");
        assertThat(checks)
                .allSatisfy(c -> assertThat(c.result()).as(c.toString()).isEqualTo(Result.PASS));
        assertThat(check(checks, "smart").measured()).isEqualTo("SMART read from 4 disks");
        assertThat(asked).containsExactly("/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde");
    }

    @Test
    void reallocatedAndPendingSectors_warn() {
        reports.put("/dev/sdc", "ata-reallocated");
        Check c = check(run(), "smart.sectors");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo(label(2) + ": 64 reallocated, 8 pending");
        assertThat(c.remediation()).contains("replace");
    }

    @Test
    void manyBadSectors_fail_andTheErrorLogWarns() {
        reports.put("/dev/sdd", "ata-surface-going");
        List<Check> checks = run();
        Check sectors = check(checks, "smart.sectors");
        assertThat(sectors.result()).isEqualTo(Result.FAIL);
        assertThat(sectors.measured()).isEqualTo(label(3) + ": 160 reallocated, 24 pending, 3 offline uncorrectable");
        Check log = check(checks, "smart.error-log");
        assertThat(log.result()).isEqualTo(Result.WARN);
        assertThat(log.measured()).isEqualTo(label(3) + ": 2 errors in the drive's error log");
        assertThat(check(checks, "smart.health").result()).isEqualTo(Result.PASS);
    }

    @Test
    void aDriveThatSaysItIsFailing_fails() {
        reports.put("/dev/sdb", "ata-failed");
        Check c = check(run(), "smart.health");
        assertThat(c.result()).isEqualTo(Result.FAIL);
        assertThat(c.measured()).isEqualTo(label(1) + ": FAILED (the drive's own verdict)");
    }

    @Test
    void nvmeWear_warnsAt80_andACriticalWarningFails() {
        reports.put("/dev/sdb", "nvme-worn");
        reports.put("/dev/sdc", "nvme-critical");
        List<Check> checks = run();
        Check wear = check(checks, "smart.wear");
        assertThat(wear.result()).isEqualTo(Result.FAIL);
        assertThat(wear.measured())
                .isEqualTo(label(1) + ": 85% of rated endurance used; " + label(2) + ": 97% of rated endurance used");
        Check nvme = check(checks, "smart.nvme");
        assertThat(nvme.result()).isEqualTo(Result.FAIL);
        assertThat(nvme.measured())
                .isEqualTo(label(2) + ": 3 media errors, critical warning 0x4 (reliability degraded)");
    }

    @Test
    void wearThresholds() {
        assertThat(SmartChecks.wear(nvme(79)).result()).isEqualTo(Result.PASS);
        assertThat(SmartChecks.wear(nvme(80)).result()).isEqualTo(Result.WARN);
        assertThat(SmartChecks.wear(nvme(94)).result()).isEqualTo(Result.WARN);
        assertThat(SmartChecks.wear(nvme(95)).result()).isEqualTo(Result.FAIL);
    }

    private static SmartHealth nvme(long percentageUsed) {
        SmartHealth h = ((SmartReading.Read) SmartHealth.parse(fixture("nvme-healthy"))).health();
        return new SmartHealth(
                h.model(),
                h.protocol(),
                h.passed(),
                h.reallocated(),
                h.pending(),
                h.offlineUncorrectable(),
                h.errorLogCount(),
                h.mediaErrors(),
                OptionalLong.of(percentageUsed),
                h.criticalWarning());
    }

    @Test
    void aDiskThatCannotBeOpened_warnsWithSmartctlsMessage_andTheOthersAreStillJudged() {
        reports.put("/dev/sdb", "open-failed");
        reports.put("/dev/sdc", "ata-failed");
        List<Check> checks = run();
        Check smart = check(checks, "smart");
        assertThat(smart.result()).isEqualTo(Result.WARN);
        assertThat(smart.measured())
                .isEqualTo(
                        label(1) + ": Smartctl open device: /dev/sdz failed: No such device (smartctl exit status 2)");
        assertThat(check(checks, "smart.health").result()).isEqualTo(Result.FAIL);
    }

    @Test
    void withoutSmartctl_oneWarningSaysToInstallSmartmontools() {
        List<Check> checks = SmartChecks.run(
                DriveFacts.inspect(host.view(), drives), device -> new SmartReading.NotInstalled("/usr/bin:/usr/sbin"));
        assertThat(checks).hasSize(1);
        Check c = checks.getFirst();
        assertThat(c.id()).isEqualTo("smart");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo("smartctl not found (looked in /usr/bin:/usr/sbin)");
        assertThat(c.remediation()).contains("install smartmontools");
    }

    @Test
    void twoDrivesOnOneDisk_shareOneRead_andADriveOnLvmIsNotRead() throws IOException {
        Path second = Files.createDirectories(tmp.resolve("disk1b")).toRealPath();
        host.mount(mountId++, "8:18", second, "rw,noatime", "xfs", "/dev/sdb2");
        host.blockDevice("8:18", "sdb/sdb2", true);
        drives.add(second);
        host.blockDevice("253:0", "dm-0", false).file("/sys/devices/virtual/block/dm-0/dm/uuid", "LVM-Vx3");
        host.mount(mountId++, "253:0", drives.get(3), "rw,noatime", "xfs", "/dev/mapper/vg-data");
        List<Check> checks = run();
        assertThat(asked).containsExactly("/dev/sdb", "/dev/sdc", "/dev/sdd");
        assertThat(check(checks, "smart.health").measured()).isEqualTo("overall health passed (3 disks)");
        Check smart = check(checks, "smart");
        assertThat(smart.result()).isEqualTo(Result.WARN);
        assertThat(smart.measured()).isEqualTo(drives.get(3) + " (on LVM): no plain disk under it, SMART not read");
    }

    @Test
    void preflight_includesTheSmartChecks_throughItsOptions() {
        reports.put("/dev/sdb", "ata-failed");
        List<Check> checks = Preflight.run(
                host.view(),
                new Preflight.Options(drives, OptionalLong.empty(), Requirements.DEFAULT_REQUESTS_IN_FLIGHT)
                        .withSmart(recorded));
        assertThat(check(checks, "smart.health").result()).isEqualTo(Result.FAIL);
        assertThat(checks).extracting(Check::id).doesNotContain("drives.probe");
    }

    @Test
    void outputThatIsNotJson_isUnreadable() {
        assertThat(SmartHealth.parse("smartctl 6.6 2017-11-05\n=== START OF INFORMATION SECTION ==="))
                .isEqualTo(
                        new SmartReading.Unreadable("smartctl printed no JSON (smartmontools 7 or later is needed)"));
    }
}
