package dev.appliance.core.usage;

import dev.appliance.core.BucketUsage;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.StorageCapacity;
import dev.appliance.core.UsageTotals;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Bucket usage, counted by walking every version of a bucket and kept in memory: a stale figure (older than the
 * refresh interval, or changed by a write) is answered at once while a recount runs in the background, so readers never
 * wait on a large bucket once it has been counted, and see a write's effect within seconds. The background scanner
 * (in {@code scanner}) hands in its own counts of every bucket at each cycle ({@link #scanned}).
 */
public final class UsageTracker {
    private static final Logger LOG = Logger.getLogger(UsageTracker.class.getName());
    private static final int PAGE = 1000;
    /** Recounts after writes are at least this far apart, so a busy bucket is not walked over and over. */
    private static final Duration MIN_SPACING = Duration.ofSeconds(2);

    private final ObjectStore store;
    private final Executor executor;
    private final Clock clock;
    private final Map<String, BucketUsage> counted = new ConcurrentHashMap<>();
    private final Set<String> recounting = ConcurrentHashMap.newKeySet();
    private final Set<String> changed = ConcurrentHashMap.newKeySet();
    /** Bytes written into a bucket that its last count may not include (quota checks add them). */
    private final Map<String, java.util.concurrent.atomic.AtomicLong> written = new ConcurrentHashMap<>();

    private volatile Duration refresh = Duration.ofSeconds(60);

    public UsageTracker(ObjectStore store, Executor executor, Clock clock) {
        this.store = store;
        this.executor = executor;
        this.clock = clock;
    }

    public void refreshInterval(Duration interval) {
        this.refresh = interval;
    }

    public BucketUsage usage(String bucket) {
        BucketUsage known = counted.get(bucket);
        if (known == null) {
            BucketUsage fresh = count(bucket);
            counted.put(bucket, fresh);
            return fresh;
        }
        var now = clock.instant();
        boolean stale = !known.computedAt().plus(refresh).isAfter(now)
                || (changed.contains(bucket)
                        && !known.computedAt().plus(MIN_SPACING).isAfter(now));
        if (stale && recounting.add(bucket)) {
            changed.remove(bucket); // writes from here on make the next count stale again
            long before = writtenCounter(bucket).get();
            executor.execute(() -> {
                try {
                    counted.put(bucket, count(bucket));
                    // What was written before the count began is in it now; later writes may be counted twice
                    // until the next count, which errs towards the quota.
                    writtenCounter(bucket).addAndGet(-before);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "recounting the usage of bucket " + bucket + " failed", e);
                } finally {
                    recounting.remove(bucket);
                }
            });
        }
        return known;
    }

    /**
     * The sums of the last counts of {@code buckets}, starting no count: a bucket never counted is left out (the
     * scanner counts every bucket each cycle, {@link #usage} when one bucket is read), and a stale count is summed as it
     * is. Memory work only: an open dashboard asking every second must not set thousands of bucket walks going.
     */
    public UsageTotals totals(List<String> buckets) {
        long uncounted = 0;
        long objects = 0;
        long versions = 0;
        long markers = 0;
        long bytes = 0;
        Instant oldest = null;
        for (String bucket : buckets) {
            BucketUsage u = counted.get(bucket);
            if (u == null) {
                uncounted++;
                continue;
            }
            objects += u.objects();
            versions += u.versions();
            markers += u.deleteMarkers();
            bytes += u.bytes();
            if (oldest == null || u.computedAt().isBefore(oldest)) {
                oldest = u.computedAt();
            }
        }
        return new UsageTotals(buckets.size(), uncounted, objects, versions, markers, bytes, oldest);
    }

    /** A write changed the bucket: its next reader starts a recount (at most one per {@link #MIN_SPACING}). */
    public void changed(String bucket) {
        if (counted.containsKey(bucket)) {
            changed.add(bucket);
        }
    }

    /** A write added {@code bytes} to the bucket (as {@link #changed}, and counted until the next count has it). */
    public void added(String bucket, long bytes) {
        if (bytes > 0) {
            writtenCounter(bucket).addAndGet(bytes);
        }
        changed(bucket);
    }

    /**
     * Refuses a write of {@code bytes} (-1: unknown, refused only when the bucket is already full) that would take the
     * bucket past {@code quotaBytes} (null: no quota). Usage is the last count plus what was written since, so a quota
     * holds to within the writes in flight at once; deletes free room once the bucket is recounted (within seconds).
     */
    public void checkQuota(String bucket, Long quotaBytes, long bytes) {
        if (quotaBytes == null) {
            return;
        }
        long quota = quotaBytes;
        long used = bytesUpperBound(bucket);
        if (used + Math.max(bytes, 0) > quota || (bytes < 0 && used >= quota)) {
            throw new StorageException(
                    ErrorKind.QUOTA_EXCEEDED,
                    "Bucket " + bucket + " holds " + used + " bytes of its " + quota + "-byte quota; this write of "
                            + (bytes < 0 ? "unknown size" : bytes + " bytes")
                            + " would exceed it. Delete objects or raise the quota (admin API: PUT"
                            + " /api/v1/admin/buckets/" + bucket + "/settings).");
        }
    }

    /**
     * One erasure set as pool capacity sees it.
     *
     * @param dataShards the set's data shards (its drives less its parity)
     * @param onlineRoots the root directories of the set's drives that are online now
     */
    public record SetDrives(int dataShards, List<Path> onlineRoots) {
        public SetDrives {
            if (dataShards < 1) {
                throw new IllegalArgumentException("dataShards: " + dataShards + " (expected at least 1)");
            }
            onlineRoots = List.copyOf(Objects.requireNonNull(onlineRoots, "onlineRoots"));
        }
    }

    /**
     * Usable and free bytes of the pool after erasure overhead: per set its smallest drive share (a file system
     * divided among the drives on it) times its data shards, summed over the sets.
     */
    public static StorageCapacity capacity(List<SetDrives> sets) {
        return PoolCapacity.of(sets);
    }

    /** The bucket's counted bytes plus what was written since the count: at least what the bucket holds now. */
    public long bytesUpperBound(String bucket) {
        return usage(bucket).bytes() + writtenCounter(bucket).get();
    }

    private java.util.concurrent.atomic.AtomicLong writtenCounter(String bucket) {
        return written.computeIfAbsent(bucket, b -> new java.util.concurrent.atomic.AtomicLong());
    }

    /** Bytes written since the last count (a scan started now subtracts them once its count is in). */
    public long writtenSoFar(String bucket) {
        return writtenCounter(bucket).get();
    }

    /**
     * The background scanner counted the bucket (its cycle began when {@code writtenBefore} bytes had been written
     * since the previous count): its figures replace the tracker's.
     */
    public void scanned(String bucket, BucketUsage fresh, long writtenBefore) {
        BucketUsage known = counted.get(bucket);
        if (known != null && known.computedAt().isAfter(fresh.computedAt())) {
            return; // a recount that began later is already in
        }
        counted.put(bucket, fresh);
        // A recount that ran meanwhile may have subtracted some of the same bytes: never below zero.
        writtenCounter(bucket).updateAndGet(w -> Math.max(0, w - writtenBefore));
    }

    public void forget(String bucket) {
        counted.remove(bucket);
        changed.remove(bucket);
        written.remove(bucket);
    }

    /** Every version of the bucket, a page at a time (never the whole bucket in memory). */
    private BucketUsage count(String bucket) {
        var started = clock.instant();
        long objects = 0;
        long versions = 0;
        long markers = 0;
        long bytes = 0;
        String keyMarker = null;
        String versionMarker = null;
        while (true) {
            ListVersionsResult page = store.listObjectVersions(bucket, null, null, keyMarker, versionMarker, PAGE);
            for (ObjectInfo v : page.versions()) {
                if (v.deleteMarker()) {
                    markers++;
                } else {
                    versions++;
                    bytes += v.size();
                    if (v.latest()) {
                        objects++;
                    }
                }
            }
            if (!page.truncated()) {
                return new BucketUsage(objects, versions, markers, bytes, started);
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
    }
}
