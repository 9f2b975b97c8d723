package dev.appliance.it.veeam;

import dev.appliance.it.veeam.Metrics.Count;
import dev.appliance.it.veeam.Metrics.Op;
import dev.appliance.it.veeam.Model.Listed;
import dev.appliance.it.veeam.Model.Listing;
import dev.appliance.it.veeam.Model.Version;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRetentionResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Every answer compared with the {@link Model}: reads byte for byte and in their headers, lock state, listings over all
 * their pages. Also times each call into {@link Metrics} and collects failed checks; a failed check never throws, so
 * one run reports every discrepancy it meets.
 */
final class Checks {
    private static final int MAX_KEPT_FAILURES = 200;

    private final S3Client s3;
    private final String bucket;
    private final Model model;
    private final Metrics metrics;
    private final PrintStream log;
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong failureCount = new AtomicLong();
    /** The longest PUT so far, in nanoseconds. */
    private final AtomicLong slowestWrite = new AtomicLong();

    Checks(S3Client s3, String bucket, Model model, Metrics metrics, PrintStream log) {
        this.s3 = s3;
        this.bucket = bucket;
        this.model = model;
        this.metrics = metrics;
        this.log = log;
    }

    long failureCount() {
        return failureCount.get();
    }

    /** The first failures (up to 200). */
    List<String> failures() {
        return List.copyOf(failures);
    }

    long slowestWriteNanos() {
        return slowestWrite.get();
    }

    /** GET (by version id or of the latest) compared byte for byte and in its headers; true when it matched. */
    boolean verifyGet(String key, Version v, boolean byVersionId, Op op) {
        String what = "GET " + key + (byVersionId ? "?versionId=" + v.versionId : "");
        long t0 = System.nanoTime();
        try (ResponseInputStream<GetObjectResponse> in =
                s3.getObject(b -> b.bucket(bucket).key(key).versionId(byVersionId ? v.versionId : null))) {
            GetObjectResponse r = in.response();
            long mismatch = Payload.firstMismatch(v.seed, v.size, in);
            metrics.record(op, System.nanoTime() - t0, v.size);
            boolean ok = true;
            if (mismatch >= 0) {
                ok = fail(
                        op,
                        what + ": content differs from the " + v.size + " bytes written, first at byte " + mismatch);
            }
            ok &= check(op, v.versionId.equals(r.versionId()), what + ": x-amz-version-id " + r.versionId());
            ok &= check(op, r.contentLength() == v.size, what + ": Content-Length " + r.contentLength());
            ok &= check(
                    op, v.etag.equals(unquote(r.eTag())), what + ": ETag " + r.eTag() + " (expected " + v.etag + ")");
            ok &= checkLock(op, what, v, r.objectLockModeAsString(), r.objectLockRetainUntilDate());
            if (ok) {
                metrics.add(Count.BYTES_VERIFIED, v.size);
            }
            return ok;
        } catch (SdkException | IOException | UncheckedIOException e) {
            metrics.record(op, System.nanoTime() - t0, 0);
            return fail(op, what + ": " + e);
        }
    }

    void verifyHead(String key, Version v, boolean byVersionId) {
        String what = "HEAD " + key + (byVersionId ? "?versionId=" + v.versionId : "");
        HeadObjectResponse r = attempt(
                Op.HEAD_OBJECT,
                what,
                () -> timed(
                        Op.HEAD_OBJECT,
                        0,
                        () -> s3.headObject(
                                b -> b.bucket(bucket).key(key).versionId(byVersionId ? v.versionId : null))));
        if (r == null) {
            return;
        }
        check(Op.HEAD_OBJECT, v.versionId.equals(r.versionId()), what + ": x-amz-version-id " + r.versionId());
        check(Op.HEAD_OBJECT, r.contentLength() == v.size, what + ": Content-Length " + r.contentLength());
        check(Op.HEAD_OBJECT, v.etag.equals(unquote(r.eTag())), what + ": ETag " + r.eTag());
        checkLock(Op.HEAD_OBJECT, what, v, r.objectLockModeAsString(), r.objectLockRetainUntilDate());
        check(
                Op.HEAD_OBJECT,
                r.objectLockLegalHoldStatus() == null || "OFF".equals(r.objectLockLegalHoldStatusAsString()),
                what + ": legal hold " + r.objectLockLegalHoldStatusAsString() + " (never set)");
    }

    void verifyRetention(String key, Version v) {
        String what = "GetObjectRetention " + key + "@" + v.versionId;
        GetObjectRetentionResponse r = attempt(
                Op.GET_RETENTION,
                what,
                () -> timed(
                        Op.GET_RETENTION,
                        0,
                        () -> s3.getObjectRetention(
                                b -> b.bucket(bucket).key(key).versionId(v.versionId))));
        if (r != null) {
            checkLock(
                    Op.GET_RETENTION,
                    what,
                    v,
                    r.retention().modeAsString(),
                    r.retention().retainUntilDate());
        }
    }

    boolean checkLock(Op op, String what, Version v, String mode, Instant until) {
        return check(
                op,
                Objects.equals(v.mode(), mode) && Objects.equals(v.retainUntil(), until),
                what + ": lock " + mode + " until " + until + " (expected " + v.mode() + " until " + v.retainUntil()
                        + ")");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // listings against the model

    /** ListObjectVersions over all pages ({@code maxKeys} each) compared with the model. */
    void compareVersions(String prefix, String delimiter, int maxKeys) {
        Listing want = model.expectedVersions(prefix, delimiter);
        Set<String> tainted = model.taintedUnder(prefix);
        List<Listed> versions = new ArrayList<>();
        List<Listed> markers = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String what = "ListObjectVersions prefix=" + prefix + (delimiter == null ? "" : " delimiter=" + delimiter);
        String keyMarker = null;
        String versionIdMarker = null;
        while (true) {
            String km = keyMarker;
            String vm = versionIdMarker;
            ListObjectVersionsResponse r = attempt(
                    Op.LIST_OBJECT_VERSIONS,
                    what,
                    () -> timed(
                            Op.LIST_OBJECT_VERSIONS,
                            0,
                            () -> s3.listObjectVersions(b -> b.bucket(bucket)
                                    .prefix(prefix)
                                    .delimiter(delimiter)
                                    .maxKeys(maxKeys)
                                    .keyMarker(km)
                                    .versionIdMarker(vm))));
            if (r == null) {
                return;
            }
            int entries = r.versions().size()
                    + r.deleteMarkers().size()
                    + r.commonPrefixes().size();
            check(Op.LIST_OBJECT_VERSIONS, entries <= maxKeys, what + ": " + entries + " entries on one page");
            for (ObjectVersion o : r.versions()) {
                check(
                        Op.LIST_OBJECT_VERSIONS,
                        o.key().startsWith(prefix),
                        what + ": " + o.key() + " is outside the prefix (\"Unexpected key path\" in Veeam)");
                check(
                        Op.LIST_OBJECT_VERSIONS,
                        "STANDARD".equals(o.storageClassAsString()),
                        what + ": storage class " + o.storageClassAsString() + " of " + o.key());
                if (!tainted.contains(o.key())) {
                    versions.add(new Listed(o.key(), o.versionId(), o.isLatest(), o.size(), unquote(o.eTag())));
                }
            }
            for (DeleteMarkerEntry m : r.deleteMarkers()) {
                check(
                        Op.LIST_OBJECT_VERSIONS,
                        m.key().startsWith(prefix),
                        what + ": " + m.key() + " outside the prefix");
                if (!tainted.contains(m.key())) {
                    markers.add(new Listed(m.key(), m.versionId(), m.isLatest(), 0, null));
                }
            }
            r.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
            if (!Boolean.TRUE.equals(r.isTruncated())) {
                break;
            }
            keyMarker = r.nextKeyMarker();
            versionIdMarker = r.nextVersionIdMarker();
            if (keyMarker == null) {
                fail(Op.LIST_OBJECT_VERSIONS, what + ": truncated without a NextKeyMarker");
                return;
            }
        }
        compareLists(Op.LIST_OBJECT_VERSIONS, what + " versions", want.versions(), versions);
        compareLists(Op.LIST_OBJECT_VERSIONS, what + " delete markers", want.deleteMarkers(), markers);
        compareLists(Op.LIST_OBJECT_VERSIONS, what + " common prefixes", want.commonPrefixes(), prefixes);
        metrics.add(Count.LISTINGS_COMPARED, 1);
    }

    /**
     * ListObjectsV2 over all pages compared with the model; unless {@code exact} only the shape is checked (a bucket
     * the simulator did not create holds keys it does not know).
     */
    void compareCurrent(boolean exact, String prefix, String delimiter) {
        String what = "ListObjectsV2 prefix=" + prefix + (delimiter == null ? "" : " delimiter=" + delimiter);
        List<Listed> contents = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        Set<String> tainted = model.taintedUnder(prefix);
        String token = null;
        while (true) {
            String t = token;
            ListObjectsV2Response r = attempt(
                    Op.LIST_OBJECTS_V2,
                    what,
                    () -> timed(
                            Op.LIST_OBJECTS_V2,
                            0,
                            () -> s3.listObjectsV2(b -> b.bucket(bucket)
                                    .prefix(prefix)
                                    .delimiter(delimiter)
                                    .continuationToken(t))));
            if (r == null) {
                return;
            }
            for (S3Object o : r.contents()) {
                check(Op.LIST_OBJECTS_V2, o.key().startsWith(prefix), what + ": " + o.key() + " outside the prefix");
                if (!tainted.contains(o.key())) {
                    contents.add(new Listed(o.key(), null, true, o.size(), unquote(o.eTag())));
                }
            }
            r.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
            if (!Boolean.TRUE.equals(r.isTruncated())) {
                break;
            }
            token = r.nextContinuationToken();
        }
        if (!exact) {
            return;
        }
        Listing want = model.expectedCurrent(prefix, delimiter);
        compareLists(Op.LIST_OBJECTS_V2, what + " contents", want.versions(), contents);
        compareLists(Op.LIST_OBJECTS_V2, what + " common prefixes", want.commonPrefixes(), prefixes);
        metrics.add(Count.LISTINGS_COMPARED, 1);
    }

    private <T> void compareLists(Op op, String what, List<T> want, List<T> got) {
        if (want.equals(got)) {
            return;
        }
        List<T> missing = new ArrayList<>(want);
        missing.removeAll(new HashSet<>(got));
        List<T> unexpected = new ArrayList<>(got);
        unexpected.removeAll(new HashSet<>(want));
        fail(
                op,
                what + ": " + got.size() + " entries, expected " + want.size() + "; missing " + head(missing)
                        + "; unexpected " + head(unexpected)
                        + (missing.isEmpty() && unexpected.isEmpty()
                                ? "; same entries in another order: " + head(got)
                                : ""));
    }

    private static <T> String head(List<T> list) {
        return list.size() <= 5 ? list.toString() : list.subList(0, 5) + " and " + (list.size() - 5) + " more";
    }

    // ---------------------------------------------------------------------------------------------------------------
    // plumbing

    <T> T timed(Op op, long bytes, Supplier<T> call) {
        long t0 = System.nanoTime();
        boolean ok = false;
        try {
            T r = call.get();
            ok = true;
            return r;
        } finally {
            long elapsed = System.nanoTime() - t0;
            metrics.record(op, elapsed, ok ? bytes : 0);
            if (op == Op.PUT_BLOCK || op == Op.PUT_BLOCK_AGENT || op == Op.PUT_METADATA) {
                slowestWrite.accumulateAndGet(elapsed, Math::max);
            }
        }
    }

    /** Runs a call that must succeed; on an error records a failure and returns null. */
    <T> T attempt(Op op, String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException | UncheckedIOException e) {
            fail(op, what + ": " + e);
            return null;
        }
    }

    /** Runs a call that must fail with {@code status} (and {@code code} unless null); returns the error if it did. */
    S3Exception expectError(Op op, String what, int status, String code, Runnable call) {
        try {
            timed(op, 0, () -> {
                call.run();
                return null;
            });
            fail(op, what + ": succeeded (expected " + status + " " + code + ")");
            return null;
        } catch (S3Exception e) {
            String got =
                    e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            if (e.statusCode() != status || (code != null && !code.equals(got))) {
                fail(op, what + ": " + e.statusCode() + " " + got + " (expected " + status + " " + code + ")");
                return null;
            }
            return e;
        } catch (SdkException | UncheckedIOException e) {
            fail(op, what + ": " + e + " (expected " + status + " " + code + ")");
            return null;
        }
    }

    boolean check(Op op, boolean condition, String message) {
        return condition || fail(op, message);
    }

    /** Records a failed check; the run goes on. Always false, for {@code ok &= ...}. */
    boolean fail(Op op, String message) {
        long n = failureCount.incrementAndGet();
        if (op != null) {
            metrics.failed(op);
        }
        if (n <= MAX_KEPT_FAILURES) {
            failures.add(message);
        }
        if (n <= 20) {
            log.println("veeam-sim: FAILED: " + message);
        }
        return false;
    }

    static String unquote(String etag) {
        return etag == null ? null : etag.replace("\"", "");
    }
}
