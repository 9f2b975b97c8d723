package dev.appliance.installer.check;

import dev.appliance.core.engine.Stores;
import dev.appliance.installer.system.BlockDevice;
import dev.appliance.installer.system.FilesystemSpace;
import dev.appliance.installer.system.FstabEntry;
import dev.appliance.installer.system.Mount;
import dev.appliance.installer.system.SystemView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The data drives given with {@code --drives}: one check per rule over all of them, its measured value naming the
 * drives that fall short. A drive that is not a directory fails {@code drives.exist} and is left out of the rest.
 */
final class DriveChecks {
    private DriveChecks() {}

    /** Set sizes that split data and parity evenly (2+2, 4+4, 12+4) and keep whole sets per disk shelf. */
    static final Set<Integer> RECOMMENDED_SET_SIZES = Set.of(4, 8, 16);

    /** Drives of one set within this fraction of the largest count as equal (filesystems differ by their metadata). */
    static final double EQUAL_SIZE_TOLERANCE = 0.99;

    /** Free space or inodes below these fractions warn, and fail. */
    static final double LOW_FREE = 0.10;

    static final double NO_FREE = 0.02;

    private static final Set<String> VOLATILE_FILESYSTEMS = Set.of("tmpfs", "ramfs");

    static List<Check> run(SystemView view, List<DriveFacts> drives) {
        if (drives.isEmpty()) {
            return List.of(Check.of(
                    "drives",
                    Result.WARN,
                    "none given: the drive checks did not run",
                    "every data drive of this node given with --drives",
                    "run again with each data drive's mount point: --drives /mnt/disk1 /mnt/disk2 /mnt/disk3"
                            + " /mnt/disk4 ..."));
        }
        List<Check> checks = new ArrayList<>();
        checks.add(perDrive(
                "drives.exist",
                drives,
                d -> d.exists() ? ok() : new Verdict(Result.FAIL, "not a directory"),
                "every drive is a directory",
                "an existing directory on each mounted data disk",
                "mount each data disk (XFS, by label) and give its mount point, or a directory on it"));
        List<DriveFacts> present = drives.stream().filter(DriveFacts::exists).toList();
        checks.add(count(drives.size()));
        checks.add(distinct(present));
        checks.add(sizes(present));
        Optional<Mount> rootMount = Mount.holding(view.mounts(), Path.of("/"));
        Optional<BlockDevice> rootDevice = rootMount.flatMap(m -> view.blockDevice(m.device()));
        checks.add(perDrive(
                "drives.root-disk",
                present,
                d -> rootDisk(d, rootMount, rootDevice),
                "none on the root filesystem or disk",
                "each drive on its own disk, apart from the operating system's",
                "give each drive its own disk and mount it there: on the root filesystem a full drive stops the"
                        + " operating system, and the server refuses such drives without --allow-root-drives"));
        checks.add(perDrive(
                "drives.filesystem",
                present,
                DriveChecks::filesystem,
                "xfs on every drive",
                "xfs",
                "format the drive XFS and mount it (appliance-installer prepare-drives --format /dev/sdX, or"
                        + " mkfs.xfs -L diskN /dev/sdX): XFS is what the appliance is tested and tuned on; tmpfs loses"
                        + " everything at reboot"));
        checks.add(perDrive(
                "drives.noatime",
                present,
                d -> d.mount()
                        .map(m -> m.options().contains("noatime")
                                ? ok()
                                : new Verdict(Result.WARN, atimeMode(m) + " on " + m.mountPoint()))
                        .orElse(noMount()),
                "noatime on every drive",
                "mounted with noatime",
                "add noatime to the drive's options in /etc/fstab and mount -o remount,noatime MOUNTPOINT: every read"
                        + " otherwise writes the file's access time back to disk"));
        List<FstabEntry> fstab = view.fstab();
        checks.add(perDrive(
                "drives.fstab",
                present,
                d -> d.mount().map(m -> fstabVerdict(fstab, m)).orElse(noMount()),
                "every drive in /etc/fstab by label or UUID",
                "an /etc/fstab entry by LABEL= or UUID=",
                "write an /etc/fstab line per drive naming it LABEL=diskN or UUID=... (blkid shows both), never"
                        + " /dev/sdX, whose letters change when disks are added or fail: a drive mounted in another's"
                        + " place is refused, or missing after a reboot"));
        checks.add(perDrive(
                "drives.raid",
                present,
                d -> d.device().map(DriveChecks::layering).orElse(ok()),
                "plain disks (no RAID, LVM or mdraid)",
                "each drive a plain disk or partition",
                "give the appliance each physical disk on its own (an HBA, or the RAID controller in JBOD or"
                        + " pass-through mode; no LVM or mdraid): erasure coding across the drives is the redundancy,"
                        + " and a volume over several disks fails and heals as one"));
        checks.add(perDrive(
                "drives.free-space",
                present,
                d -> d.space()
                        .map(s -> freeVerdict(s.usableBytes(), s.totalBytes(), Sizes.decimal(s.usableBytes())))
                        .orElse(new Verdict(Result.WARN, "space unknown")),
                "at least " + percent(LOW_FREE) + " free on every drive",
                ">= " + percent(LOW_FREE) + " free (fail below " + percent(NO_FREE) + ")",
                "give the appliance empty disks, or free space on them: new writes need room on a write quorum"));
        checks.add(perDrive(
                "drives.inodes",
                present,
                d -> d.space().map(DriveChecks::inodeVerdict).orElse(new Verdict(Result.WARN, "inodes unknown")),
                "at least " + percent(LOW_FREE) + " of inodes free on every drive",
                ">= " + percent(LOW_FREE) + " of inodes free (fail below " + percent(NO_FREE) + ")",
                "every object version and part is a file: reformat with more inodes (XFS makes them on demand up to"
                        + " imaxpct: mkfs.xfs -i maxpct=...) or free some"));
        return checks;
    }

    /** One rule's verdict for one drive. */
    record Verdict(Result result, String detail) {}

    private static Verdict ok() {
        return new Verdict(Result.PASS, "");
    }

    private static Verdict noMount() {
        return new Verdict(Result.WARN, "no mount in /proc/self/mountinfo holds it");
    }

    /**
     * The worst verdict over the drives; the measured value lists the drives that fell short (or says all passed).
     */
    private static Check perDrive(
            String id,
            List<DriveFacts> drives,
            Function<DriveFacts, Verdict> judge,
            String allPass,
            String expected,
            String remediation) {
        return worstOf(
                id,
                drives,
                d -> d.given().toString(),
                judge,
                allPass + " (" + drives.size() + ")",
                expected,
                remediation);
    }

    /**
     * The worst verdict over {@code items}; the measured value names each item that fell short with why, or is
     * {@code allPassed} when none did.
     */
    static <T> Check worstOf(
            String id,
            List<T> items,
            Function<T, String> name,
            Function<T, Verdict> judge,
            String allPassed,
            String expected,
            String remediation) {
        Result worst = Result.PASS;
        List<String> shortfalls = new ArrayList<>();
        for (T item : items) {
            Verdict v = judge.apply(item);
            if (v.result() != Result.PASS) {
                shortfalls.add(name.apply(item) + ": " + v.detail());
                if (v.result().compareTo(worst) > 0) {
                    worst = v.result();
                }
            }
        }
        return Check.of(
                id, worst, shortfalls.isEmpty() ? allPassed : String.join("; ", shortfalls), expected, remediation);
    }

    static Check count(int drives) {
        int size = Stores.defaultSetSize(drives);
        String expected = "sets of 4, 8 or 16 drives";
        if (size < 0) {
            return Check.of(
                    "drives.count",
                    Result.FAIL,
                    drives + " drives: no equal sets of 2 to 16",
                    expected,
                    "give a number of drives that splits into equal sets of 4, 8 or 16 (4, 8, 12, 16, 24, 32 ...);"
                            + " the server refuses this count");
        }
        int sets = drives / size;
        return Check.of(
                "drives.count",
                RECOMMENDED_SET_SIZES.contains(size) ? Result.PASS : Result.WARN,
                drives + " drives: " + sets + (sets == 1 ? " set" : " sets") + " of " + size,
                expected,
                "add or leave out drives to reach sets of 4, 8 or 16: other sizes split data and parity unevenly"
                        + " (a set of " + size + " keeps " + (size / 2) + " parity shards at most)");
    }

    private static Check distinct(List<DriveFacts> drives) {
        Map<String, List<String>> byFilesystem = new LinkedHashMap<>();
        for (DriveFacts d : drives) {
            d.mount().ifPresent(m -> byFilesystem
                    .computeIfAbsent(m.device() + " at " + m.mountPoint(), k -> new ArrayList<>())
                    .add(d.given().toString()));
        }
        List<String> shared = new ArrayList<>();
        byFilesystem.forEach((fs, paths) -> {
            if (paths.size() > 1) {
                shared.add(String.join(", ", paths) + " share " + fs);
            }
        });
        return Check.of(
                "drives.distinct",
                shared.isEmpty() ? Result.PASS : Result.FAIL,
                shared.isEmpty()
                        ? "each drive on its own filesystem (" + drives.size() + ")"
                        : String.join("; ", shared),
                "each drive on its own filesystem",
                "give one directory per disk: drives that share a filesystem fail together, and the erasure set then"
                        + " loses more shards at once than its parity covers");
    }

    static Check sizes(List<DriveFacts> drives) {
        DriveFacts smallest = null;
        DriveFacts largest = null;
        for (DriveFacts d : drives) {
            if (d.space().isEmpty()) {
                continue;
            }
            long size = d.space().get().totalBytes();
            if (smallest == null || size < smallest.space().get().totalBytes()) {
                smallest = d;
            }
            if (largest == null || size > largest.space().get().totalBytes()) {
                largest = d;
            }
        }
        String expected = "equal sizes (the smallest within " + percent(1 - EQUAL_SIZE_TOLERANCE) + " of the largest)";
        String remediation = "use drives of one size: every drive of a set holds an equal share, so each is used only"
                + " up to the smallest one's size";
        if (smallest == null) {
            return Check.of("drives.sizes", Result.WARN, "sizes unknown", expected, remediation);
        }
        long min = smallest.space().get().totalBytes();
        long max = largest.space().get().totalBytes();
        boolean equal = min >= max * EQUAL_SIZE_TOLERANCE;
        String measured = equal
                ? Sizes.decimal(max) + " each"
                : "smallest " + smallest.given() + " " + Sizes.decimal(min) + ", largest " + largest.given() + " "
                        + Sizes.decimal(max);
        return Check.of("drives.sizes", equal ? Result.PASS : Result.WARN, measured, expected, remediation);
    }

    private static Verdict rootDisk(DriveFacts d, Optional<Mount> rootMount, Optional<BlockDevice> rootDevice) {
        if (d.mount().isEmpty()) {
            return noMount();
        }
        Mount m = d.mount().get();
        if (rootMount.isPresent() && rootMount.get().device().equals(m.device())) {
            return new Verdict(Result.FAIL, "on the root filesystem (" + m.device() + ")");
        }
        if (rootDevice.isPresent()
                && d.device().isPresent()
                && rootDevice.get().disk().equals(d.device().get().disk())) {
            return new Verdict(
                    Result.WARN,
                    "on the root disk " + rootDevice.get().disk() + " (partition "
                            + d.device().get().name() + ")");
        }
        return ok();
    }

    private static Verdict filesystem(DriveFacts d) {
        if (d.mount().isEmpty()) {
            return noMount();
        }
        String type = d.mount().get().fsType();
        if (type.equals("xfs")) {
            return ok();
        }
        if (VOLATILE_FILESYSTEMS.contains(type)) {
            return new Verdict(Result.FAIL, type + " (in memory: gone at reboot)");
        }
        return new Verdict(Result.WARN, type);
    }

    private static String atimeMode(Mount m) {
        for (String o : List.of("strictatime", "relatime", "lazytime")) {
            if (m.options().contains(o)) {
                return o;
            }
        }
        return "atime updates";
    }

    private static Verdict fstabVerdict(List<FstabEntry> fstab, Mount m) {
        FstabEntry entry = null;
        for (FstabEntry e : fstab) {
            if (e.mountPoint().equals(m.mountPoint())) {
                entry = e; // mount(8) uses the last entry for a mount point
            }
        }
        if (entry == null) {
            return new Verdict(Result.WARN, m.mountPoint() + " not in /etc/fstab (not mounted again after a reboot)");
        }
        return entry.byStableName() ? ok() : new Verdict(Result.WARN, m.mountPoint() + " by " + entry.spec());
    }

    private static Verdict layering(BlockDevice device) {
        if (device.layer().equals("dm-crypt")) {
            return ok(); // encryption at rest maps one disk to one device
        }
        if (!device.layer().isEmpty()) {
            return new Verdict(Result.WARN, "on " + device.layer() + " (" + device.name() + ")");
        }
        if (device.looksLikeHardwareRaid()) {
            return new Verdict(
                    Result.WARN,
                    device.disk() + " is '" + device.model() + "', a RAID controller's logical drive by its name");
        }
        return ok();
    }

    static Verdict freeVerdict(long free, long total, String shown) {
        if (total <= 0) {
            return new Verdict(Result.WARN, "size unknown");
        }
        double fraction = (double) free / total;
        String detail = shown + " free (" + percent(fraction) + ")";
        if (fraction < NO_FREE) {
            return new Verdict(Result.FAIL, detail);
        }
        return fraction < LOW_FREE ? new Verdict(Result.WARN, detail) : ok();
    }

    static Verdict inodeVerdict(FilesystemSpace s) {
        if (s.totalInodes() < 0) {
            return new Verdict(Result.WARN, "inodes unknown (statvfs unavailable)");
        }
        if (s.totalInodes() == 0) {
            return ok(); // the filesystem makes inodes on demand and reports none
        }
        return freeVerdict(s.freeInodes(), s.totalInodes(), s.freeInodes() + " inodes");
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }
}
