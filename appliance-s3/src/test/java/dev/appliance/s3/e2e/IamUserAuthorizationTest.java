package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.AccessKey;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.ManagedPolicy;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.s3.api.sosapi.SosApi;
import dev.appliance.s3.testing.AccountTestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * IAM users on the S3 port: a user signs with its own access key and gets exactly what its policies allow, through the
 * real server, the real identity store and the real policy engine on temp drives. A denied request is AccessDenied and
 * changes nothing; the root key is allowed everything.
 */
class IamUserAuthorizationTest {
    private static final String ROOT_KEY = AccountTestServer.ROOT_KEY;
    private static final String ROOT_SECRET = AccountTestServer.ROOT_SECRET;
    private static final String REPO = "veeam-repo";
    private static final String OTHER = "other-bucket";

    private static ApplianceStore store;
    private static IdentityStore identity;
    private static AccountTestServer account;
    private static final List<S3Client> clients = new ArrayList<>();
    private static S3Client root;
    private static S3Client veeam;
    private static NewAccessKey veeamKey;
    private static String veeamPolicyArn;

    @BeforeAll
    static void start() throws Exception {
        account = AccountTestServer.start("iam-authz");
        store = account.store();
        identity = account.identity();
        root = client(ROOT_KEY, ROOT_SECRET);
        root.createBucket(b -> b.bucket(REPO).objectLockEnabledForBucket(true));
        root.createBucket(b -> b.bucket(OTHER));
        root.putObject(b -> b.bucket(OTHER).key("theirs"), RequestBody.fromString("not for veeam"));

        identity.createUser("veeam");
        veeamKey = identity.createAccessKey("veeam");
        ManagedPolicy p = identity.createPolicy(
                "VeeamRepository",
                BuiltinPolicies.veeamRepository(List.of(REPO)).document().json());
        veeamPolicyArn = p.arn();
        identity.attachUserPolicy("veeam", veeamPolicyArn);
        veeam = client(veeamKey.key().accessKeyId(), veeamKey.secretAccessKey());
    }

    @AfterAll
    static void stop() throws Exception {
        account.close();
    }

    private static S3Client client(String accessKey, String secret) {
        return account.s3(accessKey, secret);
    }

    private static void assertDenied(Runnable call) {
        assertRefused(call, "AccessDenied");
    }

    private static void assertRefused(Runnable call, String code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(403);
            if (e.awsErrorDetails().errorCode() != null) { // HEAD answers carry no body
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }

    private static Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.SECONDS);
    }

    @Test
    void theVeeamCallPattern_succeedsWithTheVeeamPolicy() {
        assertThat(veeam.listBuckets().buckets()).extracting(b -> b.name()).contains(REPO);
        veeam.headBucket(b -> b.bucket(REPO));
        assertThat(veeam.getBucketVersioning(b -> b.bucket(REPO)).status()).isEqualTo(BucketVersioningStatus.ENABLED);
        assertThat(veeam.getObjectLockConfiguration(b -> b.bucket(REPO))
                        .objectLockConfiguration()
                        .objectLockEnabledAsString())
                .isEqualTo("Enabled");
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(SosApi.SYSTEM_XML))
                        .asUtf8String())
                .contains("SystemInfo");
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key(SosApi.CAPACITY_XML))
                        .asUtf8String())
                .contains("CapacityInfo");

        PutObjectResponse locked = veeam.putObject(
                b -> b.bucket(REPO)
                        .key("blocks/locked")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(inDays(3)),
                RequestBody.fromString("block"));
        assertThat(veeam.getObjectAsBytes(b -> b.bucket(REPO).key("blocks/locked"))
                        .asUtf8String())
                .isEqualTo("block");
        assertThat(veeam.getObjectRetention(
                                b -> b.bucket(REPO).key("blocks/locked").versionId(locked.versionId()))
                        .retention()
                        .mode())
                .isEqualTo(ObjectLockRetentionMode.COMPLIANCE);
        veeam.putObjectRetention(b -> b.bucket(REPO)
                .key("blocks/locked")
                .versionId(locked.versionId())
                .retention(r -> r.mode(ObjectLockRetentionMode.COMPLIANCE).retainUntilDate(inDays(5))));

        PutObjectResponse scratch =
                veeam.putObject(b -> b.bucket(REPO).key("blocks/scratch"), RequestBody.fromString("tmp"));
        veeam.deleteObject(b -> b.bucket(REPO).key("blocks/scratch")); // a delete marker
        ListObjectVersionsResponse versions =
                veeam.listObjectVersions(b -> b.bucket(REPO).prefix("blocks/scratch"));
        assertThat(versions.versions()).hasSize(1);
        assertThat(versions.deleteMarkers()).hasSize(1);
        DeleteObjectsResponse deleted = veeam.deleteObjects(b -> b.bucket(REPO)
                .delete(Delete.builder()
                        .objects(
                                ObjectIdentifier.builder()
                                        .key("blocks/scratch")
                                        .versionId(scratch.versionId())
                                        .build(),
                                ObjectIdentifier.builder()
                                        .key("blocks/scratch")
                                        .versionId(versions.deleteMarkers()
                                                .getFirst()
                                                .versionId())
                                        .build())
                        .build()));
        assertThat(deleted.errors()).isEmpty();
        assertThat(veeam.listObjectVersions(b -> b.bucket(REPO).prefix("blocks/scratch"))
                        .versions())
                .isEmpty();
    }

    @Test
    void operationsOutsideTheGrant_areAccessDenied_andChangeNothing() {
        // DeleteBucket of its own repository (empty, so only the policy stops it)
        String empty = "veeam-empty";
        root.createBucket(b -> b.bucket(empty));
        identity.putUserPolicy(
                "veeam",
                "EmptyBucketReads",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\","
                        + "\"Resource\":\"arn:aws:s3:::" + empty + "\"}]}");
        try {
            veeam.headBucket(b -> b.bucket(empty));
            assertDenied(() -> veeam.deleteBucket(b -> b.bucket(empty)));
            root.headBucket(b -> b.bucket(empty));
        } finally {
            identity.deleteUserPolicy("veeam", "EmptyBucketReads");
        }

        // versioning changes, on its bucket and on another
        assertDenied(() -> veeam.putBucketVersioning(
                b -> b.bucket(OTHER).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED))));
        assertThat(root.getBucketVersioning(b -> b.bucket(OTHER)).status()).isNull();
        assertDenied(() -> veeam.putBucketVersioning(
                b -> b.bucket(REPO).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED))));
        assertThat(root.getBucketVersioning(b -> b.bucket(REPO)).status()).isEqualTo(BucketVersioningStatus.ENABLED);

        // another bucket's objects: neither read nor written nor deleted
        assertDenied(() -> veeam.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs")));
        assertDenied(() -> veeam.putObject(b -> b.bucket(OTHER).key("theirs"), RequestBody.fromString("overwritten")));
        assertDenied(() -> veeam.deleteObject(b -> b.bucket(OTHER).key("theirs")));
        DeleteObjectsResponse batch = veeam.deleteObjects(b -> b.bucket(OTHER)
                .delete(Delete.builder()
                        .objects(ObjectIdentifier.builder().key("theirs").build())
                        .build()));
        assertThat(batch.errors()).singleElement().satisfies(e -> assertThat(e.code())
                .isEqualTo("AccessDenied"));
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs")).asUtf8String())
                .isEqualTo("not for veeam");
        assertDenied(() -> veeam.listObjectsV2(b -> b.bucket(OTHER)));
        assertDenied(() -> veeam.createBucket(b -> b.bucket("veeam-made-this")));
        assertThat(root.listBuckets().buckets()).extracting(b -> b.name()).doesNotContain("veeam-made-this");

        // governance bypass is not granted: the locked version stays
        PutObjectResponse governed = root.putObject(
                b -> b.bucket(REPO)
                        .key("gov/block")
                        .objectLockMode(ObjectLockMode.GOVERNANCE)
                        .objectLockRetainUntilDate(inDays(2)),
                RequestBody.fromString("governed"));
        assertDenied(() -> veeam.deleteObject(b ->
                b.bucket(REPO).key("gov/block").versionId(governed.versionId()).bypassGovernanceRetention(true)));
        assertThat(root.getObjectAsBytes(b -> b.bucket(REPO).key("gov/block").versionId(governed.versionId()))
                        .asUtf8String())
                .isEqualTo("governed");
        // the root key may bypass
        root.deleteObject(b ->
                b.bucket(REPO).key("gov/block").versionId(governed.versionId()).bypassGovernanceRetention(true));
    }

    @Test
    void anInactiveKey_andADisabledUser_areRefusedAsUnknownKeys() {
        identity.createUser("rotating");
        NewAccessKey k = identity.createAccessKey("rotating");
        identity.attachUserPolicy("rotating", "arn:aws:iam::aws:policy/readonly");
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        c.listBuckets();

        identity.updateAccessKey("rotating", k.key().accessKeyId(), AccessKey.Status.Inactive);
        assertRefused(c::listBuckets, "InvalidAccessKeyId");
        identity.updateAccessKey("rotating", k.key().accessKeyId(), AccessKey.Status.Active);
        c.listBuckets();

        identity.setUserEnabled("rotating", false);
        assertRefused(c::listBuckets, "InvalidAccessKeyId");
        assertRefused(() -> c.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs")), "InvalidAccessKeyId");
        identity.setUserEnabled("rotating", true);
        assertThat(c.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs")).asUtf8String())
                .isEqualTo("not for veeam");
    }

    @Test
    void anExplicitDeny_beatsAnAllow_fromAGroupToo() {
        identity.createUser("reader");
        NewAccessKey k = identity.createAccessKey("reader");
        identity.attachUserPolicy("reader", "arn:aws:iam::aws:policy/readwrite");
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        root.putObject(b -> b.bucket(OTHER).key("secret/plans"), RequestBody.fromString("plans"));
        assertThat(c.getObjectAsBytes(b -> b.bucket(OTHER).key("secret/plans")).asUtf8String())
                .isEqualTo("plans");

        identity.createGroup("no-secrets");
        identity.putGroupPolicy(
                "no-secrets",
                "DenySecrets",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Deny\",\"Action\":\"s3:*\","
                        + "\"Resource\":\"arn:aws:s3:::" + OTHER + "/secret/*\"}]}");
        identity.addUserToGroup("no-secrets", "reader");
        assertDenied(() -> c.getObjectAsBytes(b -> b.bucket(OTHER).key("secret/plans")));
        assertDenied(() -> c.deleteObject(b -> b.bucket(OTHER).key("secret/plans")));
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key("secret/plans"))
                        .asUtf8String())
                .isEqualTo("plans");
        // the Allow still covers everything the Deny does not name
        assertThat(c.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs")).asUtf8String())
                .isEqualTo("not for veeam");
    }

    @Test
    void aPolicyChange_takesEffectOnTheNextRequest() {
        identity.createUser("changing");
        NewAccessKey k = identity.createAccessKey("changing");
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        assertDenied(c::listBuckets); // no policy: nothing is allowed

        identity.attachUserPolicy("changing", "arn:aws:iam::aws:policy/readonly");
        c.listBuckets();
        assertDenied(() -> c.putObject(b -> b.bucket(OTHER).key("by-changing"), RequestBody.fromString("x")));

        ManagedPolicy writes = identity.createPolicy(
                "WriteOther",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:PutObject\","
                        + "\"Resource\":\"arn:aws:s3:::" + OTHER + "/by-changing\"}]}");
        identity.attachUserPolicy("changing", writes.arn());
        c.putObject(b -> b.bucket(OTHER).key("by-changing"), RequestBody.fromString("x"));

        identity.updatePolicy(
                "WriteOther",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:PutObject\","
                        + "\"Resource\":\"arn:aws:s3:::" + OTHER + "/elsewhere\"}]}");
        assertDenied(() -> c.putObject(b -> b.bucket(OTHER).key("by-changing"), RequestBody.fromString("y")));
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key("by-changing"))
                        .asUtf8String())
                .isEqualTo("x");

        identity.detachUserPolicy("changing", "arn:aws:iam::aws:policy/readonly");
        assertDenied(c::listBuckets);
    }

    @Test
    void conditionKeys_fromTheRequest_reachThePolicies() {
        identity.createUser("scoped");
        NewAccessKey k = identity.createAccessKey("scoped");
        identity.putUserPolicy(
                "scoped",
                "Scoped",
                ("{'Version':'2012-10-17','Statement':["
                                + "{'Effect':'Allow','Action':'s3:ListBucket','Resource':'arn:aws:s3:::" + OTHER + "',"
                                + "'Condition':{'StringLike':{'s3:prefix':'home/${aws:username}/*'}}},"
                                + "{'Effect':'Allow','Action':['s3:GetObject','s3:PutObject'],"
                                + "'Resource':'arn:aws:s3:::" + OTHER + "/home/${aws:username}/*'},"
                                + "{'Effect':'Deny','Action':'s3:PutObject','Resource':'*',"
                                + "'Condition':{'StringEquals':{'s3:x-amz-acl':'public-read'}}},"
                                + "{'Effect':'Deny','Action':'s3:GetObject','Resource':'*',"
                                + "'Condition':{'IpAddress':{'aws:SourceIp':'127.0.0.1/32'},"
                                + "'Bool':{'aws:SecureTransport':'false'},"
                                + "'StringEquals':{'s3:authType':'REST-HEADER',"
                                + "'s3:signatureversion':'AWS4-HMAC-SHA256'}}}]}")
                        .replace('\'', '"'));
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        c.listObjectsV2(b -> b.bucket(OTHER).prefix("home/scoped/"));
        assertDenied(() -> c.listObjectsV2(b -> b.bucket(OTHER).prefix("home/other/")));
        assertDenied(() -> c.listObjectsV2(b -> b.bucket(OTHER)));

        c.putObject(b -> b.bucket(OTHER).key("home/scoped/a"), RequestBody.fromString("mine"));
        assertDenied(() -> c.putObject(b -> b.bucket(OTHER).key("home/other/a"), RequestBody.fromString("theirs")));
        assertDenied(() -> c.putObject(
                b -> b.bucket(OTHER).key("home/scoped/b").acl("public-read"), RequestBody.fromString("public")));
        assertThatThrownBy(() -> root.headObject(b -> b.bucket(OTHER).key("home/scoped/b")))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
        // a plain-HTTP, header-signed read from 127.0.0.1 is what the Deny names
        assertDenied(() -> c.getObjectAsBytes(b -> b.bucket(OTHER).key("home/scoped/a")));
    }

    @Test
    void retentionChanges_areAuthorizedWithTheRequestedRetention() {
        identity.createUser("extender");
        NewAccessKey k = identity.createAccessKey("extender");
        identity.putUserPolicy(
                "extender",
                "ShortExtensions",
                ("{'Version':'2012-10-17','Statement':[{'Effect':'Allow','Action':'s3:PutObjectRetention',"
                                + "'Resource':'arn:aws:s3:::" + REPO + "/*','Condition':{"
                                + "'NumericLessThanEquals':{'s3:object-lock-remaining-retention-days':'10'},"
                                + "'StringEquals':{'s3:object-lock-mode':'COMPLIANCE'}}}]}")
                        .replace('\'', '"'));
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        Instant first = inDays(2);
        PutObjectResponse v = root.putObject(
                b -> b.bucket(REPO)
                        .key("ret/block")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(first),
                RequestBody.fromString("kept"));
        Instant allowed = inDays(5);
        c.putObjectRetention(
                b -> b.bucket(REPO).key("ret/block").versionId(v.versionId()).retention(r -> r.mode(
                                ObjectLockRetentionMode.COMPLIANCE)
                        .retainUntilDate(allowed)));
        assertDenied(() -> c.putObjectRetention(
                b -> b.bucket(REPO).key("ret/block").versionId(v.versionId()).retention(r -> r.mode(
                                ObjectLockRetentionMode.COMPLIANCE)
                        .retainUntilDate(inDays(30)))));
        assertThat(root.getObjectRetention(b -> b.bucket(REPO).key("ret/block").versionId(v.versionId()))
                        .retention()
                        .retainUntilDate())
                .isEqualTo(allowed);
    }

    @Test
    void presignedUrls_ofAUser_areAuthorizedAsQueryStringRequests() throws Exception {
        identity.createUser("sharer");
        NewAccessKey k = identity.createAccessKey("sharer");
        identity.attachUserPolicy("sharer", "arn:aws:iam::aws:policy/readonly");
        identity.putUserPolicy(
                "sharer",
                "NoLinksToSecrets",
                ("{'Version':'2012-10-17','Statement':[{'Effect':'Deny','Action':'s3:GetObject',"
                                + "'Resource':'arn:aws:s3:::" + OTHER + "/secret/*',"
                                + "'Condition':{'StringEquals':{'s3:authType':'REST-QUERY-STRING'}}}]}")
                        .replace('\'', '"'));
        root.putObject(b -> b.bucket(OTHER).key("secret/link"), RequestBody.fromString("linked"));
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + account.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(k.key().accessKeyId(), k.secretAccessKey())))
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .build()) {
            HttpClient http = HttpClient.newHttpClient();
            for (String key : List.of("theirs", "secret/link")) {
                URI url = presigner
                        .presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                                .getObjectRequest(g -> g.bucket(OTHER).key(key)))
                        .url()
                        .toURI();
                HttpResponse<String> got =
                        http.send(HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (key.equals("theirs")) {
                    assertThat(got.statusCode()).isEqualTo(200);
                    assertThat(got.body()).isEqualTo("not for veeam");
                } else {
                    assertThat(got.statusCode()).isEqualTo(403);
                    assertThat(got.body()).contains("<Code>AccessDenied</Code>");
                }
            }
        }
        // the same read signed in the header is not what the Deny names
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        assertThat(c.getObjectAsBytes(b -> b.bucket(OTHER).key("secret/link")).asUtf8String())
                .isEqualTo("linked");
    }

    @Test
    void anUnchangedUser_costsNoPolicyCompilation() {
        identity.createUser("counted");
        NewAccessKey k = identity.createAccessKey("counted");
        identity.putUserPolicy("counted", "Reads", readsOf(OTHER));
        S3Client c = client(k.key().accessKeyId(), k.secretAccessKey());
        long before = account.policySets().compilations();
        c.headBucket(b -> b.bucket(OTHER)); // the user's first request compiles its set
        assertThat(account.policySets().compilations()).isEqualTo(before + 1);
        for (int i = 0; i < 20; i++) {
            c.headBucket(b -> b.bucket(OTHER));
            c.getObjectAsBytes(b -> b.bucket(OTHER).key("theirs"));
        }
        assertThat(account.policySets().compilations()).isEqualTo(before + 1);
        // another user's change publishes a new identity state: this user's set is found again, not recompiled
        identity.createUser("bystander");
        c.headBucket(b -> b.bucket(OTHER));
        assertThat(account.policySets().compilations()).isEqualTo(before + 1);
        // its own change compiles its new set once
        identity.putUserPolicy("counted", "Reads", readsOf(REPO));
        assertDenied(() -> c.headBucket(b -> b.bucket(OTHER)));
        c.headBucket(b -> b.bucket(REPO));
        assertThat(account.policySets().compilations()).isEqualTo(before + 2);
    }

    private static String readsOf(String bucket) {
        return "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":[\"s3:ListBucket\","
                + "\"s3:GetObject\"],\"Resource\":[\"arn:aws:s3:::" + bucket + "\",\"arn:aws:s3:::" + bucket
                + "/*\"]}]}";
    }

    @Test
    void theRootKey_isAllowedEverything() {
        root.putObject(b -> b.bucket(OTHER).key("by-root"), RequestBody.fromString("r"));
        assertThat(root.getObjectAsBytes(b -> b.bucket(OTHER).key("by-root")).asByteArray())
                .isEqualTo("r".getBytes(StandardCharsets.UTF_8));
        root.deleteObject(b -> b.bucket(OTHER).key("by-root"));
    }
}
