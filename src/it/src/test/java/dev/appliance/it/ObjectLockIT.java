package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The Veeam immutability pattern against a real appliance process: a lock bucket, block PUTs with COMPLIANCE retention,
 * lock headers on GET/HEAD, refused versioned deletes, delete markers, retention extension (a block generation rolling
 * over), refused shortening, GOVERNANCE bypass, legal hold, and lock state surviving a restart.
 */
class ObjectLockIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void startAppliance() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "lock-it-admin", "lock-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
    }

    @AfterAll
    static void stopAppliance() {
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.MILLIS);
    }

    private static S3Exception error(Runnable call) {
        S3Exception e = catchThrowableOfType(S3Exception.class, call::run);
        assertThat(e).as("expected an S3 error response").isNotNull();
        return e;
    }

    private static void assertError(Runnable call, int status, String code) {
        S3Exception e = error(call);
        assertThat(e.statusCode()).isEqualTo(status);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
    }

    @Test
    void veeamImmutabilityPattern() throws Exception {
        String bucket = "veeam-immutable";
        s3.createBucket(b -> b.bucket(bucket).objectLockEnabledForBucket(true));
        // capability probe
        assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isEqualTo(BucketVersioningStatus.ENABLED);
        assertThat(s3.getObjectLockConfiguration(b -> b.bucket(bucket))
                        .objectLockConfiguration()
                        .objectLockEnabledAsString())
                .isEqualTo("Enabled");
        assertError(
                () -> s3.putBucketVersioning(
                        b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED))),
                409,
                "InvalidBucketState");

        // one block generation: blocks of ~512 KiB, all with the same COMPLIANCE retain-until date
        Instant generation1 = inDays(17);
        Random random = new Random(42);
        List<String> keys = new ArrayList<>();
        List<String> versions = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String key = "Veeam/Backup/repo/Clients/c1/b1/CloudStg/Data/blk-" + i + ".blk";
            byte[] data = new byte[256 * 1024 + random.nextInt(512 * 1024)];
            random.nextBytes(data);
            PutObjectResponse put = s3.putObject(
                    b -> b.bucket(bucket)
                            .key(key)
                            .objectLockMode(ObjectLockMode.COMPLIANCE)
                            .objectLockRetainUntilDate(generation1),
                    RequestBody.fromBytes(data));
            keys.add(key);
            versions.add(put.versionId());
            bodies.add(data);
        }

        // lock headers on HEAD and GET
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(keys.getFirst()));
        assertThat(head.objectLockMode()).isEqualTo(ObjectLockMode.COMPLIANCE);
        assertThat(head.objectLockRetainUntilDate()).isEqualTo(generation1);
        var got = s3.getObjectAsBytes(b -> b.bucket(bucket).key(keys.get(1)).versionId(versions.get(1)));
        GetObjectResponse getResponse = got.response();
        assertThat(getResponse.objectLockMode()).isEqualTo(ObjectLockMode.COMPLIANCE);
        assertThat(getResponse.objectLockRetainUntilDate()).isEqualTo(generation1);
        assertThat(got.asByteArray()).isEqualTo(bodies.get(1));

        // a versioned delete of a locked block is refused, singly and in a batch
        assertError(
                () -> s3.deleteObject(b -> b.bucket(bucket).key(keys.getFirst()).versionId(versions.getFirst())),
                403,
                "AccessDenied");
        List<ObjectIdentifier> ids = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            ids.add(ObjectIdentifier.builder()
                    .key(keys.get(i))
                    .versionId(versions.get(i))
                    .build());
        }
        DeleteObjectsResponse batch = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(ids)));
        assertThat(batch.deleted()).isEmpty();
        assertThat(batch.errors()).hasSize(keys.size()).allSatisfy(e -> assertThat(e.code())
                .isEqualTo("AccessDenied"));

        // a delete without version id adds a marker; the locked version stays readable by id
        DeleteObjectResponse marker = s3.deleteObject(b -> b.bucket(bucket).key(keys.get(2)));
        assertThat(marker.deleteMarker()).isTrue();
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(keys.get(2)).versionId(versions.get(2)))
                        .asByteArray())
                .isEqualTo(bodies.get(2));

        // generation rollover: every block's retention is extended; shortening is refused, even with bypass
        Instant generation2 = inDays(27);
        for (int i = 0; i < keys.size(); i++) {
            int n = i;
            s3.putObjectRetention(b -> b.bucket(bucket)
                    .key(keys.get(n))
                    .versionId(versions.get(n))
                    .retention(r -> r.mode(ObjectLockRetentionMode.COMPLIANCE).retainUntilDate(generation2)));
        }
        assertThat(s3.getObjectRetention(b -> b.bucket(bucket).key(keys.get(3)).versionId(versions.get(3)))
                        .retention()
                        .retainUntilDate())
                .isEqualTo(generation2);
        assertError(
                () -> s3.putObjectRetention(b -> b.bucket(bucket)
                        .key(keys.get(3))
                        .versionId(versions.get(3))
                        .bypassGovernanceRetention(true)
                        .retention(
                                r -> r.mode(ObjectLockRetentionMode.COMPLIANCE).retainUntilDate(generation1))),
                403,
                "AccessDenied");

        // checkpoint rewrite under the same key: a new version, the locked one kept
        PutObjectResponse owner1 = s3.putObject(
                b -> b.bucket(bucket)
                        .key("Veeam/Backup/repo/Owner")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(generation1),
                RequestBody.fromString("vbr-1"));
        PutObjectResponse owner2 =
                s3.putObject(b -> b.bucket(bucket).key("Veeam/Backup/repo/Owner"), RequestBody.fromString("vbr-2"));
        assertThat(owner2.versionId()).isNotEqualTo(owner1.versionId());
        assertThat(s3.getObjectAsBytes(b ->
                                b.bucket(bucket).key("Veeam/Backup/repo/Owner").versionId(owner1.versionId()))
                        .asUtf8String())
                .isEqualTo("vbr-1");

        // lock state and the retention clock survive a restart
        appliance.restart();
        s3.close();
        s3 = appliance.client();
        assertError(
                () -> s3.deleteObject(b -> b.bucket(bucket).key(keys.getFirst()).versionId(versions.getFirst())),
                403,
                "AccessDenied");
        assertThat(s3.headObject(b -> b.bucket(bucket).key(keys.get(4)).versionId(versions.get(4)))
                        .objectLockRetainUntilDate())
                .isEqualTo(generation2);
        assertError(
                () -> s3.putBucketVersioning(
                        b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED))),
                409,
                "InvalidBucketState");
        boolean clockPersisted = false;
        for (Path drive : appliance.drives()) {
            clockPersisted |= Files.exists(drive.resolve(".appliance.sys").resolve("retention-clock"));
        }
        assertThat(clockPersisted).as("retention clock persisted on the drives").isTrue();
    }

    @Test
    void governanceBypassAndLegalHold() {
        String bucket = "governance";
        s3.createBucket(b -> b.bucket(bucket).objectLockEnabledForBucket(true));
        PutObjectResponse v = s3.putObject(
                b -> b.bucket(bucket)
                        .key("g")
                        .objectLockMode(ObjectLockMode.GOVERNANCE)
                        .objectLockRetainUntilDate(inDays(5)),
                RequestBody.fromString("governed"));
        assertError(
                () -> s3.deleteObject(b -> b.bucket(bucket).key("g").versionId(v.versionId())), 403, "AccessDenied");
        assertError(
                () -> s3.putObjectRetention(
                        b -> b.bucket(bucket).key("g").versionId(v.versionId()).retention(r -> r.mode(
                                        ObjectLockRetentionMode.GOVERNANCE)
                                .retainUntilDate(inDays(1)))),
                403,
                "AccessDenied");
        // root holds s3:BypassGovernanceRetention: with the header, shortening and deleting work
        s3.putObjectRetention(b -> b.bucket(bucket)
                .key("g")
                .versionId(v.versionId())
                .bypassGovernanceRetention(true)
                .retention(r -> r.mode(ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(inDays(1))));
        s3.deleteObject(b -> b.bucket(bucket).key("g").versionId(v.versionId()).bypassGovernanceRetention(true));
        assertThat(s3.listObjectVersions(b -> b.bucket(bucket)).versions()).isEmpty();

        // legal hold: blocks even a bypassing delete until released
        PutObjectResponse h = s3.putObject(
                b -> b.bucket(bucket).key("held").objectLockLegalHoldStatus(ObjectLockLegalHoldStatus.ON),
                RequestBody.fromString("held"));
        assertThat(s3.headObject(b -> b.bucket(bucket).key("held")).objectLockLegalHoldStatus())
                .isEqualTo(ObjectLockLegalHoldStatus.ON);
        assertError(
                () -> s3.deleteObject(b ->
                        b.bucket(bucket).key("held").versionId(h.versionId()).bypassGovernanceRetention(true)),
                403,
                "AccessDenied");
        s3.putObjectLegalHold(b -> b.bucket(bucket)
                .key("held")
                .versionId(h.versionId())
                .legalHold(l -> l.status(ObjectLockLegalHoldStatus.OFF)));
        assertThat(s3.getObjectLegalHold(b -> b.bucket(bucket).key("held").versionId(h.versionId()))
                        .legalHold()
                        .status())
                .isEqualTo(ObjectLockLegalHoldStatus.OFF);
        s3.deleteObject(b -> b.bucket(bucket).key("held").versionId(h.versionId()));
        assertThat(s3.listObjectVersions(b -> b.bucket(bucket)).versions()).isEmpty();
    }
}
