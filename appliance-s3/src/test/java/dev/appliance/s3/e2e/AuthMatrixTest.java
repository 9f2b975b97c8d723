package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.e2e.RawSigner.Chunks;
import dev.appliance.s3.e2e.RawSigner.Request;
import dev.appliance.s3.e2e.RawSigner.Spoil;
import dev.appliance.s3.e2e.RawSigner.Style;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Every authentication style × every operation family × every way a signature can be wrong must be refused with the
 * right S3 error and change nothing on the drives (the bug class of recent CVEs in MinIO and Ceph RGW: one path that
 * forgot to verify, an unsigned header that widened a presigned URL, a chunk or trailer signature not checked).
 *
 * <p>Requests are signed by hand ({@link RawSigner}) so each part of the signing can be spoiled on its own; a correct
 * request of every style × operation must succeed (controls, on their own buckets), which shows that the refusals come
 * from the spoiled part and not from a request the server would never have accepted. "Nothing changed" is checked on
 * the drives themselves: every file under the drive directories (staging and trash aside) hashed before and after.
 * The SDK's own signing styles with a wrong secret, and presigned URLs from the SDK's presigner, are checked as well.
 */
class AuthMatrixTest {
    private static final String WRONG = "not-the-secret-key-000";

    /** The server that receives the spoiled requests. */
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    /** A second server for the correctly signed controls, so that their changes never meet the refusals' check. */
    @RegisterExtension
    static final S3TestServer CONTROL_SERVER = S3TestServer.allowingAll();

    /** The drives of the server that receives the spoiled requests. */
    private static Path drives;

    private static int port;
    private static S3Client good;
    private static S3Client controlClient;
    private static Target shared;
    private static SortedMap<String, String> baseline;
    private static final AtomicInteger controls = new AtomicInteger();

    /** The resources one set of requests works on. */
    record Target(
            String bucket,
            String lockBucket,
            String emptyBucket,
            String newBucket,
            String key,
            String lockKey,
            String newKey,
            String uploadKey,
            String uploadId,
            String part1ETag) {}

    @BeforeAll
    static void start() throws Exception {
        drives = SERVER.drives();
        port = SERVER.port();
        good = client(S3TestServer.SECRET_KEY, b -> {});
        shared = prepare(good, "matrix");
        baseline = fingerprint();
        controlClient = CONTROL_SERVER.s3();
    }

    /** Buckets and objects for one set of requests: a versioned tagged bucket, a lock bucket, an open upload. */
    static Target prepare(S3Client c, String prefix) {
        String bucket = prefix + "-data";
        String lockBucket = prefix + "-lock";
        String emptyBucket = prefix + "-empty";
        c.createBucket(b -> b.bucket(bucket));
        c.putBucketVersioning(
                b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        c.putBucketTagging(
                b -> b.bucket(bucket).tagging(t -> t.tagSet(s -> s.key("team").value("backup"))));
        c.createBucket(b -> b.bucket(lockBucket).objectLockEnabledForBucket(true));
        c.createBucket(b -> b.bucket(emptyBucket));
        c.putObject(
                b -> b.bucket(bucket).key("existing").tagging("k=v"), RequestBody.fromString("existing content 0123"));
        c.putObject(b -> b.bucket(lockBucket).key("locked"), RequestBody.fromString("locked content"));
        c.putObjectLegalHold(
                b -> b.bucket(lockBucket).key("locked").legalHold(l -> l.status(ObjectLockLegalHoldStatus.OFF)));
        String uploadId =
                c.createMultipartUpload(b -> b.bucket(bucket).key("upload")).uploadId();
        String etag = c.uploadPart(
                        b -> b.bucket(bucket).key("upload").uploadId(uploadId).partNumber(1),
                        RequestBody.fromString("part one data"))
                .eTag();
        return new Target(
                bucket,
                lockBucket,
                emptyBucket,
                prefix + "-new",
                "existing",
                "locked",
                "new-object",
                "upload",
                uploadId,
                etag);
    }

    private static Target controlShared;

    /**
     * What a control of {@code op} works on: the control server's shared resources, or, for an operation that would
     * change what other controls rely on, a resource of its own.
     */
    static synchronized Target controlTarget(Op op) {
        if (controlShared == null) {
            controlShared = prepare(controlClient, "ctl");
        }
        Target t = controlShared;
        String n = "c" + controls.incrementAndGet();
        return switch (op) {
            case CREATE_BUCKET ->
                new Target(
                        t.bucket(),
                        t.lockBucket(),
                        t.emptyBucket(),
                        n + "-new",
                        t.key(),
                        t.lockKey(),
                        t.newKey(),
                        t.uploadKey(),
                        t.uploadId(),
                        t.part1ETag());
            case DELETE_BUCKET -> {
                controlClient.createBucket(b -> b.bucket(n + "-empty"));
                yield new Target(
                        t.bucket(),
                        t.lockBucket(),
                        n + "-empty",
                        t.newBucket(),
                        t.key(),
                        t.lockKey(),
                        t.newKey(),
                        t.uploadKey(),
                        t.uploadId(),
                        t.part1ETag());
            }
            case DELETE_BUCKET_TAGGING -> {
                controlClient.createBucket(b -> b.bucket(n + "-tags"));
                controlClient.putBucketTagging(b -> b.bucket(n + "-tags")
                        .tagging(g -> g.tagSet(s -> s.key("a").value("b"))));
                yield new Target(
                        n + "-tags",
                        t.lockBucket(),
                        t.emptyBucket(),
                        t.newBucket(),
                        t.key(),
                        t.lockKey(),
                        t.newKey(),
                        t.uploadKey(),
                        t.uploadId(),
                        t.part1ETag());
            }
            case COMPLETE_MULTIPART_UPLOAD, ABORT_MULTIPART_UPLOAD -> {
                String key = n + "-upload";
                String id = controlClient
                        .createMultipartUpload(b -> b.bucket(t.bucket()).key(key))
                        .uploadId();
                String etag = controlClient
                        .uploadPart(
                                b -> b.bucket(t.bucket()).key(key).uploadId(id).partNumber(1),
                                RequestBody.fromString("part one data"))
                        .eTag();
                yield new Target(
                        t.bucket(),
                        t.lockBucket(),
                        t.emptyBucket(),
                        t.newBucket(),
                        t.key(),
                        t.lockKey(),
                        t.newKey(),
                        key,
                        id,
                        etag);
            }
            case DELETE_OBJECT, DELETE_OBJECTS -> {
                controlClient.putObject(b -> b.bucket(t.bucket()).key(n + "-object"), RequestBody.fromString("x"));
                yield new Target(
                        t.bucket(),
                        t.lockBucket(),
                        t.emptyBucket(),
                        t.newBucket(),
                        n + "-object",
                        t.lockKey(),
                        t.newKey(),
                        t.uploadKey(),
                        t.uploadId(),
                        t.part1ETag());
            }
            default -> t;
        };
    }

    /** A client of the refusing server signing with {@code secret} (Apache's client, the harness's default). */
    private static S3Client client(String secret, Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder> custom) {
        // Apache's client reads the error body of a request refused while it waits for 100 Continue.
        return SERVER.client(b -> custom.accept(b.credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, secret)))));
    }

    // ---- operations -------------------------------------------------------------------------------------------

    private static final byte[] OBJECT_BODY = "0123456789abcdef".repeat(200).getBytes(StandardCharsets.UTF_8);

    /** One request per dispatcher route family; {@code body} marks those whose handler reads a body. */
    enum Op {
        CREATE_BUCKET(true),
        DELETE_BUCKET(false),
        LIST_BUCKETS(false),
        LIST_OBJECTS_V2(false),
        LIST_OBJECT_VERSIONS(false),
        GET_BUCKET_VERSIONING(false),
        PUT_BUCKET_VERSIONING(true),
        GET_OBJECT_LOCK_CONFIGURATION(false),
        PUT_OBJECT_LOCK_CONFIGURATION(true),
        PUT_BUCKET_TAGGING(true),
        GET_BUCKET_TAGGING(false),
        DELETE_BUCKET_TAGGING(false),
        PUT_OBJECT(true),
        GET_OBJECT(false),
        HEAD_OBJECT(false),
        DELETE_OBJECT(false),
        COPY_OBJECT(false),
        PUT_OBJECT_TAGGING(true),
        GET_OBJECT_TAGGING(false),
        DELETE_OBJECT_TAGGING(false),
        PUT_OBJECT_RETENTION(true),
        PUT_OBJECT_LEGAL_HOLD(true),
        GET_OBJECT_LEGAL_HOLD(false),
        GET_OBJECT_ATTRIBUTES(false),
        CREATE_MULTIPART_UPLOAD(false),
        UPLOAD_PART(true),
        LIST_PARTS(false),
        COMPLETE_MULTIPART_UPLOAD(true),
        ABORT_MULTIPART_UPLOAD(false),
        LIST_MULTIPART_UPLOADS(false),
        DELETE_OBJECTS(true);

        final boolean body;

        Op(boolean body) {
            this.body = body;
        }

        Request request(Target t) {
            String b = "/" + t.bucket();
            String o = b + "/" + t.key();
            String lo = "/" + t.lockBucket() + "/" + t.lockKey();
            String up = b + "/" + t.uploadKey();
            return switch (this) {
                case CREATE_BUCKET ->
                    xml(
                            "PUT",
                            "/" + t.newBucket(),
                            "",
                            "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                                    + "<LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>",
                            false);
                case DELETE_BUCKET -> new Request("DELETE", "/" + t.emptyBucket(), "");
                case LIST_BUCKETS -> new Request("GET", "/", "");
                case LIST_OBJECTS_V2 -> new Request("GET", b, "list-type=2");
                case LIST_OBJECT_VERSIONS -> new Request("GET", b, "versions");
                case GET_BUCKET_VERSIONING -> new Request("GET", b, "versioning");
                case PUT_BUCKET_VERSIONING ->
                    xml(
                            "PUT",
                            b,
                            "versioning",
                            "<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>",
                            false);
                case GET_OBJECT_LOCK_CONFIGURATION -> new Request("GET", "/" + t.lockBucket(), "object-lock");
                case PUT_OBJECT_LOCK_CONFIGURATION ->
                    xml(
                            "PUT",
                            "/" + t.lockBucket(),
                            "object-lock",
                            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule>"
                                    + "<DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention>"
                                    + "</Rule></ObjectLockConfiguration>",
                            true);
                case PUT_BUCKET_TAGGING ->
                    xml(
                            "PUT",
                            b,
                            "tagging",
                            "<Tagging><TagSet><Tag><Key>intruder</Key><Value>yes</Value></Tag></TagSet></Tagging>",
                            true);
                case GET_BUCKET_TAGGING -> new Request("GET", b, "tagging");
                case DELETE_BUCKET_TAGGING -> new Request("DELETE", b, "tagging");
                case PUT_OBJECT -> new Request("PUT", b + "/" + t.newKey(), "", Map.of(), OBJECT_BODY);
                case GET_OBJECT -> new Request("GET", o, "");
                case HEAD_OBJECT -> new Request("HEAD", o, "");
                case DELETE_OBJECT -> new Request("DELETE", o, "");
                case COPY_OBJECT ->
                    new Request("PUT", b + "/" + t.newKey(), "", Map.of("x-amz-copy-source", o), new byte[0]);
                case PUT_OBJECT_TAGGING ->
                    xml(
                            "PUT",
                            o,
                            "tagging",
                            "<Tagging><TagSet><Tag><Key>intruder</Key><Value>yes</Value></Tag></TagSet></Tagging>",
                            true);
                case GET_OBJECT_TAGGING -> new Request("GET", o, "tagging");
                case DELETE_OBJECT_TAGGING -> new Request("DELETE", o, "tagging");
                case PUT_OBJECT_RETENTION ->
                    xml(
                            "PUT",
                            lo,
                            "retention",
                            "<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>"
                                    + Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS)
                                    + "</RetainUntilDate></Retention>",
                            true);
                case PUT_OBJECT_LEGAL_HOLD ->
                    xml("PUT", lo, "legal-hold", "<LegalHold><Status>ON</Status></LegalHold>", true);
                case GET_OBJECT_LEGAL_HOLD -> new Request("GET", lo, "legal-hold");
                case GET_OBJECT_ATTRIBUTES ->
                    new Request(
                            "GET", o, "attributes", Map.of("x-amz-object-attributes", "ETag,ObjectSize"), new byte[0]);
                case CREATE_MULTIPART_UPLOAD -> new Request("POST", b + "/" + t.newKey(), "uploads");
                case UPLOAD_PART ->
                    new Request("PUT", up, "partNumber=2&uploadId=" + t.uploadId(), Map.of(), OBJECT_BODY);
                case LIST_PARTS -> new Request("GET", up, "uploadId=" + t.uploadId());
                case COMPLETE_MULTIPART_UPLOAD ->
                    xml(
                            "POST",
                            up,
                            "uploadId=" + t.uploadId(),
                            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + t.part1ETag()
                                    + "</ETag></Part></CompleteMultipartUpload>",
                            false);
                case ABORT_MULTIPART_UPLOAD -> new Request("DELETE", up, "uploadId=" + t.uploadId());
                case LIST_MULTIPART_UPLOADS -> new Request("GET", b, "uploads");
                case DELETE_OBJECTS ->
                    xml("POST", b, "delete", "<Delete><Object><Key>" + t.key() + "</Key></Object></Delete>", true);
            };
        }

        private static Request xml(String method, String path, String query, String xml, boolean md5) {
            byte[] body = xml.getBytes(StandardCharsets.UTF_8);
            Map<String, String> h = new TreeMap<>();
            if (md5) {
                h.put("content-md5", RawSigner.md5(body));
            }
            return new Request(method, path, query, h, body);
        }
    }

    // ---- what goes wrong ----------------------------------------------------------------------------------------

    /** A way the authentication is wrong, the styles it applies to, and S3's answer. */
    enum Failure {
        WRONG_SECRET(403, "SignatureDoesNotMatch"),
        UNKNOWN_ACCESS_KEY(403, "InvalidAccessKeyId"),
        SIGNED_OTHER_METHOD(403, "SignatureDoesNotMatch"),
        SIGNED_OTHER_PATH(403, "SignatureDoesNotMatch"),
        SIGNED_OTHER_QUERY(403, "SignatureDoesNotMatch"),
        SIGNED_OTHER_HOST(403, "SignatureDoesNotMatch"),
        UNSIGNED_AMZ_HEADER_ADDED(403, "AccessDenied"),
        CLOCK_SKEW_16_MIN_PAST(403, "RequestTimeTooSkewed"),
        CLOCK_SKEW_16_MIN_FUTURE(403, "RequestTimeTooSkewed"),
        PRESIGNED_EXPIRED(403, "AccessDenied"),
        PRESIGNED_NOT_YET_VALID(403, "AccessDenied"),
        PRESIGNED_EXPIRES_OVER_7_DAYS(400, "AuthorizationQueryParametersError"),
        CONTENT_SHA256_MISMATCH(400, "XAmzContentSHA256Mismatch"),
        CHUNK_REPLAYED(403, "SignatureDoesNotMatch"),
        CHUNKS_REORDERED(403, "SignatureDoesNotMatch"),
        CHUNK_SIGNATURE_TRUNCATED(403, "SignatureDoesNotMatch"),
        CHUNK_SIGNATURE_FROM_OTHER_REQUEST(403, "SignatureDoesNotMatch"),
        FINAL_CHUNK_SIGNATURE_WRONG(403, "SignatureDoesNotMatch"),
        BODY_TRUNCATED(400, "IncompleteBody"),
        /** Signed trailer: its signature no longer matches; unsigned trailer: the checksum is wrong. */
        TRAILER_TAMPERED(403, "SignatureDoesNotMatch");

        final int status;
        final String code;

        Failure(int status, String code) {
            this.status = status;
            this.code = code;
        }

        boolean appliesTo(Style s, Op op) {
            return switch (this) {
                case WRONG_SECRET,
                        UNKNOWN_ACCESS_KEY,
                        SIGNED_OTHER_METHOD,
                        SIGNED_OTHER_PATH,
                        SIGNED_OTHER_QUERY,
                        SIGNED_OTHER_HOST,
                        UNSIGNED_AMZ_HEADER_ADDED -> true;
                case CLOCK_SKEW_16_MIN_PAST, CLOCK_SKEW_16_MIN_FUTURE -> s != Style.PRESIGNED;
                case PRESIGNED_EXPIRED, PRESIGNED_NOT_YET_VALID, PRESIGNED_EXPIRES_OVER_7_DAYS -> s == Style.PRESIGNED;
                case CONTENT_SHA256_MISMATCH -> s == Style.SIGNED_PAYLOAD && op.body;
                case CHUNK_REPLAYED,
                        CHUNKS_REORDERED,
                        CHUNK_SIGNATURE_TRUNCATED,
                        CHUNK_SIGNATURE_FROM_OTHER_REQUEST,
                        FINAL_CHUNK_SIGNATURE_WRONG -> s.chunkSignatures() && op.body;
                case BODY_TRUNCATED -> s.chunked && op.body;
                case TRAILER_TAMPERED -> s.trailer() && op.body;
            };
        }

        int status(Style s) {
            return this == TRAILER_TAMPERED && s == Style.STREAMING_UNSIGNED_TRAILER ? 400 : status;
        }

        String code(Style s) {
            return this == TRAILER_TAMPERED && s == Style.STREAMING_UNSIGNED_TRAILER ? "BadDigest" : code;
        }

        Spoil spoil(Request r) {
            Spoil p = new Spoil();
            Instant now = Instant.now();
            switch (this) {
                case WRONG_SECRET -> p.secret = WRONG;
                case UNKNOWN_ACCESS_KEY -> p.accessKey = "no-such-access-key";
                case SIGNED_OTHER_METHOD -> p.signedMethod = r.method().equals("GET") ? "HEAD" : "GET";
                case SIGNED_OTHER_PATH -> p.signedPath = r.path().equals("/") ? "/other" : r.path() + "-other";
                case SIGNED_OTHER_QUERY -> p.signedQueryExtra = "&x-id=Signed";
                case SIGNED_OTHER_HOST -> p.signedHost = "evil.example.com";
                case UNSIGNED_AMZ_HEADER_ADDED -> {
                    // what would widen the request: a copy instead of an upload, a governance bypass, metadata
                    if (r.method().equals("PUT") && !r.headers().containsKey("x-amz-copy-source")) {
                        p.unsignedHeaders.put("x-amz-copy-source", "/matrix-data/existing");
                    } else if (r.method().equals("DELETE") || r.method().equals("POST")) {
                        p.unsignedHeaders.put("x-amz-bypass-governance-retention", "true");
                    } else {
                        p.unsignedHeaders.put("x-amz-meta-injected", "1");
                    }
                }
                case CLOCK_SKEW_16_MIN_PAST -> p.time = now.minus(Duration.ofMinutes(16));
                case CLOCK_SKEW_16_MIN_FUTURE -> p.time = now.plus(Duration.ofMinutes(16));
                case PRESIGNED_EXPIRED -> {
                    p.time = now.minus(Duration.ofHours(1));
                    p.expiresSeconds = 60;
                }
                case PRESIGNED_NOT_YET_VALID -> p.time = now.plus(Duration.ofHours(1));
                case PRESIGNED_EXPIRES_OVER_7_DAYS -> p.expiresSeconds = 604_801;
                case CONTENT_SHA256_MISMATCH -> p.contentSha256 = SigV4.sha256Hex("another body");
                case CHUNK_REPLAYED -> p.chunks = Chunks.REPLAYED;
                case CHUNKS_REORDERED -> p.chunks = Chunks.REORDERED;
                case CHUNK_SIGNATURE_TRUNCATED -> p.chunks = Chunks.SIGNATURE_TRUNCATED;
                case CHUNK_SIGNATURE_FROM_OTHER_REQUEST -> p.chunks = Chunks.FROM_OTHER_REQUEST;
                case FINAL_CHUNK_SIGNATURE_WRONG -> p.chunks = Chunks.FINAL_SIGNATURE_WRONG;
                case BODY_TRUNCATED -> p.chunks = Chunks.BODY_TRUNCATED;
                case TRAILER_TAMPERED -> p.chunks = Chunks.TRAILER_TAMPERED;
            }
            return p;
        }
    }

    static Stream<Arguments> refusals() {
        List<Arguments> out = new ArrayList<>();
        for (Style s : Style.values()) {
            for (Op op : Op.values()) {
                for (Failure f : Failure.values()) {
                    if (f.appliesTo(s, op)) {
                        out.add(Arguments.of(s, op, f));
                    }
                }
            }
        }
        return out.stream();
    }

    static Stream<Arguments> styleTimesOp() {
        List<Arguments> out = new ArrayList<>();
        for (Style s : Style.values()) {
            for (Op op : Op.values()) {
                out.add(Arguments.of(s, op));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} / {1} / {2}")
    @MethodSource("refusals")
    void spoiledAuthentication_isRefusedAndChangesNothing(Style style, Op op, Failure failure) throws Exception {
        Request r = op.request(shared);
        RawHttp resp = RawSigner.send(port, style, r, failure.spoil(r));

        assertThat(resp.status()).as("status; body: %s", resp.body()).isEqualTo(failure.status(style));
        if (!r.method().equals("HEAD")) {
            assertThat(XmlText.one(resp.body(), "Code")).isEqualTo(failure.code(style));
            assertThat(resp.body()).doesNotContain("existing content", "locked content", "<ListBucketResult");
        }
        assertThat(fingerprint()).as("drive contents after a refused request").isEqualTo(baseline);
    }

    /** The same requests, signed correctly, succeed: the refusals above are the spoiled part's doing. */
    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("styleTimesOp")
    void correctlySigned_succeeds(Style style, Op op) throws Exception {
        Target t = controlTarget(op);
        RawHttp resp = RawSigner.send(CONTROL_SERVER.port(), style, op.request(t));
        assertThat(resp.status() / 100).as("%s %s: %s", style, op, resp.body()).isEqualTo(2);
    }

    /** The boundaries: 14 minutes of skew and a 7-day presigned URL are accepted (15 min / 604800 s are the limits). */
    @Test
    void skewJustInsideTheLimit_andSevenDayPresignedUrl_areAccepted() throws Exception {
        Request r = Op.GET_BUCKET_VERSIONING.request(shared);
        for (Duration skew : List.of(Duration.ofMinutes(14), Duration.ofMinutes(-14))) {
            Spoil p = new Spoil();
            p.time = Instant.now().plus(skew);
            assertThat(RawSigner.send(port, Style.UNSIGNED_PAYLOAD, r, p).status())
                    .as("skew %s", skew)
                    .isEqualTo(200);
        }
        Spoil week = new Spoil();
        week.expiresSeconds = 604_800;
        assertThat(RawSigner.send(port, Style.PRESIGNED, r, week).status()).isEqualTo(200);
    }

    // ---- POST Object (browser-based upload): the form is the authentication ------------------------------------

    /** A way the signed form is wrong, and S3's answer. */
    enum FormFailure {
        NONE(204, null),
        WRONG_SECRET(403, "SignatureDoesNotMatch"),
        UNKNOWN_ACCESS_KEY(403, "InvalidAccessKeyId"),
        POLICY_CHANGED_AFTER_SIGNING(403, "SignatureDoesNotMatch"),
        POLICY_EXPIRED(403, "AccessDenied"),
        UNSIGNED_FIELD_ADDED(403, "AccessDenied"),
        KEY_OUTSIDE_POLICY(403, "AccessDenied"),
        OTHER_BUCKET_THAN_POLICY(403, "AccessDenied");

        final int status;
        final String code;

        FormFailure(int status, String code) {
            this.status = status;
            this.code = code;
        }
    }

    @ParameterizedTest(name = "POST policy / {0}")
    @EnumSource(FormFailure.class)
    void postPolicyForm_spoiled_isRefusedAndChangesNothing(FormFailure f) throws Exception {
        boolean control = f == FormFailure.NONE;
        int to = control ? CONTROL_SERVER.port() : port;
        String bucket = control ? controlTarget(Op.PUT_OBJECT).bucket() : shared.bucket();
        String policyBucket = f == FormFailure.OTHER_BUCKET_THAN_POLICY ? shared.lockBucket() : bucket;
        String key = "posted";
        String date =
                DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC).format(Instant.now());
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
        String accessKey = f == FormFailure.UNKNOWN_ACCESS_KEY ? "no-such-access-key" : S3TestServer.ACCESS_KEY;
        String credential = accessKey + "/" + date + "/us-east-1/s3/aws4_request";
        Instant expiration = f == FormFailure.POLICY_EXPIRED
                ? Instant.now().minusSeconds(60)
                : Instant.now().plusSeconds(600);
        String policyKey = f == FormFailure.KEY_OUTSIDE_POLICY ? "allowed/" : key;
        String policy = "{\"expiration\": \"" + expiration.truncatedTo(ChronoUnit.SECONDS) + "\", \"conditions\": ["
                + "{\"bucket\": \"" + policyBucket + "\"}, [\"starts-with\", \"$key\", \"" + policyKey + "\"], "
                + "{\"x-amz-algorithm\": \"AWS4-HMAC-SHA256\"}, {\"x-amz-credential\": \"" + credential + "\"}, "
                + "{\"x-amz-date\": \"" + amzDate + "\"}]}";
        String b64 = Base64.getEncoder().encodeToString(policy.getBytes(StandardCharsets.UTF_8));
        String secret = f == FormFailure.WRONG_SECRET ? WRONG : S3TestServer.SECRET_KEY;
        String signature = SigV4.signature(SigV4.signingKey(secret, date, "us-east-1", "s3"), b64);
        if (f == FormFailure.POLICY_CHANGED_AFTER_SIGNING) {
            b64 = Base64.getEncoder()
                    .encodeToString(policy.replace(policyKey, "").getBytes(StandardCharsets.UTF_8));
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("key", key);
        fields.put("x-amz-algorithm", "AWS4-HMAC-SHA256");
        fields.put("x-amz-credential", credential);
        fields.put("x-amz-date", amzDate);
        fields.put("policy", b64);
        fields.put("x-amz-signature", signature);
        if (f == FormFailure.UNSIGNED_FIELD_ADDED) {
            fields.put("x-amz-meta-injected", "1");
        }
        byte[] body = form(fields, "posted file content".getBytes(StandardCharsets.UTF_8));
        String head = "POST /" + bucket + " HTTP/1.1\r\nHost: 127.0.0.1:" + to
                + "\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n";
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
        req.writeBytes(body);
        RawHttp resp = RawSigner.exchange(to, req.toByteArray(), false);

        assertThat(resp.status()).as(resp.body()).isEqualTo(f.status);
        if (f == FormFailure.NONE) {
            assertThat(controlClient
                            .getObjectAsBytes(b -> b.bucket(bucket).key(key))
                            .asUtf8String())
                    .isEqualTo("posted file content");
            return;
        }
        assertThat(XmlText.one(resp.body(), "Code")).isEqualTo(f.code);
        assertThat(fingerprint()).as("drive contents after a refused form").isEqualTo(baseline);
    }

    private static final String BOUNDARY = "matrix-boundary-7d1f";

    private static byte[] form(Map<String, String> fields, byte[] file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        fields.forEach((k, v) -> out.writeBytes(
                ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + k + "\"\r\n\r\n" + v + "\r\n")
                        .getBytes(StandardCharsets.UTF_8)));
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\n"
                        + "Content-Type: text/plain\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(file);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    // ---- the SDK's own signing, wrong secret ---------------------------------------------------------------------

    /** Signing styles of the SDK, each with the wrong secret. */
    static Stream<Arguments> sdkStyles() {
        return Stream.of(
                Arguments.of(
                        "aws-chunked, signed chunks + trailer",
                        (Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder>) b -> {}),
                Arguments.of("aws-chunked, signed chunks, no trailer", (Consumer<
                                software.amazon.awssdk.services.s3.S3ClientBuilder>)
                        b -> b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)),
                Arguments.of("signed payload (SHA-256), no chunking", (Consumer<
                                software.amazon.awssdk.services.s3.S3ClientBuilder>)
                        b -> b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                                .serviceConfiguration(S3Configuration.builder()
                                        .chunkedEncodingEnabled(false)
                                        .build())));
    }

    static Stream<Arguments> sdkMatrix() {
        List<Arguments> out = new ArrayList<>();
        for (Arguments style : sdkStyles().toList()) {
            for (String op : List.of(
                    "PutObject",
                    "UploadPart",
                    "CopyObject",
                    "DeleteObject",
                    "DeleteObjects",
                    "GetObject",
                    "ListObjectsV2",
                    "CreateBucket",
                    "CompleteMultipartUpload")) {
                out.add(Arguments.of(style.get()[0], style.get()[1], op));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "SDK {0}: {2}")
    @MethodSource("sdkMatrix")
    void sdkWithWrongSecret_isRefusedAndChangesNothing(
            String style, Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder> config, String op)
            throws IOException {
        S3Client bad = client(WRONG, config);
        Target t = shared;
        Runnable call =
                switch (op) {
                    case "PutObject" ->
                        () -> bad.putObject(
                                b -> b.bucket(t.bucket()).key("new"), RequestBody.fromString("x".repeat(70_000)));
                    case "UploadPart" ->
                        () -> bad.uploadPart(
                                b -> b.bucket(t.bucket())
                                        .key(t.uploadKey())
                                        .uploadId(t.uploadId())
                                        .partNumber(1),
                                RequestBody.fromString("part"));
                    case "CopyObject" ->
                        () -> bad.copyObject(b -> b.sourceBucket(t.bucket())
                                .sourceKey(t.key())
                                .destinationBucket(t.bucket())
                                .destinationKey("copied"));
                    case "DeleteObject" ->
                        () -> bad.deleteObject(b -> b.bucket(t.bucket()).key(t.key()));
                    case "DeleteObjects" ->
                        () -> bad.deleteObjects(b -> b.bucket(t.bucket())
                                .delete(d -> d.objects(
                                        ObjectIdentifier.builder().key(t.key()).build())));
                    case "GetObject" ->
                        () -> bad.getObjectAsBytes(b -> b.bucket(t.bucket()).key(t.key()));
                    case "ListObjectsV2" -> () -> bad.listObjectsV2(b -> b.bucket(t.bucket()));
                    case "CreateBucket" -> () -> bad.createBucket(b -> b.bucket("intruder"));
                    case "CompleteMultipartUpload" ->
                        () -> bad.completeMultipartUpload(b -> b.bucket(t.bucket())
                                .key(t.uploadKey())
                                .uploadId(t.uploadId())
                                .multipartUpload(
                                        m -> m.parts(p -> p.partNumber(1).eTag(t.part1ETag()))));
                    default -> throw new IllegalArgumentException(op);
                };
        S3Exception e = catchThrowableOfType(S3Exception.class, call::run);
        assertThat(e).as("%s with a wrong secret must fail", op).isNotNull();
        assertThat(e.statusCode()).isEqualTo(403);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
        assertThat(fingerprint()).isEqualTo(baseline);
    }

    @ParameterizedTest(name = "SDK presigned {0}, wrong secret")
    @MethodSource("presignedMethods")
    void sdkPresignedUrlWithWrongSecret_isRefusedAndChangesNothing(String method) throws Exception {
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + SERVER.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, WRONG)))
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .build()) {
            URI url =
                    switch (method) {
                        case "GET" ->
                            presigner
                                    .presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .getObjectRequest(g ->
                                                    g.bucket(shared.bucket()).key(shared.key())))
                                    .url()
                                    .toURI();
                        case "PUT" ->
                            presigner
                                    .presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .putObjectRequest(g ->
                                                    g.bucket(shared.bucket()).key("presigned-new")))
                                    .url()
                                    .toURI();
                        default ->
                            presigner
                                    .presignDeleteObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .deleteObjectRequest(g ->
                                                    g.bucket(shared.bucket()).key(shared.key())))
                                    .url()
                                    .toURI();
                    };
            HttpRequest.Builder req = HttpRequest.newBuilder(url);
            req = switch (method) {
                case "GET" -> req.GET();
                case "PUT" -> req.PUT(HttpRequest.BodyPublishers.ofString("intruder"));
                default -> req.DELETE();
            };
            HttpResponse<String> resp =
                    HttpClient.newHttpClient().send(req.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(resp.statusCode()).isEqualTo(403);
            assertThat(resp.body()).contains("<Code>SignatureDoesNotMatch</Code>");
        }
        assertThat(fingerprint()).isEqualTo(baseline);
    }

    static Stream<String> presignedMethods() {
        return Stream.of("GET", "PUT", "DELETE");
    }

    // ---- the drives' contents ---------------------------------------------------------------------------------

    /**
     * Every file and directory under the drives, with the SHA-256 of each file: what a request could have changed.
     * Staging ({@code tmp}), {@code trash}, the metadata journal (emptied by the server's checkpoints on their own; the
     * files it covers are compared) and the retention clock (rewritten by the server on its own) are left out; the
     * change marks' slot file counts by the marks it holds.
     */
    static SortedMap<String, String> fingerprint() throws IOException {
        SortedMap<String, String> out = new TreeMap<>();
        Files.walkFileTree(drives, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String rel = drives.relativize(dir).toString();
                // the audit log records refusals (docs/audit.md): that is the one write a refused request makes
                if (rel.matches("drive\\d/\\.appliance\\.sys/(tmp|trash|journal|audit)")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                out.put(rel + "/", "dir");
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = drives.relativize(file).toString();
                if (rel.matches("drive\\d/\\.appliance\\.sys/change-marks")) {
                    // a cleared slot keeps its old bytes: what counts is which keys are marked as changing
                    out.put(rel, "held: " + new LocalDrive(file.getParent().getParent()).heldChangeMarks());
                } else if (!rel.matches("drive\\d/\\.appliance\\.sys/retention-clock")) {
                    out.put(rel, SigV4.sha256Hex(Files.readAllBytes(file)));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}
