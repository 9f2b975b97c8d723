package dev.appliance.installer.system;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One line of {@code /proc/self/mountinfo}.
 *
 * @param device the filesystem's device number, {@code major:minor}
 * @param mountPoint where it is mounted
 * @param options the per-mount options ({@code rw,noatime,...}), where {@code noatime} is set
 * @param fsType the filesystem type ({@code xfs}, {@code ext4}, {@code tmpfs}, ...)
 * @param source what was mounted ({@code /dev/sdb1}, or a name such as {@code tmpfs})
 */
public record Mount(String device, Path mountPoint, Set<String> options, String fsType, String source) {
    public Mount {
        requireNonNull(device, "device");
        requireNonNull(mountPoint, "mountPoint");
        options = Set.copyOf(options);
        requireNonNull(fsType, "fsType");
        requireNonNull(source, "source");
    }

    /**
     * Fields: id, parent id, major:minor, root within the filesystem, mount point, mount options, optional fields up
     * to a single {@code -}, then filesystem type, source, superblock options (proc(5)). Empty for a malformed line.
     */
    static Optional<Mount> parse(String line) {
        List<String> fields = List.of(line.strip().split(" +"));
        int separator = fields.indexOf("-");
        if (separator < 6 || fields.size() < separator + 3) {
            return Optional.empty();
        }
        return Optional.of(new Mount(
                fields.get(2),
                Path.of(unescape(fields.get(4))),
                Set.copyOf(Arrays.asList(fields.get(5).split(","))),
                fields.get(separator + 1),
                unescape(fields.get(separator + 2))));
    }

    /** The kernel writes a space, tab, newline and backslash in a path as an octal escape ({@code \040}). */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }

    /**
     * The mount that holds {@code path} (a real, absolute path): the one with the longest mount point above it, the
     * last of equals (a later mount hides an earlier one on the same point). Empty when none does.
     */
    public static Optional<Mount> holding(List<Mount> mounts, Path path) {
        Mount best = null;
        for (Mount m : mounts) {
            if (path.startsWith(m.mountPoint())
                    && (best == null
                            || m.mountPoint().getNameCount()
                                    >= best.mountPoint().getNameCount())) {
                best = m;
            }
        }
        return Optional.ofNullable(best);
    }
}
