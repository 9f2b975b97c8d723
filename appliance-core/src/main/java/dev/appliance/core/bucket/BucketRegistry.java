package dev.appliance.core.bucket;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.PublicAccessBlock;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.listing.DriveWalker;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.naming.BucketNames;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.policy.PolicyDocument;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The buckets of the store and every setting they carry: versioning, tags, Object Lock, lifecycle, and the appliance's
 * own settings (quota, SOSAPI, version-alert threshold).
 *
 * <p>Each bucket's settings are one record on every drive ({@link BucketRecords}); at open they are resolved by quorum
 * from the copies the drives hold (the highest generation a verified copy carries), and from then on served from
 * memory, so that no S3 request reads a bucket record from disk. Every change is written first, as a new generation of
 * the record, to a write quorum (a majority of all drives), and applied in memory only once that succeeded: a change
 * that fails leaves what is served as it was. A change holds the bucket's write lock from the existence check to the
 * update in memory, so two changes of one bucket never interleave.
 *
 * <p>Deleting a bucket (only when it is empty on every drive in service) writes a tombstone in place of its record, so a
 * drive that was away during the delete cannot bring it back. Missing, damaged and stale copies are rewritten by
 * {@link #repairQuietly} (after open, when a drive returns or is replaced, after each scanner cycle) and a replaced
 * drive gets its copies through {@link #restore}.
 *
 * <p>Methods named as the store's S3 operations check that the bucket exists (BUCKET_NOT_FOUND, or the name's error
 * when it is not a valid bucket name); the {@code ...OrNull} and {@code ...OrDefaults} ones serve the write and
 * background paths, which checked it already or must not fail on it.
 */
public final class BucketRegistry {
    private static final Logger LOG = Logger.getLogger(BucketRegistry.class.getName());

    private final List<LocalDrive> drives;
    private final Clock clock;
    private final NamespaceLocks bucketLocks = new NamespaceLocks();
    /** The bucket records on the drives, versioned and resolved by quorum; the maps here serve what they hold. */
    private final BucketRecords records;

    private final Map<String, BucketInfo> buckets = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> bucketTags = new ConcurrentHashMap<>();
    private final Map<String, ObjectLockConfiguration> lockConfigs = new ConcurrentHashMap<>();
    private final Map<String, BucketSettings> bucketSettings = new ConcurrentHashMap<>();
    private final Map<String, LifecycleConfiguration> lifecycleConfigs = new ConcurrentHashMap<>();
    /** Bucket policies as the client gave them (JSON text); a bucket without one is absent. */
    private final Map<String, String> policies = new ConcurrentHashMap<>();
    /** Public access blocks set explicitly; a bucket without one has {@link PublicAccessBlock#BLOCK_ALL}. */
    private final Map<String, PublicAccessBlock> accessBlocks = new ConcurrentHashMap<>();

    private BucketRegistry(List<LocalDrive> drives, DriveCalls calls, Clock clock) {
        this.drives = drives;
        this.clock = clock;
        this.records = new BucketRecords(drives, calls, clock, bucketLocks);
    }

    /**
     * Reads the bucket records on every drive in service ({@code drives}: all drives of every set) and serves what they
     * resolve to.
     */
    public static BucketRegistry load(List<LocalDrive> drives, DriveCalls calls, Clock clock) {
        BucketRegistry registry = new BucketRegistry(drives, calls, clock);
        registry.loadRecords();
        return registry;
    }

    private void loadRecords() {
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
                    LOG.warning("bucket " + r.name() + ": stored lifecycle configuration refused, not applied: "
                            + refused.getMessage());
                }
            }
            if (r.quotaBytes() != null || r.sosapi() != null || r.versionAlertThreshold() != null) {
                bucketSettings.put(r.name(), new BucketSettings(r.quotaBytes(), r.sosapi(), r.versionAlertThreshold()));
            }
            if (r.policy() != null) {
                policies.put(r.name(), r.policy());
            }
            if (r.publicAccessBlock() != null) {
                accessBlocks.put(r.name(), r.publicAccessBlock().toBlock());
            }
        }
    }

    /**
     * Rewrites missing, damaged and stale bucket records on every drive in service (after start, when a drive returns
     * or is replaced, after each scanner cycle); returns how many copies were rewritten.
     */
    public int repair() {
        return records.repair();
    }

    /** As {@link #repair}, a failure logged: the next occasion tries again. */
    public void repairQuietly() {
        try {
            records.repair();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "bucket record repair failed; tried again later", e);
        }
    }

    /** Writes the bucket's current record on {@code drive} (a replaced drive being filled); nothing if deleted. */
    public void restore(String bucket, LocalDrive drive) throws IOException {
        try (var lock = bucketLocks.read(bucket, "")) {
            records.restore(bucket, drive); // nothing when deleted meanwhile
        }
    }

    /** The bucket, or BUCKET_NOT_FOUND (the name's own error first when it is not a valid bucket name). */
    public BucketInfo require(String bucket) {
        BucketInfo info = buckets.get(bucket);
        if (info == null) {
            if (!BucketNames.isValid(bucket)) {
                BucketNames.validate(bucket);
            }
            throw new StorageException(ErrorKind.BUCKET_NOT_FOUND, "The specified bucket does not exist: " + bucket);
        }
        return info;
    }

    public boolean exists(String bucket) {
        return buckets.containsKey(bucket);
    }

    /** Creates the bucket (versioning enabled and Object Lock on when {@code objectLock}) and its directory on every drive. */
    public void make(String bucket, boolean objectLock) {
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
                        .versionAlertThreshold(),
                policies.get(info.name()),
                accessBlocks.containsKey(info.name())
                        ? BucketRecords.AccessBlockRecord.of(accessBlocks.get(info.name()))
                        : null);
    }

    /**
     * Deletes the bucket when no drive in service holds a key of it (else BUCKET_NOT_EMPTY); {@code whileLocked} runs
     * after the delete, before the bucket's write lock is released, so that what the caller forgets about the bucket
     * cannot mix with a bucket made again under the same name.
     */
    public void delete(String bucket, Runnable whileLocked) {
        require(bucket);
        try (var lock = bucketLocks.write(bucket, "")) {
            for (LocalDrive d : drives) {
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
            policies.remove(bucket);
            accessBlocks.remove(bucket);
            whileLocked.run();
        }
    }

    /** Every bucket, in S3 key order. */
    public List<BucketInfo> listBuckets() {
        return buckets.values().stream()
                .sorted((a, b) -> ObjectKeys.compare(a.name(), b.name()))
                .toList();
    }

    public VersioningState versioning(String bucket) {
        return require(bucket).versioning();
    }

    public void setVersioning(String bucket, VersioningState state) {
        if (state == VersioningState.UNVERSIONED) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT,
                    "versioning can be Enabled or Suspended, never returned to unversioned");
        }
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo old = require(bucket);
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

    public void setObjectLockConfiguration(String bucket, ObjectLockConfiguration config) {
        Objects.requireNonNull(config, "config");
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
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

    public ObjectLockConfiguration objectLockConfiguration(String bucket) {
        require(bucket);
        return lockConfigs.get(bucket);
    }

    /** The bucket's Object Lock configuration, null when it has none (or does not exist). */
    public ObjectLockConfiguration objectLockOrNull(String bucket) {
        return lockConfigs.get(bucket);
    }

    public void setBucketTags(String bucket, Map<String, String> tags) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
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

    public Map<String, String> bucketTags(String bucket) {
        require(bucket);
        return bucketTags.getOrDefault(bucket, Map.of());
    }

    public BucketSettings bucketSettings(String bucket) {
        require(bucket);
        return bucketSettings.getOrDefault(bucket, BucketSettings.DEFAULTS);
    }

    /** The bucket's appliance settings, the defaults when it has none set (or does not exist). */
    public BucketSettings settingsOrDefaults(String bucket) {
        return bucketSettings.getOrDefault(bucket, BucketSettings.DEFAULTS);
    }

    public void setBucketSettings(String bucket, BucketSettings settings) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
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

    /** Sets the bucket's lifecycle configuration; null removes it. */
    public void setLifecycleConfiguration(String bucket, LifecycleConfiguration config) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
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

    public LifecycleConfiguration lifecycleConfiguration(String bucket) {
        require(bucket);
        return lifecycleConfigs.get(bucket);
    }

    /** The bucket's lifecycle configuration, null when it has none (or does not exist). */
    public LifecycleConfiguration lifecycleOrNull(String bucket) {
        return lifecycleConfigs.get(bucket);
    }

    /**
     * Sets the bucket's policy, or with {@code json} null removes it. The document is parsed first ({@link
     * dev.appliance.core.policy.MalformedPolicyException} when refused); a public policy is refused with ACCESS_DENIED
     * while the bucket's public access block has BlockPublicPolicy, checked under the bucket's lock so that a
     * concurrent change of the block cannot slip between the check and the write.
     */
    public void setPolicy(String bucket, String json) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
            if (json != null
                    && PolicyDocument.parseBucketPolicy(json, bucket).isPublic()
                    && publicAccessBlockOrDefault(bucket).blockPublicPolicy()) {
                throw new StorageException(
                        ErrorKind.ACCESS_DENIED,
                        "The bucket's public access block (BlockPublicPolicy) refuses a public bucket policy: "
                                + bucket);
            }
            String before = json == null ? policies.remove(bucket) : policies.put(bucket, json);
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    policies.remove(bucket);
                } else {
                    policies.put(bucket, before);
                }
                throw e;
            }
        }
    }

    /** The bucket's policy (JSON text as given), null when it has none. */
    public String policy(String bucket) {
        require(bucket);
        return policies.get(bucket);
    }

    /** The bucket's policy, null when it has none (or does not exist): the authorization path. */
    public String policyOrNull(String bucket) {
        return policies.get(bucket);
    }

    /** Sets the bucket's public access block; null returns it to the default, {@link PublicAccessBlock#BLOCK_ALL}. */
    public void setPublicAccessBlock(String bucket, PublicAccessBlock block) {
        try (var lock = bucketLocks.write(bucket, "")) {
            BucketInfo info = require(bucket);
            PublicAccessBlock before = block == null ? accessBlocks.remove(bucket) : accessBlocks.put(bucket, block);
            try {
                writeBucketRecord(info, false);
            } catch (RuntimeException e) {
                if (before == null) {
                    accessBlocks.remove(bucket);
                } else {
                    accessBlocks.put(bucket, before);
                }
                throw e;
            }
        }
    }

    /** The bucket's public access block ({@link PublicAccessBlock#BLOCK_ALL} unless set). */
    public PublicAccessBlock publicAccessBlock(String bucket) {
        require(bucket);
        return publicAccessBlockOrDefault(bucket);
    }

    /** As {@link #publicAccessBlock}, without the existence check: a bucket that does not exist is blocked. */
    public PublicAccessBlock publicAccessBlockOrDefault(String bucket) {
        return accessBlocks.getOrDefault(bucket, PublicAccessBlock.BLOCK_ALL);
    }
}
