package dev.appliance.core.listing;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.naming.ObjectKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;

/**
 * Walks one drive's copy of a bucket in S3 key order (UTF-8 byte order), lazily, one directory at a time.
 *
 * <p>A directory holding {@code xl.meta} is an object; its other subdirectories are either its data directories
 * (UUID-named, without {@code xl.meta}) or keys further down. Directory entries are ordered by the key they stand for
 * ({@code name} for an object, {@code name/} for what lies below), so the walk emits keys already sorted. With
 * {@code collapse} set (delimiter {@code /}), a subdirectory below the prefix is emitted once as a common prefix
 * instead of being descended into; whether it holds anything worth listing is decided once, across drives, by the
 * caller.
 *
 * <p>Keys not starting with {@code prefix}, and keys and prefixes at or before {@code startAfter}, are skipped
 * without reading the directories that can only hold such keys.
 */
public final class DriveWalker implements Iterator<DriveWalker.Entry> {
    private static final Pattern UUID_NAME =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** A key, or with {@code commonPrefix} a collapsed directory ending in '/'. */
    public record Entry(String key, boolean commonPrefix) {}

    private final Path bucketDir;
    private final String prefix;
    private final String startAfter;
    private final boolean collapse;
    private final Deque<Iterator<Entry>> stack = new ArrayDeque<>();
    private Entry next;

    public DriveWalker(Path bucketDir, String prefix, String startAfter, boolean collapse) {
        this.bucketDir = requireNonNull(bucketDir, "bucketDir");
        this.prefix = prefix == null ? "" : prefix;
        this.startAfter = startAfter == null ? "" : startAfter;
        this.collapse = collapse;
        int slash = this.prefix.lastIndexOf('/');
        String base = slash < 0 ? "" : this.prefix.substring(0, slash + 1);
        if (base.isEmpty() || isSafeRelative(base)) {
            stack.push(children(base).iterator());
            // The folder object named by the base itself ("a/" lives in "a__XLDIR__", beside the directory "a").
            if (!base.isEmpty()) {
                Path folder = bucketDir.resolve(ObjectKeys.relativeDir(base)).resolve(LocalDrive.META_FILE);
                List<Entry> self = new ArrayList<>();
                if (Files.exists(folder)) {
                    addIfWanted(self, new Entry(base, false));
                }
                stack.push(self.iterator());
            }
        }
    }

    private static boolean isSafeRelative(String base) {
        for (String seg : base.substring(0, base.length() - 1).split("/", -1)) {
            if (seg.isEmpty() || seg.equals(".") || seg.equals("..") || seg.indexOf('\0') >= 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean hasNext() {
        while (next == null && !stack.isEmpty()) {
            Iterator<Entry> top = stack.peek();
            if (!top.hasNext()) {
                stack.pop();
                continue;
            }
            Entry e = top.next();
            if (e.commonPrefix()) {
                String p = e.key();
                if (collapse) {
                    if (p.startsWith(prefix) && ObjectKeys.compare(p, startAfter) > 0) {
                        next = e;
                    } else if (prefix.startsWith(p) && !p.equals(prefix)) {
                        stack.push(children(p).iterator());
                    }
                } else if (ObjectKeys.compare(p, startAfter) >= 0 || startAfter.startsWith(p)) {
                    stack.push(children(p).iterator());
                }
            } else {
                next = e;
            }
        }
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Entry e = next;
        next = null;
        return e;
    }

    private Path dirOf(String relative) {
        return relative.isEmpty() ? bucketDir : bucketDir.resolve(relative.substring(0, relative.length() - 1));
    }

    /**
     * The entries of directory {@code base} (a key prefix ending in '/', or "" for the bucket), sorted by key; only
     * those that can still match the prefix and lie after startAfter.
     */
    private List<Entry> children(String base) {
        Path dir = dirOf(base);
        List<Entry> entries = new ArrayList<>();
        boolean isObjectDir = Files.exists(dir.resolve(LocalDrive.META_FILE));
        try {
            String[] names = DirectoryNames.sorted(dir, Clock.systemUTC());
            // Only names starting with the prefix's next segment below `base` can match.
            String head = "";
            if (prefix.length() > base.length() && prefix.startsWith(base)) {
                String rest = prefix.substring(base.length());
                int slash = rest.indexOf('/');
                head = slash < 0 ? rest : rest.substring(0, slash);
            }
            for (int i = DirectoryNames.lowerBound(names, head); i < names.length; i++) {
                String name = names[i];
                if (!name.startsWith(head)) {
                    break;
                }
                Path child = dir.resolve(name);
                if (!canMatch(base, name)) {
                    continue; // decided by name alone: a prefix lookup among many siblings costs no stat per sibling
                }
                if (!Files.isDirectory(child, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                boolean hasMeta = Files.exists(child.resolve(LocalDrive.META_FILE));
                if (isObjectDir && !hasMeta && UUID_NAME.matcher(name).matches()) {
                    continue; // a data directory of the object at `dir`
                }
                if (name.endsWith(ObjectKeys.DIR_SUFFIX)) {
                    if (hasMeta) {
                        addIfWanted(entries, new Entry(base + ObjectKeys.keyOfDirName(name), false));
                    }
                    continue;
                }
                if (hasMeta) {
                    addIfWanted(entries, new Entry(base + name, false));
                }
                String sub = base + name + "/";
                if (sub.startsWith(prefix) || prefix.startsWith(sub)) {
                    entries.add(new Entry(sub, true));
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        // Objects sort before the prefix of the same text ("a/" object before keys under "a/").
        entries.sort((x, y) -> {
            int c = ObjectKeys.compare(x.key(), y.key());
            return c != 0 ? c : Boolean.compare(x.commonPrefix(), y.commonPrefix());
        });
        return entries;
    }

    /** Whether entry {@code name} of directory {@code base} can be, or hold, a key under the prefix. */
    private boolean canMatch(String base, String name) {
        if (name.endsWith(ObjectKeys.DIR_SUFFIX)) {
            return (base + ObjectKeys.keyOfDirName(name)).startsWith(prefix);
        }
        String key = base + name;
        String sub = key + "/";
        return key.startsWith(prefix) || sub.startsWith(prefix) || prefix.startsWith(sub);
    }

    private void addIfWanted(List<Entry> entries, Entry e) {
        if (e.key().startsWith(prefix) && ObjectKeys.compare(e.key(), startAfter) > 0) {
            entries.add(e);
        }
    }
}
