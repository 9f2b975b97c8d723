package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.BucketInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The bucket resource under {@code /api/v1/admin/buckets} through a real console over a real store with its identity
 * state: listing and paging, creating (plain, versioned, locked, with settings, the Veeam preset with its user), the
 * refusals as problems naming the field, rollback of a preset whose user cannot be made, deletion refused for what a
 * bucket still holds, and each bucket's versioning, Object Lock, lifecycle, policy and usage, checked against the
 * engine. The Veeam user's key is then used with the AWS SDK on the S3 port.
 */
class BucketsResourceTest {
    private static final String SECRET = "root-secret-for-the-buckets-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BUCKETS = "/api/v1/admin/buckets";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 5);
        store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static HttpResponse<String> call(String method, String path, String body) throws Exception {
        return app.signed(method, BUCKETS + path, body);
    }

    private static List<String> bucketNames() {
        return store.listBuckets().stream().map(BucketInfo::name).toList();
    }

    private static void put(String bucket, String key, String data) throws Exception {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        store.putObject(bucket, key, PutRequest.of(bytes.length), new ByteArrayInputStream(bytes));
    }

    @Test
    void bucketsAreCreatedWithTheirSettingsAndListedInPages() throws Exception {
        JsonNode plain = ok(call("POST", "", "{\"name\":\"list-a\"}"), 201).get("bucket");
        assertThat(plain.get("name").asText()).isEqualTo("list-a");
        assertThat(plain.get("versioning").asText()).isEqualTo("Unversioned");
        assertThat(plain.get("objectLock").get("enabled").asBoolean()).isFalse();
        assertThat(plain.get("sosapi").asBoolean()).isFalse();
        assertThat(plain.get("quotaBytes").isNull()).isTrue();
        assertThat(plain.get("usage").get("versions").asLong()).isZero();
        assertThat(Instant.parse(plain.get("created").asText()))
                .isEqualTo(store.bucketInfo("list-a").created());

        JsonNode versioned = ok(
                        call("POST", "", "{\"name\":\"list-b\",\"versioning\":\"Enabled\",\"quotaBytes\":1048576}"),
                        201)
                .get("bucket");
        assertThat(versioned.get("versioning").asText()).isEqualTo("Enabled");
        assertThat(versioned.get("quotaBytes").asLong()).isEqualTo(1048576);
        assertThat(store.versioning("list-b")).isEqualTo(VersioningState.ENABLED);
        assertThat(store.bucketSettings("list-b").quotaBytes()).isEqualTo(1048576L);

        JsonNode locked = ok(
                        call(
                                "POST",
                                "",
                                "{\"name\":\"list-c\",\"sosapi\":false,\"objectLock\":{\"enabled\":true,"
                                        + "\"defaultRetention\":{\"mode\":\"GOVERNANCE\",\"years\":2}}}"),
                        201)
                .get("bucket");
        assertThat(locked.get("versioning").asText()).isEqualTo("Enabled");
        assertThat(locked.get("objectLock").get("enabled").asBoolean()).isTrue();
        assertThat(locked.get("objectLock").get("defaultRetention").get("mode").asText())
                .isEqualTo("GOVERNANCE");
        assertThat(locked.get("objectLock").get("defaultRetention").get("years").asInt())
                .isEqualTo(2);
        assertThat(locked.get("sosapi").asBoolean()).isFalse();
        assertThat(store.objectLockConfiguration("list-c"))
                .isEqualTo(new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 0, 2));

        // Object Lock as a bare switch
        JsonNode switched = ok(call("POST", "", "{\"name\":\"list-d\",\"objectLock\":true}"), 201)
                .get("bucket");
        assertThat(switched.get("objectLock").get("enabled").asBoolean()).isTrue();
        assertThat(store.objectLockConfiguration("list-d")).isEqualTo(ObjectLockConfiguration.ENABLED);

        // pages by name: every bucket once, in order
        List<String> seen = new java.util.ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            JsonNode page = ok(call("GET", "?limit=2" + (after == null ? "" : "&after=" + after), null), 200);
            assertThat(page.get("buckets").size()).isLessThanOrEqualTo(2);
            page.get("buckets").forEach(b -> seen.add(b.get("name").asText()));
            after = page.get("next").isNull() ? null : page.get("next").asText();
            pages++;
        } while (after != null && pages < 100);
        assertThat(seen).isEqualTo(bucketNames());
        assertThat(seen).contains("list-a", "list-b", "list-c");

        assertThat(ok(call("GET", "/list-b", null), 200).get("quotaBytes").asLong())
                .isEqualTo(1048576);
        problem(call("GET", "/no-such-bucket", null), 404, "NoSuchBucket", "bucket");
        problem(call("GET", "?limit=0", null), 400, "InvalidArgument", "limit");
        problem(call("GET", "?limit=1001", null), 400, "InvalidArgument", "limit");
        problem(call("GET", "?limit=many", null), 400, "InvalidArgument", "limit");
    }

    @Test
    void badCreateRequestsAreProblemsNamingTheField_andMakeNothing() throws Exception {
        List<String> before = bucketNames();
        problem(call("POST", "", "{}"), 400, "InvalidBucketName", "name");
        assertThat(problem(call("POST", "", "{\"name\":\"Upper-Case\"}"), 400, "InvalidBucketName", "name")
                        .get("detail")
                        .asText())
                .contains("lower-case");
        assertThat(problem(call("POST", "", "{\"name\":\"appliance\"}"), 400, "InvalidBucketName", "name")
                        .get("detail")
                        .asText())
                .contains("reserved");
        problem(call("POST", "", "{\"name\":\"ok-name\",\"versioning\":\"On\"}"), 400, "InvalidArgument", "versioning");
        problem(
                call(
                        "POST",
                        "",
                        "{\"name\":\"ok-name\",\"versioning\":\"Suspended\",\"objectLock\":{\"enabled\":true}}"),
                400,
                "InvalidArgument",
                "versioning");
        problem(call("POST", "", "{\"name\":\"ok-name\",\"quotaBytes\":0}"), 400, "InvalidArgument", "quotaBytes");
        problem(call("POST", "", "{\"name\":\"ok-name\",\"quotaBytes\":\"lots\"}"), 400, "InvalidInput", "quotaBytes");
        problem(
                call(
                        "POST",
                        "",
                        "{\"name\":\"ok-name\",\"objectLock\":{\"defaultRetention\":"
                                + "{\"mode\":\"GOVERNANCE\",\"days\":1}}}"),
                400,
                "InvalidArgument",
                "objectLock.enabled");
        problem(
                call(
                        "POST",
                        "",
                        "{\"name\":\"ok-name\",\"objectLock\":{\"enabled\":true,"
                                + "\"defaultRetention\":{\"mode\":\"FOREVER\",\"days\":1}}}"),
                400,
                "InvalidArgument",
                "objectLock.defaultRetention.mode");
        problem(
                call(
                        "POST",
                        "",
                        "{\"name\":\"ok-name\",\"objectLock\":{\"enabled\":true,"
                                + "\"defaultRetention\":{\"mode\":\"COMPLIANCE\",\"days\":36501}}}"),
                400,
                "InvalidArgument",
                "objectLock.defaultRetention.days");
        problem(call("POST", "", "{\"name\":\"ok-name\",\"preset\":\"tape\"}"), 400, "InvalidArgument", "preset");
        problem(
                call("POST", "", "{\"name\":\"ok-name\",\"user\":{\"name\":\"someone\"}}"),
                400,
                "InvalidArgument",
                "user");
        problem(
                call(
                        "POST",
                        "",
                        "{\"name\":\"ok-name\",\"preset\":\"veeam\",\"objectLock\":{\"enabled\":true,"
                                + "\"defaultRetention\":{\"mode\":\"COMPLIANCE\",\"days\":30}}}"),
                400,
                "InvalidArgument",
                "objectLock.defaultRetention");
        problem(
                call("POST", "", "{\"name\":\"ok-name\",\"preset\":\"veeam\",\"sosapi\":false}"),
                400,
                "InvalidArgument",
                "sosapi");
        assertThat(bucketNames()).isEqualTo(before);

        ok(call("POST", "", "{\"name\":\"twice\"}"), 201);
        problem(call("POST", "", "{\"name\":\"twice\"}"), 409, "BucketAlreadyExists", "name");
    }

    @Test
    void theVeeamPreset_makesALockBucketAndAUserWhoseKeyWritesRetainedObjectsButCannotDeleteTheBucket()
            throws Exception {
        JsonNode made = ok(
                call(
                        "POST",
                        "",
                        "{\"name\":\"veeam-repo\",\"preset\":\"veeam\",\"quotaBytes\":10000000000,"
                                + "\"user\":{\"name\":\"vbr-repo\"}}"),
                201);
        JsonNode bucket = made.get("bucket");
        assertThat(bucket.get("versioning").asText()).isEqualTo("Enabled");
        assertThat(bucket.get("objectLock").get("enabled").asBoolean()).isTrue();
        assertThat(bucket.get("objectLock").get("defaultRetention").isNull()).isTrue();
        assertThat(bucket.get("sosapi").asBoolean()).isTrue();
        assertThat(bucket.get("quotaBytes").asLong()).isEqualTo(10_000_000_000L);
        assertThat(store.objectLockConfiguration("veeam-repo")).isEqualTo(ObjectLockConfiguration.ENABLED);
        assertThat(store.bucketSettings("veeam-repo").sosapi()).isTrue();

        assertThat(made.get("user").get("name").asText()).isEqualTo("vbr-repo");
        assertThat(made.get("policy").get("name").asText()).isEqualTo("veeam-vbr-repo");
        assertThat(made.get("user").get("attachedPolicies").get(0).asText())
                .isEqualTo(made.get("policy").get("arn").asText());
        JsonNode veeam = made.get("veeam");
        assertThat(veeam.get("endpoint").asText()).isEqualTo("http://127.0.0.1:" + app.s3.port());
        assertThat(veeam.get("region").asText()).isEqualTo("us-east-1");
        assertThat(veeam.get("bucket").asText()).isEqualTo("veeam-repo");
        String keyId = veeam.get("accessKeyId").asText();
        String secret = veeam.get("secretAccessKey").asText();
        assertThat(keyId).isEqualTo(made.get("key").get("accessKeyId").asText());
        assertThat(store.identity().accessKeys("vbr-repo")).singleElement().satisfies(k -> assertThat(k.accessKeyId())
                .isEqualTo(keyId));

        // what Veeam does with it, through the S3 port with the AWS SDK and only the settings answered
        try (S3Client s3 = S3Client.builder()
                .endpointOverride(URI.create(veeam.get("endpoint").asText()))
                .region(Region.of(veeam.get("region").asText()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
            Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
            s3.putObject(
                    b -> b.bucket("veeam-repo")
                            .key("Veeam/Backup/block-1")
                            .objectLockMode(ObjectLockMode.COMPLIANCE)
                            .objectLockRetainUntilDate(until),
                    RequestBody.fromString("backup block"));
            var retention = s3.getObjectRetention(b -> b.bucket("veeam-repo").key("Veeam/Backup/block-1"))
                    .retention();
            assertThat(retention.modeAsString()).isEqualTo("COMPLIANCE");
            assertThat(retention.retainUntilDate()).isEqualTo(until);
            assertThatThrownBy(() -> s3.deleteBucket(b -> b.bucket("veeam-repo")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    });
        }

        // and the admin cannot delete it either while the retention holds: the problem says why
        assertThat(problem(call("DELETE", "/veeam-repo", null), 409, "BucketHasLockedVersions", "bucket")
                        .get("detail")
                        .asText())
                .contains("Veeam/Backup/block-1", "COMPLIANCE retention until");
        assertThat(bucketNames()).contains("veeam-repo");

        // the preset without a user: the bucket only
        JsonNode bare = ok(call("POST", "", "{\"name\":\"veeam-bare\",\"preset\":\"veeam\"}"), 201);
        assertThat(bare.get("bucket").get("objectLock").get("enabled").asBoolean())
                .isTrue();
        assertThat(bare.get("user").isNull()).isTrue();
        assertThat(bare.get("veeam").isNull()).isTrue();
    }

    @Test
    void aVeeamPresetWhoseUserCannotBeMade_leavesNoBucketUserOrPolicyBehind() throws Exception {
        store.identity().createUser("taken");
        problem(
                call("POST", "", "{\"name\":\"veeam-taken\",\"preset\":\"veeam\",\"user\":{\"name\":\"taken\"}}"),
                409,
                "EntityAlreadyExists",
                "user.name");
        assertThat(bucketNames()).doesNotContain("veeam-taken");
        assertThat(store.identity().policies()).noneMatch(p -> p.name().equals("veeam-taken"));

        // the user is made, then its policy is refused: the user goes again too
        store.identity()
                .createPolicy(
                        "veeam-fresh",
                        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                                + "\"Action\":\"s3:GetObject\",\"Resource\":\"*\"}]}");
        problem(
                call("POST", "", "{\"name\":\"veeam-fresh\",\"preset\":\"veeam\",\"user\":{\"name\":\"fresh\"}}"),
                409,
                "EntityAlreadyExists",
                "user.name");
        assertThat(bucketNames()).doesNotContain("veeam-fresh");
        assertThat(store.identity().findUser("fresh")).isEmpty();

        // a bad user name: nothing either
        problem(
                call("POST", "", "{\"name\":\"veeam-badname\",\"preset\":\"veeam\",\"user\":{\"name\":\"no spaces\"}}"),
                400,
                "ValidationError",
                "user.name");
        assertThat(bucketNames()).doesNotContain("veeam-badname");
    }

    @Test
    void deletingABucket_isRefusedWhileItHoldsVersionsOrDeleteMarkers_sayingWhich() throws Exception {
        store.makeBucket("del-objects");
        put("del-objects", "a", "x");
        assertThat(problem(call("DELETE", "/del-objects", null), 409, "BucketNotEmpty", "bucket")
                        .get("detail")
                        .asText())
                .contains("1 object versions and 0 delete markers");

        // only a delete marker left
        store.makeBucket("del-markers");
        store.setVersioning("del-markers", VersioningState.ENABLED);
        put("del-markers", "a", "x");
        String version = store.headObject("del-markers", "a", null).versionId();
        store.deleteObject("del-markers", "a", null);
        store.deleteObject("del-markers", "a", version);
        assertThat(problem(call("DELETE", "/del-markers", null), 409, "BucketNotEmpty", "bucket")
                        .get("detail")
                        .asText())
                .contains("0 object versions and 1 delete markers");

        // a legal hold, without any retention
        store.makeBucket("del-held", true);
        put("del-held", "held", "x");
        store.putObjectLegalHold("del-held", "held", null, true);
        assertThat(problem(call("DELETE", "/del-held", null), 409, "BucketHasLockedVersions", "bucket")
                        .get("detail")
                        .asText())
                .contains("legal hold");
        assertThat(bucketNames()).contains("del-objects", "del-markers", "del-held");

        store.makeBucket("del-empty");
        ok(call("DELETE", "/del-empty", null), 204);
        assertThat(bucketNames()).doesNotContain("del-empty");
        problem(call("DELETE", "/del-empty", null), 404, "NoSuchBucket", "bucket");
    }

    @Test
    void versioning_isEnabledAndSuspended_butNeverSuspendedOnALockBucket() throws Exception {
        store.makeBucket("ver");
        assertThat(ok(call("GET", "/ver/versioning", null), 200).get("status").asText())
                .isEqualTo("Unversioned");
        assertThat(ok(call("PUT", "/ver/versioning", "{\"status\":\"Enabled\"}"), 200)
                        .get("status")
                        .asText())
                .isEqualTo("Enabled");
        assertThat(store.versioning("ver")).isEqualTo(VersioningState.ENABLED);
        ok(call("PUT", "/ver/versioning", "{\"status\":\"Suspended\"}"), 200);
        assertThat(store.versioning("ver")).isEqualTo(VersioningState.SUSPENDED);
        problem(call("PUT", "/ver/versioning", "{\"status\":\"Off\"}"), 400, "InvalidArgument", "status");
        problem(call("PUT", "/ver/versioning", "{}"), 400, "InvalidArgument", "status");
        problem(call("PUT", "/no-such/versioning", "{\"status\":\"Enabled\"}"), 404, "NoSuchBucket", "bucket");

        store.makeBucket("ver-locked", true);
        problem(call("PUT", "/ver-locked/versioning", "{\"status\":\"Suspended\"}"), 409, "InvalidBucketState", null);
        assertThat(store.versioning("ver-locked")).isEqualTo(VersioningState.ENABLED);
    }

    @Test
    void objectLock_isEnabledOnAVersionedBucket_withOrWithoutADefaultRetention() throws Exception {
        store.makeBucket("lock-later");
        JsonNode none = ok(call("GET", "/lock-later/object-lock", null), 200);
        assertThat(none.get("enabled").asBoolean()).isFalse();
        assertThat(none.get("defaultRetention").isNull()).isTrue();
        problem(call("PUT", "/lock-later/object-lock", "{\"enabled\":true}"), 409, "InvalidBucketState", null);
        assertThat(store.objectLockConfiguration("lock-later")).isNull();

        store.setVersioning("lock-later", VersioningState.ENABLED);
        JsonNode set = ok(
                call("PUT", "/lock-later/object-lock", "{\"defaultRetention\":{\"mode\":\"COMPLIANCE\",\"days\":30}}"),
                200);
        assertThat(set.get("enabled").asBoolean()).isTrue();
        assertThat(set.get("defaultRetention").get("days").asInt()).isEqualTo(30);
        assertThat(store.objectLockConfiguration("lock-later"))
                .isEqualTo(new ObjectLockConfiguration(RetentionMode.COMPLIANCE, 30, 0));

        problem(call("PUT", "/lock-later/object-lock", "{\"enabled\":false}"), 400, "InvalidArgument", "enabled");
        problem(
                call("PUT", "/lock-later/object-lock", "{\"defaultRetention\":{\"mode\":\"COMPLIANCE\",\"days\":0}}"),
                400,
                "InvalidArgument",
                "defaultRetention.days");
        problem(
                call(
                        "PUT",
                        "/lock-later/object-lock",
                        "{\"defaultRetention\":{\"mode\":\"COMPLIANCE\",\"days\":1,\"years\":1}}"),
                400,
                "InvalidArgument",
                "defaultRetention");
        assertThat(store.objectLockConfiguration("lock-later").days()).isEqualTo(30);

        // no default retention: lock stays enabled
        JsonNode cleared = ok(call("PUT", "/lock-later/object-lock", "{}"), 200);
        assertThat(cleared.get("enabled").asBoolean()).isTrue();
        assertThat(cleared.get("defaultRetention").isNull()).isTrue();
        assertThat(store.objectLockConfiguration("lock-later")).isEqualTo(ObjectLockConfiguration.ENABLED);
    }

    @Test
    void lifecycleRules_areJsonRecordsOfTheEnginesModel_checkedByItsRules() throws Exception {
        store.makeBucket("life");
        assertThat(ok(call("GET", "/life/lifecycle", null), 200).get("rules")).isEmpty();
        String rules = "{\"rules\":[{\"id\":\"logs\",\"status\":\"Enabled\",\"filter\":{\"prefix\":\"logs/\"},"
                + "\"expiration\":{\"days\":30}},"
                + "{\"id\":\"old\",\"status\":\"Disabled\",\"expiration\":{\"date\":\"2031-01-01\"},"
                + "\"noncurrentVersionExpiration\":{\"noncurrentDays\":7,\"newerNoncurrentVersions\":3},"
                + "\"abortIncompleteMultipartUploadDays\":2}]}";
        JsonNode set = ok(call("PUT", "/life/lifecycle", rules), 200);
        assertThat(set.get("rules")).hasSize(2);
        assertThat(set.get("rules").get(1).get("expiration").get("date").asText())
                .isEqualTo("2031-01-01");
        assertThat(ok(call("GET", "/life/lifecycle", null), 200)).isEqualTo(set);
        LifecycleConfiguration stored = store.lifecycleConfiguration("life");
        assertThat(stored.rules()).hasSize(2);
        assertThat(stored.rules().get(0).filter().prefix()).isEqualTo("logs/");
        assertThat(stored.rules().get(0).expiration().days()).isEqualTo(30);
        assertThat(stored.rules().get(1).enabled()).isFalse();
        assertThat(stored.rules().get(1).expiration().date()).isEqualTo(Instant.parse("2031-01-01T00:00:00Z"));
        assertThat(stored.rules().get(1).noncurrentExpiration().newerNoncurrentVersions())
                .isEqualTo(3);
        assertThat(stored.rules().get(1).abortIncompleteUploadDays()).isEqualTo(2);

        assertThat(problem(
                                call(
                                        "PUT",
                                        "/life/lifecycle",
                                        "{\"rules\":[{\"id\":\"a\",\"status\":\"Enabled\","
                                                + "\"expiration\":{\"days\":0}}]}"),
                                400,
                                "InvalidArgument",
                                "rules[0]")
                        .get("detail")
                        .asText())
                .contains("'Days' for Expiration action must be a positive integer");
        problem(
                call("PUT", "/life/lifecycle", "{\"rules\":[{\"id\":\"a\",\"expiration\":{\"days\":1}}]}"),
                400,
                "InvalidArgument",
                "rules[0].status");
        problem(
                call("PUT", "/life/lifecycle", "{\"rules\":[{\"id\":\"a\",\"status\":\"Enabled\"}]}"),
                400,
                "InvalidArgument",
                "rules[0]");
        problem(
                call(
                        "PUT",
                        "/life/lifecycle",
                        "{\"rules\":[{\"id\":\"a\",\"status\":\"Enabled\",\"expiration\":{\"days\":1}},"
                                + "{\"id\":\"a\",\"status\":\"Enabled\",\"expiration\":{\"days\":2}}]}"),
                400,
                "InvalidArgument",
                "rules");
        problem(call("PUT", "/life/lifecycle", "{\"rules\":[]}"), 400, "InvalidArgument", "rules");
        assertThat(store.lifecycleConfiguration("life").rules()).hasSize(2);

        ok(call("DELETE", "/life/lifecycle", null), 204);
        assertThat(store.lifecycleConfiguration("life")).isNull();
        assertThat(ok(call("GET", "/life/lifecycle", null), 200).get("rules")).isEmpty();
        problem(call("DELETE", "/no-such/lifecycle", null), 404, "NoSuchBucket", "bucket");
    }

    @Test
    void bucketPolicies_areParsedByThePolicyEngine_andAPublicOneIsBlockedByDefault() throws Exception {
        store.makeBucket("pol");
        JsonNode none = ok(call("GET", "/pol/policy", null), 200);
        assertThat(none.get("document").isNull()).isTrue();
        String account = store.identity().accountId();
        String document = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                + "\"Principal\":{\"AWS\":\"arn:aws:iam::" + account + ":user/reader\"},"
                + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::pol/*\"}]}";
        JsonNode set = ok(call("PUT", "/pol/policy", JSON.writeValueAsString(new Doc(document))), 200);
        assertThat(set.get("document").asText()).isEqualTo(document);
        assertThat(set.get("isPublic").asBoolean()).isFalse();
        assertThat(store.bucketPolicy("pol")).isEqualTo(document);

        JsonNode malformed = problem(
                call("PUT", "/pol/policy", "{\"document\":\"{\\\"Statement\\\":7}\"}"),
                400,
                "MalformedPolicy",
                "document");
        assertThat(malformed.get("detail").asText()).startsWith("document: ");
        problem(
                call("PUT", "/pol/policy", JSON.writeValueAsString(new Doc(document.replace(":::pol/", ":::other/")))),
                400,
                "MalformedPolicy",
                "document");
        String everyone = document.replace("{\"AWS\":\"arn:aws:iam::" + account + ":user/reader\"}", "\"*\"");
        problem(
                call("PUT", "/pol/policy", JSON.writeValueAsString(new Doc(everyone))),
                409,
                "PublicPolicyBlocked",
                "document");
        assertThat(store.bucketPolicy("pol")).isEqualTo(document);

        ok(call("DELETE", "/pol/policy", null), 204);
        assertThat(store.bucketPolicy("pol")).isNull();
        problem(
                call("PUT", "/no-such/policy", JSON.writeValueAsString(new Doc(document))),
                404,
                "NoSuchBucket",
                "bucket");
    }

    record Doc(String document) {}

    @Test
    void usage_countsVersionsDeleteMarkersAndBytes() throws Exception {
        store.makeBucket("used");
        store.setVersioning("used", VersioningState.ENABLED);
        put("used", "a", "12345");
        put("used", "a", "123");
        put("used", "b", "1");
        store.deleteObject("used", "b", null);
        JsonNode usage = ok(call("GET", "/used/usage", null), 200);
        assertThat(usage.get("objects").asLong()).isEqualTo(1);
        assertThat(usage.get("versions").asLong()).isEqualTo(3);
        assertThat(usage.get("deleteMarkers").asLong()).isEqualTo(1);
        assertThat(usage.get("bytes").asLong()).isEqualTo(9);
        assertThat(usage.get("countedAt").asText()).isNotBlank();
        problem(call("GET", "/no-such/usage", null), 404, "NoSuchBucket", "bucket");
    }
}
