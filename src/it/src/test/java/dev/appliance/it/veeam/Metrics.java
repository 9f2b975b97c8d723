package dev.appliance.it.veeam;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Operations by type (count, failures, bytes, latency percentiles) and the workload's outcome counters. */
public final class Metrics {
    /** Each S3 operation the simulator issues, as it is counted in the summary. */
    public enum Op {
        LIST_BUCKETS("ListBuckets"),
        CREATE_BUCKET("CreateBucket"),
        HEAD_BUCKET("HeadBucket"),
        GET_BUCKET_LOCATION("GetBucketLocation"),
        GET_BUCKET_VERSIONING("GetBucketVersioning"),
        GET_OBJECT_LOCK_CONFIGURATION("GetObjectLockConfiguration"),
        SOSAPI_GET("GET SOSAPI xml"),
        SOSAPI_HEAD("HEAD SOSAPI xml"),
        PUT_FOLDER("PUT directory marker"),
        PUT_BLOCK("PUT block (VBR: sha256+MD5)"),
        PUT_BLOCK_AGENT("PUT block (SDK: chunked+CRC32)"),
        PUT_METADATA("PUT metadata/checkpoint"),
        HEAD_OBJECT("HeadObject"),
        GET_OBJECT("GetObject"),
        GET_ROLLBACK("GetObject versionId (rollback)"),
        GET_HEALTH_CHECK("GetObject (health check)"),
        GET_RETENTION("GetObjectRetention"),
        PUT_RETENTION("PutObjectRetention (no xmlns)"),
        DELETE_OBJECT("DeleteObject"),
        DELETE_OBJECTS("DeleteObjects"),
        LIST_OBJECTS_V2("ListObjectsV2"),
        LIST_OBJECT_VERSIONS("ListObjectVersions");

        final String label;

        Op(String label) {
            this.label = label;
        }
    }

    /** What the workload achieved; the IT asserts each Veeam behaviour was exercised. */
    public enum Count {
        FOLDERS_CREATED,
        BLOCKS_WRITTEN,
        /** short-lived writes whose date had passed before a loaded endpoint got to them: sent again, later */
        LATE_WRITES_RETRIED,
        CHECKPOINT_REWRITES,
        RETENTION_EXTENSIONS,
        GENERATION_ROLLOVERS,
        SHORTENINGS_REFUSED,
        ROLLBACK_READS,
        DELETE_MARKERS_ADDED,
        VERSIONS_DELETED,
        DELETE_MARKERS_REMOVED,
        LOCKED_DELETES_REFUSED,
        REPEATED_DELETES,
        FULL_DELETE_BATCHES,
        LISTINGS_COMPARED,
        BYTES_VERIFIED,
        VERSIONS_HEALTH_CHECKED
    }

    private static final class Stat {
        private long count;
        private long failures;
        private long bytes;
        private long[] nanos = new long[1024];

        synchronized void add(long elapsed, long b) {
            if (count == nanos.length) {
                nanos = Arrays.copyOf(nanos, nanos.length * 2);
            }
            nanos[(int) count++] = elapsed;
            bytes += b;
        }

        synchronized void failed() {
            failures++;
        }

        synchronized long[] sorted() {
            long[] s = Arrays.copyOf(nanos, (int) count);
            Arrays.sort(s);
            return s;
        }
    }

    private final Map<Op, Stat> stats = new EnumMap<>(Op.class);
    private final Map<Count, AtomicLong> counts = new EnumMap<>(Count.class);

    Metrics() {
        for (Op op : Op.values()) {
            stats.put(op, new Stat());
        }
        for (Count c : Count.values()) {
            counts.put(c, new AtomicLong());
        }
    }

    void record(Op op, long elapsedNanos, long bytes) {
        stats.get(op).add(elapsedNanos, bytes);
    }

    void failed(Op op) {
        stats.get(op).failed();
    }

    void add(Count c, long n) {
        counts.get(c).addAndGet(n);
    }

    long count(Count c) {
        return counts.get(c).get();
    }

    long ops(Op op) {
        synchronized (stats.get(op)) {
            return stats.get(op).count;
        }
    }

    long totalOps() {
        long n = 0;
        for (Op op : Op.values()) {
            n += ops(op);
        }
        return n;
    }

    /** The table printed at the end of a run. */
    String summary(Duration elapsed, long failures) {
        StringBuilder sb = new StringBuilder();
        double seconds = Math.max(elapsed.toMillis() / 1000.0, 0.001);
        sb.append(String.format(
                Locale.ROOT,
                "%-32s %8s %6s %10s %9s %9s %9s%n",
                "operation",
                "count",
                "errors",
                "MiB",
                "p50 ms",
                "p99 ms",
                "max ms"));
        long allOps = 0;
        long allBytes = 0;
        for (Op op : Op.values()) {
            Stat s = stats.get(op);
            long[] sorted = s.sorted();
            long failed;
            long bytes;
            synchronized (s) {
                failed = s.failures;
                bytes = s.bytes;
            }
            if (sorted.length == 0 && failed == 0) {
                continue;
            }
            allOps += sorted.length;
            allBytes += bytes;
            sb.append(String.format(
                    Locale.ROOT,
                    "%-32s %8d %6d %10.1f %9.1f %9.1f %9.1f%n",
                    op.label,
                    sorted.length,
                    failed,
                    bytes / 1048576.0,
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.99),
                    sorted.length == 0 ? 0.0 : sorted[sorted.length - 1] / 1e6));
        }
        sb.append(String.format(
                Locale.ROOT,
                "total: %d operations in %.1f s (%.0f ops/s), %.1f MiB moved (%.1f MiB/s)%n",
                allOps,
                seconds,
                allOps / seconds,
                allBytes / 1048576.0,
                allBytes / 1048576.0 / seconds));
        sb.append("outcomes:");
        for (Count c : Count.values()) {
            sb.append(' ').append(c.name().toLowerCase(Locale.ROOT)).append('=').append(count(c));
        }
        sb.append(System.lineSeparator());
        sb.append("verification failures: ").append(failures).append(System.lineSeparator());
        return sb.toString();
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(i, sorted.length - 1))] / 1e6;
    }
}
