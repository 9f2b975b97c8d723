package dev.appliance.installer.system;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * One entry of {@code /etc/fstab}.
 *
 * @param spec what is mounted: {@code LABEL=disk1}, {@code UUID=...}, {@code /dev/sdb1}, ...
 * @param mountPoint where
 * @param fsType the filesystem type as written
 * @param options the mount options as written
 */
public record FstabEntry(String spec, Path mountPoint, String fsType, String options) {
    public FstabEntry {
        requireNonNull(spec, "spec");
        requireNonNull(mountPoint, "mountPoint");
        requireNonNull(fsType, "fsType");
        requireNonNull(options, "options");
    }

    /** Empty for a comment, a blank line or a line of fewer than three fields. */
    static Optional<FstabEntry> parse(String line) {
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("#")) {
            return Optional.empty();
        }
        String[] f = s.split("\\s+");
        if (f.length < 3 || !f[1].startsWith("/")) {
            return Optional.empty();
        }
        return Optional.of(new FstabEntry(
                Mount.unescape(f[0]), Path.of(Mount.unescape(f[1])), f[2], f.length > 3 ? f[3] : "defaults"));
    }

    /**
     * Whether the entry names its filesystem by something that stays the same when disks are added, removed or
     * enumerated in another order: a label or UUID, or a {@code /dev/disk/by-*} link (not {@code /dev/sdb1}).
     */
    public boolean byStableName() {
        return spec.startsWith("LABEL=")
                || spec.startsWith("UUID=")
                || spec.startsWith("PARTUUID=")
                || spec.startsWith("PARTLABEL=")
                || spec.startsWith("/dev/disk/by-");
    }
}
