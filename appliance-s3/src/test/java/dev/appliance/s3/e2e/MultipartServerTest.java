package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Multipart uploads over the real engine with flexible checksums (composite and full-object, as S3 defines them) and
 * the listing of uploads and parts, through the AWS SDK v2 and raw requests.
 */
class MultipartServerTest {
    private static final int MIB = 1 << 20;

    private static S3Client s3;
    private static int bucketCounter;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        s3 = SERVER.client(b -> b.httpClient(UrlConnectionHttpClient.create()));
    }

    private static synchronized String newBucket() {
        String name = "mp-" + (++bucketCounter);
        s3.createBucket(b -> b.bucket(name));
        return name;
    }

    private static byte[] random(int n, long seed) {
        byte[] d = new byte[n];
        new Random(seed).nextBytes(d);
        return d;
    }

    // ---- independent reference checksums (JDK CRCs and digests; a bitwise CRC-64/NVME) ----

    private static byte[] crc32(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
    }

    private static byte[] crc32c(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
    }

    static byte[] crc64nvme(byte[] b) {
        long crc = -1L;
        for (byte x : b) {
            crc ^= x & 0xff;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9a6c9329ac4bc9b5L : crc >>> 1;
            }
        }
        return ByteBuffer.allocate(8).putLong(~crc).array();
    }

    private static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    // ---- checksums ----

    @Test
    void compositeCrc32_isBuiltFromThePartChecksums_andReturnedEverywhere() throws Exception {
        String bucket = newBucket();
        var created =
                s3.createMultipartUpload(b -> b.bucket(bucket).key("obj").checksumAlgorithm(ChecksumAlgorithm.CRC32));
        assertThat(created.checksumAlgorithm()).isEqualTo(ChecksumAlgorithm.CRC32);
        assertThat(created.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
        String id = created.uploadId();
        byte[] p1 = random(5 * MIB, 1);
        byte[] p2 = random(1000, 2);
        List<CompletedPart> parts = new ArrayList<>();
        int n = 1;
        for (byte[] p : List.of(p1, p2)) {
            int number = n++;
            UploadPartResponse up = s3.uploadPart(
                    b -> b.bucket(bucket)
                            .key("obj")
                            .uploadId(id)
                            .partNumber(number)
                            .checksumAlgorithm(ChecksumAlgorithm.CRC32),
                    RequestBody.fromBytes(p));
            assertThat(up.checksumCRC32()).isEqualTo(b64(crc32(p)));
            parts.add(CompletedPart.builder()
                    .partNumber(number)
                    .eTag(up.eTag())
                    .checksumCRC32(up.checksumCRC32())
                    .build());
        }
        ListPartsResponse listed = s3.listParts(b -> b.bucket(bucket).key("obj").uploadId(id));
        assertThat(listed.checksumAlgorithm()).isEqualTo(ChecksumAlgorithm.CRC32);
        assertThat(listed.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
        assertThat(listed.parts()).extracting(p -> p.checksumCRC32()).containsExactly(b64(crc32(p1)), b64(crc32(p2)));

        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(
                b -> b.bucket(bucket).key("obj").uploadId(id).multipartUpload(m -> m.parts(parts)));
        String expected = b64(crc32(concat(crc32(p1), crc32(p2)))) + "-2";
        assertThat(done.checksumCRC32()).isEqualTo(expected);
        assertThat(done.checksumType()).isEqualTo(ChecksumType.COMPOSITE);

        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("obj").checksumMode(ChecksumMode.ENABLED));
        assertThat(head.checksumCRC32()).isEqualTo(expected);
        assertThat(head.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
        HeadObjectResponse part2 =
                s3.headObject(b -> b.bucket(bucket).key("obj").partNumber(2).checksumMode(ChecksumMode.ENABLED));
        assertThat(part2.checksumCRC32()).isEqualTo(b64(crc32(p2)));
        assertThat(part2.contentLength()).isEqualTo(1000L);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("obj")).checksumCRC32())
                .as("only with checksum mode")
                .isNull();

        var attrs = s3.getObjectAttributes(b ->
                b.bucket(bucket).key("obj").objectAttributes(ObjectAttributes.CHECKSUM, ObjectAttributes.OBJECT_PARTS));
        assertThat(attrs.checksum().checksumCRC32()).isEqualTo(expected);
        assertThat(attrs.checksum().checksumType()).isEqualTo(ChecksumType.COMPOSITE);
        assertThat(attrs.objectParts().totalPartsCount()).isEqualTo(2);
        assertThat(attrs.objectParts().parts())
                .extracting(p -> p.checksumCRC32())
                .containsExactly(b64(crc32(p1)), b64(crc32(p2)));
    }

    @Test
    void fullObjectCrc64nvme_isTheCrcOfTheWholeObject_andAWrongStatedValueIsBadDigest() {
        String bucket = newBucket();
        String id = s3.createMultipartUpload(b -> b.bucket(bucket)
                        .key("full")
                        .checksumAlgorithm(ChecksumAlgorithm.CRC64_NVME)
                        .checksumType(ChecksumType.FULL_OBJECT))
                .uploadId();
        byte[] p1 = random(5 * MIB + 17, 3);
        byte[] p2 = random(1, 4);
        String e1 = s3.uploadPart(
                        b -> b.bucket(bucket)
                                .key("full")
                                .uploadId(id)
                                .partNumber(1)
                                .checksumCRC64NVME(b64(crc64nvme(p1))),
                        RequestBody.fromBytes(p1))
                .eTag();
        // no checksum sent: computed by the server
        S3Client plain = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + SERVER.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY)))
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .requestChecksumCalculation(
                        software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .build();
        UploadPartResponse up2 = plain.uploadPart(
                b -> b.bucket(bucket).key("full").uploadId(id).partNumber(2), RequestBody.fromBytes(p2));
        plain.close();
        assertThat(up2.checksumCRC64NVME()).isEqualTo(b64(crc64nvme(p2)));
        String whole = b64(crc64nvme(concat(p1, p2)));

        S3Exception wrong = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                        .key("full")
                        .uploadId(id)
                        .checksumType(ChecksumType.FULL_OBJECT)
                        .checksumCRC64NVME(b64(crc64nvme(p2)))
                        .multipartUpload(m -> m.parts(
                                CompletedPart.builder().partNumber(1).eTag(e1).build(),
                                CompletedPart.builder()
                                        .partNumber(2)
                                        .eTag(up2.eTag())
                                        .build()))));
        assertThat(wrong.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        assertThat(catchThrowableOfType(
                                S3Exception.class,
                                () -> s3.headObject(b -> b.bucket(bucket).key("full")))
                        .statusCode())
                .as("nothing created")
                .isEqualTo(404);

        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(b -> b.bucket(bucket)
                .key("full")
                .uploadId(id)
                .checksumType(ChecksumType.FULL_OBJECT)
                .checksumCRC64NVME(whole)
                .multipartUpload(m -> m.parts(
                        CompletedPart.builder().partNumber(1).eTag(e1).build(),
                        CompletedPart.builder().partNumber(2).eTag(up2.eTag()).build())));
        assertThat(done.checksumCRC64NVME()).isEqualTo(whole);
        assertThat(done.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
        HeadObjectResponse head =
                s3.headObject(b -> b.bucket(bucket).key("full").checksumMode(ChecksumMode.ENABLED));
        assertThat(head.checksumCRC64NVME()).isEqualTo(whole);
        assertThat(head.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    }

    @Test
    void partOfAnotherAlgorithm_andIncompleteCompositeCompletions_areRefused() throws Exception {
        String bucket = newBucket();
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("k").checksumAlgorithm(ChecksumAlgorithm.SHA256))
                .uploadId();
        S3Exception mismatch = catchThrowableOfType(
                S3Exception.class,
                () -> s3.uploadPart(
                        b -> b.bucket(bucket)
                                .key("k")
                                .uploadId(id)
                                .partNumber(1)
                                .checksumAlgorithm(ChecksumAlgorithm.CRC32_C),
                        RequestBody.fromString("data")));
        assertThat(mismatch.awsErrorDetails().errorCode()).isEqualTo("InvalidRequest");
        assertThat(mismatch.awsErrorDetails().errorMessage())
                .isEqualTo("Checksum Type mismatch occurred, expected checksum Type: sha256, actual checksum Type:"
                        + " crc32c");
        assertThat(s3.listParts(b -> b.bucket(bucket).key("k").uploadId(id)).parts())
                .isEmpty();

        byte[] data = "data".getBytes(StandardCharsets.US_ASCII);
        UploadPartResponse up = s3.uploadPart(
                b -> b.bucket(bucket).key("k").uploadId(id).partNumber(1).checksumAlgorithm(ChecksumAlgorithm.SHA256),
                RequestBody.fromBytes(data));
        assertThat(up.checksumSHA256()).isEqualTo(b64(sha256(data)));
        S3Exception missing = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                        .key("k")
                        .uploadId(id)
                        .multipartUpload(m -> m.parts(CompletedPart.builder()
                                .partNumber(1)
                                .eTag(up.eTag())
                                .build()))));
        assertThat(missing.awsErrorDetails().errorCode()).isEqualTo("InvalidRequest");
        assertThat(missing.awsErrorDetails().errorMessage()).contains("It was missing for part 1 in the request.");
        String other = b64(sha256(new byte[1]));
        S3Exception wrong = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                        .key("k")
                        .uploadId(id)
                        .multipartUpload(m -> m.parts(CompletedPart.builder()
                                .partNumber(1)
                                .eTag(up.eTag())
                                .checksumSHA256(other)
                                .build()))));
        assertThat(wrong.awsErrorDetails().errorCode()).isEqualTo("InvalidPart");
    }

    @Test
    void uploadPartCopy_returnsTheDeclaredChecksumOfTheCopiedRange() throws Exception {
        String bucket = newBucket();
        byte[] source = random(100_000, 5);
        s3.putObject(b -> b.bucket(bucket).key("src"), RequestBody.fromBytes(source));
        String id = s3.createMultipartUpload(b -> b.bucket(bucket)
                        .key("dst")
                        .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                        .checksumType(ChecksumType.FULL_OBJECT))
                .uploadId();
        var copied = s3.uploadPartCopy(b -> b.sourceBucket(bucket)
                .sourceKey("src")
                .destinationBucket(bucket)
                .destinationKey("dst")
                .uploadId(id)
                .partNumber(1)
                .copySourceRange("bytes=10-20009"));
        byte[] range = java.util.Arrays.copyOfRange(source, 10, 20_010);
        assertThat(copied.copyPartResult().checksumCRC32C()).isEqualTo(b64(crc32c(range)));
    }

    @Test
    void undeclaredUpload_withSdkDefaultPartChecksums_completesWithEtagsAlone_andGetsTheDefaultCrc64nvme()
            throws Exception {
        String bucket = newBucket();
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("u")).uploadId();
        byte[] data = random(70_000, 6);
        // The default client (WHEN_SUPPORTED) sends a CRC32 with every part.
        UploadPartResponse up =
                s3.uploadPart(b -> b.bucket(bucket).key("u").uploadId(id).partNumber(1), RequestBody.fromBytes(data));
        assertThat(up.checksumCRC32()).isEqualTo(b64(crc32(data)));
        // a part checksum that is named must match ...
        S3Exception wrong = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                        .key("u")
                        .uploadId(id)
                        .multipartUpload(m -> m.parts(CompletedPart.builder()
                                .partNumber(1)
                                .eTag(up.eTag())
                                .checksumCRC32(b64(crc32(new byte[] {1})))
                                .build()))));
        assertThat(wrong.awsErrorDetails().errorCode()).isEqualTo("InvalidPart");
        // ... but ETags alone complete (AWS wants the SDK's default part checksums named again; scripts don't)
        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(b -> b.bucket(bucket)
                .key("u")
                .uploadId(id)
                .multipartUpload(m -> m.parts(
                        CompletedPart.builder().partNumber(1).eTag(up.eTag()).build())));
        assertThat(done.checksumCRC64NVME()).isEqualTo(b64(crc64nvme(data)));
        assertThat(done.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("u").checksumMode(ChecksumMode.ENABLED))
                        .checksumCRC64NVME())
                .isEqualTo(b64(crc64nvme(data)));
    }

    @Test
    void conditionalAndRetriedCompletions() throws Exception {
        String bucket = newBucket();
        s3.putObject(b -> b.bucket(bucket).key("c"), RequestBody.fromString("existing"));
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("c")).uploadId();
        UploadPartResponse up =
                s3.uploadPart(b -> b.bucket(bucket).key("c").uploadId(id).partNumber(1), RequestBody.fromString("new"));
        CompletedPart part =
                CompletedPart.builder().partNumber(1).eTag(up.eTag()).build();
        S3Exception exists = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b ->
                        b.bucket(bucket).key("c").uploadId(id).ifNoneMatch("*").multipartUpload(m -> m.parts(part))));
        assertThat(exists.statusCode()).isEqualTo(412);
        assertThat(exists.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed");
        S3Exception stale = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket(bucket)
                        .key("c")
                        .uploadId(id)
                        .ifMatch("\"0123456789abcdef0123456789abcdef\"")
                        .multipartUpload(m -> m.parts(part))));
        assertThat(stale.statusCode()).isEqualTo(412);
        String current = s3.headObject(b -> b.bucket(bucket).key("c")).eTag();
        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(
                b -> b.bucket(bucket).key("c").uploadId(id).ifMatch(current).multipartUpload(m -> m.parts(part)));
        // a retry after a lost response gets the same answer, not NoSuchUpload
        CompleteMultipartUploadResponse again = s3.completeMultipartUpload(
                b -> b.bucket(bucket).key("c").uploadId(id).multipartUpload(m -> m.parts(part)));
        assertThat(again.eTag()).isEqualTo(done.eTag());
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("c")).asUtf8String())
                .isEqualTo("new");
    }

    @Test
    void createMultipartUpload_validatesAlgorithmAndType() throws Exception {
        String bucket = newBucket();
        Map<Map<String, String>, String> refused = new LinkedHashMap<>();
        refused.put(
                Map.of("x-amz-checksum-algorithm", "SHA256", "x-amz-checksum-type", "FULL_OBJECT"),
                "The FULL_OBJECT checksum type cannot be used with the sha256 checksum algorithm.");
        refused.put(
                Map.of("x-amz-checksum-algorithm", "CRC64NVME", "x-amz-checksum-type", "COMPOSITE"),
                "The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.");
        refused.put(
                Map.of("x-amz-checksum-type", "COMPOSITE"),
                "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.");
        refused.put(Map.of("x-amz-checksum-algorithm", "MD4"), "Checksum algorithm provided is unsupported.");
        refused.put(
                Map.of("x-amz-checksum-algorithm", "CRC32", "x-amz-checksum-type", "PARTIAL"),
                "Value for x-amz-checksum-type header is invalid.");
        for (var e : refused.entrySet()) {
            String resp = request("POST", "/" + bucket + "/k", "uploads", e.getKey(), "");
            assertThat(resp)
                    .as(e.getKey().toString())
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>InvalidRequest</Code>");
            assertThat(resp).contains(e.getValue());
        }
        String crc32c =
                request("POST", "/" + bucket + "/k", "uploads", Map.of("x-amz-checksum-algorithm", "crc32c"), "");
        assertThat(crc32c)
                .startsWith("HTTP/1.1 200")
                .contains("x-amz-checksum-algorithm: CRC32C", "x-amz-checksum-type: COMPOSITE");
        String nvme =
                request("POST", "/" + bucket + "/k", "uploads", Map.of("x-amz-checksum-algorithm", "CRC64NVME"), "");
        assertThat(nvme).contains("x-amz-checksum-type: FULL_OBJECT");
    }

    // ---- listing uploads and parts ----

    @Test
    void listMultipartUploads_groupsByDelimiter_pagesWithMarkers_andEncodes() throws Exception {
        String bucket = newBucket();
        List<String> keys = List.of("a/1", "a/2", "b b", "b b", "c/x/1", "d+e");
        List<String> ids = new ArrayList<>();
        for (String k : keys) {
            ids.add(s3.createMultipartUpload(b -> b.bucket(bucket).key(k)).uploadId());
            Thread.sleep(2); // distinct initiation times: uploads of one key list oldest first
        }
        String all = request("GET", "/" + bucket, "uploads", Map.of(), "");
        assertThat(all(all, "Key")).containsExactly("a/1", "a/2", "b b", "b b", "c/x/1", "d+e");
        assertThat(all(all, "UploadId")).containsExactlyElementsOf(ids);

        String grouped = request("GET", "/" + bucket, "uploads&delimiter=%2F", Map.of(), "");
        assertThat(all(grouped, "Key")).containsExactly("b b", "b b", "d+e");
        assertThat(all(grouped, "CommonPrefixes")).containsExactly("<Prefix>a/</Prefix>", "<Prefix>c/</Prefix>");
        assertThat(one(grouped, "Delimiter")).isEqualTo("/");

        // pages of two entries, prefixes counting like uploads
        String page1 = request("GET", "/" + bucket, "uploads&delimiter=%2F&max-uploads=2", Map.of(), "");
        assertThat(all(page1, "Key")).containsExactly("b b");
        assertThat(all(page1, "CommonPrefixes")).containsExactly("<Prefix>a/</Prefix>");
        assertThat(one(page1, "IsTruncated")).isEqualTo("true");
        assertThat(one(page1, "NextKeyMarker")).isEqualTo("b b");
        assertThat(one(page1, "NextUploadIdMarker")).isEqualTo(ids.get(2));
        String page2 = request(
                "GET",
                "/" + bucket,
                "uploads&delimiter=%2F&max-uploads=2&key-marker=b%20b&upload-id-marker=" + ids.get(2),
                Map.of(),
                "");
        assertThat(all(page2, "UploadId")).containsExactly(ids.get(3));
        assertThat(all(page2, "CommonPrefixes")).containsExactly("<Prefix>c/</Prefix>");
        assertThat(one(page2, "NextKeyMarker")).isEqualTo("c/");
        String page3 =
                request("GET", "/" + bucket, "uploads&delimiter=%2F&max-uploads=2&key-marker=c%2F", Map.of(), "");
        assertThat(all(page3, "Key")).containsExactly("d+e");
        assertThat(all(page3, "CommonPrefixes")).isEmpty();
        assertThat(one(page3, "IsTruncated")).isEqualTo("false");

        // key-marker alone: keys strictly after it
        String after = request("GET", "/" + bucket, "uploads&key-marker=b%20b", Map.of(), "");
        assertThat(all(after, "Key")).containsExactly("c/x/1", "d+e");
        // upload-id-marker without key-marker is ignored
        String ignored = request("GET", "/" + bucket, "uploads&upload-id-marker=" + ids.get(0), Map.of(), "");
        assertThat(all(ignored, "Key")).hasSize(6);

        String encoded =
                request("GET", "/" + bucket, "uploads&encoding-type=url&prefix=b%20&key-marker=a%2F2", Map.of(), "");
        assertThat(one(encoded, "EncodingType")).isEqualTo("url");
        assertThat(all(encoded, "Key")).containsExactly("b%20b", "b%20b");
        assertThat(one(encoded, "Prefix")).isEqualTo("b%20");
        assertThat(one(encoded, "KeyMarker")).isEqualTo("a/2");
        String prefixes =
                request("GET", "/" + bucket, "uploads&encoding-type=url&delimiter=%20&max-uploads=1", Map.of(), "");
        assertThat(one(prefixes, "Key")).isEqualTo("a/1");
        assertThat(one(prefixes, "NextKeyMarker")).isEqualTo("a/1");
        assertThat(one(prefixes, "Delimiter")).isEqualTo("%20");

        for (String bad : List.of("max-uploads=-1", "max-uploads=ten")) {
            assertThat(request("GET", "/" + bucket, "uploads&" + bad, Map.of(), ""))
                    .as(bad)
                    .startsWith("HTTP/1.1 400")
                    .contains("<Code>InvalidArgument</Code>");
        }
        assertThat(one(request("GET", "/" + bucket, "uploads&max-uploads=5000", Map.of(), ""), "MaxUploads"))
                .isEqualTo("1000");
    }

    @Test
    void sdkPaginator_listsEveryUploadOnceWithADelimiter() {
        String bucket = newBucket();
        List<String> expected = new ArrayList<>();
        for (String k : List.of("x/1", "x/2", "y", "y", "z é")) {
            s3.createMultipartUpload(b -> b.bucket(bucket).key(k));
        }
        List<String> seen = new ArrayList<>();
        for (ListMultipartUploadsResponse page : s3.listMultipartUploadsPaginator(
                b -> b.bucket(bucket).delimiter("/").maxUploads(1).encodingType(EncodingType.URL))) {
            page.uploads().forEach(u -> seen.add(u.key()));
            page.commonPrefixes().forEach(p -> seen.add(p.prefix()));
        }
        expected.addAll(List.of("x/", "y", "y", "z é"));
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    @Test
    void listParts_pagesWithMarkerAndMaxParts() {
        String bucket = newBucket();
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("p")).uploadId();
        for (int n : List.of(1, 2, 5, 9)) {
            s3.uploadPart(b -> b.bucket(bucket).key("p").uploadId(id).partNumber(n), RequestBody.fromString("x" + n));
        }
        ListPartsResponse first =
                s3.listParts(b -> b.bucket(bucket).key("p").uploadId(id).maxParts(2));
        assertThat(first.parts()).extracting(p -> p.partNumber()).containsExactly(1, 2);
        assertThat(first.isTruncated()).isTrue();
        assertThat(first.nextPartNumberMarker()).isEqualTo(2);
        ListPartsResponse rest = s3.listParts(
                b -> b.bucket(bucket).key("p").uploadId(id).maxParts(2).partNumberMarker(2));
        assertThat(rest.parts()).extracting(p -> p.partNumber()).containsExactly(5, 9);
        assertThat(rest.isTruncated()).isFalse();
        assertThat(rest.checksumAlgorithm()).isNull();
        List<Integer> all = new ArrayList<>();
        s3.listPartsPaginator(b -> b.bucket(bucket).key("p").uploadId(id).maxParts(1))
                .parts()
                .forEach(p -> all.add(p.partNumber()));
        assertThat(all).containsExactly(1, 2, 5, 9);
    }

    // ---- helpers ----

    private static String one(String xml, String element) {
        return XmlText.one(xml, element);
    }

    private static List<String> all(String xml, String element) {
        return XmlText.all(xml, element);
    }

    /** A signed request (UNSIGNED-PAYLOAD) with {@code extra} headers signed; the whole answer, head and body. */
    private static String request(String method, String path, String query, Map<String, String> extra, String body)
            throws Exception {
        return SignedRaw.send(SERVER.port(), method, path, query, extra, body);
    }
}
