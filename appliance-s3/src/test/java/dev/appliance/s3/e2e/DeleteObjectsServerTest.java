package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** DeleteObjects over the real engine, driven by the AWS SDK v2 client and by raw requests an SDK never sends. */
class DeleteObjectsServerTest {
    private static final String AK = S3TestServer.ACCESS_KEY;
    private static final String SK = S3TestServer.SECRET_KEY;
    /** Deleting keys under this prefix is refused by the test's authorizer. */
    private static final String PROTECTED = "protected/";

    private static S3Client s3;
    private static S3Client whenRequired;
    private static int bucketCounter;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing((ak, action, bucket, key) ->
            key == null || !key.startsWith(PROTECTED) || !action.startsWith("s3:DeleteObject"));

    @BeforeAll
    static void start() throws Exception {
        s3 = client(RequestChecksumCalculation.WHEN_SUPPORTED);
        whenRequired = client(RequestChecksumCalculation.WHEN_REQUIRED);
    }

    private static S3Client client(RequestChecksumCalculation checksums) {
        return SERVER.client(b -> b.httpClient(UrlConnectionHttpClient.create()).requestChecksumCalculation(checksums));
    }

    private static synchronized String newBucket(boolean versioned) {
        String name = "del-" + (++bucketCounter);
        s3.createBucket(b -> b.bucket(name));
        if (versioned) {
            s3.putBucketVersioning(
                    b -> b.bucket(name).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        }
        return name;
    }

    private static String put(String bucket, String key, String content) {
        return s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(content))
                .versionId();
    }

    private static ObjectIdentifier id(String key) {
        return ObjectIdentifier.builder().key(key).build();
    }

    private static ObjectIdentifier id(String key, String versionId) {
        return ObjectIdentifier.builder().key(key).versionId(versionId).build();
    }

    private static DeleteObjectsResponse deleteObjects(
            S3Client client, String bucket, boolean quiet, List<ObjectIdentifier> ids) {
        return client.deleteObjects(
                b -> b.bucket(bucket).delete(d -> d.quiet(quiet).objects(ids)));
    }

    private static List<String> keys(String bucket) {
        return s3.listObjectsV2(b -> b.bucket(bucket)).contents().stream()
                .map(o -> o.key())
                .toList();
    }

    @Test
    void unversioned_deletesEveryKey_missingKeysCountAsDeleted() {
        String bucket = newBucket(false);
        List<String> names = List.of("a", "dir/b", " spaced & <odd> \"key\" ", "€/ünïcødé/😀", "keep");
        for (String k : names) {
            put(bucket, k, k);
        }
        DeleteObjectsResponse r = deleteObjects(
                s3, bucket, false, List.of(id("a"), id("dir/b"), id(names.get(2)), id(names.get(3)), id("never-was")));
        assertThat(r.errors()).isEmpty();
        assertThat(r.deleted())
                .extracting(DeletedObject::key)
                .containsExactly("a", "dir/b", names.get(2), names.get(3), "never-was");
        assertThat(r.deleted()).allSatisfy(d -> {
            assertThat(d.versionId()).isNull();
            assertThat(d.deleteMarker()).isNull();
            assertThat(d.deleteMarkerVersionId()).isNull();
        });
        assertThat(keys(bucket)).containsExactly("keep");
    }

    @Test
    void versioned_createsMarkers_removesNamedVersions_andMarkers() {
        String bucket = newBucket(true);
        String v1 = put(bucket, "k", "one");
        String v2 = put(bucket, "k", "two");
        String w1 = put(bucket, "w", "w");

        DeleteObjectsResponse r = deleteObjects(s3, bucket, false, List.of(id("k"), id("w", w1)));
        assertThat(r.errors()).isEmpty();
        assertThat(r.deleted()).hasSize(2);
        DeletedObject marker = r.deleted().get(0);
        assertThat(marker.key()).isEqualTo("k");
        assertThat(marker.versionId()).isNull();
        assertThat(marker.deleteMarker()).isTrue();
        assertThat(marker.deleteMarkerVersionId()).isNotBlank().isNotIn(v1, v2);
        DeletedObject version = r.deleted().get(1);
        assertThat(version.key()).isEqualTo("w");
        assertThat(version.versionId()).isEqualTo(w1);
        assertThat(version.deleteMarker()).isNull();
        assertThat(keys(bucket)).isEmpty();
        assertThat(s3.listObjectVersions(b -> b.bucket(bucket).prefix("w")).versions())
                .isEmpty();

        // removing the marker by its version id restores the key; S3 names the marker twice
        DeleteObjectsResponse undo =
                deleteObjects(s3, bucket, false, List.of(id("k", marker.deleteMarkerVersionId()), id("k", v1)));
        assertThat(undo.errors()).isEmpty();
        assertThat(undo.deleted().get(0).versionId()).isEqualTo(marker.deleteMarkerVersionId());
        assertThat(undo.deleted().get(0).deleteMarker()).isTrue();
        assertThat(undo.deleted().get(0).deleteMarkerVersionId()).isEqualTo(marker.deleteMarkerVersionId());
        assertThat(undo.deleted().get(1).versionId()).isEqualTo(v1);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String())
                .isEqualTo("two");
        assertThat(s3.listObjectVersions(b -> b.bucket(bucket)).versions())
                .extracting(v -> v.versionId())
                .containsExactly(v2);
    }

    @Test
    void aBatchOfAThousandVersions_answersEveryEntryInRequestOrder_sameKeyEntriesInOrder() {
        String bucket = newBucket(true);
        List<ObjectIdentifier> ids = new java.util.ArrayList<>();
        List<String> expectedKeys = new java.util.ArrayList<>();
        // 330 keys with three versions each, interleaved so a key's entries are far apart in the request
        String[][] versions = new String[330][3];
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 330; k++) {
                versions[k][v] = put(bucket, "blk/" + k, "v" + v);
            }
        }
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 330; k++) {
                ids.add(id("blk/" + k, versions[k][v]));
                expectedKeys.add("blk/" + k);
            }
        }
        for (int k = 0; k < 10; k++) { // and a marker, then its removal, for ten keys
            ids.add(id("blk/" + k));
            expectedKeys.add("blk/" + k);
        }
        DeleteObjectsResponse r = deleteObjects(s3, bucket, false, ids);
        assertThat(r.errors()).isEmpty();
        assertThat(r.deleted()).extracting(DeletedObject::key).containsExactlyElementsOf(expectedKeys);
        for (int i = 0; i < 990; i++) {
            assertThat(r.deleted().get(i).versionId()).isEqualTo(ids.get(i).versionId());
        }
        // the ten deletes without a version ran after their key's versions were gone: each left one marker
        assertThat(r.deleted().subList(990, 1000))
                .allSatisfy(d -> assertThat(d.deleteMarker()).isTrue());
        var left = s3.listObjectVersions(b -> b.bucket(bucket));
        assertThat(left.versions()).isEmpty();
        assertThat(left.deleteMarkers()).hasSize(10);
    }

    @Test
    void quiet_answersOnlyErrors() {
        String bucket = newBucket(false);
        put(bucket, "a", "a");
        put(bucket, PROTECTED + "p", "p");
        DeleteObjectsResponse r = deleteObjects(s3, bucket, true, List.of(id("a"), id(PROTECTED + "p"), id("b")));
        assertThat(r.deleted()).isEmpty();
        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.key()).isEqualTo(PROTECTED + "p");
            assertThat(e.code()).isEqualTo("AccessDenied");
        });
        assertThat(keys(bucket)).containsExactly(PROTECTED + "p");
        assertThat(deleteObjects(s3, bucket, true, List.of(id("a"))).errors()).isEmpty();
    }

    @Test
    void invalidKeysAndVersionIds_arePerKeyErrors_othersStillDeleted() {
        String bucket = newBucket(true);
        put(bucket, "good", "g");
        String tooLong = "x".repeat(1025);
        DeleteObjectsResponse r = deleteObjects(
                whenRequired,
                bucket,
                false,
                List.of(id("a//b"), id("../escape"), id(tooLong), id("good"), id("good", "not-a-version-id")));
        assertThat(r.deleted()).extracting(DeletedObject::key).containsExactly("good");
        assertThat(r.errors())
                .extracting(S3Error::key, S3Error::code)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a//b", "InvalidObjectName"),
                        org.assertj.core.groups.Tuple.tuple("../escape", "InvalidObjectName"),
                        org.assertj.core.groups.Tuple.tuple(tooLong, "KeyTooLongError"),
                        org.assertj.core.groups.Tuple.tuple("good", "InvalidArgument"));
        assertThat(r.errors().get(3).versionId()).isEqualTo("not-a-version-id");
        assertThat(r.errors()).allSatisfy(e -> assertThat(e.message()).isNotBlank());
        assertThat(keys(bucket)).isEmpty();
    }

    @Test
    void noSuchBucket_failsTheWholeRequest() {
        S3Exception e = catchThrowableOfType(
                S3Exception.class, () -> deleteObjects(s3, "no-such-bucket-here", false, List.of(id("a"))));
        assertThat(e.statusCode()).isEqualTo(404);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
    }

    @Test
    void moreThanThousandKeys_isMalformedXml() {
        String bucket = newBucket(false);
        List<ObjectIdentifier> ids = new ArrayList<>();
        for (int i = 0; i <= 1000; i++) {
            ids.add(id("k" + i));
        }
        S3Exception e = catchThrowableOfType(S3Exception.class, () -> deleteObjects(s3, bucket, true, ids));
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("MalformedXML");
        assertThat(deleteObjects(s3, bucket, true, ids.subList(0, 1000)).errors())
                .isEmpty();
    }

    // ---- integrity headers, raw ----

    private static final String BODY = "<Delete><Object><Key>victim</Key></Object></Delete>";

    private static String md5(String body) throws Exception {
        return Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("MD5").digest(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static String crc32(String body) {
        CRC32 c = new CRC32();
        c.update(body.getBytes(StandardCharsets.UTF_8));
        long v = c.getValue();
        return Base64.getEncoder()
                .encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    @Test
    void raw_withoutContentMd5OrChecksum_isInvalidRequest() throws Exception {
        String bucket = newBucket(false);
        put(bucket, "victim", "v");
        String resp = raw(signed(bucket, Map.of(), BODY));
        assertThat(resp)
                .startsWith("HTTP/1.1 400")
                .contains("<Code>InvalidRequest</Code>", "Missing required header for this request: Content-MD5");
        assertThat(keys(bucket)).containsExactly("victim");
    }

    @Test
    void raw_wrongContentMd5_isBadDigest_andDeletesNothing() throws Exception {
        String bucket = newBucket(false);
        put(bucket, "victim", "v");
        String resp = raw(signed(bucket, Map.of("content-md5", md5(BODY + " ")), BODY));
        assertThat(resp).startsWith("HTTP/1.1 400").contains("<Code>BadDigest</Code>");
        String invalid = raw(signed(bucket, Map.of("content-md5", "not base64!"), BODY));
        assertThat(invalid).startsWith("HTTP/1.1 400").contains("<Code>InvalidDigest</Code>");
        assertThat(keys(bucket)).containsExactly("victim");
    }

    @Test
    void raw_wrongChecksumHeader_isBadDigest_andDeletesNothing() throws Exception {
        String bucket = newBucket(false);
        put(bucket, "victim", "v");
        String resp = raw(signed(bucket, Map.of("x-amz-checksum-crc32", crc32(BODY + " ")), BODY));
        assertThat(resp).startsWith("HTTP/1.1 400").contains("<Code>BadDigest</Code>");
        assertThat(keys(bucket)).containsExactly("victim");
    }

    @Test
    void raw_rightContentMd5_orChecksum_deletes() throws Exception {
        String bucket = newBucket(false);
        put(bucket, "victim", "v");
        String resp = raw(signed(bucket, Map.of("content-md5", md5(BODY)), BODY));
        assertThat(resp)
                .startsWith("HTTP/1.1 200")
                .contains("<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                        + "<Deleted><Key>victim</Key></Deleted></DeleteResult>");
        put(bucket, "victim", "v");
        String withCrc = raw(signed(bucket, Map.of("x-amz-checksum-crc32", crc32(BODY)), BODY));
        assertThat(withCrc).startsWith("HTTP/1.1 200").contains("<Deleted><Key>victim</Key></Deleted>");
        assertThat(keys(bucket)).isEmpty();
    }

    @Test
    void raw_getWithDeleteParam_isNotImplemented() throws Exception {
        String bucket = newBucket(false);
        String resp = raw(signedRequest("GET", bucket, Map.of(), ""));
        assertThat(resp).startsWith("HTTP/1.1 501").contains("<Code>NotImplemented</Code>");
    }

    private static String signed(String bucket, Map<String, String> extra, String body) {
        return signedRequest("POST", bucket, extra, body);
    }

    /** {@code METHOD /bucket?delete}, UNSIGNED-PAYLOAD, with {@code extra} headers signed. */
    private static String signedRequest(String method, String bucket, Map<String, String> extra, String body) {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(ZonedDateTime.now());
        String host = "127.0.0.1:" + SERVER.port();
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("host", List.of(host));
        h.put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
        h.put("x-amz-date", List.of(amzDate));
        extra.forEach((k, v) -> h.put(k, List.of(v)));
        String path = "/" + bucket;
        String sig = SigV4.sign(
                SK, amzDate.substring(0, 8), "us-east-1", amzDate, method, path, "delete", h, "UNSIGNED-PAYLOAD");
        StringBuilder req = new StringBuilder(method + " " + path + "?delete HTTP/1.1\r\n");
        h.forEach((k, v) -> req.append(k).append(": ").append(v.getFirst()).append("\r\n"));
        req.append("Authorization: AWS4-HMAC-SHA256 Credential=")
                .append(AK)
                .append('/')
                .append(amzDate, 0, 8)
                .append("/us-east-1/s3/aws4_request, SignedHeaders=")
                .append(String.join(";", h.keySet()))
                .append(", Signature=")
                .append(sig)
                .append("\r\n");
        req.append("Content-Length: ")
                .append(body.getBytes(StandardCharsets.UTF_8).length)
                .append("\r\nConnection: close\r\n\r\n")
                .append(body);
        return req.toString();
    }

    private static String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", SERVER.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                got.write(buf, 0, n);
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }
}
