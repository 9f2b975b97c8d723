package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.appliance.core.policy.BuiltinPolicies;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import software.amazon.awssdk.services.s3.model.DefaultRetention;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectLockConfigurationResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockConfiguration;
import software.amazon.awssdk.services.s3.model.ObjectLockEnabled;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetention;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRule;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Issue 14's proof that a Veeam key can be least-privilege: a user created through the IAM API (the real AWS CLI, then
 * boto3) with the Veeam repository policy ({@link BuiltinPolicies#veeamRepository}) for one bucket as a customer
 * managed policy. Its key runs Veeam's call pattern on that bucket (docs/veeam.md) and every call outside the grant is
 * refused with {@code 403 AccessDenied}, the root credential confirming after each that nothing changed.
 */
class VeeamLeastPrivilegeIT {
    private static final String REPO = "veeam-repo";
    private static final String OTHER = "other";
    private static final String OTHER_KEY = "keep/precious.bin";
    private static final byte[] OTHER_BYTES = "not Veeam's to touch".getBytes(StandardCharsets.UTF_8);
    private static final String SOSAPI = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/";
    private static final String BACKUP = "Veeam/Backup/repo/Clients/{c1b2c3d4-0000-4000-8000-000000000001}/job/";
    private static final String DATA = BACKUP + "CloudStg/Data/{a1b2c3d4-0000-4000-8000-000000000002}/";
    private static final String CHECKPOINT = BACKUP + "Metadata/Checkpoint";
    private static final List<String> BOTO3_CHECKS = List.of(
            "create_user_with_veeam_policy",
            "put_and_get_in_repository",
            "get_in_other_bucket_denied",
            "nothing_written_to_other");

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client root;
    private static AwsCli cli;
    private static Path policyFile;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "veeam-lp-admin", "veeam-lp-secret-" + UUID.randomUUID()))
                .start();
        root = appliance.client();
        root.createBucket(b -> b.bucket(REPO).objectLockEnabledForBucket(true));
        root.createBucket(b -> b.bucket(OTHER));
        root.putObject(b -> b.bucket(OTHER).key(OTHER_KEY), RequestBody.fromBytes(OTHER_BYTES));
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                """);
        // rendered as an operator would: the policy names its bucket, so it is a customer managed policy
        policyFile = tmp.resolve("veeam-policy.json");
        Files.writeString(
                policyFile,
                BuiltinPolicies.veeamRepository(List.of(REPO)).document().json());
    }

    @AfterAll
    static void stop() {
        if (root != null) {
            root.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void awsCliVeeamUser_runsVeeamsCallsAndIsDeniedEverythingElse() throws Exception {
        JsonNode user = cli.json("iam", "create-user", "--user-name", "veeam").get("User");
        assertThat(user.get("UserName").asText()).isEqualTo("veeam");
        String policyArn = cli.json(
                        "iam",
                        "create-policy",
                        "--policy-name",
                        "veeam-repo",
                        "--policy-document",
                        "file://" + policyFile)
                .get("Policy")
                .get("Arn")
                .asText();
        assertThat(policyArn).endsWith(":policy/veeam-repo");
        cli.run("iam", "attach-user-policy", "--user-name", "veeam", "--policy-arn", policyArn);
        JsonNode key =
                cli.json("iam", "create-access-key", "--user-name", "veeam").get("AccessKey");
        String keyId = key.get("AccessKeyId").asText();
        String secret = key.get("SecretAccessKey").asText();

        try (S3Client veeam = appliance.client(keyId, secret, b -> {})) {
            VeeamState state = veeamCallPattern(veeam);
            outsideTheGrant(veeam, state, cli.withCredentials(keyId, secret), keyId);
        }
    }

    @Test
    void boto3VeeamUser_writesTheRepositoryOnly() throws Exception {
        String python = PythonSuite.pythonWithBoto3("VeeamLeastPrivilegeIT");
        PythonSuite.Run run = PythonSuite.run(
                python,
                "/veeam_least_privilege.py",
                appliance,
                tmp,
                Map.of(
                        "VEEAM_POLICY_FILE", policyFile.toString(),
                        "REPO_BUCKET", REPO,
                        "OTHER_BUCKET", OTHER,
                        "OTHER_KEY", OTHER_KEY));
        run.assertPassed(BOTO3_CHECKS);
        run.summary("boto3 Veeam least privilege", BOTO3_CHECKS.size());
        // and the root credential agrees: the other bucket holds exactly what it held
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key(OTHER_KEY)).asByteArray())
                .isEqualTo(OTHER_BYTES);
        assertThat(root.listObjectsV2(b -> b.bucket(OTHER)).contents())
                .extracting(o -> o.key())
                .containsExactly(OTHER_KEY);
    }

    /** What the call pattern left for the denial checks: a locked block and a GOVERNANCE-locked version. */
    private record VeeamState(String lockedKey, String lockedVersion, String governanceKey, String governanceVersion) {}

    /** Veeam's calls on its repository (docs/veeam.md, the simulator's phases), each of which must succeed. */
    private static VeeamState veeamCallPattern(S3Client veeam) throws Exception {
        // repository creation
        assertThat(veeam.listBuckets().buckets()).extracting(b -> b.name()).contains(REPO);
        veeam.headBucket(b -> b.bucket(REPO));
        veeam.getBucketLocation(b -> b.bucket(REPO));
        assertThat(veeam.getBucketVersioning(b -> b.bucket(REPO)).status()).isEqualTo(BucketVersioningStatus.ENABLED);
        GetObjectLockConfigurationResponse lock = veeam.getObjectLockConfiguration(b -> b.bucket(REPO));
        assertThat(lock.objectLockConfiguration().objectLockEnabled()).isEqualTo(ObjectLockEnabled.ENABLED);
        assertThat(lock.objectLockConfiguration().rule()).isNull();
        for (String sosapi : List.of("system.xml", "capacity.xml")) {
            String xml = veeam.getObjectAsBytes(b -> b.bucket(REPO).key(SOSAPI + sosapi))
                    .asUtf8String();
            assertThat(xml).contains(sosapi.equals("system.xml") ? "CapacityInfo" : "Capacity");
            veeam.headObject(b -> b.bucket(REPO).key(SOSAPI + sosapi));
        }
        veeam.listObjectsV2(b -> b.bucket(REPO).prefix("").delimiter("/"));
        for (String marker : List.of("Veeam/", "Veeam/Backup/", "Veeam/Backup/repo/")) {
            veeam.putObject(b -> b.bucket(REPO).key(marker), RequestBody.empty());
        }

        // a backup session: blocks of 256 KiB to 1 MiB under COMPLIANCE retention, one under GOVERNANCE
        Instant until = Instant.now().plus(7, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        Random random = new Random(14);
        List<String> keys = new ArrayList<>();
        List<String> versions = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        int[] sizes = {256 * 1024, 512 * 1024 + 17, 1024 * 1024};
        for (int i = 0; i < sizes.length + 1; i++) {
            boolean governance = i == sizes.length;
            byte[] data = new byte[governance ? 300 * 1024 : sizes[i]];
            random.nextBytes(data);
            String key = DATA + i + ".00000000000000000000000000000000." + Integer.toHexString(data.length) + ".blk";
            PutObjectResponse put = veeam.putObject(
                    b -> b.bucket(REPO)
                            .key(key)
                            .objectLockMode(governance ? ObjectLockMode.GOVERNANCE : ObjectLockMode.COMPLIANCE)
                            .objectLockRetainUntilDate(until),
                    RequestBody.fromBytes(data));
            assertThat(put.versionId()).isNotBlank();
            keys.add(key);
            versions.add(put.versionId());
            contents.add(data);
        }
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(key)).asByteArray())
                    .isEqualTo(contents.get(i));
            assertThat(veeam.headObject(b -> b.bucket(REPO).key(key)).objectLockRetainUntilDate())
                    .isEqualTo(until);
            assertThat(veeam.getObjectRetention(b -> b.bucket(REPO).key(key))
                            .retention()
                            .retainUntilDate())
                    .isEqualTo(until);
            ListObjectVersionsResponse exact =
                    veeam.listObjectVersions(b -> b.bucket(REPO).prefix(key));
            assertThat(exact.versions()).extracting(v -> v.versionId()).containsExactly(versions.get(i));
            assertThat(veeam.listObjectsV2(b -> b.bucket(REPO).prefix(key)).contents())
                    .extracting(o -> o.key())
                    .containsExactly(key);
        }
        String version0 = versions.get(0);
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(keys.get(0)).versionId(version0))
                        .asByteArray())
                .isEqualTo(contents.get(0));
        // allowed, and answered as AWS does for a version without a legal hold (a refusal would be 403)
        try {
            veeam.getObjectLegalHold(b -> b.bucket(REPO).key(keys.get(0)));
            throw new AssertionError("GetObjectLegalHold answered a legal hold that was never set");
        } catch (S3Exception e) {
            assertThat(e.statusCode()).as(e.getMessage()).isEqualTo(404);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchObjectLockConfiguration");
        }

        // block generation rollover: retention extended
        Instant extended = until.plus(10, ChronoUnit.DAYS);
        String version1 = versions.get(1);
        veeam.putObjectRetention(b -> b.bucket(REPO)
                .key(keys.get(1))
                .versionId(version1)
                .retention(ObjectLockRetention.builder()
                        .mode(ObjectLockRetentionMode.COMPLIANCE)
                        .retainUntilDate(extended)
                        .build()));
        assertThat(root.getObjectRetention(b -> b.bucket(REPO).key(keys.get(1)).versionId(version1))
                        .retention()
                        .retainUntilDate())
                .isEqualTo(extended);

        // checkpoint rewritten under the same key (no retention), rollback read of the previous version
        String checkpoint1 = veeam.putObject(
                        b -> b.bucket(REPO).key(CHECKPOINT), RequestBody.fromString("checkpoint 1"))
                .versionId();
        String checkpoint2 = veeam.putObject(
                        b -> b.bucket(REPO).key(CHECKPOINT), RequestBody.fromString("checkpoint 2"))
                .versionId();
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(CHECKPOINT).versionId(checkpoint1))
                        .asUtf8String())
                .isEqualTo("checkpoint 1");
        veeam.listObjectVersions(
                b -> b.bucket(REPO).prefix(BACKUP + "Metadata/").delimiter("/"));

        // a retired block deleted without version id: a delete marker, the locked version still there
        DeleteObjectResponse retired = veeam.deleteObject(b -> b.bucket(REPO).key(keys.get(2)));
        assertThat(retired.deleteMarker()).isTrue();
        String marker = retired.versionId();
        String version2 = versions.get(2);
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(keys.get(2)).versionId(version2))
                        .asByteArray())
                .isEqualTo(contents.get(2));

        // cleanup: DeleteObjects of released versions (the marker, the old checkpoint); a locked one is refused per key
        DeleteObjectsResponse cleanup = veeam.deleteObjects(b -> b.bucket(REPO)
                .delete(d -> d.objects(
                        ObjectIdentifier.builder()
                                .key(keys.get(2))
                                .versionId(marker)
                                .build(),
                        ObjectIdentifier.builder()
                                .key(CHECKPOINT)
                                .versionId(checkpoint1)
                                .build(),
                        ObjectIdentifier.builder()
                                .key(keys.get(0))
                                .versionId(version0)
                                .build())));
        assertThat(cleanup.deleted())
                .extracting(d -> d.key() + "@" + d.versionId())
                .containsExactlyInAnyOrder(keys.get(2) + "@" + marker, CHECKPOINT + "@" + checkpoint1);
        assertThat(cleanup.errors())
                .extracting(e -> e.key() + "@" + e.versionId() + " " + e.code())
                .containsExactly(keys.get(0) + "@" + version0 + " AccessDenied");
        // and a single versioned delete of a released version (s3:DeleteObjectVersion)
        veeam.deleteObject(b -> b.bucket(REPO).key(CHECKPOINT).versionId(checkpoint2));
        assertThat(root.listObjectVersions(b -> b.bucket(REPO).prefix(CHECKPOINT))
                        .versions())
                .isEmpty();
        assertThat(root.listObjectVersions(b -> b.bucket(REPO).prefix(keys.get(2))))
                .satisfies(r -> assertThat(r.deleteMarkers()).isEmpty())
                .satisfies(r ->
                        assertThat(r.versions()).extracting(v -> v.versionId()).containsExactly(version2));
        return new VeeamState(keys.get(0), version0, keys.get(3), versions.get(3));
    }

    /** Calls the Veeam policy does not grant: each refused with 403 AccessDenied, and the root sees nothing changed. */
    private static void outsideTheGrant(S3Client veeam, VeeamState state, AwsCli veeamCli, String keyId)
            throws Exception {
        // the other bucket: no read, no write, no delete
        denied(() -> veeam.getObject(b -> b.bucket(OTHER).key(OTHER_KEY)));
        denied(() -> veeam.putObject(b -> b.bucket(OTHER).key(OTHER_KEY), RequestBody.fromString("overwritten")));
        denied(() -> veeam.putObject(b -> b.bucket(OTHER).key("new.bin"), RequestBody.fromString("new")));
        denied(() -> veeam.deleteObject(b -> b.bucket(OTHER).key(OTHER_KEY)));
        denied(() -> veeam.listObjectsV2(b -> b.bucket(OTHER)));
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key(OTHER_KEY)).asByteArray())
                .isEqualTo(OTHER_BYTES);
        assertThat(root.listObjectsV2(b -> b.bucket(OTHER)).contents())
                .extracting(o -> o.key())
                .containsExactly(OTHER_KEY);

        // the repository bucket itself: no deletion, no versioning or lock configuration change
        denied(() -> veeam.deleteBucket(b -> b.bucket(REPO)));
        root.headBucket(b -> b.bucket(REPO));
        denied(() -> veeam.putBucketVersioning(
                b -> b.bucket(REPO).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED))));
        assertThat(root.getBucketVersioning(b -> b.bucket(REPO)).status()).isEqualTo(BucketVersioningStatus.ENABLED);
        denied(() -> veeam.putObjectLockConfiguration(b -> b.bucket(REPO)
                .objectLockConfiguration(ObjectLockConfiguration.builder()
                        .objectLockEnabled(ObjectLockEnabled.ENABLED)
                        .rule(ObjectLockRule.builder()
                                .defaultRetention(DefaultRetention.builder()
                                        .mode(ObjectLockRetentionMode.GOVERNANCE)
                                        .days(1)
                                        .build())
                                .build())
                        .build())));
        assertThat(root.getObjectLockConfiguration(b -> b.bucket(REPO))
                        .objectLockConfiguration()
                        .rule())
                .isNull();

        // no governance bypass: neither deleting a GOVERNANCE version nor shortening its retention
        Instant governanceUntil = root.getObjectRetention(
                        b -> b.bucket(REPO).key(state.governanceKey()).versionId(state.governanceVersion()))
                .retention()
                .retainUntilDate();
        denied(() -> veeam.deleteObject(b -> b.bucket(REPO)
                .key(state.governanceKey())
                .versionId(state.governanceVersion())
                .bypassGovernanceRetention(true)));
        denied(() -> veeam.putObjectRetention(b -> b.bucket(REPO)
                .key(state.governanceKey())
                .versionId(state.governanceVersion())
                .bypassGovernanceRetention(true)
                .retention(ObjectLockRetention.builder()
                        .mode(ObjectLockRetentionMode.GOVERNANCE)
                        .retainUntilDate(Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS))
                        .build())));
        assertThat(root.getObjectRetention(
                                b -> b.bucket(REPO).key(state.governanceKey()).versionId(state.governanceVersion()))
                        .retention()
                        .retainUntilDate())
                .isEqualTo(governanceUntil);
        // nor a COMPLIANCE version (the lock refuses this one for anybody; the version stays)
        denied(() ->
                veeam.deleteObject(b -> b.bucket(REPO).key(state.lockedKey()).versionId(state.lockedVersion())));
        root.headObject(b -> b.bucket(REPO).key(state.lockedKey()).versionId(state.lockedVersion()));
        root.headObject(b -> b.bucket(REPO).key(state.governanceKey()).versionId(state.governanceVersion()));

        // no new buckets
        denied(() -> veeam.createBucket(b -> b.bucket("veeam-extra")));
        assertThat(root.listBuckets().buckets()).extracting(b -> b.name()).containsExactlyInAnyOrder(REPO, OTHER);

        // no IAM: neither listing users nor giving itself another key
        AwsCli.S3Error listUsers = veeamCli.error("iam", "list-users");
        assertThat(listUsers.code()).isEqualTo("AccessDenied");
        assertThat(listUsers.httpStatus()).isEqualTo(403);
        AwsCli.S3Error newKey = veeamCli.error("iam", "create-access-key", "--user-name", "veeam");
        assertThat(newKey.code()).isEqualTo("AccessDenied");
        assertThat(newKey.httpStatus()).isEqualTo(403);
        AwsCli.S3Error attach = veeamCli.error(
                "iam",
                "attach-user-policy",
                "--user-name",
                "veeam",
                "--policy-arn",
                "arn:aws:iam::aws:policy/readwrite");
        assertThat(attach.code()).isEqualTo("AccessDenied");
        assertThat(names(
                        cli.json("iam", "list-access-keys", "--user-name", "veeam")
                                .get("AccessKeyMetadata"),
                        "AccessKeyId"))
                .containsExactly(keyId);
        assertThat(cli.json("iam", "list-attached-user-policies", "--user-name", "veeam")
                        .get("AttachedPolicies"))
                .hasSize(1);
    }

    /** An S3 call whose answer is not needed. */
    private interface Call {
        void run() throws Exception;
    }

    /** Runs an S3 call that must be refused with 403 AccessDenied. */
    private static void denied(Call call) throws Exception {
        try {
            call.run();
        } catch (S3Exception e) {
            assertThat(e.statusCode()).as(e.getMessage()).isEqualTo(403);
            assertThat(e.awsErrorDetails().errorCode()).as(e.getMessage()).isEqualTo("AccessDenied");
            return;
        }
        throw new AssertionError("expected 403 AccessDenied, the call succeeded");
    }

    private static List<String> names(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.get(field).asText()));
        return out;
    }
}
