package dev.appliance.core.listing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sorted entry names of large directories, kept between listings and checked against the directory's modification
 * time, so that looking up one key among 100,000 siblings (Veeam's ListObjectVersions with a block key as prefix) is
 * a stat and a binary search instead of reading the whole directory.
 *
 * <p>Adding or removing an entry updates the directory's mtime, but file systems stamp it with a coarse clock, so two
 * changes a few milliseconds apart can carry the same stamp. A listing is therefore only kept when the directory had
 * been quiet for {@link #QUIET} before it was read: any later change then carries a newer stamp. Small directories
 * are not kept (reading them is cheap). The simple path ({@link #readSorted}) is what every uncached read uses, and a
 * test checks both agree.
 */
final class DirectoryNames {
    static final java.time.Duration QUIET = java.time.Duration.ofSeconds(1);
    private static final int MIN_CACHED = 1_000;
    private static final long MAX_CACHED_NAMES = 4_000_000;

    private record Listing(long mtimeNanos, String[] names) {}

    private static final Map<Path, Listing> CACHE = new LinkedHashMap<>(16, 0.75f, true);
    private static long cachedNames;

    private DirectoryNames() {}

    /** The names of {@code dir}'s entries in {@link String#compareTo} order; empty when it does not exist. */
    static String[] sorted(Path dir, Clock clock) throws IOException {
        long mtime;
        try {
            mtime = Files.readAttributes(dir, BasicFileAttributes.class)
                    .lastModifiedTime()
                    .to(java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (NoSuchFileException e) {
            return new String[0];
        }
        synchronized (CACHE) {
            Listing known = CACHE.get(dir);
            if (known != null && known.mtimeNanos == mtime) {
                return known.names;
            }
        }
        long readAt = clock.millis() * 1_000_000L;
        String[] names = readSorted(dir);
        boolean quiet = readAt - mtime >= QUIET.toNanos();
        if (quiet && names.length >= MIN_CACHED) {
            synchronized (CACHE) {
                Listing old = CACHE.put(dir, new Listing(mtime, names));
                cachedNames += names.length - (old == null ? 0 : old.names.length);
                var it = CACHE.entrySet().iterator();
                while (cachedNames > MAX_CACHED_NAMES && it.hasNext()) {
                    cachedNames -= it.next().getValue().names.length;
                    it.remove();
                }
            }
        }
        return names;
    }

    /** Reads the directory afresh. */
    static String[] readSorted(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path child : ds) {
                names.add(child.getFileName().toString());
            }
        } catch (NoSuchFileException e) {
            return new String[0];
        }
        String[] out = names.toArray(String[]::new);
        Arrays.sort(out);
        return out;
    }

    /** Index of the first name not below {@code from} (names starting with {@code from} follow from there). */
    static int lowerBound(String[] names, String from) {
        int i = Arrays.binarySearch(names, from);
        return i >= 0 ? i : -i - 1;
    }
}
