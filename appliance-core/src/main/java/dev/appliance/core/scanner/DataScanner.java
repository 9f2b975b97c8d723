package dev.appliance.core.scanner;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.VersioningState;
import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.drive.DriveCalls.Outcome;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.erasure.Placement;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecyclePreview;
import dev.appliance.core.listing.DriveWalker;
import dev.appliance.core.listing.MergedKeyWalk;
import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.TagsOf;
import dev.appliance.core.meta.VersionHeader;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.naming.VersionIds;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.usage.UsageTracker;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The background scanner: walks every bucket, key by key, applying lifecycle rules, counting usage (fed to the {@link
 * UsageTracker}, which quotas and SOSAPI capacity read) and counting versions per key. A cycle runs at most every
 * {@link #interval}; keys are scanned at most {@link #keysPerSecond} a second, and while clients keep the store busy
 * ({@link ForegroundLoad}) the scanner waits before each key (up to a second, so it never starves).
 *
 * <h2>One key</h2>
 *
 * The key's metadata is read from every drive of its set and its current version resolved by quorum; the versions are
 * then walked, newest first, from one drive that holds that current version (the headers of {@code xl.meta} and its
 * archive merged by time; one body decoded at a time), never collected into a list. What the rules remove is gathered
 * into batches of {@link #batchSize} versions (1000), or an eighth of the key's versions when that is more; each batch
 * is applied under the key's write lock after checking every version again by quorum (it must still exist, not be the
 * current version, and not be under retention or legal hold) and costs one rewrite of each metadata file per drive,
 * however many versions it holds. A rewrite copies what the files keep, so bounding the batches per key (at most 8,
 * plus one) keeps the cost per removed version constant as keys grow; the batch itself is a set of version ids, small
 * beside the key's metadata files. Expiring a current
 * version is decided again under the lock on the quorum's current version, so a write that raced the scan is never
 * hidden by the delete marker.
 */
public final class DataScanner implements Agent {
    private static final Logger LOG = Logger.getLogger(DataScanner.class.getName());
    static final int DEFAULT_BATCH = 1000;
    static final int DEFAULT_KEYS_PER_SECOND = 1000;
    static final int TOP_KEYS = 10;
    /** Batches a key's removals are spread over at most, once its versions exceed {@code 8 * batchSize}. */
    public static final int BATCHES_PER_KEY = 8;

    private final Buckets buckets;
    private final List<ErasureSet> sets;
    private final HealChecks healChecks;
    private final List<MultipartUploads> uploads;
    private final Placement placement;
    private final ForegroundLoad foreground;
    private final UsageTracker usage;
    private final Clock clock;
    private final Supplier<Instant> lockNow;
    private final ReentrantLock cycleLock = new ReentrantLock();
    private final AtomicLong cycles = new AtomicLong();

    public volatile Lifecycle lifecycle = new Lifecycle(Lifecycle.STANDARD_DAY);
    public volatile Duration interval = Duration.ofMinutes(1);
    public volatile int keysPerSecond = DEFAULT_KEYS_PER_SECOND;
    public volatile int batchSize = DEFAULT_BATCH;
    /**
     * Every key gets a heal check once every this many cycles (a different slice of the keys each cycle): its
     * metadata on every drive and each drive's part files (present, full size) are verified and repaired
     * (the object healer, light). 0 turns the sampling off.
     */
    public volatile int healSampleCycles = DEFAULT_HEAL_SAMPLE_CYCLES;
    /**
     * How often a whole cycle verifies every key deeply instead (every shard block's bitrot checksum read and
     * checked, damaged shards rebuilt); null (the default) never: a deep scan reads all data.
     */
    public volatile Duration deepScanInterval;

    /**
     * How many of a cycle's light heal checks also verify every block of the keys' parity shards (reads never touch
     * parity, so damaged parity would otherwise wait for a deep scan, which is off by default). Bounds the extra reads
     * of a cycle to this many keys' parity; 0 turns it off.
     */
    public volatile int parityChecksPerCycle = DEFAULT_PARITY_CHECKS_PER_CYCLE;
    /**
     * The last key ("bucket/key") whose parity a cycle checked: the next cycle goes on after it, so a budget smaller
     * than the keys due still reaches every key in turn. Empty again once a cycle got to the end within its budget.
     */
    private String parityCursor = "";

    static final int DEFAULT_PARITY_CHECKS_PER_CYCLE = 32;
    static final int DEFAULT_HEAL_SAMPLE_CYCLES = dev.appliance.core.admin.StoreAdmin.DEFAULT_HEAL_SAMPLE_CYCLES;
    private volatile Instant lastDeepScan;
    private final HealFigures healFigures = new HealFigures();

    /** What the scanner's heal checks found since start. */
    public static final class HealFigures {
        public final AtomicLong checked = new AtomicLong();
        public final AtomicLong deepChecked = new AtomicLong();
        public final AtomicLong repaired = new AtomicLong();
        public final AtomicLong failed = new AtomicLong();
        public volatile Instant lastDeepScanStarted;
        public volatile Instant lastDeepScanFinished;
    }

    public HealFigures healFigures() {
        return healFigures;
    }

    /** Told of each completed cycle (the version-explosion alerts); its failure does not stop the scanner. */
    public volatile java.util.function.Consumer<ScanReport> afterCycle = report -> {};

    private volatile ScanReport last;
    private volatile long lastScheduledStart = Long.MIN_VALUE;

    /** The heal check of one key on its set (every version; {@code deep}: every shard read and verified). */
    @FunctionalInterface
    public interface HealChecks {
        HealResult check(int set, String bucket, String key, boolean deep, boolean parity);
    }

    /** What the scanner reads of the buckets it scans; the engine's bucket registry answers. */
    public interface Buckets {
        List<BucketInfo> listBuckets();

        /** The bucket's lifecycle rules; null when it has none. */
        LifecycleConfiguration lifecycleConfiguration(String bucket);

        VersioningState versioning(String bucket);
    }

    public DataScanner(
            Buckets buckets,
            List<ErasureSet> sets,
            HealChecks healChecks,
            List<MultipartUploads> uploads,
            Placement placement,
            ForegroundLoad foreground,
            UsageTracker usage,
            Clock clock,
            Supplier<Instant> lockNow) {
        this.buckets = buckets;
        this.sets = sets;
        this.healChecks = healChecks;
        this.uploads = uploads;
        this.placement = placement;
        this.foreground = foreground;
        this.usage = usage;
        this.clock = clock;
        this.lockNow = lockNow;
    }

    public ScanReport lastReport() {
        return last;
    }

    @Override
    public String roleName() {
        return "scanner";
    }

    /**
     * Runs a cycle when {@link #interval} has passed on the engine's clock since the last one this agent began (the
     * first at once); returns the cycles run (0 or 1). Cycles asked for by {@link #runCycle} do not move the schedule.
     */
    @Override
    public int doWork() throws InterruptedException {
        long now = clock.millis();
        long last = lastScheduledStart;
        if (last != Long.MIN_VALUE && now >= last && now - last < interval.toMillis()) {
            return 0;
        }
        lastScheduledStart = now;
        runCycle();
        return 1;
    }

    /** Runs one whole cycle now (a cycle already running is waited for first) and returns its report. */
    public ScanReport runCycle() throws InterruptedException {
        cycleLock.lockInterruptibly();
        try {
            Instant started = clock.instant();
            long cycle = cycles.incrementAndGet();
            Duration deepEvery = deepScanInterval;
            boolean deep =
                    deepEvery != null && (lastDeepScan == null || !started.isBefore(lastDeepScan.plus(deepEvery)));
            if (deep) {
                lastDeepScan = started;
                healFigures.lastDeepScanStarted = started;
            }
            HealCheck check = new HealCheck(cycle, deep);
            Map<String, ScanReport.BucketScan> buckets = new HashMap<>();
            long[] setVersions = new long[sets.size()];
            long[] setShardBytes = new long[sets.size()];
            Pacer pacer = new Pacer();
            for (BucketInfo b : this.buckets.listBuckets()) {
                try {
                    buckets.put(b.name(), scanBucket(b, setVersions, setShardBytes, pacer, check));
                } catch (StorageException e) {
                    if (e.kind() != ErrorKind.BUCKET_NOT_FOUND) {
                        LOG.log(Level.WARNING, "scanning bucket " + b.name() + " failed", e);
                    }
                }
            }
            if (deep) {
                healFigures.lastDeepScanFinished = clock.instant();
            }
            if (check.parityLeft > 0) {
                parityCursor = ""; // every key after the cursor was reached: start from the first one next time
            }
            ScanReport report =
                    new ScanReport(cycle, started, clock.instant(), buckets, drives(setVersions, setShardBytes));
            last = report;
            try {
                afterCycle.accept(report);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "after scanner cycle " + cycle, e);
            }
            return report;
        } finally {
            cycleLock.unlock();
        }
    }

    /** Spaces keys to the configured rate and steps aside while clients keep the store busy. */
    private final class Pacer {
        private long nextNanos = System.nanoTime();

        void beforeKey() throws InterruptedException {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("scanner stopping");
            }
            foreground.awaitQuiet(1000);
            int rate = keysPerSecond;
            if (rate <= 0) {
                return;
            }
            long now = System.nanoTime();
            if (nextNanos > now) {
                Thread.sleep(Duration.ofNanos(nextNanos - now));
            }
            nextNanos = Math.max(now, nextNanos) + 1_000_000_000L / rate;
        }
    }

    /** Figures of one bucket being scanned. */
    private static final class Tally {
        long keys;
        long objects;
        long versions;
        long markers;
        long bytes;
        long expiredCurrent;
        long removedNoncurrent;
        long removedMarkers;
        long abortedUploads;
        long incompleteUploads;
        long skippedLocked;
        long batches;
        long largestBatch;
        long versionsOfKeys;
        final long[] byVersions = new long[ScanReport.VERSION_COUNT_BOUNDS.size() + 1];
        final PriorityQueue<ScanReport.KeyVersions> top =
                new PriorityQueue<>((a, b) -> Long.compare(a.versions(), b.versions()));

        void key(String key, long count) {
            versionsOfKeys += count;
            byVersions[ScanReport.versionClass(count)]++;
            if (top.size() < TOP_KEYS) {
                top.add(new ScanReport.KeyVersions(key, count));
            } else if (top.peek().versions() < count) {
                top.poll();
                top.add(new ScanReport.KeyVersions(key, count));
            }
        }
    }

    /** Which keys of this cycle get a heal check, and how deep. */
    private final class HealCheck {
        final long cycle;
        final boolean deep;
        final int every = healSampleCycles;
        int parityLeft = parityChecksPerCycle;

        HealCheck(long cycle, boolean deep) {
            this.cycle = cycle;
            this.deep = deep;
        }

        boolean due(String bucket, String key) {
            if (deep) {
                return true;
            }
            if (every <= 0) {
                return false;
            }
            // a stable slice per key, so every key is checked once in `every` cycles
            return Math.floorMod((bucket + "/" + key).hashCode(), every) == cycle % every;
        }

        void run(ErasureSet set, String bucket, String key) {
            HealResult r;
            try {
                String name = bucket + "/" + key;
                boolean parity = !deep && parityLeft > 0 && name.compareTo(parityCursor) > 0;
                if (parity) {
                    parityLeft--;
                    parityCursor = name;
                }
                r = healChecks.check(sets.indexOf(set), bucket, key, deep, parity);
            } catch (RuntimeException e) {
                healFigures.failed.incrementAndGet();
                LOG.log(Level.FINE, "scanner heal check of " + bucket + "/" + key + " failed", e);
                return;
            }
            healFigures.checked.incrementAndGet();
            if (deep) {
                healFigures.deepChecked.incrementAndGet();
            }
            switch (r.status()) {
                case HEALED, PARTIAL -> healFigures.repaired.incrementAndGet();
                case FAILED -> healFigures.failed.incrementAndGet();
                default -> {}
            }
        }
    }

    private ScanReport.BucketScan scanBucket(
            BucketInfo b, long[] setVersions, long[] setShardBytes, Pacer pacer, HealCheck check)
            throws InterruptedException {
        String bucket = b.name();
        long writtenBefore = usage.writtenSoFar(bucket);
        Instant started = clock.instant();
        LifecycleConfiguration config = buckets.lifecycleConfiguration(bucket);
        Tally t = new Tally();
        for (int s = 0; s < sets.size(); s++) {
            ErasureSet set = sets.get(s);
            MergedKeyWalk walk = keyWalk(set, bucket);
            for (String key = walk.next(); key != null; key = walk.next()) {
                if (placement.setIndex(key, sets.size()) != s) {
                    continue; // a stray copy on the wrong set is not this key's data
                }
                pacer.beforeKey();
                if (check.due(bucket, key)) {
                    check.run(set, bucket, key); // before lifecycle: what expiry reads is then whole
                }
                try {
                    scanKey(set, s, bucket, key, config, t, setVersions, setShardBytes);
                } catch (StorageException e) {
                    LOG.log(Level.FINE, "scanner: key " + bucket + "/" + key + " skipped", e);
                }
            }
            for (MultipartUpload u : uploads.get(sets.indexOf(set)).list(bucket, "")) {
                Lifecycle.Expiry abort = config == null ? null : lifecycle.uploadAbort(config, u.key(), u.initiated());
                if (abort != null && !clock.instant().isBefore(abort.date())) {
                    try {
                        uploads.get(sets.indexOf(set)).abort(bucket, u.key(), u.uploadId());
                        t.abortedUploads++;
                        continue;
                    } catch (StorageException e) {
                        if (e.kind() == ErrorKind.NO_SUCH_UPLOAD) {
                            continue; // completed or aborted meanwhile
                        }
                        if (e.kind() != ErrorKind.WRITE_QUORUM && e.kind() != ErrorKind.READ_QUORUM) {
                            throw e;
                        }
                        // too many drives away to abort it now: the next cycle tries again (counted below)
                    }
                }
                t.incompleteUploads++;
            }
        }
        List<ScanReport.KeyVersions> top = new ArrayList<>(t.top);
        top.sort((x, y) -> Long.compare(y.versions(), x.versions()));
        usage.scanned(bucket, new BucketUsage(t.objects, t.versions, t.markers, t.bytes, started), writtenBefore);
        return new ScanReport.BucketScan(
                bucket,
                t.keys,
                t.objects,
                t.versions,
                t.markers,
                t.bytes,
                t.incompleteUploads,
                t.expiredCurrent,
                t.removedNoncurrent,
                t.removedMarkers,
                t.abortedUploads,
                t.skippedLocked,
                t.batches,
                t.largestBatch,
                t.versionsOfKeys,
                top,
                java.util.Arrays.stream(t.byVersions).boxed().toList());
    }

    private void scanKey(
            ErasureSet set,
            int setIndex,
            String bucket,
            String key,
            LifecycleConfiguration config,
            Tally t,
            long[] setVersions,
            long[] setShardBytes) {
        KeyRead read = readKey(set, bucket, key);
        if (read == null) {
            return;
        }
        ErasureSet.Resolved latest = read.latest();
        KeyFiles files = read.files();
        XlMeta archive = read.archive();
        boolean act = config != null && Lifecycle.mayApply(config, key);
        boolean tags = act && config.usesTags();
        Lifecycle.KeyPass pass = act ? lifecycle.pass(config, key, clock.instant()) : null;
        // A batch rewrites the key's files once per drive, copying what remains: with at most BATCHES_PER_KEY batches
        // per key the bytes copied per removed version stay the same whatever the key's size.
        long known = (long) files.hot().versionCount() + archive.versionCount();
        int limit =
                (int) Math.max(batchSize, Math.min(Integer.MAX_VALUE, (known + BATCHES_PER_KEY - 1) / BATCHES_PER_KEY));
        Set<UUID> batch = new LinkedHashSet<>();
        Removed removed = new Removed();
        long count = 0;
        long markers = 0;
        long versions = 0;
        long bytes = 0;
        long shardBytes = 0;
        boolean currentIsMarker = false;
        boolean expireCurrent = false;
        String currentRule = null;
        MergedVersions walk = new MergedVersions(files.hot(), archive);
        for (XlMeta.Pick p = walk.next(); p != null; p = walk.next()) {
            VersionHeader h = p.file().header(p.index());
            ObjectVersion v;
            try {
                v = p.file().version(p.index());
            } catch (CorruptMetaException e) {
                continue; // reported and repaired by healing; not counted here
            }
            boolean marker = h.isDeleteMarker();
            if (count == 0) {
                currentIsMarker = marker;
            }
            count++;
            if (marker) {
                markers++;
            } else {
                versions++;
                bytes += v.size();
                shardBytes += set.layoutOf(v).shardFileSize(v.size());
            }
            if (pass == null) {
                continue;
            }
            Lifecycle.Decision d = pass.next(lifecycleVersion(h, v, tags));
            switch (d.action()) {
                case EXPIRE_CURRENT -> {
                    expireCurrent = true;
                    currentRule = d.ruleId();
                }
                case REMOVE_NONCURRENT -> {
                    batch.add(h.versionId());
                    if (batch.size() >= limit) {
                        removeBatch(set, bucket, key, batch, removed, t);
                        batch.clear();
                    }
                }
                case KEEP -> {
                    // stays
                }
            }
        }
        if (!batch.isEmpty()) {
            removeBatch(set, bucket, key, batch, removed, t);
        }
        t.removedNoncurrent += removed.versions + removed.markers;
        count -= removed.versions + removed.markers;
        versions -= removed.versions;
        markers -= removed.markers;
        bytes -= removed.bytes;
        shardBytes -= removed.shardBytes;
        if (pass != null && currentIsMarker) {
            String rule = pass.lonelyMarker(count - 1);
            if (rule != null
                    && removeLoneMarker(set, bucket, key, latest.version().versionId())) {
                t.removedMarkers++;
                count--;
                markers--;
            }
        }
        boolean objectNow = !currentIsMarker;
        if (expireCurrent) {
            VersioningState versioning = buckets.versioning(bucket);
            ExpireResult r = expireCurrent(set, bucket, key, versioning, config);
            if (r != null) {
                t.expiredCurrent++;
                objectNow = false;
                if (r.markerAdded) {
                    count++;
                    markers++;
                }
                if (r.removedBytes >= 0) {
                    count--;
                    versions--;
                    bytes -= r.removedBytes;
                }
            }
            LOG.log(Level.FINE, "scanner: {0}/{1} expired by rule {2}", new Object[] {bucket, key, currentRule});
        }
        if (count <= 0) {
            return;
        }
        t.keys++;
        t.objects += objectNow ? 1 : 0;
        t.versions += versions;
        t.markers += markers;
        t.bytes += bytes;
        t.key(key, count);
        setVersions[setIndex] += count;
        setShardBytes[setIndex] += shardBytes;
    }

    /** A version as the lifecycle rules judge it; its tags are read only when a rule filters on them. */
    private static Lifecycle.Version lifecycleVersion(VersionHeader h, ObjectVersion v, boolean tags) {
        return new Lifecycle.Version(
                Instant.ofEpochSecond(0, h.modTimeNanos()),
                h.isDeleteMarker(),
                v.size(),
                tags ? TagsOf.parse(v.metadata().get(TagsOf.STORED_KEY)) : Map.of());
    }

    /** A key's current version resolved by quorum and the files of one drive that holds it. */
    private record KeyRead(ErasureSet.Resolved latest, KeyFiles files, XlMeta archive) {}

    /** The key read as the scan walks it; null when it is gone or no drive holding its current version answered. */
    private static KeyRead readKey(ErasureSet set, String bucket, String key) {
        ErasureSet.MetaSnapshot snap;
        ErasureSet.Resolved latest;
        // Under the key's read lock, as a GET: a write still committing holds the write lock and has its metadata on
        // only some drives yet, which must not be reported as a version missing from the others.
        try (var lock = set.locks.read(bucket, key)) {
            snap = set.new MetaSnapshot(bucket, key);
            latest = set.resolve(snap, null);
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.OBJECT_NOT_FOUND) {
                return null; // removed since the walk saw it, or only dangling metadata (the healer's)
            }
            throw e;
        }
        int ref = -1;
        for (int i = 0; i < latest.holders().length && ref < 0; i++) {
            if (latest.holders()[i] && snap.files[i] != null) {
                ref = i;
            }
        }
        if (ref < 0) {
            return null;
        }
        KeyFiles files = snap.files[ref];
        XlMeta archive;
        try {
            archive = files.archive();
        } catch (IOException | CorruptMetaException e) {
            archive = XlMeta.empty(); // the healer repairs it; the hot file alone is still scanned
        }
        return new KeyRead(latest, files, archive);
    }

    /**
     * What {@code config} would do to the bucket's versions and uploads if a cycle applied it now: the cycle's walk
     * and {@link Lifecycle}'s decisions, its lock checks and versioning cases, with every action counted instead of
     * taken. Nothing is written. Stops after {@code versionCap} versions and delete markers; holds one key's version
     * at a time and at most {@link LifecyclePreview#SAMPLES} samples per kind.
     */
    public LifecyclePreview preview(String bucket, LifecycleConfiguration config, int versionCap) {
        Preview p = new Preview(bucket, config, versionCap);
        for (int s = 0; s < sets.size() && !p.stopped; s++) {
            ErasureSet set = sets.get(s);
            MergedKeyWalk walk = keyWalk(set, bucket);
            for (String key = walk.next(); key != null && !p.stopped; key = walk.next()) {
                if (placement.setIndex(key, sets.size()) != s) {
                    continue;
                }
                try {
                    p.key(set, key);
                } catch (StorageException e) {
                    LOG.log(Level.FINE, "lifecycle preview: key " + bucket + "/" + key + " skipped", e);
                }
            }
        }
        for (MultipartUploads u : uploads) {
            for (MultipartUpload upload : u.list(bucket, "")) {
                Lifecycle.Expiry abort = p.rules.uploadAbort(config, upload.key(), upload.initiated());
                if (abort != null && !p.now.isBefore(abort.date())) {
                    p.aborted.add(new LifecyclePreview.Sample(upload.key(), upload.uploadId(), 0, abort.ruleId()));
                }
            }
        }
        return new LifecyclePreview(
                bucket,
                p.now,
                p.keys,
                p.examined,
                versionCap,
                p.stopped,
                p.expired.action(),
                p.noncurrent.action(),
                p.markers.action(),
                p.aborted.action(),
                p.locked.action(),
                p.bytesFreed);
    }

    /** One preview's walk: {@link #scanKey}'s decisions, counted. */
    private final class Preview {
        final String bucket;
        final LifecycleConfiguration config;
        final int cap;
        final Lifecycle rules = lifecycle;
        final Instant now = clock.instant();
        final Instant lockTime = lockNow.get();
        final VersioningState versioning;
        final LifecyclePreview.Counter expired = new LifecyclePreview.Counter();
        final LifecyclePreview.Counter noncurrent = new LifecyclePreview.Counter();
        final LifecyclePreview.Counter markers = new LifecyclePreview.Counter();
        final LifecyclePreview.Counter aborted = new LifecyclePreview.Counter();
        final LifecyclePreview.Counter locked = new LifecyclePreview.Counter();
        long keys;
        long examined;
        long bytesFreed;
        boolean stopped;

        Preview(String bucket, LifecycleConfiguration config, int cap) {
            this.bucket = bucket;
            this.config = config;
            this.cap = cap;
            this.versioning = buckets.versioning(bucket);
        }

        void key(ErasureSet set, String key) {
            KeyRead read = readKey(set, bucket, key);
            if (read == null) {
                return;
            }
            boolean act = Lifecycle.mayApply(config, key);
            boolean tags = act && config.usesTags();
            Lifecycle.KeyPass pass = act ? rules.pass(config, key, now) : null;
            long count = 0;
            long removed = 0;
            String currentMarkerId = null;
            boolean reached = false;
            MergedVersions walk = new MergedVersions(read.files().hot(), read.archive());
            for (XlMeta.Pick p = walk.next(); p != null; p = walk.next()) {
                if (examined >= cap) {
                    stopped = true;
                    return; // the key's rest is not examined, so its lone marker is not decided either
                }
                examined++;
                if (!reached) {
                    reached = true;
                    keys++;
                }
                VersionHeader h = p.file().header(p.index());
                ObjectVersion v;
                try {
                    v = p.file().version(p.index());
                } catch (CorruptMetaException e) {
                    continue; // as the cycle: healing's
                }
                boolean marker = h.isDeleteMarker();
                String id = VersionIds.format(h.versionId());
                if (count == 0 && marker) {
                    currentMarkerId = id;
                }
                count++;
                if (pass == null) {
                    continue;
                }
                Lifecycle.Decision d = pass.next(lifecycleVersion(h, v, tags));
                long size = marker ? 0 : v.size();
                LifecyclePreview.Sample sample = new LifecyclePreview.Sample(key, id, size, d.ruleId());
                switch (d.action()) {
                    case EXPIRE_CURRENT -> expireCurrent(v, sample);
                    case REMOVE_NONCURRENT -> {
                        if (!marker && isLocked(v)) {
                            locked.add(sample); // removeBatch's check
                        } else {
                            noncurrent.add(sample);
                            bytesFreed += size;
                            removed++;
                        }
                    }
                    case KEEP -> {
                        // stays
                    }
                }
            }
            if (pass != null && currentMarkerId != null) {
                String rule = pass.lonelyMarker(count - removed - 1);
                if (rule != null) {
                    markers.add(new LifecyclePreview.Sample(key, currentMarkerId, 0, rule));
                }
            }
        }

        /** {@link DataScanner#expireCurrent}'s cases: a marker on top, or (unversioned) removal unless locked. */
        private void expireCurrent(ObjectVersion v, LifecyclePreview.Sample sample) {
            switch (versioning) {
                case ENABLED -> expired.add(sample);
                case SUSPENDED -> {
                    expired.add(sample);
                    if (v.versionId().equals(ObjectVersion.NULL_VERSION_ID)) {
                        bytesFreed += v.size(); // the null marker replaces the null version
                    }
                }
                default -> {
                    if (isLocked(v)) {
                        locked.add(sample);
                    } else {
                        expired.add(sample);
                        bytesFreed += v.size();
                    }
                }
            }
        }

        private boolean isLocked(ObjectVersion v) {
            try {
                ObjectLock.checkRemovable(v.metadata(), lockTime, false);
                return false;
            } catch (StorageException e) {
                return true;
            }
        }
    }

    /** What one key's batches removed. */
    private static final class Removed {
        long versions;
        long markers;
        long bytes;
        long shardBytes;
    }

    /**
     * Removes a batch of noncurrent versions of one key under its write lock, each checked again by quorum; versions
     * under retention or legal hold stay (counted). One rewrite of each metadata file per drive for the whole batch.
     */
    private void removeBatch(
            ErasureSet set, String bucket, String key, Set<UUID> candidates, Removed removed, Tally t) {
        try (var lock = set.locks.write(bucket, key)) {
            ErasureSet.MetaSnapshot snap = set.new MetaSnapshot(bucket, key);
            UUID current;
            try {
                current = set.resolve(snap, null).version().versionId();
            } catch (StorageException e) {
                return;
            }
            Instant now = lockNow.get();
            List<Map<UUID, XlMeta.Pick>> held = heldPerDrive(set, snap, candidates);
            Set<UUID> ids = new HashSet<>();
            long bytes = 0;
            long shardBytes = 0;
            long markers = 0;
            for (UUID id : candidates) {
                if (id.equals(current)) {
                    continue;
                }
                XlMeta.Pick[] found = new XlMeta.Pick[held.size()];
                for (int i = 0; i < found.length; i++) {
                    found[i] = held.get(i).get(id);
                }
                ErasureSet.Resolved agreed = set.agree(snap, id, found);
                if (agreed == null) {
                    continue; // gone already, or without quorum: not ours to remove
                }
                ObjectVersion v = agreed.version();
                // A version's own retention and legal hold count whatever the bucket's configuration says.
                if (!v.isDeleteMarker()) {
                    try {
                        ObjectLock.checkRemovable(v.metadata(), now, false);
                    } catch (StorageException e) {
                        t.skippedLocked++;
                        continue;
                    }
                }
                ids.add(id);
                if (v.isDeleteMarker()) {
                    markers++;
                } else {
                    bytes += v.size();
                    shardBytes += set.layoutOf(v).shardFileSize(v.size());
                }
            }
            if (ids.isEmpty()) {
                return;
            }
            List<LocalDrive> drives = set.drives();
            boolean[] include = new boolean[drives.size()];
            for (int i = 0; i < include.length; i++) {
                include[i] = drives.get(i).isOnline();
            }
            @SuppressWarnings("unchecked")
            List<UUID>[] freed = new List[drives.size()];
            List<Outcome<KeyFiles.Change>> outcomes = set.calls.on(drives, include, (pos, drive) -> {
                List<UUID> dirs = new ArrayList<>();
                KeyFiles.Change c = KeyFiles.forUpdate(drive, bucket, key).removeAll(ids, dirs);
                freed[pos] = dirs;
                return c;
            });
            set.finishMutation(
                    bucket, key, ids.iterator().next(), include, outcomes, drives.size() / 2 + 1, "lifecycle removal");
            for (int i = 0; i < drives.size(); i++) {
                if (include[i] && outcomes.get(i).ok() && freed[i] != null) {
                    for (UUID dir : freed[i]) {
                        try {
                            drives.get(i)
                                    .moveToTrash(
                                            drives.get(i).objectDir(bucket, key).resolve(dir.toString()));
                        } catch (IOException e) {
                            // an unreferenced data dir is harmless and collected later
                        }
                    }
                }
            }
            t.batches++;
            t.largestBatch = Math.max(t.largestBatch, ids.size());
            removed.versions += ids.size() - markers;
            removed.markers += markers;
            removed.bytes += bytes;
            removed.shardBytes += shardBytes;
        }
    }

    /**
     * Where each drive holds the candidates: one pass over each drive's files per batch, so checking a batch costs the
     * same per version however many versions the key has (a lookup per version would scan the archive each time).
     */
    private static List<Map<UUID, XlMeta.Pick>> heldPerDrive(
            ErasureSet set, ErasureSet.MetaSnapshot snap, Set<UUID> candidates) {
        List<Map<UUID, XlMeta.Pick>> held = new ArrayList<>();
        for (int i = 0; i < set.drives().size(); i++) {
            Map<UUID, XlMeta.Pick> m = new HashMap<>();
            KeyFiles f = snap.files[i];
            if (f != null) {
                XlMeta archive;
                try {
                    archive = f.archive();
                } catch (IOException | CorruptMetaException e) {
                    archive = XlMeta.empty(); // this drive's archived copies do not count; healing repairs them
                }
                MergedVersions walk = new MergedVersions(f.hot(), archive);
                for (XlMeta.Pick p = walk.next(); p != null; p = walk.next()) {
                    UUID id = p.file().header(p.index()).versionId();
                    if (candidates.contains(id)) {
                        m.put(id, p);
                    }
                }
            }
            held.add(m);
        }
        return held;
    }

    /** Removes the key's only version, a delete marker, if it still is exactly that under the key's lock. */
    private boolean removeLoneMarker(ErasureSet set, String bucket, String key, UUID markerId) {
        try (var lock = set.locks.write(bucket, key)) {
            var all = set.versions(bucket, key);
            if (all.size() != 1
                    || !all.getFirst().deleteMarker()
                    || !all.getFirst().versionId().equals(VersionIds.format(markerId))) {
                return false;
            }
            set.removeVersion(bucket, key, markerId, set.drives().size() / 2 + 1);
            return true;
        }
    }

    /** What expiring a current version did: whether a marker was added, and the bytes removed (-1: none). */
    private record ExpireResult(boolean markerAdded, long removedBytes) {}

    /**
     * Expires the key's current version if, read again by quorum under the key's write lock, it is still an object
     * that a rule has expired: a delete marker in a versioned or suspended bucket, removal in an unversioned one.
     */
    private ExpireResult expireCurrent(
            ErasureSet set, String bucket, String key, VersioningState versioning, LifecycleConfiguration config) {
        try (var lock = set.locks.write(bucket, key)) {
            ObjectVersion v;
            try {
                v = set.resolve(bucket, key, null).version();
            } catch (StorageException e) {
                return null;
            }
            if (v.isDeleteMarker()) {
                return null;
            }
            Lifecycle.Expiry e = lifecycle.currentExpiry(
                    config,
                    key,
                    Instant.ofEpochSecond(0, v.modTimeNanos()),
                    v.size(),
                    TagsOf.parse(v.metadata().get(TagsOf.STORED_KEY)));
            if (e == null || clock.instant().isBefore(e.date())) {
                return null;
            }
            int quorum = set.drives().size() / 2 + 1;
            switch (versioning) {
                case ENABLED -> {
                    set.addDeleteMarker(bucket, key, UUID.randomUUID(), quorum);
                    return new ExpireResult(true, -1);
                }
                case SUSPENDED -> {
                    // the null delete marker replaces a null current version
                    set.addDeleteMarker(bucket, key, ObjectVersion.NULL_VERSION_ID, quorum);
                    boolean replaced = v.versionId().equals(ObjectVersion.NULL_VERSION_ID);
                    return new ExpireResult(true, replaced ? v.size() : -1);
                }
                default -> {
                    try {
                        // unversioned: removal destroys the version, so its own lock state is checked
                        ObjectLock.checkRemovable(v.metadata(), lockNow.get(), false);
                    } catch (StorageException locked) {
                        return null;
                    }
                    set.removeVersion(bucket, key, v.versionId(), quorum);
                    return new ExpireResult(false, v.size());
                }
            }
        }
    }

    /** One key's versions on one drive, newest first: {@code xl.meta} and its archive merged by modification time. */
    static final class MergedVersions {
        private final XlMeta hot;
        private final XlMeta archive;
        private int h;
        private int a;

        MergedVersions(XlMeta hot, XlMeta archive) {
            this.hot = hot;
            this.archive = archive;
        }

        XlMeta.Pick next() {
            while (a < archive.versionCount() && hot.indexOf(archive.header(a).versionId()) >= 0) {
                a++; // a crash between a batch move's renames leaves a copy in both: xl.meta's wins
            }
            boolean hasHot = h < hot.versionCount();
            boolean hasArchive = a < archive.versionCount();
            if (!hasHot && !hasArchive) {
                return null;
            }
            if (hasHot
                    && (!hasArchive
                            || hot.header(h).modTimeNanos() >= archive.header(a).modTimeNanos())) {
                return new XlMeta.Pick(hot, h++);
            }
            return new XlMeta.Pick(archive, a++);
        }
    }

    /** The keys of a bucket held by the set's drives in service, merged in key order. */
    private static MergedKeyWalk keyWalk(ErasureSet set, String bucket) {
        List<DriveWalker> walkers = new ArrayList<>();
        for (LocalDrive d : set.drives()) {
            if (d.isOnline() && Files.isDirectory(d.bucketDir(bucket))) {
                walkers.add(new DriveWalker(d.bucketDir(bucket), "", "", false));
            }
        }
        return new MergedKeyWalk(walkers);
    }

    private List<ScanReport.DriveScan> drives(long[] setVersions, long[] setShardBytes) {
        Map<FileStore, Integer> sharing = new HashMap<>();
        Map<LocalDrive, FileStore> storeOf = new HashMap<>();
        for (ErasureSet set : sets) {
            for (LocalDrive d : set.drives()) {
                try {
                    FileStore fs = Files.getFileStore(d.root());
                    storeOf.put(d, fs);
                    sharing.merge(fs, 1, Integer::sum);
                } catch (IOException e) {
                    // an unreadable drive reports no space
                }
            }
        }
        List<ScanReport.DriveScan> out = new ArrayList<>();
        for (int s = 0; s < sets.size(); s++) {
            for (LocalDrive d : sets.get(s).drives()) {
                long total = 0;
                long free = 0;
                FileStore fs = storeOf.get(d);
                if (fs != null) {
                    try {
                        total = fs.getTotalSpace() / sharing.get(fs);
                        free = fs.getUsableSpace() / sharing.get(fs);
                    } catch (IOException e) {
                        // as above
                    }
                }
                out.add(new ScanReport.DriveScan(
                        d.root().toString(), s, d.isOnline(), setVersions[s], setShardBytes[s], total, free));
            }
        }
        return out;
    }
}
