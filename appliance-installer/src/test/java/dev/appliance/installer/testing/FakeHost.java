package dev.appliance.installer.testing;

import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.SysctlRule;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A host's {@code /proc}, {@code /sys} and {@code /etc} as real files under a temporary directory, for a {@link
 * SystemView} rooted there. {@link #healthy} lays out a machine that passes every rule but the drives'.
 */
public final class FakeHost {
    private final Path root;
    private final List<String> mountLines = new ArrayList<>();
    private HostTimeSync.State timeSync = HostTimeSync.State.SYNCHRONIZED;

    public FakeHost(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** 2 packages of 8 cores with 2 threads each, 64 GiB, no swap, THP madvise, tuned sysctls, tsc, 1048576 files. */
    public static FakeHost healthy(Path root) {
        FakeHost h = new FakeHost(root)
                .cpus(2, 8, 2, "fpu sse4_2 avx avx2 aes sha_ni avx512f")
                .memory(64L << 20, 0)
                .file("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never")
                .file("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc")
                .file("/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc hpet acpi_pm")
                .file("/proc/self/limits", """
                        Limit                     Soft Limit           Hard Limit           Units
                        Max open files            1048576              1048576              files
                        """);
        for (SysctlRule rule : SysctlRule.RECOMMENDED) {
            h.sysctl(rule.key(), rule.recommended().replace(' ', '\t')); // the kernel separates fields by tabs
        }
        h.mount(1, "8:1", Path.of("/"), "rw,relatime", "xfs", "/dev/sda1");
        h.networkInterface("eth0", 9000, true).networkInterface("eth1", 9000, true);
        return h;
    }

    public FakeHost file(String absolute, String content) {
        Path p = root.resolve(absolute.substring(1));
        try {
            Files.createDirectories(p.getParent());
            Files.writeString(p, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FakeHost remove(String absolute) {
        try {
            Files.deleteIfExists(root.resolve(absolute.substring(1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FakeHost sysctl(String key, String value) {
        return file("/proc/sys/" + key.replace('.', '/'), value + "\n");
    }

    /** {@code /proc/cpuinfo} for {@code packages × cores × threads} logical CPUs with the same flags. */
    public FakeHost cpus(int packages, int cores, int threads, String flags) {
        return cpus(packages, cores, threads, flags, "Test CPU @ 3.00GHz");
    }

    /** {@link #cpus(int, int, int, String)} of the given model name. */
    public FakeHost cpus(int packages, int cores, int threads, String flags, String model) {
        StringBuilder s = new StringBuilder();
        int processor = 0;
        for (int p = 0; p < packages; p++) {
            for (int t = 0; t < threads; t++) {
                for (int c = 0; c < cores; c++) {
                    s.append("processor\t: ").append(processor++).append('\n');
                    s.append("model name\t: ").append(model).append('\n');
                    s.append("physical id\t: ").append(p).append('\n');
                    s.append("core id\t\t: ").append(c).append('\n');
                    s.append("cpu cores\t: ").append(cores).append('\n');
                    s.append("flags\t\t: ").append(flags).append("\n\n");
                }
            }
        }
        return file("/proc/cpuinfo", s.toString());
    }

    /** {@code /proc/meminfo} with MemTotal and SwapTotal in KiB, as the kernel writes them. */
    public FakeHost memory(long memTotalKiB, long swapTotalKiB) {
        return file(
                "/proc/meminfo",
                "MemTotal:       " + memTotalKiB + " kB\nMemFree:         1024 kB\nSwapTotal:      " + swapTotalKiB
                        + " kB\nSwapFree:       " + swapTotalKiB + " kB\n");
    }

    /** Appends a line to {@code /proc/self/mountinfo} (the kernel's format, spaces in paths escaped). */
    public FakeHost mount(int id, String device, Path mountPoint, String options, String fsType, String source) {
        mountLines.add(id + " 1 " + device + " / " + mountPoint.toString().replace(" ", "\\040") + " " + options
                + " shared:" + id + " - " + fsType + " " + source + " rw,attr2,inode64");
        return file("/proc/self/mountinfo", String.join("\n", mountLines) + "\n");
    }

    /**
     * A block device in sysfs: {@code /sys/dev/block/MAJ:MIN} linked (relatively, as the kernel does) to {@code
     * /sys/devices/virtual/block/<path>}, with a {@code partition} file for a partition ({@code sdb/sdb1}).
     */
    public FakeHost blockDevice(String majorMinor, String path, boolean partition) {
        Path dir = root.resolve("sys/devices/virtual/block").resolve(path);
        Path link = root.resolve("sys/dev/block").resolve(majorMinor);
        try {
            Files.createDirectories(dir);
            if (partition) {
                Files.writeString(dir.resolve("partition"), "1\n");
            }
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, link.getParent().relativize(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** An interface in {@code /sys/class/net} that is up; a hardware one has a {@code device} link (here a directory). */
    public FakeHost networkInterface(String name, int mtu, boolean hardware) {
        file("/sys/class/net/" + name + "/mtu", mtu + "\n");
        file("/sys/class/net/" + name + "/operstate", "up\n");
        if (hardware) {
            try {
                Files.createDirectories(root.resolve("sys/class/net/" + name + "/device"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return this;
    }

    public FakeHost timeSync(HostTimeSync.State state) {
        this.timeSync = state;
        return this;
    }

    /** The check with this id; fails the test when there is none or more than one. */
    public static Check check(List<Check> checks, String id) {
        List<Check> found = checks.stream().filter(c -> c.id().equals(id)).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one check " + id + ", found " + found.size() + " in " + checks);
        }
        return found.getFirst();
    }

    public SystemView view() {
        HostTimeSync.State state = timeSync;
        return new SystemView(root, () -> state);
    }
}
