package dev.appliance.it.crash;

import dev.appliance.it.ApplianceProcess;
import dev.appliance.it.crash.CrashModel.KeyState;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Kill, restart, verify, many times: the load of {@link CrashLoad} runs against the appliance for a random while, the
 * JVM gets SIGKILL, the process starts again on the same drives, and {@link CrashVerifier} compares everything with the
 * model of acknowledged operations. At the end (and every {@code diskCheckEvery} kills) the healer is let finish and
 * the drives are checked for leftovers.
 */
public final class CrashRun {
    static final String VERSIONED = "crash-versioned";
    static final String UNVERSIONED = "crash-plain";
    /** Object Lock enabled: versions get COMPLIANCE retention, deleting them must be refused. */
    public static final String LOCKED = "crash-locked";

    /** What the run does; every field has a {@code crash.*} system property. */
    public record Config(
            int kills,
            int workers,
            int keysPerBucket,
            long seed,
            int minLoadMillis,
            int maxLoadMillis,
            int diskCheckEvery,
            int idleTimeoutSeconds,
            int minAcknowledgedPerRound,
            double maxMinutes,
            int outageEvery) {
        public static Config from(Properties p) {
            return new Config(
                    Integer.parseInt(p.getProperty("crash.kills", "3")),
                    Integer.parseInt(p.getProperty("crash.workers", "24")),
                    Integer.parseInt(p.getProperty("crash.keysPerBucket", "24")),
                    Long.parseLong(p.getProperty("crash.seed", Long.toString(System.nanoTime() & 0xFFFFFF))),
                    Integer.parseInt(p.getProperty("crash.minLoadMillis", "0")),
                    Integer.parseInt(p.getProperty("crash.maxLoadMillis", "2000")),
                    Integer.parseInt(p.getProperty("crash.diskCheckEvery", "0")),
                    Integer.parseInt(p.getProperty("crash.idleTimeoutSeconds", "120")),
                    Integer.parseInt(p.getProperty("crash.minAcknowledgedPerRound", "30")),
                    Double.parseDouble(p.getProperty("crash.maxMinutes", "0")),
                    Integer.parseInt(p.getProperty("crash.outageEvery", "0")));
        }
    }

    public record Result(
            int kills,
            long acknowledged,
            long unknownOutcomes,
            long failedBeforeKill,
            long unknownApplied,
            long unknownNotApplied,
            long versionsRead,
            long bytesWritten,
            long bytesRead,
            long uploadsCompletedOnRetry,
            long uploadsAborted,
            int diskChecks,
            long retentionUpdates,
            long lockRefusals,
            long lockedPutsAudited,
            int outages,
            Duration duration,
            List<String> failures) {
        public long acknowledgedLost() {
            return failures.size();
        }

        public String summary() {
            return String.format(
                    "[crash] kills=%d acknowledged=%d unknown-outcome=%d failed-before-kill=%d (applied %d, not applied %d) versions-verified=%d"
                            + " written=%.1f MiB read=%.1f MiB uploads-completed-on-retry=%d uploads-aborted=%d"
                            + " disk-checks=%d retention-updates=%d locked-deletes-refused=%d"
                            + " lock-header-puts-found-in-audit=%d drive-outages=%d"
                            + " failures(losses)=%d duration=%.1f s",
                    kills,
                    acknowledged,
                    unknownOutcomes,
                    failedBeforeKill,
                    unknownApplied,
                    unknownNotApplied,
                    versionsRead,
                    bytesWritten / 1048576.0,
                    bytesRead / 1048576.0,
                    uploadsCompletedOnRetry,
                    uploadsAborted,
                    diskChecks,
                    retentionUpdates,
                    lockRefusals,
                    lockedPutsAudited,
                    outages,
                    failures.size(),
                    duration.toMillis() / 1000.0);
        }
    }

    private final Config config;
    private final ApplianceProcess appliance;
    private final Function<ApplianceProcess, List<String>> healIdle;
    private final Function<ApplianceProcess, java.util.Set<String>> auditedLockedPuts;
    private final PrintStream log;
    private long lockedPutsAudited;

    /**
     * @param healIdle null while the appliance's healer still has work, else the heal failures it recorded
     * @param auditedLockedPuts the request ids of the allowed, answered (200) PutObject events on {@link #LOCKED} in the
     *     appliance's audit log
     */
    public CrashRun(
            Config config,
            ApplianceProcess appliance,
            Function<ApplianceProcess, List<String>> healIdle,
            Function<ApplianceProcess, java.util.Set<String>> auditedLockedPuts,
            PrintStream log) {
        this.config = config;
        this.appliance = appliance;
        this.healIdle = healIdle;
        this.auditedLockedPuts = auditedLockedPuts;
        this.log = log;
    }

    public Result run() throws Exception {
        long t0 = System.nanoTime();
        List<KeyState> keys = new ArrayList<>();
        for (int i = 0; i < config.keysPerBucket(); i++) {
            String name = (i % 3 == 0 ? "dir" + (i % 2) + "/" : "") + "obj-" + i;
            keys.add(new KeyState(VERSIONED, name, true));
            keys.add(new KeyState(UNVERSIONED, name, false));
            if (i % 3 == 1) {
                keys.add(new KeyState(LOCKED, name, true, true)); // a third as many: the run's length stays
            }
        }
        CrashLoad load = new CrashLoad(keys, config.seed());
        CrashVerifier verifier = new CrashVerifier(keys);
        SplittableRandom random = new SplittableRandom(config.seed());
        List<String> failures = new ArrayList<>();
        int kills = 0;
        int diskChecks = 0;
        int outages = 0;
        appliance.start();
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(b -> b.bucket(VERSIONED));
            s3.putBucketVersioning(
                    b -> b.bucket(VERSIONED).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
            s3.createBucket(b -> b.bucket(UNVERSIONED));
            s3.createBucket(b -> b.bucket(LOCKED).objectLockEnabledForBucket(true));
        }
        ExecutorService verifyPool = CrashVerifier.pool(8);
        try {
            long stopAt = config.maxMinutes() > 0 ? t0 + (long) (config.maxMinutes() * 60e9) : Long.MAX_VALUE;
            for (int round = 1; round <= config.kills() && failures.isEmpty() && System.nanoTime() < stopAt; round++) {
                long loadMillis = config.minLoadMillis()
                        + random.nextLong(Math.max(1, config.maxLoadMillis() - config.minLoadMillis()));
                int status;
                try (S3Client s3 = appliance.client(
                        appliance.accessKey(),
                        appliance.secretKey(),
                        b -> b.overrideConfiguration(o -> o.retryStrategy(noRetries())))) {
                    long before = load.acknowledged.get();
                    CrashLoad.Running running = load.new Running(s3, config.workers(), round);
                    // A busy process first (a freshly started JVM on a slow disk is slow), then a random moment.
                    long busyBy = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                    while (load.acknowledged.get() - before < config.minAcknowledgedPerRound()
                            && System.nanoTime() < busyBy) {
                        Thread.sleep(20);
                    }
                    Thread.sleep(loadMillis);
                    // the operations in flight now are the ones the kill interrupts
                    running.stopIssuing();
                    load.killing = true;
                    status = appliance.kill();
                    running.stop();
                    load.killing = false;
                }
                kills++;
                if (status != 137) {
                    failures.add("kill " + round + ": the process ended with status " + status + ", not 137 (SIGKILL)");
                }
                // Some rounds start without one drive and get it back while running: writes, deletes and retention
                // updates go on without it, and it returns holding the state of before (bucket records included).
                Path away = null;
                Path drive = null;
                if (config.outageEvery() > 0 && round % config.outageEvery() == 0) {
                    drive = appliance
                            .drives()
                            .get(random.nextInt(appliance.drives().size()));
                    away = drive.resolveSibling(drive.getFileName() + ".away");
                    Files.move(drive, away);
                    outages++;
                }
                long restart = System.nanoTime();
                appliance.start();
                long verify = System.nanoTime();
                try (S3Client s3 = appliance.client()) {
                    for (String f : verifier.verify(s3, verifyPool)) {
                        failures.add("after kill " + round + ": " + f);
                    }
                    for (String f : bucketState(s3)) {
                        failures.add("after kill " + round + (away == null ? "" : " (" + drive + " away)") + ": " + f);
                    }
                }
                for (String f : unaudited(load)) {
                    failures.add("after kill " + round + (away == null ? "" : " (" + drive + " away)") + ": " + f);
                }
                for (String v = load.lockViolations.poll(); v != null; v = load.lockViolations.poll()) {
                    failures.add("round " + round + ": " + v);
                }
                if (away != null) {
                    Files.move(away, drive); // back while running: the drive check takes it into service
                    log.printf("[crash] kill %d: restarted without %s, returned it while running%n", round, drive);
                }
                log.printf(
                        "[crash] kill %d, %d ms after the round's first operations: acknowledged %d, unknown outcome %d, versions verified %d"
                                + " (restart %.1f s, verification %.1f s)%n",
                        round,
                        loadMillis,
                        load.acknowledged.get(),
                        load.unknown.get(),
                        verifier.versionsRead.get(),
                        (verify - restart) / 1e9,
                        (System.nanoTime() - verify) / 1e9);
                if (failures.isEmpty() && config.diskCheckEvery() > 0 && round % config.diskCheckEvery() == 0) {
                    failures.addAll(awaitCleanDrives(verifier));
                    diskChecks++;
                }
            }
            if (failures.isEmpty()) {
                // the repeated completions of the last round made versions: read them too
                try (S3Client s3 = appliance.client()) {
                    verifier.verify(s3, verifyPool).forEach(x -> failures.add("final verification: " + x));
                }
                failures.addAll(awaitCleanDrives(verifier));
                diskChecks++;
            }
        } finally {
            verifyPool.shutdownNow();
        }
        return new Result(
                kills,
                load.acknowledged.get(),
                load.unknown.get(),
                load.failedBeforeKill.get(),
                verifier.unknownApplied.get(),
                verifier.unknownNotApplied.get(),
                verifier.versionsRead.get(),
                load.bytesWritten.get(),
                verifier.bytesRead.get(),
                verifier.uploadsCompletedOnRetry.get(),
                verifier.uploadsAborted.get(),
                diskChecks,
                load.retentionUpdates.get(),
                load.lockRefusals.get(),
                lockedPutsAudited,
                outages,
                Duration.ofNanos(System.nanoTime() - t0),
                failures);
    }

    /**
     * Every acknowledged PUT with Object Lock headers so far has its audit event: it is written with the version's
     * commit, before the answer, so no kill after the answer can lose it.
     */
    private List<String> unaudited(CrashLoad load) {
        java.util.Set<String> recorded = auditedLockedPuts.apply(appliance);
        List<String> missing = new ArrayList<>();
        long found = 0;
        for (CrashModel.LockedPut put : load.lockedPuts) {
            if (recorded.contains(put.requestId())) {
                found++;
            } else {
                missing.add(put + ": acknowledged, but no allowed s3:PutObject event with its request id is in the"
                        + " audit log");
            }
        }
        lockedPutsAudited = found;
        return missing;
    }

    /** The buckets' settings after a restart: versioning as set, Object Lock still enabled on the lock bucket. */
    private static List<String> bucketState(S3Client s3) {
        List<String> wrong = new ArrayList<>();
        for (String b : List.of(VERSIONED, LOCKED)) {
            var status = s3.getBucketVersioning(r -> r.bucket(b)).status();
            if (status != BucketVersioningStatus.ENABLED) {
                wrong.add("bucket " + b + ": versioning " + status + ", expected Enabled");
            }
        }
        if (s3.getBucketVersioning(r -> r.bucket(UNVERSIONED)).status() != null) {
            wrong.add("bucket " + UNVERSIONED + ": versioning was never enabled, it reads "
                    + s3.getBucketVersioning(r -> r.bucket(UNVERSIONED)).status());
        }
        try {
            var lock = s3.getObjectLockConfiguration(r -> r.bucket(LOCKED)).objectLockConfiguration();
            if (lock == null || lock.objectLockEnabled() != ObjectLockEnabled.ENABLED) {
                wrong.add("bucket " + LOCKED + ": Object Lock configuration " + lock + ", expected Enabled");
            }
        } catch (S3Exception e) {
            wrong.add("bucket " + LOCKED + ": GetObjectLockConfiguration answers " + e.statusCode() + " "
                    + e.awsErrorDetails().errorCode());
        }
        return wrong;
    }

    private static RetryStrategy noRetries() {
        return AwsRetryStrategy.doNotRetry();
    }

    /** Waits for the healer to go idle and for the drives to hold no leftovers; returns what is still wrong. */
    private List<String> awaitCleanDrives(CrashVerifier verifier) throws InterruptedException {
        long deadline = System.nanoTime()
                + Duration.ofSeconds(config.idleTimeoutSeconds()).toNanos();
        List<String> last = List.of("the healer never went idle");
        while (System.nanoTime() < deadline) {
            List<String> healFailures = healIdle.apply(appliance);
            if (healFailures != null) {
                if (!healFailures.isEmpty()) {
                    return healFailures;
                }
                try {
                    last = verifier.leftovers(appliance.drives());
                } catch (UncheckedIOException e) {
                    last = List.of("drives changed while they were walked: " + e);
                }
                if (last.isEmpty()) {
                    return last;
                }
            }
            Thread.sleep(500);
        }
        return last;
    }
}
