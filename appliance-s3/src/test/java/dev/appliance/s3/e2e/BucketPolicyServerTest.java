package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.testing.AccountTestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectOwnership;
import software.amazon.awssdk.services.s3.model.PublicAccessBlockConfiguration;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Bucket policies, public access blocks and ownership controls through the real server, the real identity store and
 * the real policy engine on temp drives, driven by the AWS SDK v2 and by unsigned HTTP requests (anonymous callers).
 */
class BucketPolicyServerTest {
    private static final String ROOT_KEY = AccountTestServer.ROOT_KEY;
    private static final String ROOT_SECRET = AccountTestServer.ROOT_SECRET;

    private static ApplianceStore store;
    private static IdentityStore identity;
    private static AccountTestServer harness;
    private static final List<S3Client> clients = new ArrayList<>();
    private static final HttpClient http = HttpClient.newHttpClient();
    private static S3Client root;
    private static S3Client alice;
    private static S3Client bob;
    private static String account;

    @BeforeAll
    static void start() throws Exception {
        harness = AccountTestServer.start("bucket-policy");
        store = harness.store();
        identity = harness.identity();
        root = client(ROOT_KEY, ROOT_SECRET);
        identity.createUser("alice"); // read-write by her own policy
        identity.attachUserPolicy("alice", "arn:aws:iam::aws:policy/readwrite");
        NewAccessKey a = identity.createAccessKey("alice");
        alice = client(a.key().accessKeyId(), a.secretAccessKey());
        identity.createUser("bob"); // no policy of his own
        NewAccessKey b = identity.createAccessKey("bob");
        bob = client(b.key().accessKeyId(), b.secretAccessKey());
        account = identity.accountId();
    }

    @AfterAll
    static void stop() throws Exception {
        harness.close();
    }

    private static S3Client client(String accessKey, String secret) {
        return harness.s3(accessKey, secret);
    }

    private static void assertRefused(Runnable call, int status, String code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
        });
    }

    /** An unsigned request: no Authorization header, no presigned query. */
    private static HttpResponse<String> anonymous(String method, String path, String body) throws Exception {
        HttpRequest.BodyPublisher publisher =
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + harness.port() + path))
                        .method(method, publisher)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String publicRead(String bucket) {
        return "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":\"PublicRead\",\"Effect\":\"Allow\","
                + "\"Principal\":\"*\",\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"}]}";
    }

    private static PublicAccessBlockConfiguration block(boolean policy, boolean restrict) {
        return PublicAccessBlockConfiguration.builder()
                .blockPublicAcls(true)
                .ignorePublicAcls(true)
                .blockPublicPolicy(policy)
                .restrictPublicBuckets(restrict)
                .build();
    }

    @Test
    void putGetDeleteAndStatus_ofAPolicyForTheAccount() {
        String bucket = "policy-crud";
        root.createBucket(b -> b.bucket(bucket));
        assertRefused(() -> root.getBucketPolicy(b -> b.bucket(bucket)), 404, "NoSuchBucketPolicy");
        assertRefused(() -> root.getBucketPolicyStatus(b -> b.bucket(bucket)), 404, "NoSuchBucketPolicy");

        String policy = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                + "\"Principal\":{\"AWS\":\"arn:aws:iam::" + account + ":user/bob\"},\"Action\":\"s3:GetObject\","
                + "\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"}]}";
        root.putBucketPolicy(b -> b.bucket(bucket).policy(policy));
        assertThat(root.getBucketPolicy(b -> b.bucket(bucket)).policy()).isEqualTo(policy);
        assertThat(root.getBucketPolicyStatus(b -> b.bucket(bucket))
                        .policyStatus()
                        .isPublic())
                .isFalse();

        root.deleteBucketPolicy(b -> b.bucket(bucket));
        assertRefused(() -> root.getBucketPolicy(b -> b.bucket(bucket)), 404, "NoSuchBucketPolicy");
        assertRefused(() -> root.getBucketPolicy(b -> b.bucket("no-such-bucket-here")), 404, "NoSuchBucket");
    }

    @Test
    void malformedPolicies_areMalformedPolicy_andNothingIsStored() {
        String bucket = "policy-malformed";
        root.createBucket(b -> b.bucket(bucket));
        for (String bad : List.of(
                "not json",
                "{\"Statement\":[{\"Effect\":\"Permit\",\"Principal\":\"*\",\"Action\":\"s3:GetObject\","
                        + "\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"}]}",
                // a resource outside the bucket
                "{\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\",\"Action\":\"s3:GetObject\","
                        + "\"Resource\":\"arn:aws:s3:::other-bucket/*\"}]}",
                // no principal
                "{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\"," + "\"Resource\":\"arn:aws:s3:::"
                        + bucket + "/*\"}]}")) {
            assertRefused(() -> root.putBucketPolicy(b -> b.bucket(bucket).policy(bad)), 400, "MalformedPolicy");
        }
        assertRefused(() -> root.getBucketPolicy(b -> b.bucket(bucket)), 404, "NoSuchBucketPolicy");
    }

    /** The proof of issue 14: anonymous read works only once public access is unblocked and a policy grants it. */
    @Test
    void anonymousRead_worksOnlyOncePublicAccessIsUnblocked_andOnlyForWhatThePolicyGrants() throws Exception {
        String bucket = "public-site";
        root.createBucket(b -> b.bucket(bucket));
        root.putObject(b -> b.bucket(bucket).key("index.html"), RequestBody.fromString("hello world"));

        // blocked by default: all four flags
        assertThat(root.getPublicAccessBlock(b -> b.bucket(bucket)).publicAccessBlockConfiguration())
                .isEqualTo(block(true, true));
        assertThat(anonymous("GET", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(403);
        // a public policy is refused while BlockPublicPolicy is on
        assertRefused(
                () -> root.putBucketPolicy(b -> b.bucket(bucket).policy(publicRead(bucket))), 403, "AccessDenied");
        assertRefused(() -> root.getBucketPolicy(b -> b.bucket(bucket)), 404, "NoSuchBucketPolicy");

        root.putPublicAccessBlock(b -> b.bucket(bucket).publicAccessBlockConfiguration(block(false, false)));
        assertThat(anonymous("GET", "/" + bucket + "/index.html", null).statusCode())
                .as("unblocked, but no policy grants it yet")
                .isEqualTo(403);
        root.putBucketPolicy(b -> b.bucket(bucket).policy(publicRead(bucket)));
        assertThat(root.getBucketPolicyStatus(b -> b.bucket(bucket))
                        .policyStatus()
                        .isPublic())
                .isTrue();

        HttpResponse<String> read = anonymous("GET", "/" + bucket + "/index.html", null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("hello world");
        assertThat(anonymous("HEAD", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(200);

        // only what the policy grants: no writes, deletes, listings, nor the bucket's configuration
        assertThat(anonymous("PUT", "/" + bucket + "/index.html", "defaced").statusCode())
                .isEqualTo(403);
        assertThat(anonymous("DELETE", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(403);
        assertThat(anonymous("GET", "/" + bucket, null).statusCode()).isEqualTo(403);
        assertThat(anonymous("GET", "/" + bucket + "?policy", null).statusCode())
                .isEqualTo(403);
        assertThat(anonymous("DELETE", "/" + bucket + "?policy", null).statusCode())
                .isEqualTo(403);
        assertThat(anonymous("PUT", "/" + bucket + "?publicAccessBlock", "<x/>").statusCode())
                .isEqualTo(403);
        assertThat(anonymous("GET", "/", null).statusCode()).isEqualTo(403);
        assertThat(root.getObjectAsBytes(b -> b.bucket(bucket).key("index.html"))
                        .asUtf8String())
                .isEqualTo("hello world");

        // RestrictPublicBuckets alone takes it back; the policy stays
        root.putPublicAccessBlock(b -> b.bucket(bucket).publicAccessBlockConfiguration(block(false, true)));
        assertThat(anonymous("GET", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(403);
        // and deleting the block returns it to the default: blocked
        root.putPublicAccessBlock(b -> b.bucket(bucket).publicAccessBlockConfiguration(block(false, false)));
        assertThat(anonymous("GET", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(200);
        root.deletePublicAccessBlock(b -> b.bucket(bucket));
        assertThat(root.getPublicAccessBlock(b -> b.bucket(bucket)).publicAccessBlockConfiguration())
                .isEqualTo(block(true, true));
        assertThat(anonymous("GET", "/" + bucket + "/index.html", null).statusCode())
                .isEqualTo(403);
    }

    /** An authorizer that does not decide anonymous requests (the single-root setup) never admits them. */
    @Test
    void anonymous_isRefused_byAnAuthorizerForSignedRequestsOnly() throws Exception {
        String bucket = "allow-all-public";
        root.createBucket(b -> b.bucket(bucket));
        root.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v"));
        root.putPublicAccessBlock(b -> b.bucket(bucket).publicAccessBlockConfiguration(block(false, false)));
        root.putBucketPolicy(b -> b.bucket(bucket).policy(publicRead(bucket)));
        try (S3Server allowAll = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        new AccountCredentials(ROOT_KEY, ROOT_SECRET, identity),
                        Authorizer.allowAll()))) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + allowAll.port() + "/" + bucket + "/k"))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(403);
        }
        assertThat(anonymous("GET", "/" + bucket + "/k", null).statusCode()).isEqualTo(200);
    }

    @Test
    void aDenyInTheBucketPolicy_beatsAUsersAllow_andAnAllowThereGrantsUsersOfTheAccount() {
        String bucket = "shared-team";
        root.createBucket(b -> b.bucket(bucket));
        alice.putObject(b -> b.bucket(bucket).key("doc"), RequestBody.fromString("v1"));
        assertRefused(() -> bob.getObjectAsBytes(b -> b.bucket(bucket).key("doc")), 403, "AccessDenied");

        String policy = "{\"Version\":\"2012-10-17\",\"Statement\":["
                + "{\"Sid\":\"NoDeletesByAlice\",\"Effect\":\"Deny\","
                + "\"Principal\":{\"AWS\":\"arn:aws:iam::" + account + ":user/alice\"},"
                + "\"Action\":[\"s3:DeleteObject\",\"s3:PutObject\"],\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"},"
                + "{\"Sid\":\"BobReads\",\"Effect\":\"Allow\","
                + "\"Principal\":{\"AWS\":\"arn:aws:iam::" + account + ":user/bob\"},"
                + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"}]}";
        root.putBucketPolicy(b -> b.bucket(bucket).policy(policy)); // not public: BlockPublicPolicy lets it in
        assertRefused(() -> alice.deleteObject(b -> b.bucket(bucket).key("doc")), 403, "AccessDenied");
        assertRefused(
                () -> alice.putObject(b -> b.bucket(bucket).key("doc"), RequestBody.fromString("v2")),
                403,
                "AccessDenied");
        assertThat(alice.getObjectAsBytes(b -> b.bucket(bucket).key("doc")).asUtf8String())
                .isEqualTo("v1");
        assertThat(bob.getObjectAsBytes(b -> b.bucket(bucket).key("doc")).asUtf8String())
                .isEqualTo("v1");
        assertRefused(
                () -> bob.putObject(b -> b.bucket(bucket).key("doc"), RequestBody.fromString("v3")),
                403,
                "AccessDenied");
        // the root credential is not bound by bucket policies
        root.deleteObject(b -> b.bucket(bucket).key("doc"));
    }

    @Test
    void changingAPolicy_needsItsPermission() {
        String bucket = "policy-perms";
        root.createBucket(b -> b.bucket(bucket));
        String policy = "{\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"" + account + "\"},"
                + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::" + bucket + "/*\"}]}";
        // bob has no policy at all
        assertRefused(() -> bob.putBucketPolicy(b -> b.bucket(bucket).policy(policy)), 403, "AccessDenied");
        assertRefused(
                () -> bob.putPublicAccessBlock(
                        b -> b.bucket(bucket).publicAccessBlockConfiguration(block(false, false))),
                403,
                "AccessDenied");
        assertThat(root.getPublicAccessBlock(b -> b.bucket(bucket)).publicAccessBlockConfiguration())
                .isEqualTo(block(true, true));
        // alice's readwrite (s3:*) covers it
        alice.putBucketPolicy(b -> b.bucket(bucket).policy(policy));
        assertThat(root.getBucketPolicy(b -> b.bucket(bucket)).policy()).isEqualTo(policy);
    }

    @Test
    void ownershipControls_areBucketOwnerEnforced() {
        String bucket = "ownership";
        root.createBucket(b -> b.bucket(bucket));
        assertThat(root.getBucketOwnershipControls(b -> b.bucket(bucket))
                        .ownershipControls()
                        .rules())
                .singleElement()
                .satisfies(r -> assertThat(r.objectOwnership()).isEqualTo(ObjectOwnership.BUCKET_OWNER_ENFORCED));
        root.putBucketOwnershipControls(b -> b.bucket(bucket)
                .ownershipControls(o -> o.rules(r -> r.objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED))));
        assertRefused(
                () -> root.putBucketOwnershipControls(b -> b.bucket(bucket)
                        .ownershipControls(o -> o.rules(r -> r.objectOwnership(ObjectOwnership.OBJECT_WRITER)))),
                400,
                "InvalidArgument");
    }

    @Test
    void deleteOwnershipControls_isAccepted_andTheBucketStaysBucketOwnerEnforced() {
        String bucket = "ownership-deleted";
        root.createBucket(b -> b.bucket(bucket));
        root.deleteBucketOwnershipControls(b -> b.bucket(bucket));
        assertThat(root.getBucketOwnershipControls(b -> b.bucket(bucket))
                        .ownershipControls()
                        .rules())
                .singleElement()
                .satisfies(r -> assertThat(r.objectOwnership()).isEqualTo(ObjectOwnership.BUCKET_OWNER_ENFORCED));
        assertRefused(
                () -> root.deleteBucketOwnershipControls(b -> b.bucket("no-such-ownership")), 404, "NoSuchBucket");
    }
}
