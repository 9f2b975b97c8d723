package dev.appliance.s3.api.post;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.acl.AclHandlers;
import dev.appliance.s3.api.object.ObjectHandlers;
import dev.appliance.s3.api.object.Tags;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.api.sosapi.SosApi;
import dev.appliance.s3.audit.AuditSink;
import dev.appliance.s3.audit.RefusalAuditBudget;
import dev.appliance.s3.auth.AccessRequest;
import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.PayloadVerification;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * POST Object: a browser-based upload, {@code POST /bucket} with a {@code multipart/form-data} body whose fields carry
 * what a PUT carries in headers, and whose credentials are a signed policy instead of an {@code Authorization} header.
 *
 * <p>Order of work, all on the worker thread reading the body as it arrives:
 *
 * <ol>
 *   <li>the fields before the {@code file} part are read (at most {@value #PRE_DATA_LIMIT} bytes with their part
 *       heads, else {@code MaxPostPreDataLengthExceededError}); names are case-insensitive;
 *   <li>the signature of the {@code policy} field is verified ({@link SigV4Verifier#verifyPostPolicy}); without
 *       {@code policy} and {@code x-amz-signature} the request is anonymous, refused; SigV2 fields are refused;
 *   <li>the policy is parsed and must not have expired; {@code s3:PutObject} on the bucket and the key (with {@code
 *       ${filename}} replaced by the file part's file name) is asked of the {@link Authorizer};
 *   <li>every condition must hold and every field must be named by one ({@link PostPolicy#checkFields});
 *   <li>the file part streams into {@link ObjectStore#putObject}: a file that ends within its first MiB is stored
 *       with its size known (so small files can be inlined, and a size outside {@code content-length-range} is refused
 *       before anything is written); a longer one streams with its size unknown, never held whole, and the range
 *       (and S3's 5 GiB) is enforced by the stream, which fails before its end so the store commits nothing;
 *   <li>fields after the file are ignored (the rest of the body is read and dropped, up to 64 KiB);
 *   <li>the answer: {@code success_action_redirect} (or the older {@code redirect}) → 303 to that URL with {@code
 *       bucket}, {@code key} and {@code etag} appended; else {@code success_action_status} 200 (empty), 201 (a {@code
 *       PostResponse} document) or 204 (the default, also for any other value).
 * </ol>
 */
public final class PostObjectHandler {
    /** The most bytes of fields (with their part heads) before the file part. */
    static final long PRE_DATA_LIMIT = 20 * 1024;
    /** S3's largest POST upload. */
    static final long MAX_SIZE = 5L << 30;
    /** A file that ends within this many bytes is stored with its size known. */
    static final int PEEK = 1 << 20;
    /** How much of what follows the file part (ignored fields) is read to keep the connection usable. */
    private static final long DRAIN_LIMIT = 64 * 1024;

    private static final Set<String> STORED_FIELDS =
            Set.of("cache-control", "content-disposition", "content-encoding", "content-language", "expires");
    private static final Set<String> UNSUPPORTED_FIELDS = Set.of(
            "x-amz-server-side-encryption",
            "x-amz-server-side-encryption-aws-kms-key-id",
            "x-amz-server-side-encryption-context",
            "x-amz-server-side-encryption-customer-algorithm",
            "x-amz-server-side-encryption-customer-key",
            "x-amz-server-side-encryption-customer-key-md5",
            "x-amz-website-redirect-location",
            "x-amz-security-token");

    private final ObjectStore store;
    private final Authorizer authorizer;
    private final SigV4Verifier verifier;
    private final Clock clock;
    private final AuditSink audit;
    private final RefusalAuditBudget refusalBudget;

    public PostObjectHandler(ObjectStore store, Authorizer authorizer, SigV4Verifier verifier, Clock clock) {
        this(store, authorizer, verifier, clock, AuditSink.NONE, RefusalAuditBudget.standard());
    }

    /**
     * As {@link #PostObjectHandler(ObjectStore, Authorizer, SigV4Verifier, Clock)}; an upload whose fields set
     * retention or a legal hold is told to {@code audit} as a PUT with those headers is (refusals at authentication
     * within {@code refusalBudget}).
     */
    public PostObjectHandler(
            ObjectStore store,
            Authorizer authorizer,
            SigV4Verifier verifier,
            Clock clock,
            AuditSink audit,
            RefusalAuditBudget refusalBudget) {
        this.store = requireNonNull(store, "store");
        this.authorizer = requireNonNull(authorizer, "authorizer");
        this.verifier = requireNonNull(verifier, "verifier");
        this.clock = requireNonNull(clock, "clock");
        this.audit = requireNonNull(audit, "audit");
        this.refusalBudget = requireNonNull(refusalBudget, "refusalBudget");
    }

    /** The form fields that set retention or a legal hold: with any of them the upload is audited. */
    private static final List<String> LOCK_FIELDS = List.of(
            dev.appliance.core.objectlock.ObjectLock.MODE_KEY,
            dev.appliance.core.objectlock.ObjectLock.RETAIN_UNTIL_KEY,
            dev.appliance.core.objectlock.ObjectLock.LEGAL_HOLD_KEY);

    /** The most characters of a lock field an unauthenticated upload's event keeps (as for a refused header). */
    private static final int MAX_REFUSED_DETAIL = 64;

    /** What an audited upload found out about itself as it went: who signed it, which key it wrote. */
    private static final class Audited {
        String accessKey;
        String key;
    }

    /** The fields before the file part (lower-case names) and the file part's head; null head when there is none. */
    record Form(Map<String, String> fields, FormDataReader.PartHead file) {}

    public S3Response handle(S3Request r) throws IOException {
        String contentType = r.header("content-type");
        String boundary = FormDataReader.boundary(contentType);
        if (boundary == null) {
            if (contentType == null
                    || !contentType
                            .split(";")[0]
                            .strip()
                            .toLowerCase(Locale.ROOT)
                            .equals("multipart/form-data")) {
                throw new S3Exception(
                        S3ErrorCode.PreconditionFailed,
                        "Bucket POST must be of the enclosure-type multipart/form-data");
            }
            throw FormDataReader.malformed();
        }
        FormDataReader reader = new FormDataReader(r.body(), boundary, PRE_DATA_LIMIT);
        Form form = readFields(reader);
        Map<String, String> lockFields = new LinkedHashMap<>();
        for (String f : LOCK_FIELDS) {
            String v = form.fields().get(f);
            if (v != null) {
                lockFields.put(f, v);
            }
        }
        if (lockFields.isEmpty() || audit == AuditSink.NONE) {
            return upload(r, reader, form, new Audited());
        }
        // Sets retention or a legal hold: audited as PutObject with these headers is, refusals included
        Audited audited = new Audited();
        S3Response response;
        try {
            response = upload(r, reader, form, audited);
        } catch (IOException | RuntimeException e) {
            recordRefused(r, form.fields(), lockFields, audited, ErrorMapper.map(e));
            throw e;
        }
        record(r, audited, "allowed", response.status(), lockFields);
        return response;
    }

    /** Records an audited upload that failed; one refused at authentication only within the refusal budget. */
    private void recordRefused(
            S3Request r, Map<String, String> fields, Map<String, String> lockFields, Audited audited, S3Exception e) {
        String outcome =
                e.code() == S3ErrorCode.AccessDenied ? "denied" : e.code().code();
        if (audited.accessKey != null) {
            record(r, audited, outcome, e.code().status(), lockFields);
            return;
        }
        // not authenticated: the key id the form claims, as a refusal before routing is recorded
        long leftOut = refusalBudget.take();
        if (leftOut < 0) {
            return;
        }
        String credential = fields.get("x-amz-credential");
        audited.accessKey = credential == null ? "" : verifier.auditedKey(SigV4Verifier.claimedAccessKey(credential));
        Map<String, String> details = RefusalAuditBudget.refusalDetails(AuditSink.authenticationFailure(e), leftOut);
        // unauthenticated values: cut short, whoever sends them pays nothing for the event
        lockFields.forEach(
                (k, v) -> details.put(k, v.length() > MAX_REFUSED_DETAIL ? v.substring(0, MAX_REFUSED_DETAIL) : v));
        record(r, audited, outcome, e.code().status(), details);
    }

    private void record(S3Request r, Audited audited, String outcome, int status, Map<String, String> details) {
        String key = audited.key == null ? "" : "/" + audited.key;
        audit.record(new AuditSink.AuditedCall(
                java.time.Instant.now(),
                audited.accessKey,
                r.sourceIp(),
                "s3:PostObject",
                r.bucket() + key,
                outcome,
                status,
                r.requestId(),
                details));
    }

    private S3Response upload(S3Request r, FormDataReader reader, Form form, Audited audited) throws IOException {
        Map<String, String> fields = form.fields();
        AuthResult auth = authenticate(fields);
        audited.accessKey = auth.accessKey();
        PostPolicy policy = PostPolicy.parse(fields.get("policy"));
        policy.checkNotExpired(clock.instant());
        if (form.file() == null) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "POST requires exactly one file upload per request.");
        }
        String keyField = fields.get("key");
        if (keyField == null) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument,
                    "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of"
                            + " the fields.");
        }
        String filename = form.file().filename() == null ? "" : form.file().filename();
        String key = keyField.replace("${filename}", filename);
        if (key.isEmpty()) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "User key must have a length greater than 0.");
        }
        audited.key = key;
        AccessRequest write = r.access(auth.accessKey(), "s3:PutObject", r.bucket(), key)
                .withConditionKey("s3:authtype", "POST")
                .withConditionKey("s3:signatureversion", "AWS4-HMAC-SHA256");
        if (!authorizer.allowed(write)) {
            throw new S3Exception(S3ErrorCode.AccessDenied);
        }
        if (SosApi.isVirtualKey(key)) {
            throw SosApi.readOnly(); // the key comes from the body: the dispatcher's check never saw it
        }
        Map<String, String> checked = new LinkedHashMap<>(fields);
        checked.put("bucket", r.bucket()); // the bucket addressed, whatever a "bucket" field says
        policy.checkFields(checked);

        PutRequest request = putRequest(fields);
        Map<String, String> lock = LockHeaders.entries(fields::get);
        if (!lock.isEmpty()) {
            LockHeaders.authorizeWrite(lock, write, authorizer);
            if (store.objectLockConfiguration(r.bucket()) == null) {
                throw new S3Exception(S3ErrorCode.InvalidRequest, "Bucket is missing Object Lock Configuration");
            }
            boolean integrity = fields.containsKey("content-md5")
                    || fields.keySet().stream()
                            .anyMatch(f -> f.startsWith("x-amz-checksum-") && !f.equals("x-amz-checksum-algorithm"));
            if (!integrity) {
                throw new S3Exception(
                        S3ErrorCode.InvalidRequest,
                        "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object"
                                + " Lock parameters");
            }
            Map<String, String> meta = new LinkedHashMap<>(request.userMetadata());
            meta.putAll(lock);
            request = request.withUserMetadata(meta);
        }
        long max = Math.min(policy.maxLength(), MAX_SIZE);
        long min = policy.minLength();
        InputStream file = reader.body();
        byte[] head = file.readNBytes(PEEK + 1);
        InputStream body;
        long size;
        if (head.length <= PEEK) {
            size = head.length;
            checkSize(size, min, max);
            body = new ByteArrayInputStream(head);
        } else {
            size = -1;
            body = new RangeCheckingStream(new SequenceInputStream(new ByteArrayInputStream(head), file), min, max);
        }
        PayloadVerification.VerifiedBody verified = checksum(body, auth, fields, size);
        request = new PutRequest(size, request.contentType(), request.userMetadata(), request.expectedMd5())
                .withMetadataAfterBody(verified.verifiedChecksums());
        ObjectInfo info = store.putObject(r.bucket(), key, request, verified.stream());
        reader.drain(DRAIN_LIMIT); // fields after the file are ignored, as S3 does
        return answer(r, fields, key, info);
    }

    /** Reads the parts before {@code file}; a field given twice is refused. */
    static Form readFields(FormDataReader reader) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        FormDataReader.PartHead part;
        while ((part = reader.next()) != null) {
            String name = part.name().toLowerCase(Locale.ROOT);
            if (name.equals("file")) {
                return new Form(fields, part);
            }
            String value = reader.readValue();
            if (fields.putIfAbsent(name, value) != null) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument, "The form field '" + part.name() + "' was given more than once.");
            }
        }
        return new Form(fields, null);
    }

    private AuthResult authenticate(Map<String, String> fields) {
        boolean v4 = fields.containsKey("x-amz-signature");
        if (!v4 && (fields.containsKey("awsaccesskeyid") || fields.containsKey("signature"))) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest,
                    "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.");
        }
        if (!v4 || !fields.containsKey("policy")) {
            throw new S3Exception(S3ErrorCode.AccessDenied, "Anonymous access is not allowed.");
        }
        return verifier.verifyPostPolicy(fields);
    }

    /** What the fields say about the object (the size is set once the file is being read). */
    static PutRequest putRequest(Map<String, String> fields) {
        for (String f : UNSUPPORTED_FIELDS) {
            if (fields.containsKey(f)) {
                throw new S3Exception(S3ErrorCode.NotImplemented, "The form field " + f + " is not supported.");
            }
        }
        String storageClass = fields.get("x-amz-storage-class");
        if (storageClass != null && !storageClass.equals("STANDARD")) {
            throw new S3Exception(S3ErrorCode.NotImplemented, "Only the STANDARD storage class is supported.");
        }
        String acl = fields.get("acl");
        if (acl != null) {
            AclHandlers.checkCannedAcl(acl);
        }
        Map<String, String> meta = new LinkedHashMap<>();
        int userBytes = 0;
        for (Map.Entry<String, String> e : fields.entrySet()) {
            String name = e.getKey();
            if (name.startsWith("x-amz-meta-")) {
                userBytes +=
                        name.length() - "x-amz-meta-".length() + e.getValue().getBytes(StandardCharsets.UTF_8).length;
                meta.put(name, e.getValue());
            } else if (STORED_FIELDS.contains(name) && !e.getValue().isEmpty()) {
                meta.put(name, e.getValue());
            }
        }
        if (userBytes > 2048) {
            throw new S3Exception(
                    S3ErrorCode.MetadataTooLarge,
                    "Your metadata headers exceed the maximum allowed metadata size (2048).");
        }
        String tagging = fields.get("tagging");
        if (tagging != null && !tagging.isBlank()) {
            Map<String, String> tags = Tags.fromXml(
                    XmlReader.parse(tagging.getBytes(StandardCharsets.UTF_8), XmlReader.MAX_BODY),
                    Tags.MAX_OBJECT_TAGS);
            if (!tags.isEmpty()) {
                meta.put(Tags.STORED_KEY, Tags.toHeader(tags));
            }
        }
        String contentType = fields.get("content-type");
        byte[] md5 = ObjectHandlers.contentMd5(fields.get("content-md5"));
        return new PutRequest(-1, contentType == null || contentType.isEmpty() ? null : contentType, meta, md5);
    }

    /** An {@code x-amz-checksum-*} field is verified like the header of a PUT. */
    private static PayloadVerification.VerifiedBody checksum(
            InputStream body, AuthResult auth, Map<String, String> fields, long size) {
        Map<String, List<String>> asHeaders = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            if (e.getKey().startsWith("x-amz-checksum-") && !e.getKey().equals("x-amz-checksum-algorithm")) {
                asHeaders.put(e.getKey(), List.of(e.getValue()));
            }
        }
        return PayloadVerification.open(body, auth, asHeaders, size);
    }

    private static void checkSize(long size, long min, long max) throws BodyException {
        if (size > max) {
            throw new BodyException(
                    S3ErrorCode.EntityTooLarge, "Your proposed upload exceeds the maximum allowed size");
        }
        if (size < min) {
            throw new BodyException(
                    S3ErrorCode.EntityTooSmall, "Your proposed upload is smaller than the minimum allowed size");
        }
    }

    private static S3Response answer(S3Request r, Map<String, String> fields, String key, ObjectInfo info) {
        String etag = Params.quotedEtag(info.etag());
        String version = "null".equals(info.versionId()) ? null : info.versionId();
        String redirect = fields.get("success_action_redirect");
        if (redirect == null) {
            redirect = fields.get("redirect");
        }
        URI target = redirectTarget(redirect);
        if (target != null) {
            String sep = target.getRawQuery() == null ? "?" : "&";
            String location = redirect + sep + "bucket=" + UriEncoding.encode(r.bucket(), false) + "&key="
                    + UriEncoding.encode(key, false) + "&etag=" + UriEncoding.encode(etag, false);
            return S3Response.status(303)
                    .header("Location", location)
                    .header("ETag", etag)
                    .header("x-amz-version-id", version);
        }
        String location = objectUrl(r, key);
        String status = fields.getOrDefault("success_action_status", "204").strip();
        S3Response resp;
        switch (status) {
            case "200" -> resp = S3Response.ok();
            case "201" ->
                resp = S3Response.status(201)
                        .header("Content-Type", "application/xml")
                        .body(new XmlWriter()
                                .start("PostResponse")
                                .element("Location", location)
                                .element("Bucket", r.bucket())
                                .element("Key", key)
                                .element("ETag", etag)
                                .end()
                                .toBytes());
            default -> resp = S3Response.noContent();
        }
        return resp.header("ETag", etag).header("Location", location).header("x-amz-version-id", version);
    }

    /** An absolute http(s) URL, or null: S3 ignores a redirect it cannot interpret. */
    static URI redirectTarget(String redirect) {
        if (redirect == null || redirect.isBlank()) {
            return null;
        }
        try {
            URI u = new URI(redirect);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null && u.getFragment() == null) {
                return u;
            }
        } catch (URISyntaxException e) {
            // ignored, as S3 does
        }
        return null;
    }

    /** The new object's URL in the addressing style of the request. */
    static String objectUrl(S3Request r, String key) {
        String host = r.header("host");
        if (host == null || host.isBlank()) {
            host = "localhost";
        }
        String scheme = r.secure() ? "https://" : "http://";
        boolean virtualHosted = host.toLowerCase(Locale.ROOT).startsWith(r.bucket() + ".");
        String path = virtualHosted ? "/" : "/" + UriEncoding.encode(r.bucket(), false) + "/";
        return scheme + host + path + UriEncoding.encode(key, true);
    }

    /** The upload of unknown size: refused by its stream, before its end, when outside [min, max]. */
    static final class RangeCheckingStream extends FilterInputStream {
        private final long min;
        private final long max;
        private long count;

        RangeCheckingStream(InputStream in, long min, long max) {
            super(in);
            this.min = min;
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n < 0) {
                checkSize(count, min, max);
                return n;
            }
            count += n;
            if (count > max) {
                checkSize(count, min, max);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            throw new IOException("skip is not supported");
        }
    }
}
