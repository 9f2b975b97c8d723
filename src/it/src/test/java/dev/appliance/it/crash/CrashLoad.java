package dev.appliance.it.crash;

import dev.appliance.it.crash.CrashModel.KeyState;
import dev.appliance.it.crash.CrashModel.LockedPut;
import dev.appliance.it.crash.CrashModel.Pending;
import dev.appliance.it.crash.CrashModel.PendingKind;
import dev.appliance.it.crash.CrashModel.Segment;
import dev.appliance.it.crash.CrashModel.Upload;
import dev.appliance.it.crash.CrashModel.Ver;
import dev.appliance.it.veeam.Payload;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Concurrent S3 operations on the keys of {@link CrashModel}, each recorded in the model once its answer arrived:
 * PUTs of a few bytes (inline in {@code xl.meta}) to a few MiB (several erasure blocks), overwrites, deletes (plain, by
 * version id, delete markers) and multipart uploads of two parts completed with CompleteMultipartUpload. A worker owns
 * the key it works on, so every key's acknowledged history is sequential and at most one operation per key is of
 * unknown outcome when the process dies.
 */
final class CrashLoad {
    private final List<KeyState> keys;
    private final long seed;
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong unknown = new AtomicLong();
    final AtomicLong bytesWritten = new AtomicLong();
    /** Operations that failed while the process was alive (before the kill): each is an error of the appliance. */
    final AtomicLong failedBeforeKill = new AtomicLong();

    private final AtomicLong nextContentSeed;
    /** Deletes of a version under acknowledged COMPLIANCE retention that were refused, as they must be. */
    final AtomicLong lockRefusals = new AtomicLong();
    /** Retention updates acknowledged. */
    final AtomicLong retentionUpdates = new AtomicLong();
    /** PUTs with Object Lock headers acknowledged, in order. */
    final java.util.Queue<LockedPut> lockedPuts = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Deletes of a locked version that succeeded: each is a broken promise of Object Lock. */
    final java.util.Queue<String> lockViolations = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Set just before the kill: failures from then on are the kill's. */
    volatile boolean killing;

    CrashLoad(List<KeyState> keys, long seed) {
        this.keys = keys;
        this.seed = seed;
        this.nextContentSeed = new AtomicLong(seed * 1_000_003L);
    }

    /** A running load: {@code workers} threads until {@link Running#stop()}. */
    final class Running {
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final ExecutorService pool;
        private final List<Future<?>> futures = new ArrayList<>();

        Running(S3Client s3, int workers, long round) {
            pool = Executors.newFixedThreadPool(
                    workers, Thread.ofPlatform().name("crash-load-", 0).factory());
            for (int w = 0; w < workers; w++) {
                SplittableRandom random = new SplittableRandom(seed ^ (round * 7919 + w) * 0x9E3779B97F4A7C15L);
                futures.add(pool.submit(() -> work(s3, random, stopping)));
            }
        }

        /** Lets the operations in flight run on, but starts no new one. */
        void stopIssuing() {
            stopping.set(true);
        }

        /** Stops taking new operations and waits for the workers (their calls fail once the process is dead). */
        void stop() throws Exception {
            stopping.set(true);
            pool.shutdown();
            if (!pool.awaitTermination(3, TimeUnit.MINUTES)) {
                throw new AssertionError("the load's workers did not stop within 3 minutes");
            }
            for (Future<?> f : futures) {
                f.get(); // a bug in the load itself (not an S3 failure) surfaces here
            }
        }
    }

    private void work(S3Client s3, SplittableRandom random, AtomicBoolean stopping) {
        while (!stopping.get()) {
            KeyState k = keys.get(random.nextInt(keys.size()));
            if (!k.claim()) {
                Thread.onSpinWait();
                continue;
            }
            try {
                runOne(s3, k, random, stopping);
            } finally {
                k.release();
            }
        }
    }

    private long contentSeed() {
        return nextContentSeed.incrementAndGet();
    }

    private int size(SplittableRandom r) {
        double x = r.nextDouble();
        if (x < 0.05) {
            return 0;
        }
        if (x < 0.40) {
            return 1 + r.nextInt(300); // inline
        }
        if (x < 0.65) {
            return 1024 + r.nextInt(120 * 1024); // inline when unversioned, part files when versioned
        }
        return 200 * 1024 + r.nextInt(3 * 1024 * 1024 + 512 * 1024); // one to four erasure blocks
    }

    private void runOne(S3Client s3, KeyState k, SplittableRandom r, AtomicBoolean stopping) {
        double x = r.nextDouble();
        if (x < 0.08) {
            multipart(s3, k, r, stopping);
        } else if (k.locked && x < 0.35) {
            retention(s3, k, r);
        } else if (k.locked && x < 0.60 && !k.retained.isEmpty()) {
            List<String> held = List.copyOf(k.retained.keySet());
            deleteLocked(s3, k, held.get(r.nextInt(held.size())));
        } else if (k.versioned && (k.versions.size() > 4 || x < 0.30) && !k.versions.isEmpty()) {
            deleteVersion(s3, k, k.versions.get(r.nextInt(k.versions.size())).versionId());
        } else if (x < 0.45) {
            delete(s3, k, r);
        } else {
            put(s3, k, r);
        }
    }

    private void put(S3Client s3, KeyState k, SplittableRandom r) {
        Segment seg = new Segment(contentSeed(), size(r));
        byte[] body = Payload.bytes(seg.seed(), seg.size());
        Ver ver = new Ver(null, false, List.of(seg), CrashModel.md5Hex(body));
        if (k.locked && r.nextBoolean()) {
            lockedPut(s3, k, ver, body);
            return;
        }
        PutObjectResponse resp;
        try {
            resp = s3.putObject(b -> b.bucket(k.bucket).key(k.key), RequestBody.fromBytes(body));
        } catch (RuntimeException e) {
            unknownOutcome(k, new Pending(PendingKind.PUT, ver, null), e);
            return;
        }
        bytesWritten.addAndGet(seg.size());
        addVersion(k, ver, resp.versionId());
    }

    /**
     * Veeam's block write: COMPLIANCE retention a day ahead in the PUT's own headers, with Content-MD5. Its audit event
     * is kept with the write's commit, so the request id it answers with must be in the audit log after any kill.
     */
    private void lockedPut(S3Client s3, KeyState k, Ver ver, byte[] body) {
        java.time.Instant until = java.time.Instant.now()
                .plus(java.time.Duration.ofDays(1))
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        PutObjectResponse resp;
        try {
            resp = s3.putObject(
                    b -> b.bucket(k.bucket)
                            .key(k.key)
                            .contentMD5(java.util.Base64.getEncoder()
                                    .encodeToString(java.util.HexFormat.of().parseHex(ver.etag())))
                            .objectLockMode(ObjectLockMode.COMPLIANCE)
                            .objectLockRetainUntilDate(until),
                    RequestBody.fromBytes(body));
        } catch (RuntimeException e) {
            k.pendingRetention = until;
            unknownOutcome(k, new Pending(PendingKind.LOCKED_PUT, ver, null), e);
            return;
        }
        bytesWritten.addAndGet(ver.size());
        k.retained.put(resp.versionId(), until);
        lockedPuts.add(new LockedPut(
                k.toString(), resp.versionId(), resp.responseMetadata().requestId()));
        addVersion(k, ver, resp.versionId());
    }

    private void addVersion(KeyState k, Ver ver, String versionId) {
        if (k.versioned) {
            k.versions.addFirst(ver.withId(versionId));
        } else {
            k.versions.clear();
            k.versions.add(ver.withId("null"));
        }
        acknowledged.incrementAndGet();
    }

    private void delete(S3Client s3, KeyState k, SplittableRandom r) {
        if (!k.versioned && r.nextBoolean()) {
            deleteVersion(s3, k, "null");
            return;
        }
        DeleteObjectResponse resp;
        try {
            resp = s3.deleteObject(b -> b.bucket(k.bucket).key(k.key));
        } catch (RuntimeException e) {
            unknownOutcome(k, new Pending(k.versioned ? PendingKind.MARKER : PendingKind.DELETE_NULL, null, null), e);
            return;
        }
        if (k.versioned) {
            k.versions.addFirst(Ver.marker(resp.versionId()));
        } else {
            k.versions.clear();
        }
        acknowledged.incrementAndGet();
    }

    private void deleteVersion(S3Client s3, KeyState k, String versionId) {
        if (k.retained.containsKey(versionId)) {
            deleteLocked(s3, k, versionId);
            return;
        }
        try {
            s3.deleteObject(b -> b.bucket(k.bucket).key(k.key).versionId(versionId));
        } catch (RuntimeException e) {
            unknownOutcome(
                    k,
                    k.versioned
                            ? new Pending(PendingKind.DELETE_VERSION, null, versionId)
                            : new Pending(PendingKind.DELETE_NULL, null, null),
                    e);
            return;
        }
        k.versions.removeIf(v -> v.versionId().equals(versionId));
        acknowledged.incrementAndGet();
    }

    /**
     * Sets (or extends) COMPLIANCE retention on one of the key's versions, a day ahead and more: longer than any run, so
     * every acknowledged one must hold until the end.
     */
    private void retention(S3Client s3, KeyState k, SplittableRandom r) {
        List<Ver> objects = k.versions.stream().filter(v -> !v.marker()).toList();
        if (objects.isEmpty()) {
            put(s3, k, r);
            return;
        }
        String versionId = objects.get(r.nextInt(objects.size())).versionId();
        java.time.Instant before = k.retained.get(versionId);
        java.time.Instant until = (before == null
                        ? java.time.Instant.now().plus(java.time.Duration.ofDays(1))
                        : before.plusSeconds(1 + r.nextInt(3600)))
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        try {
            s3.putObjectRetention(
                    b -> b.bucket(k.bucket).key(k.key).versionId(versionId).retention(x -> x.mode(
                                    ObjectLockRetentionMode.COMPLIANCE)
                            .retainUntilDate(until)));
        } catch (RuntimeException e) {
            k.pendingRetention = until;
            unknownOutcome(k, new Pending(PendingKind.RETENTION, null, versionId), e);
            return;
        }
        k.retained.put(versionId, until);
        retentionUpdates.incrementAndGet();
        acknowledged.incrementAndGet();
    }

    /** A delete of a version under acknowledged COMPLIANCE retention: must be refused (403), whatever happened since. */
    private void deleteLocked(S3Client s3, KeyState k, String versionId) {
        try {
            s3.deleteObject(b -> b.bucket(k.bucket).key(k.key).versionId(versionId));
        } catch (S3Exception e) {
            if (e.statusCode() == 403) {
                lockRefusals.incrementAndGet();
                acknowledged.incrementAndGet();
                return;
            }
            refusedOtherwise(k, versionId, e);
            return;
        } catch (RuntimeException e) {
            refusedOtherwise(k, versionId, e);
            return;
        }
        lockViolations.add(k + ": version " + versionId + " under COMPLIANCE retention until "
                + k.retained.get(versionId) + " was deleted");
        k.versions.removeIf(v -> v.versionId().equals(versionId));
        k.retained.remove(versionId);
    }

    /** Not an answer to the delete of a locked version: the version must still be there (the verifier reads it). */
    private void refusedOtherwise(KeyState k, String versionId, RuntimeException e) {
        if (!killing) {
            failedBeforeKill.incrementAndGet();
            System.out.println("[crash] delete of locked version " + versionId + " of " + k
                    + " failed before the kill with something else than 403: " + e);
        }
    }

    /** Two parts (5 MiB and up to 1 MiB), then CompleteMultipartUpload; stops between steps once the load stops. */
    private void multipart(S3Client s3, KeyState k, SplittableRandom r, AtomicBoolean stopping) {
        String uploadId;
        try {
            uploadId =
                    s3.createMultipartUpload(b -> b.bucket(k.bucket).key(k.key)).uploadId();
        } catch (RuntimeException e) {
            unknownOutcome(k, new Pending(PendingKind.UPLOAD, null, null), e);
            return;
        }
        acknowledged.incrementAndGet();
        List<Segment> parts =
                List.of(new Segment(contentSeed(), 5 << 20), new Segment(contentSeed(), 1 + r.nextInt(1 << 20)));
        List<String> etags = new ArrayList<>();
        k.upload = new Upload(uploadId, parts, List.of(), false);
        for (int i = 0; i < parts.size(); i++) {
            if (stopping.get()) {
                return; // left incomplete: the verification aborts it
            }
            Segment p = parts.get(i);
            byte[] body = Payload.bytes(p.seed(), p.size());
            int number = i + 1;
            try {
                String etag = s3.uploadPart(
                                b -> b.bucket(k.bucket)
                                        .key(k.key)
                                        .uploadId(uploadId)
                                        .partNumber(number),
                                RequestBody.fromBytes(body))
                        .eTag()
                        .replace("\"", "");
                if (!etag.equals(CrashModel.md5Hex(body))) {
                    throw new AssertionError("UploadPart " + number + " of " + k + " answered ETag " + etag
                            + ", the MD5 of the part is " + CrashModel.md5Hex(body));
                }
                etags.add(etag);
            } catch (RuntimeException e) {
                // the upload stays known with the parts acknowledged so far; the verification aborts it
                unknownOutcome(k, new Pending(PendingKind.UPLOAD, null, null), e);
                return;
            }
            acknowledged.incrementAndGet();
            bytesWritten.addAndGet(p.size());
            k.upload = new Upload(uploadId, parts, List.copyOf(etags), etags.size() == parts.size());
        }
        Ver ver = new Ver(null, false, parts, CrashModel.multipartEtag(etags));
        String versionId;
        try {
            var resp = s3.completeMultipartUpload(b -> b.bucket(k.bucket)
                    .key(k.key)
                    .uploadId(uploadId)
                    .multipartUpload(m -> m.parts(completedParts(etags))));
            if (!resp.eTag().replace("\"", "").equals(ver.etag())) {
                throw new AssertionError("CompleteMultipartUpload of " + k + " answered ETag " + resp.eTag()
                        + ", expected " + ver.etag());
            }
            versionId = resp.versionId();
        } catch (RuntimeException e) {
            unknownOutcome(k, new Pending(PendingKind.PUT, ver, null), e);
            return;
        }
        k.upload = null;
        k.endedUploads.add(uploadId);
        addVersion(k, ver, versionId);
    }

    static List<CompletedPart> completedParts(List<String> etags) {
        List<CompletedPart> out = new ArrayList<>();
        for (int i = 0; i < etags.size(); i++) {
            out.add(CompletedPart.builder().partNumber(i + 1).eTag(etags.get(i)).build());
        }
        return out;
    }

    private void unknownOutcome(KeyState k, Pending p, RuntimeException e) {
        k.pending = p;
        unknown.incrementAndGet();
        if (!killing) {
            // no kill yet: the appliance itself refused or failed the request
            failedBeforeKill.incrementAndGet();
            System.out.println("[crash] " + p.kind() + " of " + k + " failed before the kill: " + e);
        }
    }
}
