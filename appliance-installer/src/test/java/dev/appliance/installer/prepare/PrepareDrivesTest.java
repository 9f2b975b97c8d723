package dev.appliance.installer.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.installer.InstallerMain;
import dev.appliance.installer.system.SystemView;
import dev.appliance.installer.testing.FakeHost;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare-drives} against image files (sparse, 300 MiB: mkfs.xfs's smallest), never a real disk; {@code
 * /etc/fstab}, mountinfo and sysfs are under {@code --root}.
 */
class PrepareDrivesTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    static final long IMAGE_BYTES = 300L << 20;

    static boolean onPath(String command) {
        for (String dir : (System.getenv("PATH") + ":/usr/sbin:/sbin").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    static Path blankImage(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(IMAGE_BYTES);
        }
        return file;
    }

    private FakeHost host() {
        return FakeHost.healthy(tmp.resolve("root"))
                .blockDevice("8:1", "sda/sda1", true)
                .file("/etc/fstab", "UUID=0a1b / xfs defaults 0 0\n");
    }

    private int run(String... args) {
        return InstallerMain.run(
                List.of(args),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                root -> new SystemView(root, () -> HostTimeSync.State.SYNCHRONIZED));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The XFS label in the superblock (12 bytes at offset 108, NUL-padded). */
    private static String xfsLabel(Path image) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "r")) {
            byte[] magic = new byte[4];
            f.readFully(magic);
            assertThat(new String(magic, StandardCharsets.ISO_8859_1)).isEqualTo("XFSB");
            byte[] label = new byte[12];
            f.seek(108);
            f.readFully(label);
            return new String(label, StandardCharsets.ISO_8859_1).replace("\0", "");
        }
    }

    @Test
    void withoutYes_itOnlyShowsWhatItWouldDo() throws IOException {
        FakeHost host = host();
        Path img = blankImage(tmp.resolve("a.img"));
        int exit = run(
                "prepare-drives",
                "--format",
                img.toString(),
                "--root",
                host.root().toString());
        assertThat(exit).as(err()).isZero();
        assertThat(out())
                .contains(img + " -> LABEL=disk1 /mnt/disk1 xfs defaults,noatime,nofail 0 0")
                .contains("Dry run: nothing done. Do it with --yes.");
        assertThat(Signatures.find(img, -1)).isEmpty();
        assertThat(Files.readString(host.root().resolve("etc/fstab"))).isEqualTo("UUID=0a1b / xfs defaults 0 0\n");
        assertThat(host.root().resolve("mnt")).doesNotExist();
    }

    @Test
    void withYes_formatsXfsWithLabels_writesFstabByLabel_andCreatesTheMountPoints() throws IOException {
        assumeTrue(onPath("mkfs.xfs"), "mkfs.xfs not installed (apt-get install xfsprogs)");
        FakeHost host = host();
        host.file("/etc/fstab", "UUID=0a1b / xfs defaults 0 0\nLABEL=disk1 /mnt/disk1 xfs noatime 0 0");
        Path a = blankImage(tmp.resolve("a.img"));
        Path b = blankImage(tmp.resolve("b.img"));
        int exit = run(
                "prepare-drives",
                "--format",
                a.toString(),
                b.toString(),
                "--yes",
                "--no-mount",
                "--root",
                host.root().toString());
        assertThat(exit).as(out() + err()).isZero();
        // disk1 is taken in fstab: the new ones are numbered after it
        assertThat(xfsLabel(a)).isEqualTo("disk2");
        assertThat(xfsLabel(b)).isEqualTo("disk3");
        assertThat(Files.readString(host.root().resolve("etc/fstab")))
                .isEqualTo("UUID=0a1b / xfs defaults 0 0\nLABEL=disk1 /mnt/disk1 xfs noatime 0 0\n"
                        + "# appliance data drives (appliance-installer prepare-drives)\n"
                        + "LABEL=disk2 /mnt/disk2 xfs defaults,noatime,nofail 0 0\n"
                        + "LABEL=disk3 /mnt/disk3 xfs defaults,noatime,nofail 0 0\n");
        assertThat(host.root().resolve("mnt/disk2")).isEmptyDirectory();
        assertThat(host.root().resolve("mnt/disk3")).isEmptyDirectory();
        // what it wrote passes the preflight's fstab rule: by label, noatime
        assertThat(host.view().fstab())
                .allSatisfy(e -> assertThat(e.byStableName()).isTrue());
    }

    /** Mounting an image takes root and a free loop device. */
    private static boolean canLoopMount() {
        return "root".equals(System.getProperty("user.name"))
                && onPath("losetup")
                && onPath("mount")
                && Files.exists(Path.of("/dev/loop-control"));
    }

    @Test
    void withYes_mountsEachDriveWithNoatime_whereLoopDevicesAreAvailable() throws Exception {
        assumeTrue(onPath("mkfs.xfs"), "mkfs.xfs not installed (apt-get install xfsprogs)");
        assumeTrue(canLoopMount(), "mounting an image needs root, losetup and /dev/loop-control");
        FakeHost host = host();
        Path img = blankImage(tmp.resolve("a.img"));
        Path mountPoint = host.root().resolve("mnt/disk1").toAbsolutePath();
        try {
            int exit = run(
                    "prepare-drives",
                    "--format",
                    img.toString(),
                    "--yes",
                    "--root",
                    host.root().toString());
            if (exit == 74 && err().contains("mount -t xfs")) {
                assumeTrue(false, "this machine cannot loop-mount (a container without loop devices?): " + err());
            }
            assertThat(exit).as(out() + err()).isZero();
            assertThat(out()).contains("Mounted " + img + " at " + mountPoint);
            List<String> mounted = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .filter(l -> l.contains(" " + mountPoint + " "))
                    .toList();
            assertThat(mounted)
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains(" - xfs ").containsPattern(" rw,noatime[ ,]"));
            Files.writeString(mountPoint.resolve("written"), "on the new filesystem");
            assertThat(Files.getFileStore(mountPoint).type()).isEqualTo("xfs");
        } finally {
            if (Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mountPoint + " ")) {
                Process p = new ProcessBuilder("umount", mountPoint.toString())
                        .redirectErrorStream(true)
                        .start();
                p.getInputStream().readAllBytes();
                p.waitFor();
            }
        }
    }

    @Test
    void aDeviceHoldingAFilesystem_isRefusedByName_unlessForced() throws Exception {
        assumeTrue(onPath("mkfs.xfs"), "mkfs.xfs not installed (apt-get install xfsprogs)");
        FakeHost host = host();
        Path blank = blankImage(tmp.resolve("blank.img"));
        Path used = SignaturesTest.image(blankImage(tmp.resolve("used.img")), 1080, new byte[] {0x53, (byte) 0xEF});
        byte[] before = Files.readAllBytes(used);

        int exit = run(
                "prepare-drives",
                "--format",
                blank.toString(),
                used.toString(),
                "--yes",
                "--no-mount",
                "--root",
                host.root().toString());

        assertThat(exit).isEqualTo(64);
        assertThat(err())
                .contains("prepare-drives: " + used + " holds an ext2/3/4 filesystem: refused; if that is no longer"
                        + " wanted, give --force to overwrite it")
                .contains("nothing was done");
        assertThat(Files.readAllBytes(used)).isEqualTo(before);
        assertThat(Signatures.find(blank, -1))
                .as("no device is formatted when one is refused")
                .isEmpty();

        out.reset();
        err.reset();
        exit = run(
                "prepare-drives",
                "--format",
                used.toString(),
                "--yes",
                "--force",
                "--no-mount",
                "--root",
                host.root().toString());
        assertThat(exit).as(out() + err()).isZero();
        assertThat(xfsLabel(used)).isEqualTo("disk1");
        assertThat(out()).contains("mkfs.xfs -f -L disk1 " + used);
    }

    @Test
    void anImageAttachedToALoopDevice_isRefusedEvenWithForce() throws IOException {
        Path img = blankImage(tmp.resolve("a.img"));
        FakeHost host = host();
        host.blockDevice("7:3", "loop3", false)
                .file("/sys/devices/virtual/block/loop3/dev", "7:3")
                .file("/sys/devices/virtual/block/loop3/loop/backing_file", img.toRealPath() + "\n")
                .mount(300, "7:3", Path.of("/mnt/old"), "rw,noatime", "xfs", "/dev/loop3");
        Files.createDirectories(host.root().resolve("sys/block"));
        Files.createSymbolicLink(
                host.root().resolve("sys/block/loop3"), host.root().resolve("sys/devices/virtual/block/loop3"));

        int exit = run(
                "prepare-drives",
                "--format",
                img.toString(),
                "--yes",
                "--force",
                "--no-mount",
                "--root",
                host.root().toString());

        assertThat(exit).isEqualTo(64);
        assertThat(err()).contains(img + " is attached to /dev/loop3, mounted at /mnt/old: refused, even with --force");
        assertThat(Signatures.find(img, -1)).isEmpty();
    }

    /**
     * A block device node of our own in the temporary directory, numbered 7:250 (a loop minor no machine attaches):
     * its number is all the refusals read. The tests that use it never pass --yes either, so even a refusal that
     * regressed could only print a plan.
     */
    private Path blockNode() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "making a device node takes root");
        Path node = tmp.resolve("node");
        Process p = new ProcessBuilder("mknod", node.toString(), "b", "7", "250")
                .redirectErrorStream(true)
                .start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(p.waitFor() == 0, "mknod failed: " + said);
        return node;
    }

    private static FakeHost withNode(FakeHost host) {
        return host.blockDevice("7:250", "loop250", false)
                .file("/sys/devices/virtual/block/loop250/dev", "7:250")
                .file("/sys/devices/virtual/block/loop250/size", "614400");
    }

    @Test
    void theRootDisk_andAMountedDevice_areRefusedEvenWithForce() throws Exception {
        Path node = blockNode();
        FakeHost host =
                withNode(new FakeHost(tmp.resolve("root"))).mount(1, "7:250", Path.of("/"), "rw", "xfs", "/dev/x");

        int exit = run(
                "prepare-drives",
                "--format",
                node.toString(),
                "--force",
                "--root",
                host.root().toString());

        assertThat(exit).isEqualTo(64);
        assertThat(err()).contains(node + " is the root disk, mounted at /: refused, even with --force");
        assertThat(out()).isEmpty();
    }

    @Test
    void aMemberOfARaidOrLvmVolume_isRefusedEvenWithForce() throws Exception {
        Path node = blockNode();
        FakeHost host = withNode(host()).file("/sys/devices/virtual/block/loop250/holders/md127", "");

        int exit = run(
                "prepare-drives",
                "--format",
                node.toString(),
                "--force",
                "--root",
                host.root().toString());

        assertThat(exit).isEqualTo(64);
        assertThat(err())
                .contains(node + " is held by md127 (a RAID, LVM or device-mapper member): refused, even with"
                        + " --force");
    }

    @Test
    void theList_namesEachDisk_andWhatStandsInTheWay() throws IOException {
        FakeHost host = host().file("/sys/devices/virtual/block/sda/size", "937703088")
                .file("/sys/devices/virtual/block/sda/queue/rotational", "0")
                .file("/sys/devices/virtual/block/sda/sda1/dev", "8:1")
                .file("/sys/devices/virtual/block/sdb/size", "31251759104")
                .file("/sys/devices/virtual/block/sdb/queue/rotational", "1")
                .file("/sys/devices/virtual/block/sdb/device/vendor", "ATA")
                .file("/sys/devices/virtual/block/sdb/device/model", "EXAMPLE HDD 16TB")
                .file("/sys/devices/virtual/block/sdc/size", "614400")
                .file("/sys/devices/virtual/block/sdd/size", "614400")
                .file("/sys/devices/virtual/block/sdd/holders/md127", "")
                .file("/sys/devices/virtual/block/loop0/size", "0");
        Files.createDirectories(host.root().resolve("sys/block"));
        for (String d : List.of("sda", "sdb", "sdc", "sdd", "loop0")) {
            Files.createSymbolicLink(
                    host.root().resolve("sys/block/" + d), host.root().resolve("sys/devices/virtual/block/" + d));
        }
        Files.createDirectories(host.root().resolve("dev"));
        blankImage(host.root().resolve("dev/sdb"));
        SignaturesTest.image(host.root().resolve("dev/sdc"), 0, "XFSB".getBytes(StandardCharsets.ISO_8859_1));

        int exit = run("prepare-drives", "--root", host.root().toString());

        assertThat(exit).as(err()).isZero();
        assertThat(out().lines().toList())
                .containsExactly(
                        "DEVICE                 SIZE TYPE MODEL                        STATE",
                        "/dev/sda           480.1 GB ssd  -                            the root disk; partitions sda1;"
                                + " mounted at /",
                        "/dev/sdb            16.0 TB hdd  ATA EXAMPLE HDD 16TB         candidate",
                        "/dev/sdc           314.6 MB ?    -                            an XFS filesystem",
                        "/dev/sdd           314.6 MB ?    -                            held by md127 (RAID/LVM member)",
                        "",
                        "1 candidate (blank and unused). Format with: appliance-installer prepare-drives --format"
                                + " DEV... --yes");
    }

    @Test
    void badArguments_exit64() {
        assertThat(run("prepare-drives", "--yes")).isEqualTo(64);
        assertThat(err()).contains("--yes without --format DEV... (nothing to do)");
        err.reset();
        assertThat(run("prepare-drives", "--format", "/dev/null", "--label-prefix", "much-too-long"))
                .isEqualTo(64);
        assertThat(err()).contains("/dev/null is neither a block device nor an image file");
        err.reset();
        assertThat(run("prepare-drives", "--format")).isEqualTo(64);
        assertThat(err()).contains("--format: no device given");
    }

    @Test
    void aTooLongLabelPrefix_isABadArgument() throws IOException {
        Path img = blankImage(tmp.resolve("a.img"));
        assertThat(run(
                        "prepare-drives",
                        "--format",
                        img.toString(),
                        "--label-prefix",
                        "much-too-long",
                        "--root",
                        host().root().toString()))
                .isEqualTo(64);
        assertThat(err()).contains("--label-prefix: 'much-too-long' (expected at most 10 letters");
    }
}
