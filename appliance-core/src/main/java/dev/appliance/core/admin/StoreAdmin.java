package dev.appliance.core.admin;

import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.BucketHealStatus;
import dev.appliance.core.heal.DriveHealStatus;
import dev.appliance.core.heal.HealQueueStatus;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecyclePreview;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.scanner.ScannerHealFigures;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * What the operator's side of the appliance (admin API, console, CLI, the server's start-up) sees and tunes of the
 * engine: topology and drives, healing, the scanner, alerts and the retention clock. The S3 side uses {@link
 * dev.appliance.core.ObjectStore} only; neither reaches the erasure classes behind both.
 */
public interface StoreAdmin {

    /** The scanner heal-checks every key once in this many cycles unless told otherwise. */
    int DEFAULT_HEAL_SAMPLE_CYCLES = 16;

    /** The deployment's id, written into every drive's format at first start. */
    UUID deploymentId();

    /** Problems found with drives at start (missing, unformatted...), for the operator. */
    List<String> startupWarnings();

    int setCount();

    int drivesPerSet();

    int parity();

    /** Every drive in set order (set 1 slot 1 first); fault injection goes through them. */
    List<LocalDrive> drives();

    /**
     * Each set's drives in service against its read and write quorum, in set order, from cached state (no drive
     * I/O): what health probes and health indicators decide on.
     */
    List<SetQuorum> setQuorums();

    /**
     * {@code healing} while a replaced drive is being filled, {@code faulty} while out of service for I/O errors or a
     * stall (until a probe succeeds), else {@code online} or {@code offline}.
     */
    String driveState(LocalDrive drive);

    /**
     * Runs the drive check now (as the store does every {@code checkInterval}): takes drives whose format vanished out
     * of service, brings back drives that returned or whose probe succeeds, formats a replacement; returns what
     * changed, one line per drive. For a health check run on request, so that it reports the drives as they are now.
     */
    List<String> checkDrivesNow();

    /** The fill of every replaced drive since start (and of drives whose tracker says a fill is unfinished). */
    List<DriveHealStatus> driveHeals();

    /**
     * Makes every heal waiting for its retry backoff due now (after drives came back, say), and returns how many
     * items are pending.
     */
    int retryHealsNow();

    /** The heal queue's figures: pending, retrying, healed, failed, the last failures. */
    HealQueueStatus healStatus();

    /**
     * Starts a heal of every version of every key of {@code bucket} under {@code prefix} (null or empty: the whole
     * bucket) in the background, or answers the heal of the same bucket and prefix already queued or running.
     *
     * @throws dev.appliance.core.error.StorageException {@code BUCKET_NOT_FOUND} for a bucket that does not exist,
     *     {@code INVALID_ARGUMENT} for a prefix no key can have (longer than a key, NUL)
     */
    BucketHealStatus startBucketHeal(String bucket, String prefix);

    /** The heals of buckets started on request since start: queued, running and the newest ended, newest first. */
    List<BucketHealStatus> bucketHeals();

    /** Completes with the final status once the bucket heal {@code id} has ended; null for an id no longer listed. */
    java.util.concurrent.CompletableFuture<BucketHealStatus> bucketHealEnd(long id);

    /** The retention clock Object Lock is evaluated against. */
    RetentionClock retentionClock();

    /** Users, access keys, groups and managed policies, kept on the drives (docs/formats/identity.md). */
    IdentityStore identity();

    /**
     * The audit log: admin mutations and the S3 calls that delete data or change retention, legal hold, versioning,
     * Object Lock, lifecycle, policy or IAM state (docs/audit.md).
     */
    dev.appliance.core.audit.AuditLog auditLog();

    /** Version-explosion alerts: listed and acknowledged by the admin API and the CLI (docs/alerts.md). */
    VersionAlerts versionAlerts();

    /**
     * The length of a lifecycle "day" (24 hours by default): rules' Days count in it, rounded up to its multiples
     * since the epoch. Shorter for tests and demos only.
     */
    void lifecycleDayLength(Duration day);

    Duration lifecycleDayLength();

    /** The most versions one key may have (default 10,000); a write beyond it is refused. */
    void maxVersionsPerKey(int max);

    int maxVersionsPerKey();

    /**
     * Tunes the background scanner: a cycle starts at most every {@code interval}; at most {@code keysPerSecond} keys
     * are scanned a second (0: unlimited).
     */
    void scannerPace(Duration interval, int keysPerSecond);

    /**
     * The scanner's heal checks: every key once in {@code sampleCycles} cycles (0: never), light (metadata on every
     * drive, part files present and whole); and every {@code deepInterval} (null: never) one cycle that verifies every
     * shard block's bitrot checksum of every key and rebuilds what is damaged.
     */
    void scannerHealChecks(int sampleCycles, Duration deepInterval);

    /** What the scanner's heal checks found since start. */
    ScannerHealFigures scannerHealFigures();

    /** Starts the background scanner's cycles and the version-explosion alerts' evaluations between them. */
    void startScanner();

    /**
     * The last completed scanner cycle, or null before the first: usage per bucket and drive, lifecycle actions, and
     * per bucket the keys with the most versions (for version-explosion alerts).
     */
    ScanReport lastScan();

    /** Runs one scanner cycle now, on the caller's thread, and returns its report. */
    ScanReport scanNow();

    /** How old a bucket's usage may be before it is recounted in the background (default 60 s). */
    void usageRefreshInterval(Duration interval);

    /**
     * What {@code rules} (checked as PutBucketLifecycleConfiguration checks them, not saved) would do to the bucket if
     * the scanner applied them now: counts and sample keys of each action, from the scanner's walk and evaluation,
     * over at most {@code versionCap} versions. Deletes nothing (docs/lifecycle.md, "Preview").
     */
    LifecyclePreview previewLifecycle(String bucket, LifecycleConfiguration rules, int versionCap);
}
