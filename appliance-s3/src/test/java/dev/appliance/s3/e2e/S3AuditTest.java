package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.s3.testing.AccountTestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

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
}
