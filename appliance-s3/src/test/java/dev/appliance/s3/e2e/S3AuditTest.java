package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.s3.audit.RefusalAuditBudget;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.AccountTestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The S3 endpoint audits, through the real server into the engine's audit log on temp drives, every call that deletes
 * data or changes retention, legal hold, versioning, lifecycle or IAM state, with who, what and the outcome (refusals
 * included), and nothing that only reads or writes plain data.
 */
class S3AuditTest {
    private static final String ROOT_KEY = AccountTestServer.ROOT_KEY;
    private static final String ROOT_SECRET = AccountTestServer.ROOT_SECRET;

    private ApplianceStore store;
    private IdentityStore identity;
    private AccountTestServer account;
    private final List<AutoCloseable> clients = new ArrayList<>();
    private S3Client root;

    @BeforeEach
    void start() throws Exception {
        account = AccountTestServer.start("s3-audit");
        store = account.store();
        identity = account.identity();
        root = s3(ROOT_KEY, ROOT_SECRET);
    }

    @AfterEach
    void stop() throws Exception {
        account.close();
    }

    private S3Client s3(String key, String secret) {
        return account.s3(key, secret);
    }

    private IamClient iam(String key, String secret) {
        return account.iam(key, secret);
    }

    private List<AuditEvent> events() {
        return store.auditLog().query(AuditQuery.all(1000));
    }

    private List<String> actionsAndResources() {
        return events().stream().map(e -> e.action() + " " + e.resource()).toList();
    }

    @Test
    void readsAndPlainWritesAreNotAudited() {
        root.createBucket(b -> b.bucket("plain"));
        root.putObject(b -> b.bucket("plain").key("k"), RequestBody.fromString("data"));
        root.getObjectAsBytes(b -> b.bucket("plain").key("k"));
        root.listObjectsV2(b -> b.bucket("plain"));
        root.getBucketVersioning(b -> b.bucket("plain"));
        assertThat(events()).isEmpty();
    }

    @Test
    void deletesRetentionLegalHoldVersioningAndLifecycleAreAuditedWithWhoAndOutcome() {
        root.createBucket(b -> b.bucket("locked").objectLockEnabledForBucket(true));
        Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        String v1 = root.putObject(
                        b -> b.bucket("locked")
                                .key("backup.vbk")
                                .objectLockMode(ObjectLockMode.GOVERNANCE)
                                .objectLockRetainUntilDate(until),
                        RequestBody.fromString("backup"))
                .versionId();
        root.putObjectRetention(
                b -> b.bucket("locked").key("backup.vbk").versionId(v1).retention(r -> r.mode(
                                ObjectLockRetentionMode.GOVERNANCE)
                        .retainUntilDate(until.plusSeconds(60))));
        root.putObjectLegalHold(b -> b.bucket("locked")
                .key("backup.vbk")
                .versionId(v1)
                .legalHold(h -> h.status(ObjectLockLegalHoldStatus.ON)));
        root.createBucket(b -> b.bucket("plain"));
        root.putBucketVersioning(
                b -> b.bucket("plain").versioningConfiguration(c -> c.status(BucketVersioningStatus.ENABLED)));
        root.putObject(b -> b.bucket("plain").key("a"), RequestBody.fromString("a"));
        root.putObject(b -> b.bucket("plain").key("b"), RequestBody.fromString("b"));
        root.deleteObject(b -> b.bucket("plain").key("a"));
        root.deleteObjects(b -> b.bucket("plain")
                .delete(d -> d.objects(
                        ObjectIdentifier.builder().key("b").build(),
                        ObjectIdentifier.builder().key("c").build())));
        root.putBucketLifecycleConfiguration(b -> b.bucket("plain")
                .lifecycleConfiguration(c -> c.rules(r -> r.id("expire")
                        .status("Enabled")
                        .filter(f -> f.prefix("tmp/"))
                        .expiration(e -> e.days(1)))));
        root.deleteBucketLifecycle(b -> b.bucket("plain"));
        // a governance-locked version refused: audited with the error answered
        assertThatThrownBy(() -> root.deleteObject(
                        b -> b.bucket("locked").key("backup.vbk").versionId(v1)))
                .isInstanceOf(S3Exception.class);

        List<String> audited = actionsAndResources();
        // DeleteObjects deletes its keys in parallel: their events are in either order
        assertThat(audited.subList(6, 8))
                .containsExactlyInAnyOrder("s3:DeleteObject plain/b", "s3:DeleteObject plain/c");
        assertThat(audited)
                .containsExactly(
                        "s3:CreateBucket locked",
                        "s3:PutObject locked/backup.vbk",
                        "s3:PutObjectRetention locked/backup.vbk?versionId=" + v1,
                        "s3:PutObjectLegalHold locked/backup.vbk?versionId=" + v1,
                        "s3:PutBucketVersioning plain",
                        "s3:DeleteObject plain/a",
                        audited.get(6),
                        audited.get(7),
                        "s3:PutBucketLifecycle plain",
                        "s3:DeleteBucketLifecycle plain",
                        "s3:DeleteObject locked/backup.vbk?versionId=" + v1);
        List<AuditEvent> all = events();
        assertThat(all).allSatisfy(e -> {
            assertThat(e.principal()).isEqualTo(ROOT_KEY);
            assertThat(e.source()).isEqualTo("127.0.0.1");
            assertThat(e.requestId()).isNotEmpty();
        });
        assertThat(all.subList(0, 10)).allSatisfy(e -> assertThat(e.outcome()).isEqualTo(AuditEvent.ALLOWED));
        assertThat(all.get(1).details()).containsEntry("x-amz-object-lock-mode", "GOVERNANCE");
        assertThat(all.get(2).details())
                .containsEntry("body.Mode", "GOVERNANCE")
                .containsEntry("body.RetainUntilDate", until.plusSeconds(60).toString());
        assertThat(all.get(3).details()).containsEntry("body.Status", "ON");
        assertThat(all.get(4).details()).containsEntry("body.Status", "Enabled");
        assertThat(all.get(6).details()).containsEntry("via", "DeleteObjects");
        assertThat(all.getLast().outcome()).isEqualTo(AuditEvent.DENIED); // S3 answers a locked version so
        assertThat(all.getLast().status()).isEqualTo(403);
    }

    /**
     * A PutObject with lock headers hands its event to the engine, which keeps it with the write's commit: one event
     * when the write succeeds, and when it fails after the handler handed it over, one event with the error instead.
     */
    @Test
    void aPutWithLockHeadersIsAuditedOnce_asAllowedWhenDone_withItsErrorWhenTheWriteFails() {
        root.createBucket(b -> b.bucket("locked").objectLockEnabledForBucket(true));
        Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        String zeroMd5 = Base64.getEncoder().encodeToString(new byte[16]);
        assertThatThrownBy(() -> root.putObject(
                        b -> b.bucket("locked")
                                .key("bad.vbk")
                                .contentMD5(zeroMd5)
                                .objectLockMode(ObjectLockMode.COMPLIANCE)
                                .objectLockRetainUntilDate(until),
                        RequestBody.fromString("backup")))
                .isInstanceOfSatisfying(
                        S3Exception.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest"));
        root.putObject(
                b -> b.bucket("locked")
                        .key("good.vbk")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(until),
                RequestBody.fromString("backup"));

        List<AuditEvent> puts =
                events().stream().filter(e -> e.action().equals("s3:PutObject")).toList();
        assertThat(puts).extracting(AuditEvent::resource).containsExactly("locked/bad.vbk", "locked/good.vbk");
        assertThat(puts.getFirst().outcome()).isEqualTo("BadDigest");
        assertThat(puts.getFirst().status()).isEqualTo(400);
        assertThat(puts.getLast().outcome()).isEqualTo(AuditEvent.ALLOWED);
        assertThat(puts.getLast().status()).isEqualTo(200);
        assertThat(puts).allSatisfy(e -> {
            assertThat(e.principal()).isEqualTo(ROOT_KEY);
            assertThat(e.requestId()).isNotEmpty();
            assertThat(e.details()).containsEntry("x-amz-object-lock-mode", "COMPLIANCE");
        });
    }

    @Test
    void aUsersRefusedDeleteAndIamChangesAreAuditedAndNoSecretReachesTheDrives() throws IOException {
        root.createBucket(b -> b.bucket("repo"));
        root.putObject(b -> b.bucket("repo").key("k"), RequestBody.fromString("x"));
        IamClient rootIam = iam(ROOT_KEY, ROOT_SECRET);
        rootIam.createUser(b -> b.userName("mallory"));
        var created = rootIam.createAccessKey(b -> b.userName("mallory")).accessKey();
        rootIam.listUsers(); // a read: not audited
        S3Client mallory = s3(created.accessKeyId(), created.secretAccessKey());
        assertThatThrownBy(() -> mallory.deleteObject(b -> b.bucket("repo").key("k")))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        assertThat(mallory.deleteObjects(b -> b.bucket("repo")
                                .delete(d -> d.objects(
                                        ObjectIdentifier.builder().key("k").build())))
                        .errors())
                .singleElement()
                .satisfies(e -> assertThat(e.code()).isEqualTo("AccessDenied"));
        IamClient malloryIam = iam(created.accessKeyId(), created.secretAccessKey());
        assertThatThrownBy(() -> malloryIam.createUser(b -> b.userName("eve"))).isNotNull();

        assertThat(actionsAndResources())
                .containsExactly(
                        "iam:CreateUser UserName=mallory",
                        "iam:CreateAccessKey UserName=mallory",
                        "s3:DeleteObject repo/k",
                        "s3:DeleteObject repo/k",
                        "iam:CreateUser UserName=eve");
        List<AuditEvent> all = events();
        assertThat(all.subList(0, 2)).allSatisfy(e -> {
            assertThat(e.outcome()).isEqualTo(AuditEvent.ALLOWED);
            assertThat(e.principal()).isEqualTo(ROOT_KEY);
        });
        assertThat(all.subList(2, 5)).allSatisfy(e -> {
            assertThat(e.outcome()).isEqualTo(AuditEvent.DENIED);
            assertThat(e.status()).isEqualTo(403);
            assertThat(e.principal()).isEqualTo(created.accessKeyId() + " (mallory)");
        });
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> files = Files.list(d.sysDir().resolve("audit"))) {
                for (Path f : files.toList()) {
                    assertThat(Files.readString(f))
                            .contains("mallory")
                            .doesNotContain(ROOT_SECRET)
                            .doesNotContain(created.secretAccessKey())
                            .doesNotContain("AWS4-HMAC-SHA256")
                            .doesNotContain("Signature");
                }
            }
        }
    }

    private static final String BUCKET_XML_VERSIONING =
            "<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>";

    /** A request sent raw, signed by {@link RawSigner} as {@code key} with {@code secret} (right or wrong). */
    private RawHttp rawAs(
            RawSigner.Style style, String key, String secret, String method, String path, String query, String body)
            throws Exception {
        RawSigner.Spoil spoil = new RawSigner.Spoil();
        spoil.accessKey = key;
        spoil.secret = secret;
        return RawSigner.send(
                account.port(),
                style,
                new RawSigner.Request(method, path, query, Map.of(), body.getBytes(StandardCharsets.UTF_8)),
                spoil);
    }

    private List<AuditEvent> refusedAtAuthentication() {
        return events().stream()
                .filter(e -> e.details().containsKey("authentication"))
                .toList();
    }

    @Test
    void auditedCallsRefusedAtAuthentication_areRecordedWithTheClaimedKeySourceAndError_readsAndPlainWritesAreNot()
            throws Exception {
        root.createBucket(b -> b.bucket("repo"));
        root.putObject(b -> b.bucket("repo").key("k"), RequestBody.fromString("x"));
        IamClient rootIam = iam(ROOT_KEY, ROOT_SECRET);
        rootIam.createUser(b -> b.userName("mallory"));
        var mallory = rootIam.createAccessKey(b -> b.userName("mallory")).accessKey();
        int before = events().size();
        RawSigner.Style header = RawSigner.Style.UNSIGNED_PAYLOAD;

        // a wrong signature on the root key: DeleteObject
        RawHttp wrongSignature = rawAs(header, ROOT_KEY, "not-the-root-secret", "DELETE", "/repo/k", "", "");
        assertThat(wrongSignature.status()).isEqualTo(403);
        assertThat(wrongSignature.body()).contains("SignatureDoesNotMatch");
        // a user's key with a wrong signature: PutObjectRetention
        String retention = "<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate>"
                + "</Retention>";
        assertThat(rawAs(header, mallory.accessKeyId(), "wrong", "PUT", "/repo/k", "retention=", retention)
                        .body())
                .contains("SignatureDoesNotMatch");
        // an unknown key: PutBucketVersioning
        assertThat(rawAs(header, "AKIDUNKNOWN12345", "whatever", "PUT", "/repo", "versioning=", BUCKET_XML_VERSIONING)
                        .body())
                .contains("InvalidAccessKeyId");
        // a presigned DeleteBucket long expired (checked before its signature)
        RawSigner.Spoil expired = new RawSigner.Spoil();
        expired.accessKey = ROOT_KEY;
        expired.secret = ROOT_SECRET;
        expired.time = Instant.now().minus(2, ChronoUnit.HOURS);
        expired.expiresSeconds = 60;
        RawHttp expiredAnswer = RawSigner.send(
                account.port(), RawSigner.Style.PRESIGNED, new RawSigner.Request("DELETE", "/repo", ""), expired);
        assertThat(expiredAnswer.status()).isEqualTo(403);
        assertThat(expiredAnswer.body()).contains("Request has expired");
        // a header-signed PutBucketPolicy dated an hour ago: too skewed
        RawSigner.Spoil skewed = new RawSigner.Spoil();
        skewed.accessKey = ROOT_KEY;
        skewed.secret = ROOT_SECRET;
        skewed.time = Instant.now().minus(1, ChronoUnit.HOURS);
        assertThat(RawSigner.send(
                                account.port(),
                                header,
                                new RawSigner.Request(
                                        "PUT",
                                        "/repo",
                                        "policy=",
                                        Map.of(),
                                        "{\"Version\":\"2012-10-17\",\"Statement\":[]}"
                                                .getBytes(StandardCharsets.UTF_8)),
                                skewed)
                        .body())
                .contains("RequestTimeTooSkewed");
        // an Authorization header that does not parse: DeleteBucketPolicy
        String malformed = "DELETE /repo?policy HTTP/1.1\r\nHost: 127.0.0.1:" + account.port()
                + "\r\nAuthorization: AWS4-HMAC-SHA256 Credential=" + ROOT_KEY
                + "/garbage, Signature=0123abcd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        assertThat(RawSigner.exchange(account.port(), malformed.getBytes(StandardCharsets.UTF_8), false)
                        .body())
                .contains("AuthorizationHeaderMalformed");
        // not audited, refused the same way: a read, a plain write, a write of an operation not audited
        assertThat(rawAs(header, ROOT_KEY, "wrong", "GET", "/repo/k", "", "").status())
                .isEqualTo(403);
        assertThat(rawAs(header, ROOT_KEY, "wrong", "PUT", "/repo/plain", "", "data")
                        .status())
                .isEqualTo(403);
        assertThat(rawAs(header, ROOT_KEY, "wrong", "PUT", "/repo/k", "tagging=", "<Tagging><TagSet/></Tagging>")
                        .status())
                .isEqualTo(403);
        // nothing was done
        assertThat(root.getObjectAsBytes(b -> b.bucket("repo").key("k")).asUtf8String())
                .isEqualTo("x");

        List<AuditEvent> refused = events().subList(before, events().size());
        assertThat(refused)
                .extracting(e -> e.action() + " " + e.resource() + " " + e.principal() + " " + e.outcome() + " "
                        + e.status() + " " + e.details().get("authentication"))
                .containsExactly(
                        "s3:DeleteObject repo/k " + ROOT_KEY + " SignatureDoesNotMatch 403 signature_mismatch",
                        "s3:PutObjectRetention repo/k " + mallory.accessKeyId()
                                + " (mallory) SignatureDoesNotMatch 403 signature_mismatch",
                        "s3:PutBucketVersioning repo AKID*** (unknown key) InvalidAccessKeyId 403 unknown_key",
                        "s3:DeleteBucket repo " + ROOT_KEY + " denied 403 expired",
                        "s3:PutBucketPolicy repo " + ROOT_KEY + " RequestTimeTooSkewed 403 clock_skew",
                        "s3:DeleteBucketPolicy repo " + ROOT_KEY + " AuthorizationHeaderMalformed 400 malformed");
        assertThat(refused).allSatisfy(e -> {
            assertThat(e.source()).isEqualTo("127.0.0.1");
            assertThat(e.requestId()).isNotEmpty();
            assertThat(e.details()).doesNotContainKey("unrecordedBefore");
        });
    }

    @Test
    void iamChangesRefusedAtAuthentication_areRecordedWithTheClaimedKey_readsAreNot() {
        IamClient forged = iam(ROOT_KEY, "not-the-root-secret");
        assertThatThrownBy(() -> forged.createUser(b -> b.userName("eve"))).isNotNull();
        assertThatThrownBy(forged::listUsers).isNotNull();
        IamClient unknown = iam("AKIDNOBODY", ROOT_SECRET);
        assertThatThrownBy(() -> unknown.deleteUser(b -> b.userName("alice"))).isNotNull();

        assertThat(events())
                .extracting(e -> e.action() + " " + e.resource() + " " + e.principal() + " " + e.outcome() + " "
                        + e.details().get("authentication"))
                .containsExactly(
                        "iam:CreateUser UserName=eve " + ROOT_KEY + " SignatureDoesNotMatch signature_mismatch",
                        "iam:DeleteUser UserName=alice AKID*** (unknown key) InvalidClientTokenId unknown_key");
        assertThat(identity.users()).isEmpty();
    }

    @Test
    void refusalsAtAuthentication_areRecordedWithinABudget_theirAnswersAndEffectsUnchanged() throws Exception {
        root.createBucket(b -> b.bucket("repo"));
        root.putObject(b -> b.bucket("repo").key("k"), RequestBody.fromString("x"));
        int sent = RefusalAuditBudget.STANDARD_BURST + 5;
        long started = System.nanoTime();
        for (int i = 0; i < sent; i++) {
            RawHttp answer = rawAs(RawSigner.Style.UNSIGNED_PAYLOAD, ROOT_KEY, "forged", "DELETE", "/repo/k", "", "");
            assertThat(answer.status()).isEqualTo(403);
            assertThat(answer.body()).contains("SignatureDoesNotMatch");
        }
        // anonymous refusals draw on the same budget: spent, so this one is not recorded either
        assertThat(http("DELETE", "/repo/k", new byte[0], Map.of()).statusCode())
                .isEqualTo(403);
        // The budget refills one event a second (the server's real clock): a slow machine may earn one per second
        // taken.
        int earned = (int) Math.ceil((System.nanoTime() - started) / 1e9);
        assertThat(refusedAtAuthentication().size())
                .isBetween(RefusalAuditBudget.STANDARD_BURST, RefusalAuditBudget.STANDARD_BURST + earned)
                .isLessThan(sent);
        assertThat(root.getObjectAsBytes(b -> b.bucket("repo").key("k")).asUtf8String())
                .isEqualTo("x");
    }

    @Test
    void anAnonymousRefusedDelete_isRecordedAsAnonymous() throws Exception {
        root.createBucket(b -> b.bucket("repo"));
        assertThat(http("DELETE", "/repo/k", new byte[0], Map.of()).statusCode())
                .isEqualTo(403);
        assertThat(events()).singleElement().satisfies(e -> {
            assertThat(e.action()).isEqualTo("s3:DeleteObject");
            assertThat(e.principal()).isEqualTo("anonymous");
            assertThat(e.outcome()).isEqualTo(AuditEvent.DENIED);
            assertThat(e.details()).containsEntry("authentication", "anonymous");
        });
    }

    private static final String BOUNDARY = "audit-form-boundary";
    private final HttpClient httpClient = HttpClient.newHttpClient();

    private HttpResponse<String> http(String method, String path, byte[] body, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(account.endpoint() + path))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return httpClient.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST Object form for {@code bucket}, signed with {@code key} and {@code secret}, holding {@code file}. */
    private HttpResponse<String> postForm(
            String bucket, String key, String secret, Map<String, String> fields, byte[] file) throws Exception {
        PostObjectServerTest.Form form = new PostObjectServerTest.Form();
        fields.forEach(form::field);
        form.bucket = bucket;
        form.accessKey = key;
        form.secret = secret;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : form.signed().entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n"
                        + "Content-Type: application/octet-stream\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(file);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return http(
                "POST",
                "/" + bucket,
                out.toByteArray(),
                Map.of("Content-Type", "multipart/form-data; boundary=" + BOUNDARY));
    }

    private static Map<String, String> lockFields(String key, byte[] file, String until) throws Exception {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("key", key);
        f.put(
                "Content-MD5",
                Base64.getEncoder()
                        .encodeToString(MessageDigest.getInstance("MD5").digest(file)));
        f.put("x-amz-object-lock-mode", "GOVERNANCE");
        f.put("x-amz-object-lock-retain-until-date", until);
        f.put("x-amz-object-lock-legal-hold", "ON");
        return f;
    }

    @Test
    void aFormUploadSettingRetentionOrLegalHold_isAuditedAsAPutWithLockHeadersIs_refusalsIncluded() throws Exception {
        root.createBucket(b -> b.bucket("locked").objectLockEnabledForBucket(true));
        IamClient rootIam = iam(ROOT_KEY, ROOT_SECRET);
        rootIam.createUser(b -> b.userName("mallory"));
        var mallory = rootIam.createAccessKey(b -> b.userName("mallory")).accessKey();
        int before = events().size();
        byte[] file = "backup".getBytes(StandardCharsets.UTF_8);
        String until = Instant.now()
                .plus(1, ChronoUnit.DAYS)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();

        HttpResponse<String> stored =
                postForm("locked", ROOT_KEY, ROOT_SECRET, lockFields("by-form", file, until), file);
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(204);
        HttpResponse<String> forged =
                postForm("locked", ROOT_KEY, "forged-secret", lockFields("forged", file, until), file);
        assertThat(forged.body()).contains("SignatureDoesNotMatch");
        HttpResponse<String> denied = postForm(
                "locked", mallory.accessKeyId(), mallory.secretAccessKey(), lockFields("denied", file, until), file);
        assertThat(denied.statusCode()).isEqualTo(403);
        // a form that sets no lock is a plain write: not audited
        assertThat(postForm("locked", ROOT_KEY, ROOT_SECRET, Map.of("key", "plain"), file)
                        .statusCode())
                .isEqualTo(204);

        List<AuditEvent> posted = events().subList(before, events().size());
        assertThat(posted)
                .extracting(e ->
                        e.action() + " " + e.resource() + " " + e.principal() + " " + e.outcome() + " " + e.status())
                .containsExactly(
                        "s3:PostObject locked/by-form " + ROOT_KEY + " allowed 204",
                        "s3:PostObject locked " + ROOT_KEY + " SignatureDoesNotMatch 403",
                        "s3:PostObject locked/denied " + mallory.accessKeyId() + " (mallory) denied 403");
        assertThat(posted).allSatisfy(e -> {
            assertThat(e.source()).isEqualTo("127.0.0.1");
            assertThat(e.details())
                    .containsEntry("x-amz-object-lock-mode", "GOVERNANCE")
                    .containsEntry("x-amz-object-lock-retain-until-date", until)
                    .containsEntry("x-amz-object-lock-legal-hold", "ON");
        });
        assertThat(posted.get(1).details()).containsEntry("authentication", "signature_mismatch");
        assertThat(posted.get(0).details()).doesNotContainKey("authentication");
    }

    /** Copies what is written to {@code a} to {@code b} as well. */
    private record Tee(OutputStream a, OutputStream b) {
        OutputStream stream() {
            return new OutputStream() {
                @Override
                public void write(int c) throws IOException {
                    a.write(c);
                    synchronized (b) {
                        b.write(c);
                    }
                }

                @Override
                public void write(byte[] buf, int off, int len) throws IOException {
                    a.write(buf, off, len);
                    synchronized (b) {
                        b.write(buf, off, len);
                    }
                }
            };
        }
    }

    private static final List<String> CLIENT_LOGGERS =
            List.of("org.apache.http", "software.amazon.awssdk", "jdk.internal.httpclient");

    @Test
    void noSecretOrSignatureReachesTheAuditFilesOrTheLogs_afterSignedPresignedAndFormTraffic_refusalsIncluded()
            throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Handler logs = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String name = r.getLoggerName() == null ? "" : r.getLoggerName();
                if (CLIENT_LOGGERS.stream().anyMatch(name::startsWith)) {
                    return; // the test's own clients log what they send, signatures included: not the appliance's logs
                }
                synchronized (captured) {
                    captured.writeBytes((r.getLoggerName() + " " + r.getMessage() + " " + r.getThrown() + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger rootLogger = Logger.getLogger("");
        java.util.logging.Level level = rootLogger.getLevel();
        PrintStream out = System.out;
        PrintStream err = System.err;
        rootLogger.addHandler(logs);
        rootLogger.setLevel(java.util.logging.Level.ALL); // FINE lines too: whatever any level could show
        System.setOut(new PrintStream(new Tee(out, captured).stream(), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, captured).stream(), true, StandardCharsets.UTF_8));
        List<String> secrets = new ArrayList<>(List.of(ROOT_SECRET));
        List<String> signatures = new ArrayList<>();
        try {
            root.createBucket(b -> b.bucket("locked").objectLockEnabledForBucket(true));
            IamClient rootIam = iam(ROOT_KEY, ROOT_SECRET);
            rootIam.createUser(b -> b.userName("alice"));
            var alice = rootIam.createAccessKey(b -> b.userName("alice")).accessKey();
            secrets.add(alice.secretAccessKey());
            S3Client aliceS3 = s3(alice.accessKeyId(), alice.secretAccessKey());
            Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);

            // signed: allowed (root) and refused (alice has no policy)
            String v1 = root.putObject(
                            b -> b.bucket("locked")
                                    .key("a")
                                    .objectLockMode(ObjectLockMode.GOVERNANCE)
                                    .objectLockRetainUntilDate(until),
                            RequestBody.fromString("a"))
                    .versionId();
            assertThatThrownBy(
                            () -> aliceS3.deleteObject(b -> b.bucket("locked").key("a")))
                    .isInstanceOf(S3Exception.class);
            // presigned: root's and alice's
            for (String[] who : List.of(
                    new String[] {ROOT_KEY, ROOT_SECRET},
                    new String[] {alice.accessKeyId(), alice.secretAccessKey()})) {
                try (S3Presigner presigner = S3Presigner.builder()
                        .endpointOverride(account.endpoint())
                        .region(Region.US_EAST_1)
                        .serviceConfiguration(S3Configuration.builder()
                                .pathStyleAccessEnabled(true)
                                .build())
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create(who[0], who[1])))
                        .build()) {
                    URI url = presigner
                            .presignDeleteObject(p -> p.signatureDuration(java.time.Duration.ofMinutes(5))
                                    .deleteObjectRequest(d -> d.bucket("locked").key("b")))
                            .url()
                            .toURI();
                    signatures.add(url.getQuery().replaceAll(".*X-Amz-Signature=([0-9a-f]+).*", "$1"));
                    http("DELETE", url.getRawPath() + "?" + url.getRawQuery(), new byte[0], Map.of());
                }
            }
            // forms: allowed (root), refused (alice), forged
            byte[] file = "f".getBytes(StandardCharsets.UTF_8);
            Map<String, String> fields = lockFields("form", file, until.toString());
            assertThat(postForm("locked", ROOT_KEY, ROOT_SECRET, fields, file).statusCode())
                    .isEqualTo(204);
            assertThat(postForm("locked", alice.accessKeyId(), alice.secretAccessKey(), fields, file)
                            .statusCode())
                    .isEqualTo(403);
            assertThat(postForm("locked", alice.accessKeyId(), alice.secretAccessKey() + "x", fields, file)
                            .statusCode())
                    .isEqualTo(403);
            // refused at authentication: a wrong secret, and a client that put its secret where its key id goes
            assertThat(rawAs(
                                    RawSigner.Style.UNSIGNED_PAYLOAD,
                                    alice.accessKeyId(),
                                    ROOT_SECRET,
                                    "DELETE",
                                    "/locked/a",
                                    "versionId=" + v1,
                                    "")
                            .status())
                    .isEqualTo(403);
            assertThat(rawAs(RawSigner.Style.UNSIGNED_PAYLOAD, ROOT_SECRET, ROOT_SECRET, "DELETE", "/locked", "", "")
                            .body())
                    .contains("InvalidAccessKeyId");
            String sentSignature = "5ec2e7000000000000000000000000000000000000000000000000000000abcd";
            signatures.add(sentSignature);
            String garbled = "PUT /locked/a?legal-hold HTTP/1.1\r\nHost: 127.0.0.1:" + account.port()
                    + "\r\nAuthorization: AWS4-HMAC-SHA256 Credential=" + alice.secretAccessKey() + ", Signature="
                    + sentSignature + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            assertThat(RawSigner.exchange(account.port(), garbled.getBytes(StandardCharsets.UTF_8), false)
                            .status())
                    .isGreaterThanOrEqualTo(400);
        } finally {
            System.setOut(out);
            System.setErr(err);
            rootLogger.removeHandler(logs);
            rootLogger.setLevel(level);
        }
        StringBuilder auditFiles = new StringBuilder();
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> files = Files.list(d.sysDir().resolve("audit"))) {
                for (Path f : files.toList()) {
                    auditFiles.append(Files.readString(f));
                }
            }
        }
        // the audit holds the traffic, refusals at authentication and forms included: the search is not vacuous
        assertThat(auditFiles.toString())
                .contains("s3:PutObject", "s3:PostObject", "\"outcome\":\"SignatureDoesNotMatch\"")
                .contains("\"outcome\":\"InvalidAccessKeyId\"", "\"outcome\":\"AuthorizationHeaderMalformed\"");
        String logged;
        synchronized (captured) {
            logged = captured.toString(StandardCharsets.UTF_8);
        }
        for (String secret : secrets) {
            assertThat(auditFiles.toString()).as("audit files").doesNotContain(secret);
            assertThat(logged).as("logs").doesNotContain(secret);
        }
        for (String signature : signatures) {
            assertThat(auditFiles.toString()).as("audit files").doesNotContain(signature);
            assertThat(logged).as("logs").doesNotContain(signature);
        }
        assertThat(auditFiles.toString()).doesNotContain(SigV4.ALGORITHM).doesNotContain("Signature=");
    }
}
