package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The server over the real erasure-coded engine on 4 temp drives, driven by the AWS SDK v2 client in three configurations. */
class S3ServerTest {
    private static final String AK = S3TestServer.ACCESS_KEY;
    private static final String SK = S3TestServer.SECRET_KEY;

    private static int bucketCounter;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    private static S3Client client(String secret, boolean chunked, RequestChecksumCalculation checksums) {
        return SERVER.client(b -> b.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, secret)))
                .httpClient(UrlConnectionHttpClient.create())
                .requestChecksumCalculation(checksums)
                .serviceConfiguration(S3Configuration.builder()
                        .chunkedEncodingEnabled(chunked)
                        .build()));
    }

    static Stream<String> clientKinds() {
        return Stream.of("default", "whenRequired", "notChunked");
    }

    private static S3Client client(String kind) {
        return switch (kind) {
            case "default" -> client(SK, true, RequestChecksumCalculation.WHEN_SUPPORTED);
            case "whenRequired" -> client(SK, true, RequestChecksumCalculation.WHEN_REQUIRED);
            default -> client(SK, false, RequestChecksumCalculation.WHEN_SUPPORTED);
        };
    }

    private static synchronized String newBucket(S3Client s3) {
        String name = "bucket-" + (++bucketCounter);
        s3.createBucket(b -> b.bucket(name));
        return name;
    }

    private static byte[] random(int n) {
        byte[] d = new byte[n];
        new Random(n).nextBytes(d);
        return d;
    }

    @ParameterizedTest
    @MethodSource("clientKinds")
    void putGetHeadDelete_roundTripsDataAndMetadata(String kind) throws Exception {
        S3Client s3 = client(kind);
        String bucket = newBucket(s3);
        byte[] data = random(300_000);
        String key = "dir/a b+c€.bin";
        PutObjectResponse put = s3.putObject(
                b -> b.bucket(bucket)
                        .key(key)
                        .contentType("application/x-test")
                        .metadata(Map.of("color", "blue"))
                        .cacheControl("no-cache"),
                RequestBody.fromBytes(data));
        assertThat(put.eTag()).startsWith("\"").hasSize(34);

        ResponseBytes<GetObjectResponse> got =
                s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
        assertThat(got.asByteArray()).isEqualTo(data);
        assertThat(got.response().eTag()).isEqualTo(put.eTag());
        assertThat(got.response().contentType()).isEqualTo("application/x-test");
        assertThat(got.response().metadata()).containsEntry("color", "blue");
        assertThat(got.response().cacheControl()).isEqualTo("no-cache");
        assertThat(got.response().contentEncoding()).isNull();

        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
        assertThat(head.contentLength()).isEqualTo(data.length);
        assertThat(head.acceptRanges()).isEqualTo("bytes");
        assertThat(head.lastModified()).isNotNull();

        s3.deleteObject(b -> b.bucket(bucket).key(key));
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key(key)))
                .isInstanceOf(S3Exception.class)
                .extracting(e -> ((S3Exception) e).statusCode())
                .isEqualTo(404);
        S3Exception missing = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(
                () -> s3.getObject(b -> b.bucket(bucket).key(key)));
        assertThat(missing.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
    }

    @ParameterizedTest
    @MethodSource("clientKinds")
    void putWithEveryChecksumAlgorithm_isAccepted(String kind) {
        S3Client s3 = client(kind);
        String bucket = newBucket(s3);
        byte[] data = random(70_000);
        for (ChecksumAlgorithm a : List.of(
                ChecksumAlgorithm.CRC32,
                ChecksumAlgorithm.CRC32_C,
                // CRC64NVME needs the AWS CRT on the client side; the server's CRC-64/NVME is unit-tested
                ChecksumAlgorithm.SHA1,
                ChecksumAlgorithm.SHA256)) {
            var put =
                    s3.putObject(b -> b.bucket(bucket).key("k-" + a).checksumAlgorithm(a), RequestBody.fromBytes(data));
            // the response confirms the checksum the body was verified against
            String confirmed =
                    switch (a) {
                        case CRC32 -> put.checksumCRC32();
                        case CRC32_C -> put.checksumCRC32C();
                        case SHA1 -> put.checksumSHA1();
                        default -> put.checksumSHA256();
                    };
            assertThat(confirmed).isEqualTo(expectedChecksum(a, data));
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k-" + a)).asByteArray())
                    .isEqualTo(data);
        }
    }

    private static String expectedChecksum(ChecksumAlgorithm a, byte[] data) {
        try {
            byte[] sum =
                    switch (a) {
                        case CRC32, CRC32_C -> {
                            java.util.zip.Checksum c = a == ChecksumAlgorithm.CRC32
                                    ? new java.util.zip.CRC32()
                                    : new java.util.zip.CRC32C();
                            c.update(data);
                            yield java.nio.ByteBuffer.allocate(4)
                                    .putInt((int) c.getValue())
                                    .array();
                        }
                        case SHA1 ->
                            java.security.MessageDigest.getInstance("SHA-1").digest(data);
                        default ->
                            java.security.MessageDigest.getInstance("SHA-256").digest(data);
                    };
            return java.util.Base64.getEncoder().encodeToString(sum);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void bucketLifecycle_createListHeadDelete() {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        assertThat(s3.listBuckets().buckets()).anyMatch(b -> b.name().equals(bucket));
        s3.headBucket(b -> b.bucket(bucket));
        S3Exception again = (S3Exception)
                org.assertj.core.api.Assertions.catchThrowable(() -> s3.createBucket(b -> b.bucket(bucket)));
        assertThat(again.awsErrorDetails().errorCode()).isEqualTo("BucketAlreadyOwnedByYou");
        s3.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromString("x"));
        S3Exception notEmpty = (S3Exception)
                org.assertj.core.api.Assertions.catchThrowable(() -> s3.deleteBucket(b -> b.bucket(bucket)));
        assertThat(notEmpty.awsErrorDetails().errorCode()).isEqualTo("BucketNotEmpty");
        s3.deleteObject(b -> b.bucket(bucket).key("x"));
        s3.deleteBucket(b -> b.bucket(bucket));
        assertThatThrownBy(() -> s3.headBucket(b -> b.bucket(bucket)))
                .extracting(e -> ((S3Exception) e).statusCode())
                .isEqualTo(404);
    }

    @Test
    void raw_invalidBucketName_isRefusedOnCreate() throws Exception {
        assertThat(raw(signed("PUT", "/Bad_Name", null, "")))
                .startsWith("HTTP/1.1 400")
                .contains("InvalidBucketName");
    }

    @Test
    void rangeGet_returnsPartialContent() {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        byte[] data = random(1000);
        s3.putObject(b -> b.bucket(bucket).key("r"), RequestBody.fromBytes(data));
        ResponseBytes<GetObjectResponse> part =
                s3.getObjectAsBytes(b -> b.bucket(bucket).key("r").range("bytes=10-19"));
        assertThat(part.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, 10, 20));
        assertThat(part.response().contentRange()).isEqualTo("bytes 10-19/1000");
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("r").range("bytes=-5"))
                        .asByteArray())
                .isEqualTo(java.util.Arrays.copyOfRange(data, 995, 1000));
        S3Exception bad = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(
                () -> s3.getObject(b -> b.bucket(bucket).key("r").range("bytes=1000-")));
        assertThat(bad.statusCode()).isEqualTo(416);
        assertThat(bad.awsErrorDetails().errorCode()).isEqualTo("InvalidRange");
    }

    @Test
    void versioning_enableListVersionsDeleteMarkerSuspend() {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isNull();
        s3.putBucketVersioning(
                b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isEqualTo(BucketVersioningStatus.ENABLED);

        String v1 = s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("one"))
                .versionId();
        String v2 = s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("two"))
                .versionId();
        assertThat(v1).isNotNull().isNotEqualTo(v2);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k").versionId(v1))
                        .asUtf8String())
                .isEqualTo("one");

        var del = s3.deleteObject(b -> b.bucket(bucket).key("k"));
        assertThat(del.deleteMarker()).isTrue();
        String marker = del.versionId();
        S3Exception gone = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(
                () -> s3.getObject(b -> b.bucket(bucket).key("k")));
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-delete-marker"))
                .contains("true");
        S3Exception onMarker = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(
                () -> s3.getObject(b -> b.bucket(bucket).key("k").versionId(marker)));
        assertThat(onMarker.statusCode()).isEqualTo(405);

        ListObjectVersionsResponse versions = s3.listObjectVersions(b -> b.bucket(bucket));
        assertThat(versions.deleteMarkers()).hasSize(1);
        assertThat(versions.deleteMarkers().getFirst().isLatest()).isTrue();
        assertThat(versions.versions()).extracting(v -> v.versionId()).containsExactly(v2, v1);
        assertThat(versions.versions()).allMatch(v -> !v.isLatest() && v.size() == 3);

        s3.putBucketVersioning(
                b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.SUSPENDED)));
        assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isEqualTo(BucketVersioningStatus.SUSPENDED);
        s3.deleteObject(b -> b.bucket(bucket).key("k").versionId(v1));
        assertThat(s3.listObjectVersions(b -> b.bucket(bucket)).versions()).hasSize(1);
    }

    @Test
    void listObjectsV2_delimiterAndPagination() {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        List<String> keys = List.of("a/1", "a/2", "b/1", "c", "d", "e/x/y", "f");
        for (String k : keys) {
            s3.putObject(b -> b.bucket(bucket).key(k), RequestBody.fromString(k));
        }
        ListObjectsV2Response top = s3.listObjectsV2(b -> b.bucket(bucket).delimiter("/"));
        assertThat(top.contents()).extracting(o -> o.key()).containsExactly("c", "d", "f");
        assertThat(top.commonPrefixes()).extracting(p -> p.prefix()).containsExactly("a/", "b/", "e/");
        assertThat(top.keyCount()).isEqualTo(6);

        List<String> all = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(bucket).maxKeys(2)).contents().forEach(o -> all.add(o.key()));
        assertThat(all).containsExactlyElementsOf(keys);

        List<String> entries = new ArrayList<>();
        for (ListObjectsV2Response page :
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).delimiter("/").maxKeys(2))) {
            assertThat(page.keyCount()).isLessThanOrEqualTo(2);
            page.contents().forEach(o -> entries.add(o.key()));
            page.commonPrefixes().forEach(p -> entries.add(p.prefix()));
        }
        assertThat(entries).containsExactlyInAnyOrder("a/", "b/", "c", "d", "e/", "f");

        ListObjectsV2Response prefixed = s3.listObjectsV2(b -> b.bucket(bucket).prefix("a/"));
        assertThat(prefixed.contents()).extracting(o -> o.key()).containsExactly("a/1", "a/2");
        var v1 = s3.listObjects(b -> b.bucket(bucket).maxKeys(3));
        assertThat(v1.contents()).hasSize(3);
        assertThat(v1.isTruncated()).isTrue();
    }

    @Test
    void wrongSecret_isRejected() {
        S3Client bad = client("wrong-secret", true, RequestChecksumCalculation.WHEN_SUPPORTED);
        S3Exception e = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(bad::listBuckets);
        assertThat(e.statusCode()).isEqualTo(403);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
        S3Exception put = (S3Exception) org.assertj.core.api.Assertions.catchThrowable(
                () -> bad.putObject(b -> b.bucket("nobucket").key("k"), RequestBody.fromBytes(random(100_000))));
        assertThat(put.statusCode()).isEqualTo(403);
    }

    // ---- raw HTTP: what an SDK never sends ----

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
                if (got.toString(StandardCharsets.UTF_8).contains("</Error>")) {
                    break;
                }
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    /** A signed raw request (UNSIGNED-PAYLOAD) with the given body. */
    private static String signed(String method, String path, String query, String body) {
        return signed(method, path, query, body, Map.of());
    }

    /** The same with extra signed headers (names lower-case), sent as UTF-8. */
    private static String signed(String method, String path, String query, String body, Map<String, String> extra) {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(ZonedDateTime.now());
        String host = "127.0.0.1:" + SERVER.port();
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("host", List.of(host));
        h.put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
        h.put("x-amz-date", List.of(amzDate));
        extra.forEach((k, v) -> h.put(k, List.of(v)));
        StringBuilder extraLines = new StringBuilder();
        extra.forEach((k, v) -> extraLines.append(k).append(": ").append(v).append("\r\n"));
        String signedHeaders = String.join(";", h.keySet());
        String sig = SigV4.sign(
                SK, amzDate.substring(0, 8), "us-east-1", amzDate, method, path, query, h, "UNSIGNED-PAYLOAD");
        return method + " " + path + (query == null ? "" : "?" + query) + " HTTP/1.1\r\n"
                + "Host: " + host + "\r\n"
                + "x-amz-content-sha256: UNSIGNED-PAYLOAD\r\n"
                + "x-amz-date: " + amzDate + "\r\n"
                + extraLines
                + "Authorization: AWS4-HMAC-SHA256 Credential=" + AK + "/" + amzDate.substring(0, 8)
                + "/us-east-1/s3/aws4_request, SignedHeaders=" + signedHeaders + ", Signature=" + sig
                + "\r\n"
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n"
                + "Connection: close\r\n\r\n" + body;
    }

    @Test
    void raw_anonymousRequest_isAccessDeniedWithS3ErrorDocument() throws Exception {
        String resp = raw("GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertThat(resp).startsWith("HTTP/1.1 403");
        assertThat(resp.toLowerCase(java.util.Locale.ROOT))
                .contains("x-amz-request-id:", "x-amz-id-2:", "server: appliance", "date:");
        assertThat(resp).contains("<Code>AccessDenied</Code>", "<Resource>/x</Resource>", "<RequestId>");
    }

    @Test
    void raw_oversizedHeaders_are400AndClose() throws Exception {
        String resp = raw("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n");
        assertThat(resp).startsWith("HTTP/1.1 400");
        assertThat(resp).contains("RequestHeaderSectionTooLarge").containsIgnoringCase("connection: close");
    }

    @Test
    void raw_unknownSubresource_isNotImplemented() throws Exception {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        String resp = raw(signed("GET", "/" + bucket, "website", ""));
        assertThat(resp).startsWith("HTTP/1.1 501").contains("<Code>NotImplemented</Code>");
    }

    @Test
    void raw_xxeInVersioningBody_isMalformedXml() throws Exception {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        String xxe = "<?xml version=\"1.0\"?><!DOCTYPE V [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<VersioningConfiguration><Status>&x;</Status></VersioningConfiguration>";
        String resp = raw(signed("PUT", "/" + bucket, "versioning", xxe));
        assertThat(resp)
                .startsWith("HTTP/1.1 400")
                .contains("<Code>MalformedXML</Code>")
                .doesNotContain("root:");
        String bad = raw(signed("PUT", "/" + bucket, "versioning", "<VersioningConfiguration><Status>On</Status>"));
        assertThat(bad).startsWith("HTTP/1.1 400").contains("MalformedXML");
    }

    @Test
    void raw_emptyContentLength_is400NotADroppedConnection() throws Exception {
        String resp = raw("PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\nbar");
        assertThat(resp).startsWith("HTTP/1.1 400").contains("<Code>");
        String negative = raw("PUT /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: -3\r\n\r\nbar");
        assertThat(negative).startsWith("HTTP/1.1 400");
    }

    @Test
    void raw_utf8Metadata_verifiesAsSignedAndReadsBackRfc2047Encoded() throws Exception {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        String value = "Hello Wörld é ✓";
        String resp = raw(signed("PUT", "/" + bucket + "/utf8", null, "bar", Map.of("x-amz-meta-greeting", value)));
        assertThat(resp).startsWith("HTTP/1.1 200");
        String stored =
                s3.headObject(b -> b.bucket(bucket).key("utf8")).metadata().get("greeting");
        assertThat(stored)
                .isEqualTo("=?UTF-8?B?"
                        + java.util.Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=");
        // a signature over other bytes than the ones sent still fails
        String tampered = signed("PUT", "/" + bucket + "/utf8", null, "bar", Map.of("x-amz-meta-greeting", value))
                .replace(value, "Hello World e ?");
        assertThat(raw(tampered)).startsWith("HTTP/1.1 403").contains("SignatureDoesNotMatch");
    }

    @Test
    void raw_corsPreflight_isAnsweredUnsigned_asForABucketWithoutCors() throws Exception {
        assertThat(raw("OPTIONS /b/k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 400")
                .contains("Origin request header needed");
        assertThat(raw("OPTIONS /b/k HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example\r\n"
                        + "Access-Control-Request-Method: PUT\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 403")
                .contains("<Code>AccessForbidden</Code>")
                .doesNotContainIgnoringCase("access-control-allow-origin");
    }

    @Test
    void raw_keyLongerThan1024Bytes_isKeyTooLong() throws Exception {
        String resp = raw(signed("GET", "/b/" + "k".repeat(1025), null, ""));
        assertThat(resp).startsWith("HTTP/1.1 400").contains("KeyTooLongError");
    }

    /**
     * A key through another key's data directory ({@code a/<data dir>/part.1}) failed on every drive (a 503); it is
     * now a 400 InvalidObjectName, and the other key is untouched.
     */
    @Test
    void keyThroughAnotherKeysDataDirectory_isInvalidObjectName() throws Exception {
        S3Client s3 = client("default");
        String bucket = newBucket(s3);
        byte[] data = random(300_000);
        s3.putObject(b -> b.bucket(bucket).key("a"), RequestBody.fromBytes(data));
        String dataDir;
        try (var entries = java.nio.file.Files.list(
                TestStore.on(SERVER.drives()).drive(0).resolve(bucket).resolve("a"))) {
            dataDir = entries.map(p -> p.getFileName().toString())
                    .filter(n -> n.length() == 36)
                    .findFirst()
                    .orElseThrow();
        }
        for (String key : List.of("a/" + dataDir + "/part.1", "a/" + dataDir)) {
            var refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                    software.amazon.awssdk.services.s3.model.S3Exception.class,
                    () -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("x")));
            assertThat(refused.statusCode()).as(key).isEqualTo(400);
            assertThat(refused.awsErrorDetails().errorCode()).isEqualTo("InvalidObjectName");
        }
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("a")).asByteArray())
                .isEqualTo(data);
    }
}
