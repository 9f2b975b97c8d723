package dev.appliance.s3.api;

import dev.appliance.core.audit.AuditEvent;
import dev.appliance.s3.audit.AuditSink;
import dev.appliance.s3.audit.AuditSink.AuditedCall;
import dev.appliance.s3.audit.CommitAudit;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which S3 calls are audited and what their events say (docs/audit.md). Reads are never audited.
 *
 * <table>
 * <caption>Audited operations</caption>
 * <tr><th>Operation</th><th>Audited as</th><th>Why</th></tr>
 * <tr><td>DeleteObject, DeleteBucket, AbortMultipartUpload</td><td>s3:DeleteObject...</td><td>deletes data</td></tr>
 * <tr><td>DeleteObjects</td><td>s3:DeleteObject per key (details via=DeleteObjects); one s3:DeleteObjects event
 *     when the whole request is refused</td><td>deletes data</td></tr>
 * <tr><td>PutObjectRetention, PutObjectLegalHold</td><td>same name</td><td>retention, legal hold</td></tr>
 * <tr><td>PutObject, CopyObject, CreateMultipartUpload with x-amz-object-lock-* headers; PostObject with such form
 *     fields (audited by its handler)</td><td>same name, the headers or fields in details</td>
 *     <td>sets retention or legal hold</td></tr>
 * <tr><td>any of the above refused at authentication, before routing</td><td>same name, the claimed access key
 *     id</td><td>who tried (within a budget, {@link dev.appliance.s3.audit.RefusalAuditBudget})</td></tr>
 * <tr><td>CreateBucket with x-amz-bucket-object-lock-enabled</td><td>s3:CreateBucket</td><td>Object Lock</td></tr>
 * <tr><td>PutBucketVersioning, PutObjectLockConfiguration</td><td>same name</td><td>versioning, lock</td></tr>
 * <tr><td>PutBucketLifecycle, DeleteBucketLifecycle</td><td>same name</td><td>lifecycle (deletes data later)</td></tr>
 * <tr><td>PutBucketAcl, PutObjectAcl</td><td>same name</td><td>access policy</td></tr>
 * <tr><td>PutBucketPolicy, DeleteBucketPolicy, PutPublicAccessBlock, DeletePublicAccessBlock,
 *     DeleteBucketOwnershipControls</td><td>same name</td>
 *     <td>bucket policy and public access</td></tr>
 * <tr><td>IAM calls other than Get*, List*</td><td>iam:&lt;Action&gt;</td><td>users, keys, groups, policies</td></tr>
 * </table>
 */
final class S3Audit {
    /** Operations audited whatever their headers, by {@link S3Dispatcher.Operation} name (a test checks each exists). */
    static final Set<String> AUDITED = Set.of(
            "DELETE_OBJECT",
            "DELETE_BUCKET",
            "ABORT_MULTIPART_UPLOAD",
            "PUT_OBJECT_RETENTION",
            "PUT_OBJECT_LEGAL_HOLD",
            "PUT_BUCKET_VERSIONING",
            "PUT_OBJECT_LOCK_CONFIGURATION",
            "PUT_BUCKET_LIFECYCLE",
            "DELETE_BUCKET_LIFECYCLE",
            "PUT_BUCKET_ACL",
            "PUT_OBJECT_ACL",
            "PUT_BUCKET_POLICY",
            "DELETE_BUCKET_POLICY",
            "PUT_PUBLIC_ACCESS_BLOCK",
            "DELETE_PUBLIC_ACCESS_BLOCK",
            "DELETE_BUCKET_OWNERSHIP_CONTROLS");

    /** Writes audited only when they set retention or a legal hold through these headers. */
    static final Set<String> AUDITED_WITH_LOCK_HEADERS =
            Set.of("PUT_OBJECT", "COPY_OBJECT", "CREATE_MULTIPART_UPLOAD", "POST_OBJECT");

    static final java.util.List<String> LOCK_HEADERS = java.util.List.of(
            "x-amz-object-lock-mode",
            "x-amz-object-lock-retain-until-date",
            "x-amz-object-lock-legal-hold",
            "x-amz-bypass-governance-retention",
            "x-amz-bucket-object-lock-enabled");

    /** Operations whose small XML body says what was set: its fields below are copied into the event's details. */
    static final Set<String> BODY_DETAILED = Set.of(
            "PUT_OBJECT_RETENTION", "PUT_OBJECT_LEGAL_HOLD", "PUT_BUCKET_VERSIONING", "PUT_OBJECT_LOCK_CONFIGURATION");

    /** The body elements copied: retention mode and date, legal hold and versioning status, default retention. */
    static final java.util.List<String> BODY_FIELDS =
            java.util.List.of("Mode", "RetainUntilDate", "Status", "MfaDelete", "ObjectLockEnabled", "Days", "Years");

    /** At most this much of such a body is kept to read the fields from (their documents are a few hundred bytes). */
    static final int MAX_BODY_COPY = 8 * 1024;

    private final AuditSink sink;

    S3Audit(AuditSink sink) {
        this.sink = sink;
    }

    boolean enabled() {
        return sink != AuditSink.NONE;
    }

    /** Whether a call of {@code op} (null: unrouted) is audited. */
    static boolean audited(S3Dispatcher.Operation op, S3Request r) {
        if (op == null) {
            return false;
        }
        String name = op.name();
        if (AUDITED.contains(name)) {
            return true;
        }
        if (AUDITED_WITH_LOCK_HEADERS.contains(name)) {
            return r.header("x-amz-object-lock-mode") != null
                    || r.header("x-amz-object-lock-retain-until-date") != null
                    || r.header("x-amz-object-lock-legal-hold") != null;
        }
        return name.equals("CREATE_BUCKET") && "true".equalsIgnoreCase(r.header("x-amz-bucket-object-lock-enabled"));
    }

    /** {@code DELETE_BUCKET_LIFECYCLE} as {@code s3:DeleteBucketLifecycle}: S3's operation name. */
    static String actionOf(S3Dispatcher.Operation op) {
        return ACTIONS.get(op);
    }

    /** Every operation's action, spelled once rather than on every call audited. */
    private static final Map<S3Dispatcher.Operation, String> ACTIONS = actions();

    private static Map<S3Dispatcher.Operation, String> actions() {
        Map<S3Dispatcher.Operation, String> out = new java.util.EnumMap<>(S3Dispatcher.Operation.class);
        for (S3Dispatcher.Operation op : S3Dispatcher.Operation.values()) {
            StringBuilder b = new StringBuilder("s3:");
            for (String part : op.name().split("_")) {
                b.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
            }
            out.put(op, b.toString());
        }
        return out;
    }

    /**
     * The request with a body that keeps a copy of what the handler reads (at most {@link #MAX_BODY_COPY} bytes) in
     * {@code copy}, for an operation in {@link #BODY_DETAILED}; else the request itself.
     */
    static S3Request copyingBody(S3Dispatcher.Operation op, S3Request r, java.io.ByteArrayOutputStream copy) {
        if (op == null || !BODY_DETAILED.contains(op.name())) {
            return r;
        }
        java.io.InputStream copying = new java.io.FilterInputStream(r.body()) {
            @Override
            public int read() throws java.io.IOException {
                int b = super.read();
                if (b >= 0 && copy.size() < MAX_BODY_COPY) {
                    copy.write(b);
                }
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws java.io.IOException {
                int n = super.read(buf, off, len);
                if (n > 0) {
                    copy.write(buf, off, Math.min(n, Math.max(0, MAX_BODY_COPY - copy.size())));
                }
                return n;
            }
        };
        return new S3Request(
                r.method(),
                r.bucket(),
                r.key(),
                r.query(),
                r.headers(),
                r.auth(),
                copying,
                r.bodySize(),
                r.requestId(),
                r.verifiedChecksums(),
                r.checksumAlgorithm(),
                r.secure(),
                r.sourceIp(),
                r.received());
    }

    /** The {@link #BODY_FIELDS} a copied body holds, first occurrence each, as {@code body.<Field>}. */
    static Map<String, String> bodyFields(java.io.ByteArrayOutputStream copy) {
        Map<String, String> out = new LinkedHashMap<>();
        if (copy == null || copy.size() == 0) {
            return out;
        }
        String xml = copy.toString(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < BODY_FIELDS.size(); i++) {
            java.util.regex.Matcher m = BODY_FIELD_PATTERNS.get(i).matcher(xml);
            if (m.find()) {
                out.put("body." + BODY_FIELDS.get(i), m.group(1).strip());
            }
        }
        return out;
    }

    /** {@link #BODY_FIELDS}' patterns, compiled once (compiling them per call was 3 % of a PutObjectRetention). */
    private static final java.util.List<java.util.regex.Pattern> BODY_FIELD_PATTERNS = BODY_FIELDS.stream()
            .map(f -> java.util.regex.Pattern.compile("<" + f + ">([^<]{0,100})</" + f + ">"))
            .toList();

    /**
     * For a PutObject audited for its lock headers, the event it would be recorded with once done (status 200), for
     * the engine to keep with the write's commit; otherwise, or when the sink keeps no such log, one that offers none.
     */
    CommitAudit commitAudit(S3Dispatcher.Operation op, S3Request r) {
        if (op != S3Dispatcher.Operation.PUT_OBJECT) {
            return NO_COMMIT_AUDIT;
        }
        return new CommitAudit(sink.event(call(
                r,
                actionOf(op),
                resource(r.bucket(), r.key(), r.param("versionId")),
                AuditEvent.ALLOWED,
                200,
                details(r, Map.of()))));
    }

    /** Offers no event: the call is recorded once done. */
    static final CommitAudit NO_COMMIT_AUDIT = new CommitAudit(null);

    /** Records a routed call answered with {@code status} (failure null) or refused with {@code failure}. */
    void answered(S3Dispatcher.Operation op, S3Request r, int status, S3Exception failure) {
        answered(op, r, status, failure, Map.of());
    }

    /** As {@link #answered(S3Dispatcher.Operation, S3Request, int, S3Exception)}, with details read from its body. */
    void answered(
            S3Dispatcher.Operation op, S3Request r, int status, S3Exception failure, Map<String, String> fromBody) {
        record(
                r,
                actionOf(op),
                resource(r.bucket(), r.key(), r.param("versionId")),
                status,
                failure,
                details(r, fromBody));
    }

    /**
     * Records a call refused at authentication: its principal is the access key id it claims, never verified (the
     * request is anonymous as far as anything else goes), its outcome the refusal.
     */
    void refused(
            S3Dispatcher.Operation op, S3Request r, String claimedKey, S3Exception failure, Map<String, String> more) {
        sink.record(new AuditedCall(
                Instant.now(),
                claimedKey,
                r.sourceIp(),
                actionOf(op),
                resource(r.bucket(), r.key(), r.param("versionId")),
                outcomeOf(failure),
                failure.code().status(),
                r.requestId(),
                shortened(details(r, more))));
    }

    /** The most characters of a detail a refusal at authentication keeps: lock header values are shorter. */
    static final int MAX_REFUSED_DETAIL = 64;

    /**
     * Unauthenticated headers cut to {@link #MAX_REFUSED_DETAIL} characters: whoever sends them pays nothing, so an
     * event of theirs stays small (the resource is bounded by the key's 1,024 bytes).
     */
    private static Map<String, String> shortened(Map<String, String> details) {
        Map<String, String> out = new LinkedHashMap<>();
        details.forEach((k, v) -> out.put(k, v.length() > MAX_REFUSED_DETAIL ? v.substring(0, MAX_REFUSED_DETAIL) : v));
        return out;
    }

    /** {@code first}, then the Object Lock headers and the upload id the request names. */
    private static Map<String, String> details(S3Request r, Map<String, String> first) {
        Map<String, String> details = new LinkedHashMap<>(first);
        for (String h : LOCK_HEADERS) {
            String v = r.header(h);
            if (v != null) {
                details.put(h, v);
            }
        }
        String upload = r.param("uploadId");
        if (upload != null) {
            details.put("uploadId", upload);
        }
        return details;
    }

    private static String outcomeOf(S3Exception failure) {
        return failure.code() == S3ErrorCode.AccessDenied
                ? "denied"
                : failure.code().code();
    }

    /** Records one call: {@code failure} null when it was done. */
    void record(
            S3Request r, String action, String resource, int status, S3Exception failure, Map<String, String> details) {
        String outcome = failure != null ? outcomeOf(failure) : status >= 400 ? "status-" + status : "allowed";
        record(
                r,
                action,
                resource,
                outcome,
                failure == null ? status : failure.code().status(),
                details);
    }

    /** Records one call with its outcome as given ({@code allowed}, {@code denied}, an error code). */
    void record(S3Request r, String action, String resource, String outcome, int status, Map<String, String> details) {
        sink.record(call(r, action, resource, outcome, status, details));
    }

    /** The call {@code r} made, by its signer, now. */
    private static AuditedCall call(
            S3Request r, String action, String resource, String outcome, int status, Map<String, String> details) {
        return new AuditedCall(
                Instant.now(),
                r.auth().accessKey(),
                r.sourceIp(),
                action,
                resource,
                outcome,
                status,
                r.requestId(),
                details);
    }

    static String resource(String bucket, String key, String versionId) {
        if (bucket == null) {
            return "";
        }
        String res = key == null ? bucket : bucket + "/" + key;
        return versionId == null ? res : res + "?versionId=" + versionId;
    }
}
