package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectLockConfigurationResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRetentionResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** S3 Object Lock through the AWS SDK for Java v2 (and raw requests for what the SDK cannot send). */
class ObjectLockServerTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing((ak, action, bucket, key) ->
            !(action.equals("s3:BypassGovernanceRetention") && key != null && key.startsWith("nobypass/")));

    @BeforeAll
    static void start() throws Exception {
        // Everything allowed, except bypassing governance retention on keys under nobypass/.
    }

    private static String lockBucket() {
        String b = "lock-" + UUID.randomUUID().toString().substring(0, 8);
        SERVER.s3().createBucket(c -> c.bucket(b).objectLockEnabledForBucket(true));
        return b;
    }

    private static Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.MILLIS);
    }

    private static PutObjectResponse putLocked(String bucket, String key, ObjectLockMode mode, Instant until) {
        return SERVER.s3()
                .putObject(
                        b -> b.bucket(bucket).key(key).objectLockMode(mode).objectLockRetainUntilDate(until),
                        RequestBody.fromString("block " + key));
    }

    private static S3Exception error(Runnable call) {
        return catchThrowableOfType(S3Exception.class, call::run);
    }

    private static void assertError(S3Exception e, int status, String code) {
        assertThat(e).isNotNull();
        assertThat(e.statusCode()).isEqualTo(status);
        if (code != null) { // HEAD responses carry no error body
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
        }
    }

    // ------------------------------------------------------------------------------------------------------- buckets

    @Test
    void createBucketWithLock_enablesLockAndVersioning_versioningCannotBeSuspended() {
        String b = lockBucket();
        GetObjectLockConfigurationResponse config = SERVER.s3().getObjectLockConfiguration(c -> c.bucket(b));
        assertThat(config.objectLockConfiguration().objectLockEnabledAsString()).isEqualTo("Enabled");
        assertThat(config.objectLockConfiguration().rule()).isNull();
        assertThat(SERVER.s3().getBucketVersioning(c -> c.bucket(b)).status())
                .isEqualTo(BucketVersioningStatus.ENABLED);
        assertError(
                error(() -> SERVER.s3().putBucketVersioning(c -> c.bucket(b)
                        .versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED)))),
                409,
                "InvalidBucketState");
    }

    @Test
    void lockBucket_answersSosapiByDefault_plainBucketDoesNot() {
        String b = lockBucket();
        String systemXml = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/system.xml";
        assertThat(SERVER.s3().getObjectAsBytes(g -> g.bucket(b).key(systemXml)).asUtf8String())
                .contains("<SystemInfo>")
                .contains("<CapacityInfo>true</CapacityInfo>");
        SERVER.s3().createBucket(c -> c.bucket("plain-sosapi"));
        assertError(
                error(() -> SERVER.s3().headObject(h -> h.bucket("plain-sosapi").key(systemXml))), 404, null);
    }

    @Test
    void getObjectLockConfiguration_onPlainBucket_is404ObjectLockConfigurationNotFoundError() {
        SERVER.s3().createBucket(c -> c.bucket("plain-config"));
        assertError(
                error(() -> SERVER.s3().getObjectLockConfiguration(c -> c.bucket("plain-config"))),
                404,
                "ObjectLockConfigurationNotFoundError");
    }

    @Test
    void putObjectLockConfiguration_needsVersioning_thenSetsDefaultRetention() {
        SERVER.s3().createBucket(c -> c.bucket("later-lock"));
        Runnable enable = () -> SERVER.s3().putObjectLockConfiguration(c -> c.bucket("later-lock")
                .objectLockConfiguration(o -> o.objectLockEnabled("Enabled")
                        .rule(r -> r.defaultRetention(
                                d -> d.mode(ObjectLockRetentionMode.GOVERNANCE).days(3)))));
        assertError(error(enable), 409, "InvalidBucketState");
        SERVER.s3().putBucketVersioning(c -> c.bucket("later-lock")
                .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        for (int bad : new int[] {0, -1}) {
            assertError(
                    error(() -> SERVER.s3().putObjectLockConfiguration(c -> c.bucket("later-lock")
                            .objectLockConfiguration(o -> o.objectLockEnabled("Enabled")
                                    .rule(r -> r.defaultRetention(d -> d.mode(ObjectLockRetentionMode.GOVERNANCE)
                                            .days(bad)))))),
                    400,
                    "InvalidRetentionPeriod");
        }
        enable.run();
        var rule = SERVER.s3()
                .getObjectLockConfiguration(c -> c.bucket("later-lock"))
                .objectLockConfiguration()
                .rule();
        assertThat(rule.defaultRetention().mode()).isEqualTo(ObjectLockRetentionMode.GOVERNANCE);
        assertThat(rule.defaultRetention().days()).isEqualTo(3);

        SERVER.s3().putObject(b -> b.bucket("later-lock").key("defaulted"), RequestBody.fromString("x"));
        HeadObjectResponse head =
                SERVER.s3().headObject(b -> b.bucket("later-lock").key("defaulted"));
        assertThat(head.objectLockMode()).isEqualTo(ObjectLockMode.GOVERNANCE);
        assertThat(head.objectLockRetainUntilDate())
                .isBetween(
                        Instant.now().plus(Duration.ofDays(3)).minusSeconds(60),
                        Instant.now().plus(Duration.ofDays(3)));
    }

    // -------------------------------------------------------------------------------------------------------- writes

    @Test
    void putWithComplianceRetention_isReturnedOnHeadGetAndGetObjectRetention() {
        String b = lockBucket();
        Instant until = inDays(30);
        PutObjectResponse put = putLocked(b, "blk", ObjectLockMode.COMPLIANCE, until);
        HeadObjectResponse head = SERVER.s3().headObject(h -> h.bucket(b).key("blk"));
        assertThat(head.objectLockMode()).isEqualTo(ObjectLockMode.COMPLIANCE);
        assertThat(head.objectLockRetainUntilDate()).isEqualTo(until);
        assertThat(head.objectLockLegalHoldStatus()).isNull();
        var get = SERVER.s3().getObjectAsBytes(g -> g.bucket(b).key("blk").versionId(put.versionId()));
        assertThat(get.response().objectLockMode()).isEqualTo(ObjectLockMode.COMPLIANCE);
        assertThat(get.asUtf8String()).isEqualTo("block blk");
        GetObjectRetentionResponse retention =
                SERVER.s3().getObjectRetention(r -> r.bucket(b).key("blk").versionId(put.versionId()));
        assertThat(retention.retention().mode()).isEqualTo(ObjectLockRetentionMode.COMPLIANCE);
        assertThat(retention.retention().retainUntilDate()).isEqualTo(until);
    }

    @Test
    void putWithLockHeaders_onBucketWithoutLock_isInvalidRequest() {
        SERVER.s3().createBucket(c -> c.bucket("plain-put"));
        S3Exception e = error(() -> putLocked("plain-put", "k", ObjectLockMode.COMPLIANCE, inDays(1)));
        assertError(e, 400, "InvalidRequest");
        assertThat(e.awsErrorDetails().errorMessage()).contains("Bucket is missing Object Lock Configuration");
    }

    @Test
    void putWithLockHeaders_withoutContentMd5OrChecksum_isInvalidRequest_andDateInThePastIsRefused() throws Exception {
        String b = lockBucket();
        String date = DateTimeFormatter.ISO_INSTANT.format(inDays(1));
        Map<String, String> lock = new LinkedHashMap<>();
        lock.put("x-amz-object-lock-mode", "COMPLIANCE");
        lock.put("x-amz-object-lock-retain-until-date", date);
        String resp = raw("PUT", "/" + b + "/k", "", lock, "data");
        assertThat(resp)
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidRequest</Code>")
                .contains("Content-MD5");

        lock.put("content-md5", md5("data"));
        assertThat(raw("PUT", "/" + b + "/k", "", lock, "data")).startsWith("HTTP/1.1 200");

        lock.put("x-amz-object-lock-retain-until-date", "2001-01-01T00:00:00Z");
        assertThat(raw("PUT", "/" + b + "/k", "", lock, "data"))
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidArgument</Code>");
        lock.remove("x-amz-object-lock-retain-until-date");
        assertThat(raw("PUT", "/" + b + "/k", "", lock, "data"))
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidArgument</Code>");
    }

    @Test
    void newVersionOfALockedKey_alwaysSucceeds() {
        String b = lockBucket();
        PutObjectResponse first = putLocked(b, "Owner", ObjectLockMode.COMPLIANCE, inDays(5));
        PutObjectResponse second =
                SERVER.s3().putObject(p -> p.bucket(b).key("Owner"), RequestBody.fromString("takeover"));
        assertThat(second.versionId()).isNotEqualTo(first.versionId());
        assertThat(SERVER.s3().getObjectAsBytes(g -> g.bucket(b).key("Owner")).asUtf8String())
                .isEqualTo("takeover");
    }

    @Test
    void copyAndMultipart_carryTheRequestsLockHeaders() {
        String b = lockBucket();
        Instant until = inDays(2);
        putLocked(b, "src", ObjectLockMode.COMPLIANCE, inDays(9));
        SERVER.s3().copyObject(c -> c.sourceBucket(b)
                .sourceKey("src")
                .destinationBucket(b)
                .destinationKey("copy")
                .objectLockMode(ObjectLockMode.GOVERNANCE)
                .objectLockRetainUntilDate(until));
        HeadObjectResponse copy = SERVER.s3().headObject(h -> h.bucket(b).key("copy"));
        assertThat(copy.objectLockMode()).isEqualTo(ObjectLockMode.GOVERNANCE);
        assertThat(copy.objectLockRetainUntilDate()).isEqualTo(until);

        String id = SERVER.s3()
                .createMultipartUpload(c -> c.bucket(b)
                        .key("mp")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(until)
                        .objectLockLegalHoldStatus(ObjectLockLegalHoldStatus.ON))
                .uploadId();
        String etag = SERVER.s3()
                .uploadPart(u -> u.bucket(b).key("mp").uploadId(id).partNumber(1), RequestBody.fromString("p"))
                .eTag();
        SERVER.s3().completeMultipartUpload(c -> c.bucket(b)
                .key("mp")
                .uploadId(id)
                .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag))));
        HeadObjectResponse mp = SERVER.s3().headObject(h -> h.bucket(b).key("mp"));
        assertThat(mp.objectLockMode()).isEqualTo(ObjectLockMode.COMPLIANCE);
        assertThat(mp.objectLockRetainUntilDate()).isEqualTo(until);
        assertThat(mp.objectLockLegalHoldStatus()).isEqualTo(ObjectLockLegalHoldStatus.ON);
    }

    @Test
    void uploadPart_ofALockedUpload_needsContentMd5OrAChecksum_partCopyDoesNot() throws Exception {
        String b = lockBucket();
        putLocked(b, "src", ObjectLockMode.COMPLIANCE, inDays(3));
        String id = SERVER.s3()
                .createMultipartUpload(c -> c.bucket(b)
                        .key("mp")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(inDays(2)))
                .uploadId();
        String query = "partNumber=1&uploadId=" + id;
        String refused = raw("PUT", "/" + b + "/mp", query, Map.of(), "part one");
        assertThat(refused)
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidRequest</Code>")
                .contains("Content-MD5 OR x-amz-checksum- HTTP header is required for Upload Part requests");
        assertThat(SERVER.s3()
                        .listParts(l -> l.bucket(b).key("mp").uploadId(id))
                        .parts())
                .isEmpty();
        assertThat(raw("PUT", "/" + b + "/mp", query, Map.of("content-md5", md5("part one")), "part one"))
                .startsWith("HTTP/1.1 200");
        assertThat(raw(
                        "PUT",
                        "/" + b + "/mp",
                        "partNumber=2&uploadId=" + id,
                        Map.of("x-amz-copy-source", "/" + b + "/src"),
                        ""))
                .startsWith("HTTP/1.1 200");
        assertThat(SERVER.s3()
                        .listParts(l -> l.bucket(b).key("mp").uploadId(id))
                        .parts())
                .hasSize(2);

        // An upload into the same bucket without lock parameters takes parts without a digest.
        String plain =
                SERVER.s3().createMultipartUpload(c -> c.bucket(b).key("plain")).uploadId();
        assertThat(raw("PUT", "/" + b + "/plain", "partNumber=1&uploadId=" + plain, Map.of(), "x"))
                .startsWith("HTTP/1.1 200");
    }

    // ------------------------------------------------------------------------------------------------------- deletes

    @Test
    void deleteOfALockedVersion_isAccessDenied_deleteWithoutVersionAddsAMarker() {
        String b = lockBucket();
        PutObjectResponse put = putLocked(b, "blk", ObjectLockMode.COMPLIANCE, inDays(1));
        S3Exception denied =
                error(() -> SERVER.s3().deleteObject(d -> d.bucket(b).key("blk").versionId(put.versionId())));
        assertError(denied, 403, "AccessDenied");
        DeleteObjectResponse marker = SERVER.s3().deleteObject(d -> d.bucket(b).key("blk"));
        assertThat(marker.deleteMarker()).isTrue();
        assertThat(SERVER.s3()
                        .getObjectAsBytes(g -> g.bucket(b).key("blk").versionId(put.versionId()))
                        .asUtf8String())
                .isEqualTo("block blk");
        // retention calls on a delete marker → 405
        assertError(
                error(() -> SERVER.s3()
                        .getObjectRetention(r -> r.bucket(b).key("blk").versionId(marker.versionId()))),
                405,
                "MethodNotAllowed");
    }

    @Test
    void deleteObjects_reportsAccessDeniedPerLockedVersion_andDeletesTheOthers() {
        String b = lockBucket();
        PutObjectResponse locked = putLocked(b, "a", ObjectLockMode.COMPLIANCE, inDays(1));
        PutObjectResponse free = SERVER.s3().putObject(p -> p.bucket(b).key("b"), RequestBody.fromString("b"));
        DeleteObjectsResponse resp = SERVER.s3().deleteObjects(d -> d.bucket(b)
                .delete(x -> x.objects(
                        ObjectIdentifier.builder()
                                .key("a")
                                .versionId(locked.versionId())
                                .build(),
                        ObjectIdentifier.builder()
                                .key("b")
                                .versionId(free.versionId())
                                .build())));
        assertThat(resp.errors()).hasSize(1);
        assertThat(resp.errors().getFirst().key()).isEqualTo("a");
        assertThat(resp.errors().getFirst().code()).isEqualTo("AccessDenied");
        assertThat(resp.deleted()).extracting(d -> d.key()).containsExactly("b");
    }

    @Test
    void governance_bypassNeedsHeaderAndPermission() {
        String b = lockBucket();
        PutObjectResponse v = putLocked(b, "g", ObjectLockMode.GOVERNANCE, inDays(3));
        PutObjectResponse w = putLocked(b, "nobypass/g", ObjectLockMode.GOVERNANCE, inDays(3));
        assertError(
                error(() -> SERVER.s3().deleteObject(d -> d.bucket(b).key("g").versionId(v.versionId()))),
                403,
                "AccessDenied");
        // shortening without the header, and with the header but without the permission
        assertError(
                error(() -> SERVER.s3().putObjectRetention(r -> r.bucket(b)
                        .key("g")
                        .versionId(v.versionId())
                        .retention(
                                x -> x.mode(ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(inDays(1))))),
                403,
                "AccessDenied");
        assertError(
                error(() -> SERVER.s3().putObjectRetention(r -> r.bucket(b)
                        .key("nobypass/g")
                        .versionId(w.versionId())
                        .bypassGovernanceRetention(true)
                        .retention(
                                x -> x.mode(ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(inDays(1))))),
                403,
                "AccessDenied");
        Instant shorter = inDays(1);
        SERVER.s3().putObjectRetention(r -> r.bucket(b)
                .key("g")
                .versionId(v.versionId())
                .bypassGovernanceRetention(true)
                .retention(x -> x.mode(ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(shorter)));
        assertThat(SERVER.s3()
                        .getObjectRetention(r -> r.bucket(b).key("g").versionId(v.versionId()))
                        .retention()
                        .retainUntilDate())
                .isEqualTo(shorter);
        SERVER.s3()
                .deleteObject(d -> d.bucket(b).key("g").versionId(v.versionId()).bypassGovernanceRetention(true));
        assertError(
                error(() -> SERVER.s3().deleteObject(d -> d.bucket(b)
                        .key("nobypass/g")
                        .versionId(w.versionId())
                        .bypassGovernanceRetention(true))),
                403,
                "AccessDenied");
    }

    // ----------------------------------------------------------------------------------------------------- retention

    @Test
    void compliance_extendSucceeds_shortenAndModeChangeAreAccessDenied() {
        String b = lockBucket();
        PutObjectResponse v = putLocked(b, "c", ObjectLockMode.COMPLIANCE, inDays(10));
        Instant extended = inDays(20);
        SERVER.s3().putObjectRetention(r -> r.bucket(b)
                .key("c")
                .versionId(v.versionId())
                .retention(x -> x.mode(ObjectLockRetentionMode.COMPLIANCE).retainUntilDate(extended)));
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("c")).objectLockRetainUntilDate())
                .isEqualTo(extended);
        assertError(
                error(() -> SERVER.s3().putObjectRetention(r -> r.bucket(b)
                        .key("c")
                        .versionId(v.versionId())
                        .bypassGovernanceRetention(true)
                        .retention(
                                x -> x.mode(ObjectLockRetentionMode.COMPLIANCE).retainUntilDate(inDays(15))))),
                403,
                "AccessDenied");
        assertError(
                error(() -> SERVER.s3().putObjectRetention(r -> r.bucket(b)
                        .key("c")
                        .versionId(v.versionId())
                        .retention(
                                x -> x.mode(ObjectLockRetentionMode.GOVERNANCE).retainUntilDate(inDays(40))))),
                403,
                "AccessDenied");
    }

    @Test
    void putObjectRetention_namespaceLessXml_withAndWithoutFractionalSeconds() throws Exception {
        String b = lockBucket();
        PutObjectResponse v = SERVER.s3().putObject(p -> p.bucket(b).key("veeam"), RequestBody.fromString("blk"));
        String date = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(inDays(7));
        String body = "<Retention><Mode>COMPLIANCE</Mode><RetainUntilDate>" + date + "</RetainUntilDate></Retention>";
        String query = "retention&versionId=" + v.versionId();
        assertThat(raw("PUT", "/" + b + "/veeam", query, Map.of(), body))
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidRequest</Code>")
                .contains("Missing required header for this request: Content-MD5");
        assertThat(raw("PUT", "/" + b + "/veeam", query, Map.of("content-md5", md5(body)), body))
                .startsWith("HTTP/1.1 200");
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("veeam")).objectLockRetainUntilDate())
                .isEqualTo(Instant.parse(date));

        String later = DateTimeFormatter.ISO_INSTANT.format(inDays(8).plusMillis(123));
        String namespaced = "<Retention xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Mode>COMPLIANCE</Mode>"
                + "<RetainUntilDate>" + later + "</RetainUntilDate></Retention>";
        assertThat(raw("PUT", "/" + b + "/veeam", query, Map.of("content-md5", md5(namespaced)), namespaced))
                .startsWith("HTTP/1.1 200");
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("veeam")).objectLockRetainUntilDate())
                .isEqualTo(Instant.parse(later));

        String bad = "<Retention><Mode>FOREVER</Mode><RetainUntilDate>" + later + "</RetainUntilDate></Retention>";
        assertThat(raw("PUT", "/" + b + "/veeam", query, Map.of("content-md5", md5(bad)), bad))
                .startsWith("HTTP/1.1 400")
                .contains("<Code>MalformedXML</Code>");
        String wrongMd5 = raw("PUT", "/" + b + "/veeam", query, Map.of("content-md5", md5(bad)), namespaced);
        assertThat(wrongMd5).startsWith("HTTP/1.1 400").contains("<Code>BadDigest</Code>");
    }

    @Test
    void retentionOnBucketWithoutLock_isInvalidRequest_andUnsetRetentionIs404() {
        SERVER.s3().createBucket(c -> c.bucket("plain-retention"));
        SERVER.s3().putObject(p -> p.bucket("plain-retention").key("k"), RequestBody.fromString("x"));
        assertError(
                error(() -> SERVER.s3()
                        .getObjectRetention(r -> r.bucket("plain-retention").key("k"))),
                400,
                "InvalidRequest");
        String b = lockBucket();
        SERVER.s3().putObject(p -> p.bucket(b).key("k"), RequestBody.fromString("x"));
        assertError(
                error(() -> SERVER.s3().getObjectRetention(r -> r.bucket(b).key("k"))),
                404,
                "NoSuchObjectLockConfiguration");
        assertError(
                error(() -> SERVER.s3().getObjectLegalHold(r -> r.bucket(b).key("k"))),
                404,
                "NoSuchObjectLockConfiguration");
    }

    // ---------------------------------------------------------------------------------------------------- legal hold

    @Test
    void legalHold_blocksDeleteUntilOff() {
        String b = lockBucket();
        PutObjectResponse v = SERVER.s3().putObject(p -> p.bucket(b).key("held"), RequestBody.fromString("x"));
        SERVER.s3().putObjectLegalHold(h -> h.bucket(b)
                .key("held")
                .versionId(v.versionId())
                .legalHold(l -> l.status(ObjectLockLegalHoldStatus.ON)));
        assertThat(SERVER.s3()
                        .getObjectLegalHold(h -> h.bucket(b).key("held").versionId(v.versionId()))
                        .legalHold()
                        .status())
                .isEqualTo(ObjectLockLegalHoldStatus.ON);
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("held")).objectLockLegalHoldStatus())
                .isEqualTo(ObjectLockLegalHoldStatus.ON);
        assertError(
                error(() ->
                        SERVER.s3().deleteObject(d -> d.bucket(b).key("held").versionId(v.versionId()))),
                403,
                "AccessDenied");
        SERVER.s3().putObjectLegalHold(h -> h.bucket(b)
                .key("held")
                .versionId(v.versionId())
                .legalHold(l -> l.status(ObjectLockLegalHoldStatus.OFF)));
        assertThat(SERVER.s3()
                        .getObjectLegalHold(h -> h.bucket(b).key("held"))
                        .legalHold()
                        .status())
                .isEqualTo(ObjectLockLegalHoldStatus.OFF);
        SERVER.s3().deleteObject(d -> d.bucket(b).key("held").versionId(v.versionId()));
        assertThat(SERVER.s3().listObjectVersions(l -> l.bucket(b)).versions()).isEmpty();
    }

    // --------------------------------------------------------------------------------------- dates and strict bodies

    /**
     * A retain-until date past 9999-12-31 cannot be written as S3 writes dates (four-digit years): were it stored, no
     * SDK could parse that version's lock headers or retention again. Refused as an unusable date, on every path.
     */
    @Test
    void retainUntilDates_pastYear9999_areRefused_onPutCopyMultipartAndPutObjectRetention() throws Exception {
        String b = lockBucket();
        String[] unrepresentable = {
            "+10000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.9999Z",
            "9999-12-31T23:30:00-01:00",
            "+999999999-01-01T00:00:00Z"
        };
        for (String until : unrepresentable) {
            Map<String, String> lock = new LinkedHashMap<>();
            lock.put("x-amz-object-lock-mode", "COMPLIANCE");
            lock.put("x-amz-object-lock-retain-until-date", until);
            lock.put("content-md5", md5("data"));
            assertThat(raw("PUT", "/" + b + "/far", "", lock, "data"))
                    .as(until)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>InvalidArgument</Code>");
            Map<String, String> copy = new LinkedHashMap<>(lock);
            copy.remove("content-md5");
            copy.put("x-amz-copy-source", "/" + b + "/source");
            SERVER.s3().putObject(p -> p.bucket(b).key("source"), RequestBody.fromString("src"));
            assertThat(raw("PUT", "/" + b + "/far-copy", "", copy, ""))
                    .as(until)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>InvalidArgument</Code>");
            assertThat(raw("POST", "/" + b + "/far-mpu", "uploads", copy, ""))
                    .as(until)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>InvalidArgument</Code>");
            String body =
                    "<Retention><Mode>COMPLIANCE</Mode><RetainUntilDate>" + until + "</RetainUntilDate></Retention>";
            assertThat(raw("PUT", "/" + b + "/source", "retention", Map.of("content-md5", md5(body)), body))
                    .as(until)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>MalformedXML</Code>");
        }
        // a past date stays AWS's InvalidArgument, in the body as in the header
        String past = "<Retention><Mode>COMPLIANCE</Mode><RetainUntilDate>2001-01-01T00:00:00Z</RetainUntilDate>"
                + "</Retention>";
        assertThat(raw("PUT", "/" + b + "/source", "retention", Map.of("content-md5", md5(past)), past))
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidArgument</Code>")
                .contains("The retain until date must be in the future!");
        assertThat(SERVER.s3().listObjectVersions(l -> l.bucket(b)).versions())
                .extracting(v -> v.key())
                .containsOnly("source");
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("source")).objectLockMode())
                .isNull();

        // the last representable instant is taken, and every SDK call reads it back
        Instant last = Instant.parse("9999-12-31T23:59:59.999Z");
        putLocked(b, "last", ObjectLockMode.GOVERNANCE, last);
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("last")).objectLockRetainUntilDate())
                .isEqualTo(last);
        GetObjectRetentionResponse got =
                SERVER.s3().getObjectRetention(r -> r.bucket(b).key("last"));
        assertThat(got.retention().retainUntilDate()).isEqualTo(last);
    }

    /** AWS bounds a default retention to 100 years (36500 days); a longer one could pass year 9999 when applied. */
    @Test
    void defaultRetention_over100Years_isInvalidRetentionPeriod() {
        String b = lockBucket();
        for (var rule : java.util.List
                .<java.util.function.Consumer<software.amazon.awssdk.services.s3.model.DefaultRetention.Builder>>of(
                        d -> d.mode(ObjectLockRetentionMode.GOVERNANCE).days(36501),
                        d -> d.mode(ObjectLockRetentionMode.GOVERNANCE).years(101),
                        d -> d.mode(ObjectLockRetentionMode.COMPLIANCE).years(Integer.MAX_VALUE))) {
            assertError(
                    error(() -> SERVER.s3().putObjectLockConfiguration(c -> c.bucket(b)
                            .objectLockConfiguration(
                                    o -> o.objectLockEnabled("Enabled").rule(r -> r.defaultRetention(rule))))),
                    400,
                    "InvalidRetentionPeriod");
        }
        assertThat(SERVER.s3()
                        .getObjectLockConfiguration(c -> c.bucket(b))
                        .objectLockConfiguration()
                        .rule())
                .isNull();
        SERVER.s3()
                .putObjectLockConfiguration(c -> c.bucket(b).objectLockConfiguration(o -> o.objectLockEnabled("Enabled")
                        .rule(r -> r.defaultRetention(
                                d -> d.mode(ObjectLockRetentionMode.GOVERNANCE).years(100)))));
        SERVER.s3().putObject(p -> p.bucket(b).key("defaulted"), RequestBody.fromString("x"));
        assertThat(SERVER.s3().headObject(h -> h.bucket(b).key("defaulted")).objectLockRetainUntilDate())
                .isAfter(Instant.now().plus(Duration.ofDays(36_500)));
    }

    /** As DeleteObjects: a repeated or unknown element is MalformedXML, never "the first value wins". */
    @Test
    void lockBodies_withRepeatedOrUnknownElements_areMalformedXml_andChangeNothing() throws Exception {
        String b = lockBucket();
        PutObjectResponse v = SERVER.s3().putObject(p -> p.bucket(b).key("k"), RequestBody.fromString("x"));
        String query = "versionId=" + v.versionId();
        String soon = DateTimeFormatter.ISO_INSTANT.format(inDays(1));
        String later = DateTimeFormatter.ISO_INSTANT.format(inDays(2));
        Map<String, String[]> bad = new LinkedHashMap<>();
        bad.put("retention", new String[] {
            "<Retention><Mode>GOVERNANCE</Mode><Mode>COMPLIANCE</Mode><RetainUntilDate>" + soon
                    + "</RetainUntilDate></Retention>",
            "<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>" + soon + "</RetainUntilDate><RetainUntilDate>" + later
                    + "</RetainUntilDate></Retention>",
            "<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>" + soon
                    + "</RetainUntilDate><Extra>1</Extra></Retention>",
            "<Retention><Mode>GOVERNANCE<X/></Mode><RetainUntilDate>" + soon + "</RetainUntilDate></Retention>"
        });
        bad.put("legal-hold", new String[] {
            "<LegalHold><Status>ON</Status><Status>OFF</Status></LegalHold>",
            "<LegalHold><Status>ON</Status><Reason>x</Reason></LegalHold>"
        });
        for (var e : bad.entrySet()) {
            for (String body : e.getValue()) {
                assertThat(raw("PUT", "/" + b + "/k", e.getKey() + "&" + query, Map.of("content-md5", md5(body)), body))
                        .as(body)
                        .startsWith("HTTP/1.1 400")
                        .contains("<Code>MalformedXML</Code>");
            }
        }
        HeadObjectResponse head = SERVER.s3().headObject(h -> h.bucket(b).key("k"));
        assertThat(head.objectLockMode()).isNull();
        assertThat(head.objectLockLegalHoldStatus()).isNull();

        String rule = "<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule>";
        for (String body : new String[] {
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>"
                    + "<ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>" + rule + rule
                    + "</ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>"
                    + "<Mode>GOVERNANCE</Mode><Days>1</Days><Days>2</Days></DefaultRetention></Rule>"
                    + "</ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>"
                    + "<Mode>GOVERNANCE</Mode><Mode>COMPLIANCE</Mode><Days>1</Days></DefaultRetention></Rule>"
                    + "</ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>"
                    + "<Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention><DefaultRetention><Mode>COMPLIANCE"
                    + "</Mode><Days>2</Days></DefaultRetention></Rule></ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>"
                    + "<Mode>GOVERNANCE</Mode><Days>1</Days><Weeks>1</Weeks></DefaultRetention></Rule>"
                    + "</ObjectLockConfiguration>",
            "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Unknown/>"
                    + "</ObjectLockConfiguration>"
        }) {
            assertThat(raw("PUT", "/" + b, "object-lock", Map.of("content-md5", md5(body)), body))
                    .as(body)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>MalformedXML</Code>");
        }
        assertThat(SERVER.s3()
                        .getObjectLockConfiguration(c -> c.bucket(b))
                        .objectLockConfiguration()
                        .rule())
                .isNull();
    }

    // ------------------------------------------------------------------------------------------------------- helpers

    private static String md5(String body) throws Exception {
        return Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("MD5").digest(body.getBytes(StandardCharsets.UTF_8)));
    }

    /** A signed request (UNSIGNED-PAYLOAD) with {@code extra} headers signed; the whole answer, head and body. */
    private static String raw(String method, String path, String query, Map<String, String> extra, String body)
            throws Exception {
        return SignedRaw.send(SERVER.port(), method, path, query, extra, body);
    }
}
