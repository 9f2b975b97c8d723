package dev.appliance.core.erasure;

import dev.appliance.core.BucketUsage;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Bucket usage, counted by walking every version of a bucket and kept in memory: a stale figure is answered at once
 * while a recount runs in the background, so readers never wait on a large bucket once it has been counted. This is
 * the seed of the background scanner, which will keep the same figures without being asked.
 */
final class UsageTracker {
    private static final Logger LOG = Logger.getLogger(UsageTracker.class.getName());
    private static final int PAGE = 1000;

    private final ObjectStore store;
    private final Executor executor;
    private final Clock clock;
    private final Map<String, BucketUsage> counted = new ConcurrentHashMap<>();
    private final Set<String> recounting = ConcurrentHashMap.newKeySet();
    private volatile Duration refresh = Duration.ofSeconds(60);

    UsageTracker(ObjectStore store, Executor executor, Clock clock) {
        this.store = store;
        this.executor = executor;
        this.clock = clock;
    }

    void refreshInterval(Duration interval) {
        this.refresh = interval;
    }

    BucketUsage usage(String bucket) {
        BucketUsage known = counted.get(bucket);
        if (known == null) {
            BucketUsage fresh = count(bucket);
            counted.put(bucket, fresh);
            return fresh;
        }
        boolean stale = !known.computedAt().plus(refresh).isAfter(clock.instant());
        if (stale && recounting.add(bucket)) {
            executor.execute(() -> {
                try {
                    counted.put(bucket, count(bucket));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "recounting the usage of bucket " + bucket + " failed", e);
                } finally {
                    recounting.remove(bucket);
                }
            });
        }
        return known;
    }

    void forget(String bucket) {
        counted.remove(bucket);
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
