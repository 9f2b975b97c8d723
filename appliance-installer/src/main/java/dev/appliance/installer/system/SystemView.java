package dev.appliance.installer.system;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.objectlock.HostTimeSync;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The machine as the checks see it. Every {@code /proc}, {@code /sys} and {@code /etc} file is read under {@link
 * #root()}: {@code /} on a real host, a temporary directory tree in tests, so a test lays out exactly the files a host
 * would have. Two facts do not come from that tree: the space on a data drive (its own filesystem, by path) and whether
 * the clock is synchronised, which is asked of the kernel exactly as the retention clock asks it ({@link
 * HostTimeSync}), so the preflight and Object Lock never disagree about it; tests hand in the state instead.
 */
public final class SystemView {
    private final Path root;
    private final Supplier<HostTimeSync.State> timeSync;

    public SystemView(Path root, Supplier<HostTimeSync.State> timeSync) {
        this.root = requireNonNull(root, "root");
        this.timeSync = requireNonNull(timeSync, "timeSync");
    }

    /** The real machine: files under {@code /}, the kernel's time state. */
    public static SystemView real() {
        return under(Path.of("/"));
    }

    /** Files under {@code root} (a chroot, an installation image), the running kernel's time state. */
    public static SystemView under(Path root) {
        return new SystemView(root, HostTimeSync::state);
    }

    public Path root() {
        return root;
    }

    /** Where the host's {@code absolute} path (e.g. {@code /proc/meminfo}) is under the root. */
    public Path file(String absolute) {
        if (!absolute.startsWith("/")) {
            throw new IllegalArgumentException(
                    "path: " + absolute + " (expected an absolute path such as /proc/meminfo)");
        }
        return root.resolve(absolute.substring(1));
    }

    /**
     * The file's text without surrounding whitespace; empty when it is absent or unreadable. Read through a buffered
     * reader, never {@code Files.readString}: a /proc file reports size 0, so that reads it a byte at a time, and the
     * kernel's integer sysctls answer a read at a non-zero offset with end of file ({@code 4194304} came back as
     * {@code 4}).
     */
    public Optional<String> read(String absolute) {
        try {
            return Optional.of(String.join("\n", Files.readAllLines(file(absolute), StandardCharsets.UTF_8))
                    .strip());
        } catch (IOException | SecurityException e) { // absent or unreadable: the check says "unknown"
            return Optional.empty();
        }
    }

    /** The file's lines; empty when it is absent or unreadable. */
    public List<String> lines(String absolute) {
        try {
            return Files.readAllLines(file(absolute), StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    /**
     * A kernel parameter as {@code sysctl} names it ({@code net.core.rmem_max}), read from {@code /proc/sys}; fields of
     * a multi-value parameter ({@code net.ipv4.tcp_rmem}) are joined by single spaces.
     */
    public Optional<String> sysctl(String key) {
        return read("/proc/sys/" + key.replace('.', '/')).map(v -> v.replaceAll("\\s+", " "));
    }

    /** {@code /proc/self/mountinfo}, in the kernel's order (a later mount on the same point hides an earlier one). */
    public List<Mount> mounts() {
        List<Mount> mounts = new ArrayList<>();
        for (String line : lines("/proc/self/mountinfo")) {
            Mount.parse(line).ifPresent(mounts::add);
        }
        return mounts;
    }

    /** The lines of the host's {@code /etc/fstab}. */
    public List<FstabEntry> fstab() {
        List<FstabEntry> entries = new ArrayList<>();
        for (String line : lines("/etc/fstab")) {
            FstabEntry.parse(line).ifPresent(entries::add);
        }
        return entries;
    }

    /** The block device behind {@code majorMinor} ({@code 8:17}), from {@code /sys/dev/block}; empty when unknown. */
    public Optional<BlockDevice> blockDevice(String majorMinor) {
        return BlockDevice.resolve(this, majorMinor);
    }

    /** The space and inodes of the filesystem holding {@code directory} (a real path, not under the root). */
    public FilesystemSpace space(Path directory) throws IOException {
        return FilesystemSpace.of(directory);
    }

    public HostTimeSync.State timeSync() {
        return timeSync.get();
    }
}
