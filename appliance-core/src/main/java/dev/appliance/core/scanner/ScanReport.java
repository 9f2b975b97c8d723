package dev.appliance.core.scanner;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One completed scanner cycle.
 *
 * @param cycle the cycle's number since the store opened (1 for the first)
 * @param started when the cycle began
 * @param finished when it ended
 * @param buckets per bucket, by name
 * @param drives per drive, in the store's drive order
 */
public record ScanReport(
        long cycle, Instant started, Instant finished, Map<String, BucketScan> buckets, List<DriveScan> drives) {
    public ScanReport {
        requireNonNull(started, "started");
        requireNonNull(finished, "finished");
        buckets = Map.copyOf(buckets);
        drives = List.copyOf(drives);
    }

    /**
     * One bucket in one cycle. Usage figures are counted after the cycle's lifecycle actions.
     *
     * @param keys keys with at least one version or delete marker
     * @param objects keys whose current version is an object
     * @param versions object versions, current and noncurrent
     * @param deleteMarkers delete markers
     * @param bytes logical bytes of all object versions
     * @param incompleteUploads multipart uploads still open after the cycle
     * @param expiredCurrent current versions expired (a delete marker added, or removed in an unversioned bucket)
     * @param removedNoncurrent noncurrent versions and noncurrent delete markers removed
     * @param removedDeleteMarkers delete markers removed because no version was left behind them
     * @param abortedUploads incomplete multipart uploads aborted
     * @param skippedLocked versions due for removal but kept because of retention or legal hold
     * @param removalBatches removal batches run (each rewrites a key's metadata files once per drive)
     * @param largestBatch versions in the largest removal batch
     * @param versionsOfKeys versions and delete markers counted per key, summed (equals versions + deleteMarkers)
     * @param topKeys the keys with the most versions (delete markers included), most first
     * @param keysByVersions how many keys have how many versions (delete markers included): element {@code i} counts
     *     the keys with at most {@code VERSION_COUNT_BOUNDS[i]} versions and more than the bound before it; the last
     *     element (one past the bounds) counts the keys above the highest bound
     */
    public record BucketScan(
            String bucket,
            long keys,
            long objects,
            long versions,
            long deleteMarkers,
            long bytes,
            long incompleteUploads,
            long expiredCurrent,
            long removedNoncurrent,
            long removedDeleteMarkers,
            long abortedUploads,
            long skippedLocked,
            long removalBatches,
            long largestBatch,
            long versionsOfKeys,
            List<KeyVersions> topKeys,
            List<Long> keysByVersions) {
        public BucketScan {
            requireNonNull(bucket, "bucket");
            topKeys = List.copyOf(topKeys);
            keysByVersions = List.copyOf(keysByVersions);
            if (keysByVersions.size() != VERSION_COUNT_BOUNDS.size() + 1) {
                throw new IllegalArgumentException("keysByVersions: " + keysByVersions.size() + " counts (expected "
                        + (VERSION_COUNT_BOUNDS.size() + 1) + ")");
            }
        }
    }

    /**
     * The upper bounds of the versions-per-key classes of {@link BucketScan#keysByVersions}: few classes, so that the
     * distribution can be a metric without a label per key or per count.
     */
    public static final List<Long> VERSION_COUNT_BOUNDS = List.of(1L, 2L, 5L, 10L, 100L, 1_000L, 10_000L);

    /** The index into {@link BucketScan#keysByVersions} of a key with {@code versions} versions. */
    public static int versionClass(long versions) {
        for (int i = 0; i < VERSION_COUNT_BOUNDS.size(); i++) {
            if (versions <= VERSION_COUNT_BOUNDS.get(i)) {
                return i;
            }
        }
        return VERSION_COUNT_BOUNDS.size();
    }

    /** A key and how many versions (delete markers included) it had when it was scanned. */
    public record KeyVersions(String key, long versions) {}

    /**
     * One drive in one cycle.
     *
     * @param set the erasure set the drive belongs to (0-based)
     * @param online whether the drive answered
     * @param versions versions and delete markers placed on the drive's set (each drive holds a shard or the
     *     metadata of each)
     * @param shardBytes bytes of shard data the drive is expected to hold for them (checksums included)
     * @param totalBytes the drive's share of its file system
     * @param freeBytes free bytes of that share
     */
    public record DriveScan(
            String drive, int set, boolean online, long versions, long shardBytes, long totalBytes, long freeBytes) {}
}
