package dev.appliance.core.erasure;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.CompleteChecksum;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.DeleteResult;
import dev.appliance.core.ListObjectsResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.MultipartChecksum;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StorageCapacity;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.WriteConditions;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.bucket.BucketRecords;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.DriveHealStatus;
import dev.appliance.core.heal.HealQueue;
import dev.appliance.core.heal.HealQueueStatus;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.heal.MrfJournal;
import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.listing.DriveWalker;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.naming.BucketNames;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.naming.VersionIds;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.scanner.ScannerHealFigures;
import dev.appliance.core.usage.UsageTracker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The erasure-coded {@link ObjectStore}: buckets exist on every drive, each object lives in the one erasure set its key
 * hashes to, and listings merge the sorted walks of every drive. It is also the operator's {@link
 * dev.appliance.core.admin.StoreAdmin}; callers outside the engine get it as an {@link ApplianceStore} from {@code
 * engine.Stores.open}.
 */
public final class ErasureObjectStore implements ApplianceStore {
    private final Topology topology;
    private final List<ErasureSet> sets;
    private final List<LocalDrive> allDrives;
    private final Placement placement;
    private final ExecutorService executor;
    private final DriveCalls calls;
    private final HealQueue heal;
    private final ForegroundLoad foreground = new ForegroundLoad();
    private final MrfJournal journal;
    private final BackgroundHealer healer;
    /** How often trash is emptied: deletes free their space within this long. */
    static final java.time.Duration TRASH_PURGE_INTERVAL = java.time.Duration.ofSeconds(5);

    private final java.util.concurrent.ScheduledExecutorService trashPurger;
    private final List<ObjectHealer> objectHealers;
    private final DriveHealer driveHealer;
    private final DriveMonitor driveMonitor;
    private final ScheduledExecutorService driveChecks;
    /** How often drives are checked for removal, return and replacement (0: only at start and when asked). */
    static final long DRIVE_CHECK_SECONDS = Long.getLong("appliance.driveCheckSeconds", 10);

    private final NamespaceLocks bucketLocks = new NamespaceLocks();
    private final Map<String, BucketInfo> buckets = new ConcurrentHashMap<>();
    /** The bucket records on the drives, versioned and resolved by quorum; the maps here serve what they hold. */
    private final BucketRecords records;
    /** Users, keys, groups and policies on the drives; repaired with the bucket records. */
    private final dev.appliance.core.identity.IdentityStore identity;

    private final Map<String, Map<String, String>> bucketTags = new ConcurrentHashMap<>();
    private final Map<String, ObjectLockConfiguration> lockConfigs = new ConcurrentHashMap<>();
    private final Map<String, BucketSettings> bucketSettings = new ConcurrentHashMap<>();
    private final Map<String, LifecycleConfiguration> lifecycleConfigs = new ConcurrentHashMap<>();
    private final DataScanner scanner;
    private final VersionAlerts alerts;
    private final UsageTracker usage;
    private final Clock clock;
    private final RetentionClock retentionClock;
    private final ScheduledExecutorService clockSaver;
    /** Empties the drives' metadata journals behind the files they cover (a platform thread: syncfs is a foreign call). */
    private final ScheduledExecutorService metadataCheckpoints;

    /**
     * How often the metadata journals are checkpointed: bounds their size (a few seconds of rewrites) and the work a
     * restart after a power loss replays.
     */
    static final java.time.Duration METADATA_CHECKPOINT_INTERVAL = java.time.Duration.ofSeconds(5);

    /** The file on every drive that keeps the newest trusted time of the retention clock (epoch millis, decimal). */
    static final String RETENTION_CLOCK_FILE = "retention-clock";

    private ErasureObjectStore(Topology topology, Clock clock) {
        this(topology, clock, DriveHealer.Settings.DEFAULTS);
    }

    private ErasureObjectStore(Topology topology, Clock clock, DriveHealer.Settings driveHealSettings) {
        this.topology = topology;
        this.clock = clock;
        this.placement = new Placement(topology.format.deploymentId());
        this.executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("drive-io-", 0).factory());
        this.calls = new DriveCalls(executor, clock);
        this.usage = new UsageTracker(this, executor, clock);
        int setCount = topology.sets.size();
        java.util.function.ToIntFunction<String> setOfKey = key -> placement.setIndex(key, setCount);
        this.heal = new HealQueue(clock, setOfKey);
        NamespaceLocks locks = new NamespaceLocks();
        List<ErasureSet> s = new ArrayList<>();
        List<LocalDrive> all = new ArrayList<>();
        for (int i = 0; i < topology.sets.size(); i++) {
            s.add(new ErasureSet(i, topology.sets.get(i), topology.parity, placement, calls, locks, heal, clock));
            all.addAll(topology.sets.get(i));
        }
        this.sets = List.copyOf(s);
        this.allDrives = List.copyOf(all);
        this.records = new BucketRecords(allDrives, calls, clock, bucketLocks);
        this.identity =
                dev.appliance.core.identity.IdentityStore.open(allDrives, calls, clock, topology.config.identityKey());
        loadBuckets();
        repairBucketRecordsQuietly(); // copies left stale by drives that were away while settings changed
        // Heal reports of the previous run (a crash included) are pending again before anything new is reported.
        this.journal = new MrfJournal(topology.sets, calls, heal::liveEntries);
        List<List<MrfJournal.Entry>> loaded = new ArrayList<>();
        for (int i = 0; i < setCount; i++) {
            loaded.add(journal.load(i));
        }
        heal.attach(journal, loaded);
        journal.start();
        List<LocalDrive.ChangeMark> interrupted = reportInterruptedChanges();
        this.objectHealers =
                sets.stream().map(set -> new ObjectHealer(set, foreground)).toList();
        // Replaced drives are formatted into their slot now (and found later by the periodic check) and filled; a
        // drive whose fill was interrupted counts as filling before any heal runs.
        this.driveHealer = new DriveHealer(objectHealers, heal, foreground, new DriveHealerStore(), clock);
        driveHealer.settings(driveHealSettings);
        this.driveMonitor =
                new DriveMonitor(topology, objectHealers, driveHealer, clock, calls, () -> heal.makeAllDue());
        driveMonitor.check();
        settleInterruptedChanges(interrupted);
        reconcileUploadsQuietly(); // drives that returned while the store was stopped
        this.healer = new BackgroundHealer(heal, objectHealers, setOfKey, foreground);
        healer.start();
        driveHealer.start();
        this.driveChecks = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("drive-check").daemon().factory());
        if (DRIVE_CHECK_SECONDS > 0) {
            driveChecks.scheduleWithFixedDelay(
                    this::checkDrivesQuietly, DRIVE_CHECK_SECONDS, DRIVE_CHECK_SECONDS, TimeUnit.SECONDS);
        }
        this.scanner = new DataScanner(this, sets, placement, foreground, usage, clock, this::retentionNow);
        this.alerts = new VersionAlerts(new AlertSource(), allDrives, clock);
        scanner.afterCycle = report -> {
            alerts.scanned(report);
            repairBucketRecordsQuietly();
            reconcileUploadsQuietly(); // also what a missed drive return left
        };
        this.trashPurger = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                .name("trash-purger")
                .daemon()
                .priority(Thread.MIN_PRIORITY)
                .factory());
        trashPurger.scheduleWithFixedDelay(this::purgeTrash, 0, TRASH_PURGE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        this.retentionClock = new RetentionClock(clock, System::nanoTime, new DriveClockStore());
        RetentionClock.Status time = retentionClock.status();
        if (!time.forwardJumpNotBelievedAtStart().isZero()) {
            java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                    .warning("the system clock is " + time.forwardJumpNotBelievedAtStart()
                            + " further ahead of the last trusted time than the restart explains, and it is not"
                            + " NTP-synchronized: Object Lock keeps trusted time (" + time.trusted()
                            + ") and follows the monotonic clock from there; synchronize the clock with NTP");
        }
        this.clockSaver = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("retention-clock").daemon().factory());
        long every = RetentionClock.PERSIST_INTERVAL.toMillis();
        clockSaver.scheduleWithFixedDelay(retentionClock::saveIfDue, every, every, TimeUnit.MILLISECONDS);
        this.metadataCheckpoints = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("metadata-checkpoint").daemon().factory());
        long checkpointEvery = METADATA_CHECKPOINT_INTERVAL.toMillis();
        metadataCheckpoints.scheduleWithFixedDelay(
                this::checkpointMetadataJournals, checkpointEvery, checkpointEvery, TimeUnit.MILLISECONDS);
    }

    private void checkpointMetadataJournals() {
        for (LocalDrive d : allDrives) {
            var j = d.metadataJournal();
            if (j == null || !d.isOnline()) {
                continue;
            }
            try {
                j.checkpoint();
            } catch (IOException | RuntimeException e) {
                // The journal keeps its records (they stay replayable) and the next checkpoint tries again.
                java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                        .warning("metadata journal checkpoint on " + d.root() + " failed: " + e);
            }
        }
    }

    /**
     * Keys whose change a crash interrupted (their marks were in staging at start) are healed as a whole: the heal
     * removes a version that reached too few drives and data directories no version references. Journaled before trash
     * (which holds the old staging with the marks until then) may be purged.
     */
    private List<LocalDrive.ChangeMark> reportInterruptedChanges() {
        List<LocalDrive.ChangeMark> marks = new java.util.ArrayList<>();
        for (LocalDrive d : allDrives) {
            for (LocalDrive.ChangeMark m : d.interruptedChanges()) {
                heal.report(
                        m.bucket(), m.key(), "", "a change was under way on " + d.root() + " when the process stopped");
                marks.add(m);
            }
        }
        if (!marks.isEmpty()) {
            journal.flush();
        }
        return marks;
    }

    /**
     * Heals the keys of the changes a crash interrupted before anything is served: a version the crash left on fewer
     * drives than its write quorum is rolled forward (its missing shards rebuilt on every drive) when a read quorum
     * holds it, or back (removed) when it dangles, so an in-flight write is entirely there or entirely absent and does
     * not vanish later when one of its few drives goes away. A heal that cannot finish (drives away) stays queued; the
     * journaled items above are healed again by the background healer (and then found healthy).
     */
    private void settleInterruptedChanges(List<LocalDrive.ChangeMark> marks) {
        java.util.Set<String> done = new java.util.HashSet<>();
        for (LocalDrive.ChangeMark m : marks) {
            if (!done.add(m.bucket() + "/" + m.key())) {
                continue;
            }
            try {
                objectHealers.get(placement.setIndex(m.key(), sets.size())).heal(m.bucket(), m.key(), null, false);
            } catch (RuntimeException e) {
                // the queued item retries it
            }
        }
    }

    /** Deletes what was moved to trash (deleted versions, replaced data directories, old staging), on every drive. */
    private void purgeTrash() {
        for (LocalDrive d : allDrives) {
            if (d.isOnline()) {
                try {
                    d.purgeTrash();
                } catch (IOException | RuntimeException e) {
                    // tried again at the next round
                }
            }
        }
    }

    /** Keeps the retention clock's newest time on every drive; the newest copy wins at start. */
    private final class DriveClockStore implements RetentionClock.Store {
        @Override
        public long load() {
            long newest = Long.MIN_VALUE;
            for (LocalDrive d : allDrives) {
                if (!d.isOnline()) {
                    continue;
                }
                Path f = d.sysDir().resolve(RETENTION_CLOCK_FILE);
                try {
                    if (Files.exists(f)) {
                        newest = Math.max(
                                newest,
                                Long.parseLong(new String(Files.readAllBytes(f), StandardCharsets.US_ASCII).strip()));
                    }
                } catch (IOException | NumberFormatException e) {
                    // a damaged copy: the other drives decide
                }
            }
            return newest;
        }

        @Override
        public void save(long epochMillis) {
            byte[] text = Long.toString(epochMillis).getBytes(StandardCharsets.US_ASCII);
            for (LocalDrive d : allDrives) {
                if (d.isOnline()) {
                    try {
                        d.writeDurably(d.sysDir().resolve(RETENTION_CLOCK_FILE), text);
                    } catch (IOException e) {
                        // best effort: the other drives keep it
                    }
                }
            }
        }
    }

    private void checkDrivesQuietly() {
        try {
            if (!driveMonitor.check().isEmpty()) {
                repairBucketRecordsQuietly(); // a drive came back or was replaced: it may hold stale bucket records
                reconcileUploadsQuietly(); // ... and uploads aborted or completed while it was away
            }
        } catch (RuntimeException e) {
            java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                    .log(java.util.logging.Level.WARNING, "drive check failed", e);
        }
    }

    /** What the drive-heal agent reads and writes through the store. */
    private final class DriveHealerStore implements DriveHealer.Store {
        @Override
        public List<String> buckets() {
            return listBuckets().stream().map(BucketInfo::name).toList();
        }

        @Override
        public void restoreBucket(String bucket, LocalDrive drive) throws IOException {
            try (var lock = bucketLocks.read(bucket, "")) {
                records.restore(bucket, drive); // nothing when deleted meanwhile
            }
        }

        @Override
        public long estimatedKeys(int set) {
            long keys = 0;
            for (BucketInfo b : listBuckets()) {
                try {
                    BucketUsage u = usage.usage(b.name());
                    keys += u.objects() + u.deleteMarkers();
                } catch (RuntimeException e) {
                    return 0;
                }
            }
            return (keys + sets.size() - 1) / sets.size();
        }
    }

    /** The fill of every replaced drive since start (and of drives whose tracker says a fill is unfinished). */
    public List<DriveHealStatus> driveHeals() {
        return driveHealer.status();
    }

    /**
     * {@code healing} while a replaced drive is being filled, {@code faulty} while out of service for I/O errors or a
     * stall (until a probe succeeds), else {@code online} or {@code offline}.
     */
    public String driveState(LocalDrive drive) {
        if (!drive.isOnline()) {
            return drive.isFaulty() ? "faulty" : "offline";
        }
        return driveHealer.filling(drive) ? "healing" : "online";
    }

    /**
     * Removes, on every set, the upload directories that too few drives hold for the upload to exist (see {@link
     * MultipartUploads#reconcile}); returns how many.
     */
    int reconcileUploadsQuietly() {
        int removed = 0;
        for (ErasureSet s : sets) {
            try {
                removed += s.multipart().reconcile();
            } catch (RuntimeException e) {
                java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                        .log(java.util.logging.Level.WARNING, "reconciling multipart uploads failed", e);
            }
        }
        return removed;
    }

    /** Checks the drives now (tests; the store also checks every {@link #DRIVE_CHECK_SECONDS} seconds). */
    List<String> checkDrives() {
        List<String> events = driveMonitor.check();
        if (!events.isEmpty()) {
            repairBucketRecordsQuietly();
            reconcileUploadsQuietly();
        }
        return events;
    }

    DriveHealer driveHealer() {
        return driveHealer;
    }

    /** The drive calls' deadline and fault thresholds from now on (tests shorten them). */
    void driveCallSettings(DriveCalls.Settings settings) {
        calls.settings(settings);
    }

    /** The retention clock Object Lock is evaluated against. */
    public RetentionClock retentionClock() {
        return retentionClock;
    }

    @Override
    public Instant retentionNow() {
        return retentionClock.now();
    }

    /** Opens (formatting on first use) the drives of {@code config}; refuses with a message naming a bad drive. */
    public static ErasureObjectStore open(StoreConfig config) {
        try {
            return new ErasureObjectStore(Topology.load(config), config.clock());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the drives: " + e.getMessage(), e);
        }
    }

    /**
     * Makes every check {@link #open} makes on the drives (count, order, deployment, root filesystem, and on a first
     * start that each drive is present, empty and writable) without writing anything, so that a start refused for any
     * reason leaves the drives untouched. {@code missingAreNew}: directories that do not exist yet are new drives the
     * caller creates before {@link #open}.
     */
    public static void checkDrives(StoreConfig config, boolean missingAreNew) {
        try {
            Topology.check(config, missingAreNew);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the drives: " + e.getMessage(), e);
        }
    }

    /** As {@link #open(StoreConfig)}, with the drive-heal agent's timing set before it starts (tests). */
    static ErasureObjectStore open(StoreConfig config, DriveHealer.Settings driveHealSettings) {
        try {
            return new ErasureObjectStore(Topology.load(config), config.clock(), driveHealSettings);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the drives: " + e.getMessage(), e);
        }
    }

    public UUID deploymentId() {
        return topology.format.deploymentId();
    }

    /** Problems found with drives at start (missing, unformatted...), for the operator. */
    public List<String> startupWarnings() {
        return topology.warnings;
    }

    public int setCount() {
        return sets.size();
    }

    public int drivesPerSet() {
        return sets.getFirst().size();
    }

    public int parity() {
        return topology.parity;
    }

    public List<LocalDrive> drives() {
        return allDrives;
    }

    /**
     * Makes every heal waiting for its retry backoff due now (after drives came back, say), and returns how many
     * items are pending.
     */
    public int retryHealsNow() {
        return heal.makeAllDue();
    }

    /** Versions waiting to be healed. */
    public HealQueue healQueue() {
        return heal;
    }

    /** The heal queue's figures: pending, retrying, healed, failed, the last failures. */
    public HealQueueStatus healStatus() {
        return heal.status();
    }

    /**
     * Heals one version now ({@code versionId} null or empty: every version of the key) and says what was done; the
     * result is returned only once what it reports is on stable storage.
     */
    public HealResult heal(String bucket, String key, String versionId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        UUID id = versionId == null || versionId.isEmpty() ? null : VersionIds.parse(versionId);
        return objectHealers.get(placement.setIndex(key, sets.size())).heal(bucket, key, id);
    }

    /** The background healer (tests tune its timing and drain it). */
    BackgroundHealer healer() {
        return healer;
    }

    MrfJournal journal() {
        return journal;
    }

    ForegroundLoad foreground() {
        return foreground;
    }

    /** The per-key locks every set shares (tests hold one to stand for a write in progress). */
    dev.appliance.core.lock.NamespaceLocks keyLocks() {
        return sets.getFirst().locks;
    }

    ErasureSet setFor(String key) {
        return sets.get(placement.setIndex(key, sets.size()));
    }

    // ---------------------------------------------------------------------------------------------------- buckets

    private void loadBuckets() {
        for (BucketRecords.BucketRecord r : records.load().values()) {
            buckets.put(
                    r.name(),
                    new BucketInfo(
                            r.name(),
                            Instant.ofEpochMilli(r.createdMillis()),
                            VersioningState.valueOf(r.versioning())));
            if (r.tags() != null && !r.tags().isEmpty()) {
                bucketTags.put(r.name(), Map.copyOf(r.tags()));
            }
            if (r.objectLock() != null) {
                lockConfigs.put(r.name(), r.objectLock().toConfiguration());
            }
            if (r.lifecycle() != null && !r.lifecycle().isEmpty()) {
                try {
                    lifecycleConfigs.put(
                            r.name(),
                            new LifecycleConfiguration(r.lifecycle().stream()
                                    .map(BucketRecords.RuleRecord::toRule)
                                    .toList()));
                } catch (RuntimeException refused) {
                    java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                            .warning("bucket " + r.name() + ": stored lifecycle configuration refused, not applied: "
                                    + refused.getMessage());
                }
            }
            if (r.quotaBytes() != null || r.sosapi() != null || r.versionAlertThreshold() != null) {
                bucketSettings.put(r.name(), new BucketSettings(r.quotaBytes(), r.sosapi(), r.versionAlertThreshold()));
            }
        }
    }

    private BucketInfo requireBucket(String bucket) {
        BucketInfo info = buckets.get(bucket);
        if (info == null) {
            if (!BucketNames.isValid(bucket)) {
                BucketNames.validate(bucket);
            }
            throw new StorageException(ErrorKind.BUCKET_NOT_FOUND, "The specified bucket does not exist: " + bucket);
        }
        return info;
    }

    @Override
    public void makeBucket(String bucket, boolean objectLock) {
        BucketNames.validate(bucket);
        try (var lock = bucketLocks.write(bucket, "")) {
            if (buckets.containsKey(bucket)) {
                throw new StorageException(
                        ErrorKind.BUCKET_ALREADY_OWNED,
                        "Your previous request to create the named bucket succeeded and you already own it.");
            }
            BucketInfo info = new BucketInfo(
                    bucket,
                    Instant.ofEpochMilli(clock.millis()),
                    objectLock ? VersioningState.ENABLED : VersioningState.UNVERSIONED);
            if (objectLock) {
                lockConfigs.put(bucket, ObjectLockConfiguration.ENABLED);
            }
            try {
                writeBucketRecord(info, true);
            } catch (RuntimeException e) {
                lockConfigs.remove(bucket);
                throw e;
            }
            buckets.put(bucket, info);
        }
    }

    private void writeBucketRecord(BucketInfo info, boolean createDir) {
        records.write(bucketRecord(info), createDir);
    }

    /**
     * Rewrites missing, damaged and stale bucket records on every drive in service (after start, when a drive returns
     * or is replaced, after each scanner cycle); returns how many copies were rewritten.
     */
    int repairBucketRecords() {
        return records.repair();
    }

    private void repairBucketRecordsQuietly() {
        try {
            records.repair();
        } catch (RuntimeException e) {
            java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                    .log(java.util.logging.Level.WARNING, "bucket record repair failed; tried again later", e);
        }
        identity.repair(); // same triggers as the bucket records; never throws
    }

    @Override
    public dev.appliance.core.identity.IdentityStore identity() {
        return identity;
    }

    private BucketRecords.BucketRecord bucketRecord(BucketInfo info) {
        return new BucketRecords.BucketRecord(
                info.name(),
                info.created().toEpochMilli(),
                info.versioning().name(),
                bucketTags.getOrDefault(info.name(), Map.of()),
                bucketSettings
                        .getOrDefault(info.name(), BucketSettings.DEFAULTS)
                        .quotaBytes(),
                bucketSettings
                        .getOrDefault(info.name(), BucketSettings.DEFAULTS)
                        .sosapi(),
                lockConfigs.containsKey(info.name()) ? BucketRecords.LockRecord.of(lockConfigs.get(info.name())) : null,
                lifecycleConfigs.containsKey(info.name())
                        ? lifecycleConfigs.get(info.name()).rules().stream()
                                .map(BucketRecords.RuleRecord::of)
                                .toList()
                        : null,
                bucketSettings
                        .getOrDefault(info.name(), BucketSettings.DEFAULTS)
                        .versionAlertThreshold());
    }

    private void requireMajority(List<? extends DriveCalls.Outcome<?>> outcomes, String what) {
        DriveCalls.requireQuorum(outcomes, allDrives.size() / 2 + 1, what);
    }

    @Override
    public void deleteBucket(String bucket) {
        requireBucket(bucket);
        try (var lock = bucketLocks.write(bucket, "")) {
            for (LocalDrive d : allDrives) {
                if (d.isOnline() && new DriveWalker(d.bucketDir(bucket), "", "", false).hasNext()) {
                    throw new StorageException(
                            ErrorKind.BUCKET_NOT_EMPTY, "The bucket you tried to delete is not empty.");
                }
            }
            // A tombstone, not a missing file: a drive away during the delete must not bring the bucket back.
            records.delete(bucket);
            buckets.remove(bucket);
            bucketTags.remove(bucket);
            lockConfigs.remove(bucket);
            bucketSettings.remove(bucket);
            lifecycleConfigs.remove(bucket);
            usage.forget(bucket);
        }
    }

    @Override
    public List<BucketInfo> listBuckets() {
        return buckets.values().stream()
                .sorted((a, b) -> ObjectKeys.compare(a.name(), b.name()))
                .toList();
    }

    @Override
    public BucketInfo bucketInfo(String bucket) {
        return requireBucket(bucket);
    }

    @Override
    public void setVersioning(String bucket, VersioningState state) {
        if (state == VersioningState.UNVERSIONED) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT,
                    "versioning can be Enabled or Suspended, never returned to unversioned");
        }
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo old = requireBucket(bucket);
            if (state != VersioningState.ENABLED && lockConfigs.containsKey(bucket)) {
                throw new StorageException(
                        ErrorKind.INVALID_BUCKET_STATE,
                        "An Object Lock configuration is present on this bucket, so the versioning state cannot be"
                                + " changed.");
            }
            BucketInfo updated = new BucketInfo(bucket, old.created(), state);
            writeBucketRecord(updated, false);
            buckets.put(bucket, updated);
        }
    }

    @Override
    public void setObjectLockConfiguration(String bucket, ObjectLockConfiguration config) {
        java.util.Objects.requireNonNull(config, "config");
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = requireBucket(bucket);
            if (info.versioning() != VersioningState.ENABLED) {
                throw new StorageException(
                        ErrorKind.INVALID_BUCKET_STATE,
                        "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration");
            }
            ObjectLockConfiguration before = lockConfigs.put(bucket, config);
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    lockConfigs.remove(bucket);
                } else {
                    lockConfigs.put(bucket, before);
                }
                throw e;
            }
        }
    }

    @Override
    public ObjectLockConfiguration objectLockConfiguration(String bucket) {
        requireBucket(bucket);
        return lockConfigs.get(bucket);
    }

    /**
     * The metadata a new version of {@code bucket} stores, Object Lock wise: explicit lock entries are checked (the
     * bucket must have lock enabled, mode and date go together, the date lies in the future). The bucket's default
     * retention is added later, at commit ({@link #withDefaultRetention}).
     */
    private Map<String, String> withLock(String bucket, Map<String, String> metadata) {
        ObjectLockConfiguration config = lockConfigs.get(bucket);
        boolean explicit = ObjectLock.hasLockEntries(metadata);
        if (config == null) {
            if (explicit) {
                throw new StorageException(ErrorKind.INVALID_REQUEST, "Bucket is missing Object Lock Configuration");
            }
            return metadata;
        }
        boolean hasMode = metadata.containsKey(ObjectLock.MODE_KEY);
        if (hasMode != metadata.containsKey(ObjectLock.RETAIN_UNTIL_KEY)) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT,
                    "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied");
        }
        if (hasMode) {
            ObjectLock.requireFuture(ObjectLock.retention(metadata).retainUntil(), retentionClock.now());
        }
        return metadata;
    }

    /**
     * The bucket's default retention added to {@code metadata} unless it names a retention of its own. As on S3 the
     * period counts from the version's creation, {@code modTime} (rounded up to the millisecond that retention dates
     * keep), or from trusted time when that is later (a wall clock set back); never from the start of the request, which would shorten it by
     * the upload's duration.
     */
    private Map<String, String> withDefaultRetention(String bucket, Map<String, String> metadata, Instant modTime) {
        ObjectLockConfiguration config = lockConfigs.get(bucket);
        if (config == null || !config.hasDefaultRetention() || metadata.containsKey(ObjectLock.MODE_KEY)) {
            return metadata;
        }
        Instant created = modTime.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        if (created.isBefore(modTime)) {
            created = created.plusMillis(1);
        }
        // The wall clock stamped the version; when it is behind trusted time (set back), move the start by as much.
        Instant trusted = retentionClock.now();
        java.time.Duration behind = java.time.Duration.between(clock.instant(), trusted);
        Instant start = behind.isNegative() || behind.isZero() ? created : created.plus(behind);
        return ObjectLock.withRetention(metadata, config.defaultRetention(start));
    }

    private void requireLockBucket(String bucket) {
        if (!lockConfigs.containsKey(bucket)) {
            throw new StorageException(ErrorKind.INVALID_REQUEST, "Bucket is missing Object Lock Configuration");
        }
    }

    @Override
    public ObjectInfo putObjectRetention(
            String bucket, String key, String versionId, Retention retention, boolean bypassGovernance) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        requireLockBucket(bucket);
        UUID id = versionId == null ? null : VersionIds.parse(versionId);
        return setFor(key).updateMetadata(bucket, key, id, old -> {
            Instant now = retentionClock.now();
            if (retention != null) {
                ObjectLock.requireFuture(retention.retainUntil(), now);
            }
            ObjectLock.checkRetentionChange(ObjectLock.retention(old), retention, now, bypassGovernance);
            return ObjectLock.withRetention(old, retention);
        });
    }

    @Override
    public ObjectInfo putObjectLegalHold(String bucket, String key, String versionId, boolean on) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        requireLockBucket(bucket);
        UUID id = versionId == null ? null : VersionIds.parse(versionId);
        return setFor(key).updateMetadata(bucket, key, id, old -> ObjectLock.withLegalHold(old, on));
    }

    @Override
    public void setBucketTags(String bucket, Map<String, String> tags) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = requireBucket(bucket);
            Map<String, String> before = bucketTags.get(bucket);
            if (tags.isEmpty()) {
                bucketTags.remove(bucket);
            } else {
                bucketTags.put(bucket, Map.copyOf(tags));
            }
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    bucketTags.remove(bucket);
                } else {
                    bucketTags.put(bucket, before);
                }
                throw e;
            }
        }
    }

    @Override
    public BucketSettings bucketSettings(String bucket) {
        requireBucket(bucket);
        return bucketSettings.getOrDefault(bucket, BucketSettings.DEFAULTS);
    }

    @Override
    public void setBucketSettings(String bucket, BucketSettings settings) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = requireBucket(bucket);
            BucketSettings before = bucketSettings.put(bucket, settings);
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    bucketSettings.remove(bucket);
                } else {
                    bucketSettings.put(bucket, before);
                }
                throw e;
            }
        }
    }

    @Override
    public void setLifecycleConfiguration(String bucket, LifecycleConfiguration config) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = requireBucket(bucket);
            LifecycleConfiguration before =
                    config == null ? lifecycleConfigs.remove(bucket) : lifecycleConfigs.put(bucket, config);
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    lifecycleConfigs.remove(bucket);
                } else {
                    lifecycleConfigs.put(bucket, before);
                }
                throw e;
            }
        }
    }

    @Override
    public LifecycleConfiguration lifecycleConfiguration(String bucket) {
        requireBucket(bucket);
        return lifecycleConfigs.get(bucket);
    }

    @Override
    public Lifecycle.Expiry expiration(ObjectInfo info) {
        LifecycleConfiguration config = lifecycleConfigs.get(info.bucket());
        if (config == null || !info.latest() || info.deleteMarker()) {
            return null;
        }
        return scanner.lifecycle.currentExpiry(
                config,
                info.key(),
                info.modTime(),
                info.size(),
                TagsOf.parse(info.userMetadata().get(TagsOf.STORED_KEY)));
    }

    /**
     * The length of a lifecycle "day" (24 hours by default): rules' Days count in it, rounded up to its multiples
     * since the epoch. Shorter for tests and demos only.
     */
    public void lifecycleDayLength(Duration day) {
        scanner.lifecycle = new Lifecycle(day);
    }

    public Duration lifecycleDayLength() {
        return scanner.lifecycle.day();
    }

    /** The most versions one key may have (default 10,000); a write beyond it is refused. */
    public void maxVersionsPerKey(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max versions per key: " + max + " (expected at least 1)");
        }
        for (ErasureSet s : sets) {
            s.maxVersions = max;
        }
    }

    public int maxVersionsPerKey() {
        return sets.getFirst().maxVersions;
    }

    /**
     * Tunes the background scanner: a cycle starts at most every {@code interval}; at most {@code keysPerSecond} keys
     * are scanned a second (0: unlimited).
     */
    public void scannerPace(Duration interval, int keysPerSecond) {
        if (interval.isNegative() || keysPerSecond < 0) {
            throw new IllegalArgumentException(
                    "scanner interval " + interval + " / keys per second " + keysPerSecond + " (expected >= 0)");
        }
        scanner.interval = interval;
        scanner.keysPerSecond = keysPerSecond;
    }

    /**
     * The scanner's heal checks: every key once in {@code sampleCycles} cycles (0: never), light (metadata on every
     * drive, part files present and whole); and every {@code deepInterval} (null: never) one cycle that verifies every
     * shard block's bitrot checksum of every key and rebuilds what is damaged.
     */
    public void scannerHealChecks(int sampleCycles, Duration deepInterval) {
        if (sampleCycles < 0 || deepInterval != null && (deepInterval.isNegative() || deepInterval.isZero())) {
            throw new IllegalArgumentException("heal sample cycles " + sampleCycles + " / deep scan interval "
                    + deepInterval + " (expected >= 0 / positive)");
        }
        scanner.healSampleCycles = sampleCycles;
        scanner.deepScanInterval = deepInterval;
    }

    public ScannerHealFigures scannerHealFigures() {
        var f = scanner.healFigures();
        return new ScannerHealFigures(
                f.checked.get(),
                f.deepChecked.get(),
                f.repaired.get(),
                f.failed.get(),
                scanner.healSampleCycles,
                scanner.deepScanInterval,
                f.lastDeepScanStarted,
                f.lastDeepScanFinished);
    }

    /** The scanner's heal check of one key, every version of it: light, or deep (every shard block verified). */
    /** How many light heal checks per scanner cycle also verify parity shards block by block (0: none). */
    void scannerParityChecks(int perCycle) {
        scanner.parityChecksPerCycle = Math.max(0, perCycle);
    }

    HealResult healForScanner(ErasureSet set, String bucket, String key, boolean deep, boolean parity) {
        return objectHealers.get(sets.indexOf(set)).heal(bucket, key, null, deep, parity);
    }

    /** Versions removed per batch (one metadata rewrite per drive); tests lower it. */
    void scannerBatchSize(int versions) {
        scanner.batchSize = Math.max(1, versions);
    }

    /**
     * Starts the background scanner's cycles and the version-explosion alerts' evaluations between them (the server
     * does; engine tests drive cycles with {@link #scanNow}).
     */
    public void startScanner() {
        scanner.start();
        Duration every =
                scanner.interval.compareTo(Duration.ofSeconds(10)) < 0 ? scanner.interval : Duration.ofSeconds(10);
        alerts.start(every.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : every);
    }

    /** Version-explosion alerts: listed and acknowledged by the admin API and the CLI (docs/alerts.md). */
    public VersionAlerts versionAlerts() {
        return alerts;
    }

    /** Feeds a new version of a versioned bucket to the alerts (delete markers are counted by the scanner). */
    private void versionAdded(BucketInfo bucket, ObjectInfo version) {
        if (bucket.versioning() == VersioningState.ENABLED) {
            alerts.versionAdded(bucket.name(), version.key(), version.etag());
        }
    }

    /** What the version-explosion alerts read from the store. */
    private final class AlertSource implements VersionAlerts.Source {
        @Override
        public boolean bucketExists(String bucket) {
            return buckets.containsKey(bucket);
        }

        @Override
        public int threshold(String bucket) {
            Integer t =
                    bucketSettings.getOrDefault(bucket, BucketSettings.DEFAULTS).versionAlertThreshold();
            return t == null ? VersionAlerts.DEFAULT_THRESHOLD : t;
        }

        @Override
        public LifecycleConfiguration lifecycle(String bucket) {
            return lifecycleConfigs.get(bucket);
        }

        @Override
        public Duration dayLength() {
            return scanner.lifecycle.day();
        }

        @Override
        public Duration scannerInterval() {
            return scanner.interval;
        }

        @Override
        public int maxVersionsPerKey() {
            return ErasureObjectStore.this.maxVersionsPerKey();
        }

        @Override
        public long metadataBytes(String bucket, String key) {
            for (LocalDrive d : setFor(key).drives()) {
                if (!d.isOnline()) {
                    continue;
                }
                Path dir = d.objectDir(bucket, key);
                long total = 0;
                for (String name : List.of(LocalDrive.META_FILE, KeyFiles.ARCHIVE_FILE)) {
                    try {
                        total += Files.size(dir.resolve(name));
                    } catch (IOException e) {
                        // no archive (or no copy here): counts as nothing
                    }
                }
                if (total > 0) {
                    return total;
                }
            }
            return -1;
        }

        @Override
        public int drivesPerSet() {
            return ErasureObjectStore.this.drivesPerSet();
        }
    }

    /** Runs one scanner cycle now and returns its report. */
    @Override
    public ScanReport scanNow() {
        try {
            return scanner.runCycle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorKind.INTERNAL, "interrupted while scanning", e);
        }
    }

    /**
     * The last completed scanner cycle, or null before the first: usage per bucket and drive, lifecycle actions, and
     * per bucket the keys with the most versions (for version-explosion alerts).
     */
    public ScanReport lastScan() {
        return scanner.lastReport();
    }

    @Override
    public BucketUsage bucketUsage(String bucket) {
        requireBucket(bucket);
        return usage.usage(bucket);
    }

    /**
     * Refuses a write of {@code bytes} (-1: unknown, refused only when the bucket is already full) that would take the
     * bucket past its quota. Usage is the last count plus what was written since, so a quota holds to within the
     * writes in flight at once; deletes free room once the bucket is recounted (within seconds).
     */
    private void checkQuota(String bucket, long bytes) {
        Long quota =
                bucketSettings.getOrDefault(bucket, BucketSettings.DEFAULTS).quotaBytes();
        if (quota == null) {
            return;
        }
        long used = usage.bytesUpperBound(bucket);
        if (used + Math.max(bytes, 0) > quota || (bytes < 0 && used >= quota)) {
            throw new StorageException(
                    ErrorKind.QUOTA_EXCEEDED,
                    "Bucket " + bucket + " holds " + used + " bytes of its " + quota + "-byte quota; this write of "
                            + (bytes < 0 ? "unknown size" : bytes + " bytes")
                            + " would exceed it. Delete objects or raise the quota (admin API: PUT"
                            + " /api/v1/admin/buckets/" + bucket + "/settings).");
        }
    }

    /** How old a bucket's usage may be before it is recounted in the background (default 60 s). */
    public void usageRefreshInterval(Duration interval) {
        usage.refreshInterval(interval);
    }

    /**
     * Usable bytes after erasure overhead. A drive's share of its file system is the file system divided among the
     * drives on it (several drive directories may share one disk, as in the default lab layout); a set holds its
     * smallest share times its data shards; the pool is the sum of its sets.
     */
    @Override
    public StorageCapacity capacity() {
        Map<FileStore, Integer> drivesPerStore = new HashMap<>();
        Map<LocalDrive, FileStore> storeOf = new HashMap<>();
        for (LocalDrive d : allDrives) {
            if (!d.isOnline()) {
                continue;
            }
            try {
                FileStore fs = Files.getFileStore(d.root());
                storeOf.put(d, fs);
                drivesPerStore.merge(fs, 1, Integer::sum);
            } catch (IOException e) {
                // an unreadable drive adds nothing
            }
        }
        long usable = 0;
        long free = 0;
        for (ErasureSet set : sets) {
            long minTotal = Long.MAX_VALUE;
            long minFree = Long.MAX_VALUE;
            int online = 0;
            for (LocalDrive d : set.drives()) {
                FileStore fs = storeOf.get(d);
                if (fs == null) {
                    continue;
                }
                try {
                    int sharing = drivesPerStore.get(fs);
                    minTotal = Math.min(minTotal, fs.getTotalSpace() / sharing);
                    minFree = Math.min(minFree, fs.getUsableSpace() / sharing);
                    online++;
                } catch (IOException e) {
                    // as above
                }
            }
            if (online >= set.data) {
                usable += minTotal * set.data;
                free += minFree * set.data;
            }
        }
        return new StorageCapacity(usable, free);
    }

    @Override
    public Map<String, String> bucketTags(String bucket) {
        requireBucket(bucket);
        return bucketTags.getOrDefault(bucket, Map.of());
    }

    @Override
    public ObjectInfo updateMetadata(
            String bucket,
            String key,
            String versionId,
            java.util.function.Predicate<String> keep,
            Map<String, String> entries) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return setFor(key).updateMetadata(bucket, key, versionId == null ? null : VersionIds.parse(versionId), old -> {
            java.util.TreeMap<String, String> next = new java.util.TreeMap<>();
            old.forEach((k, v) -> {
                if (keep.test(k)) {
                    next.put(k, v);
                }
            });
            next.putAll(entries);
            return next;
        });
    }

    @Override
    public VersioningState versioning(String bucket) {
        return requireBucket(bucket).versioning();
    }

    // ---------------------------------------------------------------------------------------------------- objects

    @Override
    public ObjectInfo putObject(String bucket, String key, PutRequest request, InputStream body) throws IOException {
        BucketInfo b = requireBucket(bucket);
        ObjectKeys.validate(key);
        DataDirCollisions.refuse(setFor(key), bucket, key);
        PutRequest locked = request.withUserMetadata(withLock(bucket, request.userMetadata()));
        checkQuota(bucket, request.size());
        ObjectInfo put;
        try (var busy = foreground.enter()) {
            put = setFor(key)
                    .put(
                            bucket,
                            key,
                            b.versioning(),
                            locked,
                            body,
                            (meta, modTime) -> withDefaultRetention(bucket, meta, modTime));
        }
        usage.added(bucket, put.size());
        versionAdded(b, put);
        return put;
    }

    @Override
    public ObjectInfo headObject(String bucket, String key, String versionId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return setFor(key).head(bucket, key, versionId == null ? null : VersionIds.parse(versionId));
    }

    @Override
    public ObjectReader getObject(String bucket, String key, String versionId, long offset, long length) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        ForegroundLoad.Ticket busy = foreground.enter();
        try {
            return new CountedReader(
                    setFor(key)
                            .open(bucket, key, versionId == null ? null : VersionIds.parse(versionId), offset, length),
                    busy);
        } catch (RuntimeException e) {
            busy.close();
            throw e;
        }
    }

    /** A reader that counts as foreground load until it is closed. */
    private record CountedReader(ObjectReader reader, ForegroundLoad.Ticket busy) implements ObjectReader {
        @Override
        public ObjectInfo info() {
            return reader.info();
        }

        @Override
        public long offset() {
            return reader.offset();
        }

        @Override
        public long length() {
            return reader.length();
        }

        @Override
        public void transferTo(java.io.OutputStream out) throws IOException {
            reader.transferTo(out);
        }

        @Override
        public void close() {
            try {
                reader.close();
            } finally {
                busy.close();
            }
        }
    }

    @Override
    public DeleteResult deleteObject(String bucket, String key, String versionId, boolean bypassGovernance) {
        BucketInfo b = requireBucket(bucket);
        ObjectKeys.validate(key);
        // a delete marker (or an unversioned delete) there would write into, or trash, another key's data directory
        DataDirCollisions.refuse(setFor(key), bucket, key);
        UUID id = versionId == null ? null : VersionIds.parse(versionId);
        // Checked whatever the bucket's configuration says: a version's own retention and legal hold protect it even
        // if the bucket's lock configuration were lost.
        java.util.function.Consumer<Map<String, String>> guard =
                meta -> ObjectLock.checkRemovable(meta, retentionClock.now(), bypassGovernance);
        DeleteResult deleted = setFor(key).delete(bucket, key, b.versioning(), id, guard);
        usage.changed(bucket);
        return deleted;
    }

    @Override
    public ObjectInfo copyObject(
            String sourceBucket,
            String sourceKey,
            String sourceVersionId,
            String bucket,
            String key,
            PutRequest request,
            Map<String, String> objectLock)
            throws IOException {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        DataDirCollisions.refuse(setFor(key), bucket, key);
        // The copy's lock state comes from the request (or the bucket's default), never from the source.
        withLock(bucket, objectLock);
        try (ObjectReader source = getObject(sourceBucket, sourceKey, sourceVersionId, 0, -1)) {
            ObjectInfo info = source.info();
            PutRequest put = request == null
                    ? new PutRequest(info.size(), info.contentType(), copiedMetadata(info.userMetadata()), null)
                    : new PutRequest(
                            info.size(),
                            request.contentType(),
                            copiedMetadata(request.userMetadata()),
                            null,
                            request.ifMatch(),
                            request.ifNoneMatchAny());
            Map<String, String> metadata = new TreeMap<>(put.userMetadata());
            metadata.putAll(objectLock);
            put = put.withUserMetadata(withLock(bucket, metadata));
            checkQuota(bucket, info.size());
            // The source is decoded block by block into a bounded pipe while the copy is encoded.
            try (InputStream in = source.openStream()) {
                ObjectInfo copy = setFor(key)
                        .put(
                                bucket,
                                key,
                                requireBucket(bucket).versioning(),
                                put,
                                in,
                                (meta, modTime) -> withDefaultRetention(bucket, meta, modTime));
                usage.added(bucket, copy.size());
                versionAdded(requireBucket(bucket), copy);
                return copy;
            }
        }
    }

    /**
     * The metadata a copy keeps: a composite checksum describes the source's parts, not the copy, which is one part, so
     * it is dropped; a full-object checksum stays true of the same bytes. Which upload made the source is not the
     * copy's to keep.
     */
    static Map<String, String> copiedMetadata(Map<String, String> source) {
        boolean composite = "COMPOSITE".equals(source.get(MultipartUploads.CHECKSUM_TYPE_KEY));
        Map<String, String> kept = new TreeMap<>();
        for (Map.Entry<String, String> e : source.entrySet()) {
            String name = e.getKey();
            if (!name.equals(MultipartUploads.CHECKSUM_TYPE_KEY)
                    && !name.equals(MultipartUploads.UPLOAD_ID_KEY)
                    && !ObjectLock.isLockEntry(name)
                    && !(composite && name.startsWith("x-amz-checksum-"))) {
                kept.put(name, e.getValue());
            }
        }
        return kept;
    }

    @Override
    public String createMultipartUpload(String bucket, String key, PutRequest request, MultipartChecksum checksum) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        DataDirCollisions.refuse(setFor(key), bucket, key);
        // Explicit lock settings are checked now and kept with the upload; the default retention is added at
        // completion.
        PutRequest locked = request.withUserMetadata(withLock(bucket, request.userMetadata()));
        return setFor(key).multipart().create(bucket, key, locked, checksum);
    }

    @Override
    public MultipartUpload multipartUpload(String bucket, String key, String uploadId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return MultipartUploads.describe(setFor(key).multipart().read(bucket, key, uploadId));
    }

    @Override
    public UploadedPart uploadPart(
            String bucket, String key, String uploadId, int partNumber, PutRequest request, InputStream body)
            throws IOException {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        checkQuota(bucket, request.size());
        try (var busy = foreground.enter()) {
            return setFor(key).multipart().uploadPart(bucket, key, uploadId, partNumber, request, body);
        }
    }

    @Override
    public ObjectInfo completeMultipartUpload(
            String bucket,
            String key,
            String uploadId,
            List<CompletedPart> parts,
            CompleteChecksum checksum,
            WriteConditions conditions) {
        BucketInfo b = requireBucket(bucket);
        ObjectKeys.validate(key);
        ObjectInfo done = setFor(key)
                .multipart()
                .complete(
                        bucket,
                        key,
                        uploadId,
                        parts,
                        checksum,
                        conditions,
                        b.versioning(),
                        (meta, modTime) -> withDefaultRetention(bucket, meta, modTime));
        usage.added(bucket, done.size());
        versionAdded(b, done);
        return done;
    }

    @Override
    public void abortMultipartUpload(String bucket, String key, String uploadId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        setFor(key).multipart().abort(bucket, key, uploadId);
    }

    @Override
    public List<UploadedPart> listParts(
            String bucket, String key, String uploadId, int partNumberMarker, int maxParts) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return setFor(key).multipart().listParts(bucket, key, uploadId, partNumberMarker, maxParts);
    }

    @Override
    public List<MultipartUpload> listMultipartUploads(String bucket, String prefix) {
        requireBucket(bucket);
        List<MultipartUpload> all = new ArrayList<>();
        for (ErasureSet s : sets) {
            all.addAll(s.multipart().list(bucket, prefix == null ? "" : prefix));
        }
        all.sort((a, b) -> {
            int c = ObjectKeys.compare(a.key(), b.key());
            if (c != 0) {
                return c;
            }
            c = a.initiated().compareTo(b.initiated());
            return c != 0 ? c : a.uploadId().compareTo(b.uploadId());
        });
        return all;
    }

    // ---------------------------------------------------------------------------------------------------- listing

    /** Merges every online drive's sorted walk into one stream of distinct entries. */
    private final class MergedWalk {
        private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> compareEntries(a.entry, b.entry));
        private DriveWalker.Entry last;

        private record Head(DriveWalker.Entry entry, DriveWalker walker) {}

        MergedWalk(String bucket, String prefix, String startAfter, boolean collapse) {
            for (LocalDrive d : allDrives) {
                if (d.isOnline()) {
                    DriveWalker w = new DriveWalker(d.bucketDir(bucket), prefix, startAfter, collapse);
                    if (w.hasNext()) {
                        heads.add(new Head(w.next(), w));
                    }
                }
            }
        }

        private static int compareEntries(DriveWalker.Entry a, DriveWalker.Entry b) {
            int c = ObjectKeys.compare(a.key(), b.key());
            return c != 0 ? c : Boolean.compare(a.commonPrefix(), b.commonPrefix());
        }

        DriveWalker.Entry next() {
            while (!heads.isEmpty()) {
                Head h = heads.poll();
                if (h.walker.hasNext()) {
                    heads.add(new Head(h.walker.next(), h.walker));
                }
                if (last == null || !last.equals(h.entry)) {
                    last = h.entry;
                    return h.entry;
                }
            }
            return null;
        }
    }

    /** The common prefix an entry rolls up into under the delimiter, or null when it stands for itself. */
    private static String rollUp(DriveWalker.Entry e, String prefix, String delimiter) {
        if (delimiter == null || delimiter.isEmpty()) {
            return null;
        }
        int at = e.key().indexOf(delimiter, prefix.length());
        return at < 0 ? null : e.key().substring(0, at + delimiter.length());
    }

    private static int clampMaxKeys(int maxKeys) {
        if (maxKeys < 0) {
            throw new StorageException(ErrorKind.INVALID_ARGUMENT, "max-keys: " + maxKeys + " (expected 0..1000)");
        }
        return Math.min(maxKeys, 1000);
    }

    @Override
    public ListObjectsResult listObjects(
            String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        requireBucket(bucket);
        int limit = clampMaxKeys(maxKeys);
        String p = prefix == null ? "" : prefix;
        String after = startAfter == null ? "" : startAfter;
        MergedWalk walk = new MergedWalk(bucket, p, after, "/".equals(delimiter));
        List<ObjectInfo> objects = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastReturned = null;
        boolean truncated = false;
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            String cp = e.commonPrefix() ? e.key() : rollUp(e, p, delimiter);
            if (cp != null) {
                if (cp.equals(lastReturned) || ObjectKeys.compare(cp, after) <= 0) {
                    continue;
                }
                // A prefix that holds only delete markers is not shown in a listing of current objects.
                boolean live = e.commonPrefix()
                        ? hasCurrentObject(bucket, cp)
                        : setFor(e.key()).latestObjectOrNull(bucket, e.key()) != null;
                if (!live) {
                    continue;
                }
                if (objects.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break;
                }
                prefixes.add(cp);
                lastReturned = cp;
                continue;
            }
            ObjectInfo info = setFor(e.key()).latestObjectOrNull(bucket, e.key());
            if (info == null) {
                continue;
            }
            if (objects.size() + prefixes.size() >= limit) {
                truncated = true;
                break;
            }
            objects.add(info);
            lastReturned = e.key();
        }
        return new ListObjectsResult(objects, prefixes, truncated, truncated ? lastReturned : null);
    }

    /** True when some key under {@code prefix} has a current version that is not a delete marker. */
    private boolean hasCurrentObject(String bucket, String prefix) {
        MergedWalk walk = new MergedWalk(bucket, prefix, "", false);
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            if (!e.commonPrefix() && setFor(e.key()).latestObjectOrNull(bucket, e.key()) != null) {
                return true;
            }
        }
        return false;
    }

    @Override
    public ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys) {
        requireBucket(bucket);
        int limit = clampMaxKeys(maxKeys);
        String p = prefix == null ? "" : prefix;
        String marker = keyMarker == null ? "" : keyMarker;
        boolean inMarkerKey = !marker.isEmpty() && versionIdMarker != null && !versionIdMarker.isEmpty();
        if (inMarkerKey && !VersionIds.NULL.equals(versionIdMarker)) {
            VersionIds.parse(versionIdMarker);
        }
        // Start just before the marker key when resuming inside its versions.
        String walkAfter = inMarkerKey ? beforeKey(marker) : marker;
        MergedWalk walk = new MergedWalk(bucket, p, walkAfter, "/".equals(delimiter));
        List<ObjectInfo> versions = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastPrefix = null;
        ObjectInfo lastVersion = null;
        boolean truncated = false;
        outer:
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            String cp = e.commonPrefix() ? e.key() : rollUp(e, p, delimiter);
            if (cp != null) {
                if (cp.equals(lastPrefix) || ObjectKeys.compare(cp, marker) <= 0) {
                    continue;
                }
                if (e.commonPrefix() && new MergedWalk(bucket, cp, "", false).next() == null) {
                    continue; // an empty directory left on the drives holds no key
                }
                if (versions.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break;
                }
                prefixes.add(cp);
                lastPrefix = cp;
                continue;
            }
            List<ObjectInfo> all = setFor(e.key()).versions(bucket, e.key());
            boolean skipping = inMarkerKey && e.key().equals(marker);
            if (!skipping && ObjectKeys.compare(e.key(), marker) <= 0) {
                continue;
            }
            for (ObjectInfo v : all) {
                if (skipping) {
                    skipping = !v.versionId().equals(versionIdMarker);
                    continue;
                }
                if (versions.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break outer;
                }
                versions.add(v);
                lastVersion = v;
            }
        }
        String nextKey = null;
        String nextVersion = null;
        if (truncated) {
            boolean prefixLast = lastPrefix != null
                    && (lastVersion == null || ObjectKeys.compare(lastPrefix, lastVersion.key()) > 0);
            nextKey = prefixLast ? lastPrefix : lastVersion.key();
            nextVersion = prefixLast ? null : lastVersion.versionId();
        }
        return new ListVersionsResult(versions, prefixes, truncated, nextKey, nextVersion);
    }

    /** A start-after value that still lets {@code key} itself be walked. */
    private static String beforeKey(String key) {
        if (key.isEmpty()) {
            return "";
        }
        char last = key.charAt(key.length() - 1);
        return last == 0
                ? key.substring(0, key.length() - 1)
                : key.substring(0, key.length() - 1) + (char) (last - 1) + "\uffff";
    }

    @Override
    public void close() {
        scanner.stop();
        driveChecks.shutdownNow();
        driveHealer.stop();
        alerts.close();
        trashPurger.shutdownNow();
        healer.stop();
        journal.close();
        clockSaver.shutdownNow();
        retentionClock.save();
        metadataCheckpoints.shutdownNow();
        for (LocalDrive d : allDrives) {
            try {
                d.closeMetadataJournal();
            } catch (IOException e) {
                java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                        .warning("closing the metadata journal on " + d.root() + " failed: " + e);
            }
        }
        executor.shutdown();
    }
}
