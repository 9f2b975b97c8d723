package dev.appliance.core.engine;

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
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.AgentRunner;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.bucket.BucketRegistry;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.DataDirCollisions;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.erasure.Placement;
import dev.appliance.core.erasure.Topology;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.BackgroundHealer;
import dev.appliance.core.heal.BucketHealStatus;
import dev.appliance.core.heal.BucketHealer;
import dev.appliance.core.heal.DriveHealStatus;
import dev.appliance.core.heal.DriveHealer;
import dev.appliance.core.heal.HealQueue;
import dev.appliance.core.heal.HealQueueStatus;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.heal.Healing;
import dev.appliance.core.heal.MrfJournal;
import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.listing.ObjectListing;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.meta.TagsOf;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.naming.VersionIds;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.core.objectlock.RetentionClockFiles;
import dev.appliance.core.scanner.DataScanner;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.scanner.ScannerHealFigures;
import dev.appliance.core.usage.UsageTracker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The erasure-coded {@link ObjectStore}: buckets exist on every drive, each object lives in the one erasure set its key
 * hashes to, and listings merge the sorted walks of every drive. It is also the operator's {@link
 * dev.appliance.core.admin.StoreAdmin}; callers outside the engine get it as an {@link ApplianceStore} from {@code
 * engine.Stores.open}.
 */
public final class ErasureObjectStore implements ApplianceStore {
    private final Topology topology;
    private final List<ErasureSet> sets;
    /** Each set's multipart uploads, by set index. */
    private final List<MultipartUploads> uploads;

    private final List<LocalDrive> allDrives;
    /** ListObjects and ListObjectVersions over every drive, each key resolved through its set. */
    private final ObjectListing listing;

    private final Placement placement;
    private final ExecutorService executor;
    private final DriveCalls calls;
    private final HealQueue heal;
    private final ForegroundLoad foreground = new ForegroundLoad();
    /** The heal queue, its journal, the object, drive and background healers and the drive monitor. */
    private final Healing healing;
    /** How often trash is emptied: deletes free their space within this long. */
    static final java.time.Duration TRASH_PURGE_INTERVAL = java.time.Duration.ofSeconds(5);

    /** The periodic agents (trash purge, retention clock, journal checkpoints, drive checks), by role name. */
    private final Map<String, Agent> periodic = new java.util.LinkedHashMap<>();
    /** The running agents; empty until {@link #startAgents}, closed first by {@link #close}. */
    private final List<AgentRunner> runners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The buckets and their settings, resolved by quorum from the records on the drives and served from memory. */
    private final BucketRegistry buckets;
    /** Users, keys, groups and policies on the drives; repaired with the bucket records. */
    private final dev.appliance.core.identity.IdentityStore identity;

    private final DataScanner scanner;
    private final VersionAlerts alerts;
    private final UsageTracker usage;
    private final Clock clock;
    private final RetentionClock retentionClock;
    /** Who changed what: admin mutations and audited S3 calls, on every drive (docs/audit.md). */
    private final dev.appliance.core.audit.AuditLog auditLog;

    /**
     * How often the metadata journals are checkpointed: bounds their size (a few seconds of rewrites) and the work a
     * restart after a power loss replays.
     */
    static final java.time.Duration METADATA_CHECKPOINT_INTERVAL = java.time.Duration.ofSeconds(5);

    private ErasureObjectStore(
            Topology topology,
            Clock clock,
            dev.appliance.core.drive.DriveSettings driveSettings,
            DriveHealer.Settings driveHealSettings) {
        this.topology = topology;
        this.clock = clock;
        this.placement = new Placement(topology.format.deploymentId());
        this.executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("drive-io").factory());
        this.calls = new DriveCalls(executor, clock, driveSettings);
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
        this.uploads = sets.stream().map(MultipartUploads::new).toList();
        this.allDrives = List.copyOf(all);
        this.listing = new ObjectListing(allDrives, this::setFor);
        this.buckets = BucketRegistry.load(allDrives, calls, clock);
        this.identity =
                dev.appliance.core.identity.IdentityStore.open(allDrives, calls, clock, topology.config.identityKey());
        repairBucketRecordsQuietly(); // copies left stale by drives that were away while settings changed
        // Heal reports of the previous run (a crash included) are pending again before anything new is reported.
        this.healing = new Healing(
                topology,
                sets,
                uploads,
                heal,
                calls,
                foreground,
                new DriveHealerStore(),
                driveHealSettings,
                setOfKey,
                this::estimatedKeys,
                clock);
        List<LocalDrive.ChangeMark> interrupted = healing.reportInterruptedChanges(allDrives);
        healing.checkDrives();
        healing.settleInterruptedChanges(interrupted);
        reconcileUploadsQuietly(); // drives that returned while the store was stopped
        if (!driveSettings.checkInterval().isZero()) { // zero: only at start and when asked
            addPeriodic("drive-check", driveSettings.checkInterval(), this::checkDrivesQuietly);
        }
        this.scanner = new DataScanner(
                new ScannedBuckets(),
                sets,
                healing::check,
                uploads,
                placement,
                foreground,
                usage,
                clock,
                this::retentionNow);
        this.alerts = new VersionAlerts(new AlertSource(), allDrives, clock);
        scanner.afterCycle = report -> {
            alerts.scanned(report);
            repairBucketRecordsQuietly();
            reconcileUploadsQuietly(); // also what a missed drive return left
        };
        addPeriodic("trash-purger", TRASH_PURGE_INTERVAL, this::purgeTrash);
        this.retentionClock = new RetentionClock(clock, System::nanoTime, new RetentionClockFiles(allDrives));
        RetentionClock.Status time = retentionClock.status();
        if (!time.forwardJumpNotBelievedAtStart().isZero()) {
            java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                    .warning("the system clock is " + time.forwardJumpNotBelievedAtStart()
                            + " further ahead of the last trusted time than the restart explains, and it is not"
                            + " NTP-synchronized: Object Lock keeps trusted time (" + time.trusted()
                            + ") and follows the monotonic clock from there; synchronize the clock with NTP");
        }
        addPeriodic("retention-clock", RetentionClock.PERSIST_INTERVAL, retentionClock::saveIfDue);
        // Empties the drives' metadata journals behind the files they cover (a platform thread: syncfs is a foreign
        // call).
        addPeriodic("metadata-checkpoint", METADATA_CHECKPOINT_INTERVAL, this::checkpointMetadataJournals);
        this.auditLog = dev.appliance.core.audit.AuditLog.open(
                allDrives, calls, clock, dev.appliance.core.audit.AuditLog.Settings.DEFAULTS);
        addPeriodic("audit-rotation", Duration.ofMinutes(1), auditLog::rotateIfDue);
    }

    @Override
    public dev.appliance.core.audit.AuditLog auditLog() {
        return auditLog;
    }

    private void addPeriodic(String role, Duration interval, Runnable work) {
        periodic.put(role, Agent.every(role, clock, interval, work));
    }

    /**
     * Starts the background agents: the heal queue's healer, the drive filler and the periodic ones ({@link #open}
     * does, after the store is whole; the scanner starts with {@link #startScanner}). Nothing runs in the background
     * before, so a test that opens the store without starting them drives each agent itself.
     */
    void startAgents() {
        for (Agent a : healing.agents()) {
            runners.add(AgentRunner.start(a, Duration.ofMillis(200), Duration.ofMillis(200)));
        }
        for (Agent a : periodic.values()) {
            runners.add(AgentRunner.start(a, Duration.ofMillis(100), Duration.ofSeconds(1)));
        }
    }

    /** A periodic agent by role name (tests move the clock and run its duty cycle). */
    Agent periodicAgent(String role) {
        Agent a = periodic.get(role);
        if (a == null) {
            throw new IllegalArgumentException("agent: " + role + " (expected one of " + periodic.keySet() + ")");
        }
        return a;
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

    private void checkDrivesQuietly() {
        try {
            if (!healing.checkDrives().isEmpty()) {
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
            buckets.restore(bucket, drive);
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

    /** Keys a bucket holds by its usage counts, delete-marker-only keys included (0: unknown). */
    private long estimatedKeys(String bucket) {
        try {
            BucketUsage u = usage.usage(bucket);
            return u.objects() + u.deleteMarkers();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    @Override
    public BucketHealStatus startBucketHeal(String bucket, String prefix) {
        requireBucket(bucket);
        String p = prefix == null ? "" : prefix;
        if (p.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > ObjectKeys.MAX_KEY_BYTES) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT,
                    "prefix: longer than a key may be (at most " + ObjectKeys.MAX_KEY_BYTES + " bytes)");
        }
        if (p.indexOf('\0') >= 0) {
            throw new StorageException(ErrorKind.INVALID_ARGUMENT, "prefix: must not contain NUL");
        }
        return healing.bucketHealer().start(bucket, p);
    }

    @Override
    public List<BucketHealStatus> bucketHeals() {
        return healing.bucketHealer().status();
    }

    @Override
    public java.util.concurrent.CompletableFuture<BucketHealStatus> bucketHealEnd(long id) {
        return healing.bucketHealer().completion(id);
    }

    /** The heals of buckets started on request (tests hook into them). */
    BucketHealer bucketHealer() {
        return healing.bucketHealer();
    }

    /** The fill of every replaced drive since start (and of drives whose tracker says a fill is unfinished). */
    public List<DriveHealStatus> driveHeals() {
        return healing.driveHeals();
    }

    /** See {@link Healing#driveState}. */
    public String driveState(LocalDrive drive) {
        return healing.driveState(drive);
    }

    @Override
    public List<SetQuorum> setQuorums() {
        List<SetQuorum> out = new ArrayList<>(sets.size());
        for (int i = 0; i < sets.size(); i++) {
            ErasureSet s = sets.get(i);
            int online = (int) s.drives().stream().filter(LocalDrive::isOnline).count();
            // the write path's own rule: a write started now needs its layout's write quorum
            out.add(new SetQuorum(
                    i + 1,
                    s.size(),
                    online,
                    s.size() - topology.parity,
                    s.writeLayout().writeQuorum()));
        }
        return out;
    }

    /**
     * Removes, on every set, the upload directories that too few drives hold for the upload to exist (see {@link
     * MultipartUploads#reconcile}); returns how many.
     */
    int reconcileUploadsQuietly() {
        int removed = 0;
        for (ErasureSet s : sets) {
            try {
                removed += uploadsOf(s).reconcile(healing.driveHealer()::filling);
            } catch (RuntimeException e) {
                java.util.logging.Logger.getLogger(ErasureObjectStore.class.getName())
                        .log(java.util.logging.Level.WARNING, "reconciling multipart uploads failed", e);
            }
        }
        return removed;
    }

    @Override
    public List<String> checkDrivesNow() {
        return checkDrives();
    }

    /** Checks the drives now (tests; the store also checks every {@code checkInterval} of its drive settings). */
    List<String> checkDrives() {
        List<String> events = healing.checkDrives();
        if (!events.isEmpty()) {
            repairBucketRecordsQuietly();
            reconcileUploadsQuietly();
        }
        return events;
    }

    DriveHealer driveHealer() {
        return healing.driveHealer();
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
        return open(config, DriveHealer.Settings.DEFAULTS);
    }

    /** Opens the drives of {@code config} into a whole store whose agents are not started (tests drive them). */
    static ErasureObjectStore openStopped(StoreConfig config, DriveHealer.Settings driveHealSettings) {
        try {
            return new ErasureObjectStore(
                    Topology.load(config), config.clock(), config.driveSettings(), driveHealSettings);
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
        ErasureObjectStore store = openStopped(config, driveHealSettings);
        store.startAgents();
        return store;
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
        return healing.heal(bucket, key, id);
    }

    /** The background healer (tests tune its timing and drain it). */
    BackgroundHealer healer() {
        return healing.healer();
    }

    MrfJournal journal() {
        return healing.journal();
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

    private BucketInfo requireBucket(String bucket) {
        return buckets.require(bucket);
    }

    @Override
    public void makeBucket(String bucket, boolean objectLock) {
        buckets.make(bucket, objectLock);
    }

    private void repairBucketRecordsQuietly() {
        buckets.repairQuietly();
        identity.repair(); // same triggers as the bucket records; never throws
    }

    @Override
    public dev.appliance.core.identity.IdentityStore identity() {
        return identity;
    }

    @Override
    public void deleteBucket(String bucket) {
        // What was counted of the bucket is forgotten under its lock, before a bucket of the same name can be made.
        buckets.delete(bucket, () -> usage.forget(bucket));
    }

    @Override
    public List<BucketInfo> listBuckets() {
        return buckets.listBuckets();
    }

    @Override
    public BucketInfo bucketInfo(String bucket) {
        return buckets.require(bucket);
    }

    @Override
    public void setVersioning(String bucket, VersioningState state) {
        buckets.setVersioning(bucket, state);
    }

    @Override
    public void setObjectLockConfiguration(String bucket, ObjectLockConfiguration config) {
        buckets.setObjectLockConfiguration(bucket, config);
    }

    @Override
    public ObjectLockConfiguration objectLockConfiguration(String bucket) {
        return buckets.objectLockConfiguration(bucket);
    }

    /**
     * The metadata a new version of {@code bucket} stores, Object Lock wise: explicit lock entries are checked (the
     * bucket must have lock enabled, mode and date go together, the date lies in the future). The bucket's default
     * retention is added later, at commit ({@link #withDefaultRetention}).
     */
    private Map<String, String> withLock(String bucket, Map<String, String> metadata) {
        ObjectLockConfiguration config = buckets.objectLockOrNull(bucket);
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
        ObjectLockConfiguration config = buckets.objectLockOrNull(bucket);
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
        if (buckets.objectLockOrNull(bucket) == null) {
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
        return updateVersionMetadata(bucket, key, id, old -> {
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
        return updateVersionMetadata(bucket, key, id, old -> ObjectLock.withLegalHold(old, on));
    }

    /**
     * A metadata-only change of one version, as foreground load: the scanner and healing step aside while clients keep
     * the store busy with these too (a Veeam job extends the retention of every block it keeps).
     */
    private ObjectInfo updateVersionMetadata(
            String bucket,
            String key,
            UUID versionId,
            java.util.function.UnaryOperator<java.util.SortedMap<String, String>> change) {
        try (var busy = foreground.enter()) {
            return setFor(key).updateMetadata(bucket, key, versionId, change);
        }
    }

    @Override
    public void setBucketTags(String bucket, Map<String, String> tags) {
        buckets.setBucketTags(bucket, tags);
    }

    @Override
    public BucketSettings bucketSettings(String bucket) {
        return buckets.bucketSettings(bucket);
    }

    @Override
    public void setBucketSettings(String bucket, BucketSettings settings) {
        buckets.setBucketSettings(bucket, settings);
    }

    @Override
    public void setBucketPolicy(String bucket, String json) {
        buckets.setPolicy(bucket, json);
    }

    @Override
    public String bucketPolicy(String bucket) {
        return buckets.policy(bucket);
    }

    @Override
    public void setPublicAccessBlock(String bucket, dev.appliance.core.PublicAccessBlock block) {
        buckets.setPublicAccessBlock(bucket, block);
    }

    @Override
    public dev.appliance.core.PublicAccessBlock publicAccessBlock(String bucket) {
        return buckets.publicAccessBlock(bucket);
    }

    @Override
    public void setLifecycleConfiguration(String bucket, LifecycleConfiguration config) {
        buckets.setLifecycleConfiguration(bucket, config);
    }

    @Override
    public LifecycleConfiguration lifecycleConfiguration(String bucket) {
        return buckets.lifecycleConfiguration(bucket);
    }

    @Override
    public Lifecycle.Expiry expiration(ObjectInfo info) {
        LifecycleConfiguration config = buckets.lifecycleOrNull(info.bucket());
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

    MultipartUploads uploadsOf(ErasureSet set) {
        return uploads.get(sets.indexOf(set));
    }

    /** The buckets as the scanner reads them. */
    private final class ScannedBuckets implements DataScanner.Buckets {
        @Override
        public List<BucketInfo> listBuckets() {
            return ErasureObjectStore.this.listBuckets();
        }

        @Override
        public LifecycleConfiguration lifecycleConfiguration(String bucket) {
            return ErasureObjectStore.this.lifecycleConfiguration(bucket);
        }

        @Override
        public VersioningState versioning(String bucket) {
            return bucketInfo(bucket).versioning();
        }
    }

    /** Versions removed per batch (one metadata rewrite per drive); tests lower it. */
    void scannerBatchSize(int versions) {
        scanner.batchSize = Math.max(1, versions);
    }

    /**
     * Starts the background scanner's cycles and the version-explosion alerts' evaluations between them (the server
     * does; engine tests drive cycles with {@link #scanNow}).
     */
    public synchronized void startScanner() {
        if (runners.stream().noneMatch(r -> r.agent() == scanner)) {
            runners.add(AgentRunner.start(scanner, Duration.ofMillis(50), Duration.ofSeconds(1)));
        }
        Duration every =
                scanner.interval.compareTo(Duration.ofSeconds(10)) < 0 ? scanner.interval : Duration.ofSeconds(10);
        Duration alertsEvery = every.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : every;
        if (runners.stream().noneMatch(r -> r.agent().roleName().equals("version-alerts"))) {
            runners.add(AgentRunner.start(
                    Agent.every("version-alerts", clock, alertsEvery, alerts::evaluate),
                    Duration.ofMillis(100),
                    Duration.ofSeconds(1)));
        }
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
            return buckets.exists(bucket);
        }

        @Override
        public int threshold(String bucket) {
            Integer t = buckets.settingsOrDefaults(bucket).versionAlertThreshold();
            return t == null ? VersionAlerts.DEFAULT_THRESHOLD : t;
        }

        @Override
        public LifecycleConfiguration lifecycle(String bucket) {
            return buckets.lifecycleOrNull(bucket);
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
    public dev.appliance.core.lifecycle.LifecyclePreview previewLifecycle(
            String bucket, LifecycleConfiguration rules, int versionCap) {
        java.util.Objects.requireNonNull(rules, "rules");
        if (versionCap < 1) {
            throw new IllegalArgumentException("versionCap: " + versionCap + " (expected at least 1)");
        }
        requireBucket(bucket);
        return scanner.preview(bucket, rules, versionCap);
    }

    @Override
    public BucketUsage bucketUsage(String bucket) {
        requireBucket(bucket);
        return usage.usage(bucket);
    }

    @Override
    public dev.appliance.core.UsageTotals usageTotals() {
        return usage.totals(listBuckets().stream().map(BucketInfo::name).toList());
    }

    /** Refuses a write of {@code bytes} (-1: unknown) that would take the bucket past its quota. */
    private void checkQuota(String bucket, long bytes) {
        usage.checkQuota(bucket, buckets.settingsOrDefaults(bucket).quotaBytes(), bytes);
    }

    /** How old a bucket's usage may be before it is recounted in the background (default 60 s). */
    public void usageRefreshInterval(Duration interval) {
        usage.refreshInterval(interval);
    }

    /** Usable bytes after erasure overhead, from each set's data shards and online drives. */
    @Override
    public StorageCapacity capacity() {
        return UsageTracker.capacity(sets.stream()
                .map(set -> new UsageTracker.SetDrives(
                        set.data,
                        set.drives().stream()
                                .filter(LocalDrive::isOnline)
                                .map(LocalDrive::root)
                                .toList()))
                .toList());
    }

    @Override
    public Map<String, String> bucketTags(String bucket) {
        return buckets.bucketTags(bucket);
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
        return updateVersionMetadata(bucket, key, versionId == null ? null : VersionIds.parse(versionId), old -> {
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
        return buckets.versioning(bucket);
    }

    // ---------------------------------------------------------------------------------------------------- objects

    @Override
    public ObjectInfo putObject(String bucket, String key, PutRequest request, InputStream body) throws IOException {
        BucketInfo b = requireBucket(bucket);
        ObjectKeys.validate(key);
        ErasureSet set = setFor(key);
        DataDirCollisions.refuse(set, bucket, key);
        PutRequest locked = request.withUserMetadata(withLock(bucket, request.userMetadata()));
        checkQuota(bucket, request.size());
        AuditedCommit audited = request.auditEvent() == null
                ? null
                : new AuditedCommit(
                        auditLog, request.auditEvent(), clock, set.drives().size());
        ObjectInfo put;
        try (var busy = foreground.enter()) {
            put = set.put(
                    bucket,
                    key,
                    b.versioning(),
                    locked,
                    body,
                    (meta, modTime) -> withDefaultRetention(bucket, meta, modTime),
                    audited == null ? null : audited.withCommit());
        }
        if (audited != null) {
            audited.afterWrite();
        }
        usage.added(bucket, put.size());
        versionAdded(b, put);
        return put;
    }

    @Override
    public ObjectInfo headObject(String bucket, String key, String versionId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        try (var busy = foreground.enter()) {
            return setFor(key).head(bucket, key, versionId == null ? null : VersionIds.parse(versionId));
        }
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
        DeleteResult deleted;
        try (var busy = foreground.enter()) {
            deleted = setFor(key).delete(bucket, key, b.versioning(), id, guard);
        }
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
        AuditedCommit.refuse(request);
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
                                (meta, modTime) -> withDefaultRetention(bucket, meta, modTime),
                                null);
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
        AuditedCommit.refuse(request);
        // Explicit lock settings are checked now and kept with the upload; the default retention is added at
        // completion.
        PutRequest locked = request.withUserMetadata(withLock(bucket, request.userMetadata()));
        return uploadsOf(setFor(key)).create(bucket, key, locked, checksum);
    }

    @Override
    public MultipartUpload multipartUpload(String bucket, String key, String uploadId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return MultipartUploads.describe(uploadsOf(setFor(key)).read(bucket, key, uploadId));
    }

    @Override
    public UploadedPart uploadPart(
            String bucket, String key, String uploadId, int partNumber, PutRequest request, InputStream body)
            throws IOException {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        AuditedCommit.refuse(request);
        checkQuota(bucket, request.size());
        try (var busy = foreground.enter()) {
            return uploadsOf(setFor(key)).uploadPart(bucket, key, uploadId, partNumber, request, body);
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
        ObjectInfo done;
        try (var busy = foreground.enter()) {
            done = uploadsOf(setFor(key))
                    .complete(
                            bucket,
                            key,
                            uploadId,
                            parts,
                            checksum,
                            conditions,
                            b.versioning(),
                            (meta, modTime) -> withDefaultRetention(bucket, meta, modTime));
        }
        usage.added(bucket, done.size());
        versionAdded(b, done);
        return done;
    }

    @Override
    public void abortMultipartUpload(String bucket, String key, String uploadId) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        uploadsOf(setFor(key)).abort(bucket, key, uploadId);
    }

    @Override
    public List<UploadedPart> listParts(
            String bucket, String key, String uploadId, int partNumberMarker, int maxParts) {
        requireBucket(bucket);
        ObjectKeys.validate(key);
        return uploadsOf(setFor(key)).listParts(bucket, key, uploadId, partNumberMarker, maxParts);
    }

    @Override
    public List<MultipartUpload> listMultipartUploads(String bucket, String prefix) {
        requireBucket(bucket);
        List<MultipartUpload> all = new ArrayList<>();
        for (ErasureSet s : sets) {
            all.addAll(uploadsOf(s).list(bucket, prefix == null ? "" : prefix));
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

    @Override
    public ListObjectsResult listObjects(
            String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        requireBucket(bucket);
        try (var busy = foreground.enter()) {
            return listing.listObjects(bucket, prefix, delimiter, startAfter, maxKeys);
        }
    }

    @Override
    public ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys) {
        requireBucket(bucket);
        try (var busy = foreground.enter()) {
            return listing.listObjectVersions(bucket, prefix, delimiter, keyMarker, versionIdMarker, maxKeys);
        }
    }

    @Override
    public void close() {
        for (AgentRunner r : runners) {
            r.close();
        }
        healing.close();
        auditLog.close();
        retentionClock.save();
        for (LocalDrive d : allDrives) {
            d.closeChangeMarks();
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
