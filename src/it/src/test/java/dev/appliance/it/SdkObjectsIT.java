package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Object, versioning and listing operations through the AWS SDK for Java v2 against a real appliance process. */
class SdkObjectsIT {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    /** Default checksum behaviour: aws-chunked body with a trailing CRC32. */
    private static S3Client chunked;
    /** {@code requestChecksumCalculation(WHEN_REQUIRED)}: no trailing checksum. */
    private static S3Client whenRequired;

    private static final Queue<SdkHttpRequest> CHUNKED_PUTS = new ConcurrentLinkedQueue<>();
    private static final Queue<SdkHttpRequest> WHEN_REQUIRED_PUTS = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void startAppliance() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "sdk-it-admin", "sdk-it-secret-" + UUID.randomUUID()))
                .start();
        chunked = appliance.client(
                appliance.accessKey(),
                appliance.secretKey(),
                b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(recordPuts(CHUNKED_PUTS))));
        whenRequired = appliance.client(appliance.accessKey(), appliance.secretKey(), b -> b.requestChecksumCalculation(
                        RequestChecksumCalculation.WHEN_REQUIRED)
                .overrideConfiguration(c -> c.addExecutionInterceptor(recordPuts(WHEN_REQUIRED_PUTS))));
    }

    @AfterAll
    static void stopAppliance() {
        if (chunked != null) {
            chunked.close();
        }
        if (whenRequired != null) {
            whenRequired.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    /** Records the signed HTTP request of every PutObject, to check which payload encoding was exercised. */
    private static ExecutionInterceptor recordPuts(Queue<SdkHttpRequest> into) {
        return new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest) {
                    into.add(context.httpRequest());
                }
            }
        };
    }

    private static S3Client client(String name) {
        return name.equals("chunked") ? chunked : whenRequired;
    }

    private static void createBucket(String bucket) {
        chunked.createBucket(b -> b.bucket(bucket));
    }

    private static void enableVersioning(String bucket) {
        chunked.putBucketVersioning(
                b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
    }

    private static PutObjectResponse put(S3Client s3, String bucket, String key, byte[] data) {
        return s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(data));
    }

    private static byte[] get(S3Client s3, String bucket, String key) {
        return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    }

    private static S3Exception s3Error(Runnable call) {
        S3Exception e = catchThrowableOfType(S3Exception.class, call::run);
        assertThat(e).as("expected an S3 error response").isNotNull();
        return e;
    }

    static Stream<Arguments> sizesAndClients() {
        List<Integer> sizes = List.of(0, 1, 100 * KIB, MIB - 1, MIB, 5 * MIB + 3);
        return Stream.of("chunked", "whenRequired")
                .flatMap(client -> sizes.stream().map(size -> Arguments.of(client, size)));
    }

    @ParameterizedTest(name = "{0} client, {1} bytes")
    @MethodSource("sizesAndClients")
    void putGetHeadDeleteRoundTrip(String clientName, int size) {
        S3Client s3 = client(clientName);
        String bucket = "sizes-" + clientName.toLowerCase();
        if (!s3.listBuckets().buckets().stream().anyMatch(b -> b.name().equals(bucket))) {
            createBucket(bucket);
        }
        String key = "objects/size-" + size + ".bin";
        byte[] data = TestData.bytes(size * 31L + clientName.length(), size);
        String md5 = TestData.md5Hex(data);

        PutObjectResponse put = s3.putObject(
                b -> b.bucket(bucket).key(key).contentType("application/x-test").metadata(Map.of("origin", "it")),
                RequestBody.fromBytes(data));
        assertThat(TestData.unquote(put.eTag()))
                .as("PUT ETag is the MD5 of the body")
                .isEqualTo(md5);
        assertThat(put.versionId()).as("no version id in an unversioned bucket").isNull();

        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
        assertThat(head.contentLength()).isEqualTo(size);
        assertThat(TestData.unquote(head.eTag())).isEqualTo(md5);
        assertThat(head.contentType()).isEqualTo("application/x-test");
        assertThat(head.metadata()).containsEntry("origin", "it");

        ResponseBytes<GetObjectResponse> got =
                s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
        assertThat(got.response().contentLength()).isEqualTo(size);
        assertThat(TestData.unquote(got.response().eTag())).isEqualTo(md5);
        assertThat(got.response().contentType()).isEqualTo("application/x-test");
        assertThat(got.asByteArray()).as("GET returns the bytes that were PUT").isEqualTo(data);

        ListObjectsV2Response listed = s3.listObjectsV2(b -> b.bucket(bucket).prefix(key));
        assertThat(listed.contents()).singleElement().satisfies(o -> {
            assertThat(o.key()).isEqualTo(key);
            assertThat(o.size()).isEqualTo(size);
            assertThat(TestData.unquote(o.eTag())).isEqualTo(md5);
        });

        s3.deleteObject(b -> b.bucket(bucket).key(key));
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key(key)))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
        S3Exception missing =
                s3Error(() -> s3.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toBytes()));
        assertThat(missing).isInstanceOf(NoSuchKeyException.class);
        assertThat(missing.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix(key)).contents())
                .isEmpty();
    }

    @Test
    void defaultClientSendsAwsChunkedWithTrailingCrc32AndWhenRequiredClientDoesNot() {
        String bucket = "payload-modes";
        createBucket(bucket);
        byte[] data = TestData.bytes(7, 300 * KIB);
        CHUNKED_PUTS.clear();
        WHEN_REQUIRED_PUTS.clear();
        put(chunked, bucket, "chunked", data);
        put(whenRequired, bucket, "plain", data);

        assertThat(CHUNKED_PUTS).singleElement().satisfies(r -> {
            assertThat(r.firstMatchingHeader("x-amz-content-sha256"))
                    .hasValueSatisfying(
                            v -> assertThat(v).startsWith("STREAMING-").endsWith("-TRAILER"));
            assertThat(r.firstMatchingHeader("x-amz-trailer")).hasValue("x-amz-checksum-crc32");
        });
        assertThat(WHEN_REQUIRED_PUTS).singleElement().satisfies(r -> {
            assertThat(r.firstMatchingHeader("x-amz-trailer")).isEmpty();
            assertThat(r.firstMatchingHeader("x-amz-content-sha256"))
                    .hasValueSatisfying(v -> assertThat(v).doesNotEndWith("-TRAILER"));
        });
        assertThat(get(whenRequired, bucket, "chunked")).isEqualTo(data);
        assertThat(get(chunked, bucket, "plain")).isEqualTo(data);
    }

    @Test
    void largeObjectStreamedFromAndToFiles() throws IOException {
        String bucket = "large";
        createBucket(bucket);
        Path source = tmp.resolve("large-source.bin");
        Path target = tmp.resolve("large-target.bin");
        long size = 64L * MIB;
        String md5 = TestData.writeRandomFile(source, size, 64);

        PutObjectResponse put =
                whenRequired.putObject(b -> b.bucket(bucket).key("big/object"), RequestBody.fromFile(source));
        assertThat(TestData.unquote(put.eTag())).isEqualTo(md5);

        GetObjectResponse got =
                chunked.getObject(b -> b.bucket(bucket).key("big/object"), ResponseTransformer.toFile(target));
        assertThat(got.contentLength()).isEqualTo(size);
        assertThat(TestData.unquote(got.eTag())).isEqualTo(md5);
        assertThat(Files.size(target)).isEqualTo(size);
        assertThat(Files.mismatch(source, target))
                .as("first differing byte of the downloaded 64 MiB object")
                .isEqualTo(-1L);

        // ranges deep inside the object, across erasure block boundaries
        try (FileChannel ch = FileChannel.open(source)) {
            for (long[] r :
                    new long[][] {{MIB - 5, MIB + 5}, {33L * MIB - 1, 35L * MIB + 17}, {size - 100, size - 1}}) {
                long from = r[0];
                long to = r[1];
                byte[] part = chunked.getObjectAsBytes(
                                b -> b.bucket(bucket).key("big/object").range("bytes=" + from + "-" + to))
                        .asByteArray();
                ByteBuffer expected = ByteBuffer.allocate((int) (to - from + 1));
                while (expected.hasRemaining()) {
                    ch.read(expected, from + expected.position());
                }
                assertThat(part).as("range %d-%d", from, to).isEqualTo(expected.array());
            }
        }
        Files.delete(target);
        chunked.deleteObject(b -> b.bucket(bucket).key("big/object"));
        Files.delete(source);
    }

    @Test
    void rangeGet() {
        String bucket = "ranges";
        createBucket(bucket);
        int size = 5 * MIB + 3;
        byte[] data = TestData.bytes(5, size);
        put(whenRequired, bucket, "r", data);

        record Case(String header, int from, int toInclusive) {}
        List<Case> cases = List.of(
                new Case("bytes=0-0", 0, 0),
                new Case("bytes=0-99", 0, 99),
                new Case("bytes=100-1048675", 100, 1048675),
                new Case("bytes=1048570-3145740", 1048570, 3145740),
                new Case("bytes=-10", size - 10, size - 1),
                new Case("bytes=5242880-", 5242880, size - 1),
                new Case("bytes=5000000-99999999", 5000000, size - 1));
        for (Case c : cases) {
            ResponseBytes<GetObjectResponse> got =
                    chunked.getObjectAsBytes(b -> b.bucket(bucket).key("r").range(c.header()));
            assertThat(got.response().contentRange())
                    .as(c.header())
                    .isEqualTo("bytes " + c.from() + "-" + c.toInclusive() + "/" + size);
            assertThat(got.response().contentLength()).as(c.header()).isEqualTo(c.toInclusive() - c.from() + 1L);
            assertThat(got.asByteArray())
                    .as(c.header())
                    .isEqualTo(java.util.Arrays.copyOfRange(data, c.from(), c.toInclusive() + 1));
        }
        S3Exception unsatisfiable = s3Error(() -> chunked.getObject(
                b -> b.bucket(bucket).key("r").range("bytes=" + size + "-"), ResponseTransformer.toBytes()));
        assertThat(unsatisfiable.statusCode()).isEqualTo(416);
        assertThat(unsatisfiable.awsErrorDetails().errorCode()).isEqualTo("InvalidRange");
    }

    @Test
    void versionedBucket() {
        String bucket = "versioned";
        String key = "backup/chain.vbk";
        createBucket(bucket);
        assertThat(chunked.getBucketVersioning(b -> b.bucket(bucket)).status())
                .as("a new bucket is unversioned")
                .isNull();
        enableVersioning(bucket);
        assertThat(chunked.getBucketVersioning(b -> b.bucket(bucket)).status())
                .isEqualTo(BucketVersioningStatus.ENABLED);

        List<byte[]> contents = new ArrayList<>();
        List<String> versionIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] data = TestData.bytes(100 + i, 10 * KIB + i);
            PutObjectResponse put = put(whenRequired, bucket, key, data);
            assertThat(put.versionId())
                    .as("PUT %d returns a version id", i)
                    .isNotBlank()
                    .isNotEqualTo("null");
            contents.add(data);
            versionIds.add(put.versionId());
        }
        assertThat(new HashSet<>(versionIds)).as("distinct version ids").hasSize(3);
        assertThat(get(chunked, bucket, key)).as("latest version").isEqualTo(contents.get(2));

        ListObjectVersionsResponse versions =
                chunked.listObjectVersions(b -> b.bucket(bucket).prefix(key));
        assertThat(versions.versions())
                .extracting(ObjectVersion::versionId)
                .as("versions newest first")
                .containsExactly(versionIds.get(2), versionIds.get(1), versionIds.get(0));
        assertThat(versions.versions()).extracting(ObjectVersion::isLatest).containsExactly(true, false, false);
        assertThat(versions.versions())
                .extracting(v -> TestData.unquote(v.eTag()))
                .containsExactly(
                        TestData.md5Hex(contents.get(2)),
                        TestData.md5Hex(contents.get(1)),
                        TestData.md5Hex(contents.get(0)));
        assertThat(versions.versions())
                .extracting(ObjectVersion::size)
                .containsExactly(10L * KIB + 2, 10L * KIB + 1, 10L * KIB);
        assertThat(versions.deleteMarkers()).isEmpty();

        for (int i = 0; i < 3; i++) {
            String v = versionIds.get(i);
            ResponseBytes<GetObjectResponse> got =
                    chunked.getObjectAsBytes(b -> b.bucket(bucket).key(key).versionId(v));
            assertThat(got.asByteArray()).as("GET versionId of PUT %d", i).isEqualTo(contents.get(i));
            assertThat(got.response().versionId()).isEqualTo(v);
            assertThat(chunked.headObject(b -> b.bucket(bucket).key(key).versionId(v))
                            .contentLength())
                    .isEqualTo(contents.get(i).length);
        }

        // a delete without version id adds a delete marker
        DeleteObjectResponse deleted =
                chunked.deleteObject(b -> b.bucket(bucket).key(key));
        assertThat(deleted.deleteMarker()).isTrue();
        String marker = deleted.versionId();
        assertThat(marker).isNotBlank().isNotIn(versionIds);
        S3Exception gone =
                s3Error(() -> chunked.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toBytes()));
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
        assertThat(s3Error(() -> chunked.headObject(b -> b.bucket(bucket).key(key)))
                        .statusCode())
                .isEqualTo(404);
        assertThat(chunked.listObjectsV2(b -> b.bucket(bucket)).contents())
                .as("a key whose latest version is a delete marker is not listed")
                .isEmpty();
        assertThat(chunked.getObjectAsBytes(b -> b.bucket(bucket).key(key).versionId(versionIds.get(1)))
                        .asByteArray())
                .as("old versions stay readable behind the delete marker")
                .isEqualTo(contents.get(1));

        ListObjectVersionsResponse withMarker =
                chunked.listObjectVersions(b -> b.bucket(bucket).prefix(key));
        assertThat(withMarker.deleteMarkers()).singleElement().satisfies(m -> {
            assertThat(m.versionId()).isEqualTo(marker);
            assertThat(m.isLatest()).isTrue();
            assertThat(m.key()).isEqualTo(key);
        });
        assertThat(withMarker.versions()).extracting(ObjectVersion::isLatest).containsOnly(false);
        assertThat(withMarker.versions()).hasSize(3);

        // deleting the marker itself restores the latest version
        DeleteObjectResponse unmarked =
                chunked.deleteObject(b -> b.bucket(bucket).key(key).versionId(marker));
        assertThat(unmarked.versionId()).isEqualTo(marker);
        assertThat(get(chunked, bucket, key))
                .as("restored after the delete marker is removed")
                .isEqualTo(contents.get(2));
        assertThat(chunked.listObjectVersions(b -> b.bucket(bucket).prefix(key)).deleteMarkers())
                .isEmpty();

        // deleting a specific version removes just it; the previous one becomes the latest
        chunked.deleteObject(b -> b.bucket(bucket).key(key).versionId(versionIds.get(2)));
        assertThat(get(chunked, bucket, key)).isEqualTo(contents.get(1));
        S3Exception noVersion = s3Error(() -> chunked.getObject(
                b -> b.bucket(bucket).key(key).versionId(versionIds.get(2)), ResponseTransformer.toBytes()));
        assertThat(noVersion.statusCode()).isEqualTo(404);
        assertThat(noVersion.awsErrorDetails().errorCode()).isIn("NoSuchVersion", "NoSuchKey");
        ListObjectVersionsResponse after =
                chunked.listObjectVersions(b -> b.bucket(bucket).prefix(key));
        assertThat(after.versions())
                .extracting(ObjectVersion::versionId)
                .containsExactly(versionIds.get(1), versionIds.get(0));
        assertThat(after.versions()).extracting(ObjectVersion::isLatest).containsExactly(true, false);
    }

    @Test
    void listObjectVersionsPagesThroughAllVersionsAndMarkers() {
        String bucket = "versions-paging";
        createBucket(bucket);
        enableVersioning(bucket);
        Set<String> expected = new TreeSet<>();
        for (String key : List.of("a", "b/1", "b/2", "c")) {
            for (int i = 0; i < 3; i++) {
                String v = put(whenRequired, bucket, key, TestData.bytes(i, 10 + i))
                        .versionId();
                expected.add(key + "#" + v);
            }
        }
        String marker = chunked.deleteObject(b -> b.bucket(bucket).key("b/1")).versionId();
        expected.add("b/1#" + marker);

        List<String> seen = new ArrayList<>();
        String keyMarker = null;
        String versionMarker = null;
        int pages = 0;
        while (true) {
            String km = keyMarker;
            String vm = versionMarker;
            ListObjectVersionsResponse page = chunked.listObjectVersions(
                    b -> b.bucket(bucket).maxKeys(4).keyMarker(km).versionIdMarker(vm));
            pages++;
            assertThat(page.versions().size() + page.deleteMarkers().size()).isLessThanOrEqualTo(4);
            page.versions().forEach(v -> seen.add(v.key() + "#" + v.versionId()));
            page.deleteMarkers().forEach(m -> seen.add(m.key() + "#" + m.versionId()));
            if (!page.isTruncated()) {
                break;
            }
            assertThat(pages).as("pages").isLessThan(20);
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
        assertThat(seen).as("every version and delete marker exactly once").doesNotHaveDuplicates();
        assertThat(new TreeSet<>(seen)).isEqualTo(expected);
        assertThat(pages).isEqualTo(4);

        ListObjectVersionsResponse prefixed =
                chunked.listObjectVersions(b -> b.bucket(bucket).prefix("b/").delimiter("/"));
        assertThat(prefixed.versions())
                .extracting(ObjectVersion::key)
                .containsOnly("b/1", "b/2")
                .hasSize(6);
        assertThat(prefixed.deleteMarkers()).extracting(DeleteMarkerEntry::key).containsExactly("b/1");
        ListObjectVersionsResponse top =
                chunked.listObjectVersions(b -> b.bucket(bucket).delimiter("/"));
        assertThat(top.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("b/");
        assertThat(top.versions())
                .extracting(ObjectVersion::key)
                .containsOnly("a", "c")
                .hasSize(6);
    }

    @Test
    void listObjectsV2WithPrefixDelimiterAndPagination() {
        String bucket = "listing";
        createBucket(bucket);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            keys.add("a/file-" + i);
        }
        for (int i = 0; i < 5; i++) {
            keys.add("a/b/deep-" + i);
        }
        for (int i = 0; i < 4; i++) {
            keys.add("c/d/e/f-" + i);
        }
        keys.addAll(List.of("top-1", "top-2", "top-3", "a-sibling", "zz/last"));
        for (String k : keys) {
            put(whenRequired, bucket, k, k.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        List<String> sorted = keys.stream().sorted().toList();

        // all keys, three at a time, following continuation tokens
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        while (true) {
            String t = token;
            ListObjectsV2Response page =
                    chunked.listObjectsV2(b -> b.bucket(bucket).maxKeys(3).continuationToken(t));
            pages++;
            assertThat(page.keyCount()).isEqualTo(page.contents().size()).isLessThanOrEqualTo(3);
            assertThat(page.maxKeys()).isEqualTo(3);
            page.contents().forEach(o -> seen.add(o.key()));
            if (!page.isTruncated()) {
                assertThat(page.nextContinuationToken()).isNull();
                break;
            }
            assertThat(page.nextContinuationToken()).isNotBlank();
            assertThat(pages).as("pages").isLessThan(50);
            token = page.nextContinuationToken();
        }
        assertThat(seen).as("every key exactly once, in order").containsExactlyElementsOf(sorted);
        assertThat(pages).isEqualTo((sorted.size() + 2) / 3);

        // the SDK paginator sees the same
        assertThat(chunked.listObjectsV2Paginator(b -> b.bucket(bucket).maxKeys(5)).contents().stream()
                        .map(S3Object::key))
                .containsExactlyElementsOf(sorted);

        // delimiter at the root: top-level keys and one common prefix per "directory"
        ListObjectsV2Response root = chunked.listObjectsV2(b -> b.bucket(bucket).delimiter("/"));
        assertThat(root.contents()).extracting(S3Object::key).containsExactly("a-sibling", "top-1", "top-2", "top-3");
        assertThat(root.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("a/", "c/", "zz/");
        assertThat(root.keyCount()).isEqualTo(7);

        // prefix and delimiter
        ListObjectsV2Response underA =
                chunked.listObjectsV2(b -> b.bucket(bucket).prefix("a/").delimiter("/"));
        assertThat(underA.contents())
                .extracting(S3Object::key)
                .containsExactlyElementsOf(
                        sorted.stream().filter(k -> k.startsWith("a/file-")).toList());
        assertThat(underA.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("a/b/");
        assertThat(underA.prefix()).isEqualTo("a/");

        ListObjectsV2Response prefixOnly =
                chunked.listObjectsV2(b -> b.bucket(bucket).prefix("a"));
        assertThat(prefixOnly.contents())
                .extracting(S3Object::key)
                .containsExactlyElementsOf(
                        sorted.stream().filter(k -> k.startsWith("a")).toList());
        assertThat(prefixOnly.commonPrefixes()).isEmpty();

        // pagination with a delimiter: keys and common prefixes together, each exactly once
        List<String> entries = new ArrayList<>();
        token = null;
        pages = 0;
        while (true) {
            String t = token;
            ListObjectsV2Response page = chunked.listObjectsV2(
                    b -> b.bucket(bucket).delimiter("/").maxKeys(2).continuationToken(t));
            pages++;
            assertThat(page.contents().size() + page.commonPrefixes().size()).isLessThanOrEqualTo(2);
            page.contents().forEach(o -> entries.add(o.key()));
            page.commonPrefixes().forEach(p -> entries.add(p.prefix()));
            if (!page.isTruncated()) {
                break;
            }
            assertThat(pages).isLessThan(20);
            token = page.nextContinuationToken();
        }
        assertThat(entries)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("a-sibling", "top-1", "top-2", "top-3", "a/", "c/", "zz/");

        // start-after
        ListObjectsV2Response after =
                chunked.listObjectsV2(b -> b.bucket(bucket).startAfter("top-1"));
        assertThat(after.contents()).extracting(S3Object::key).containsExactly("top-2", "top-3", "zz/last");

        // ListObjects (v1) with marker paging
        List<String> v1 = new ArrayList<>();
        String marker = null;
        while (true) {
            String m = marker;
            ListObjectsResponse page =
                    chunked.listObjects(b -> b.bucket(bucket).maxKeys(4).marker(m));
            page.contents().forEach(o -> v1.add(o.key()));
            if (!page.isTruncated()) {
                break;
            }
            assertThat(v1.size()).isLessThan(100);
            marker = page.contents().getLast().key();
        }
        assertThat(v1).containsExactlyElementsOf(sorted);
    }

    @Test
    void bucketLifecycleAndDeleteOfNonEmptyBucket() {
        String bucket = "lifecycle-" + UUID.randomUUID().toString().substring(0, 8);
        createBucket(bucket);
        chunked.headBucket(b -> b.bucket(bucket));
        assertThat(chunked.listBuckets().buckets()).anyMatch(b -> b.name().equals(bucket));
        S3Exception again = s3Error(() -> chunked.createBucket(b -> b.bucket(bucket)));
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.awsErrorDetails().errorCode()).isIn("BucketAlreadyOwnedByYou", "BucketAlreadyExists");

        put(whenRequired, bucket, "k", new byte[] {1, 2, 3});
        S3Exception notEmpty = s3Error(() -> chunked.deleteBucket(b -> b.bucket(bucket)));
        assertThat(notEmpty.statusCode()).isEqualTo(409);
        assertThat(notEmpty.awsErrorDetails().errorCode()).isEqualTo("BucketNotEmpty");
        assertThat(get(chunked, bucket, "k"))
                .as("a refused DeleteBucket keeps the objects")
                .containsExactly(1, 2, 3);

        chunked.deleteObject(b -> b.bucket(bucket).key("k"));
        chunked.deleteBucket(b -> b.bucket(bucket));
        assertThatThrownBy(() -> chunked.headBucket(b -> b.bucket(bucket)))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
        S3Exception noBucket = s3Error(() -> chunked.listObjectsV2(b -> b.bucket(bucket)));
        assertThat(noBucket).isInstanceOf(NoSuchBucketException.class);
        assertThat(noBucket.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
        assertThat(chunked.listBuckets().buckets()).noneMatch(b -> b.name().equals(bucket));
    }

    @Test
    void versionedBucketWithOnlyNoncurrentVersionsIsNotEmpty() {
        String bucket = "versioned-not-empty";
        createBucket(bucket);
        enableVersioning(bucket);
        put(whenRequired, bucket, "k", new byte[] {9});
        chunked.deleteObject(b -> b.bucket(bucket).key("k")); // delete marker; the version remains
        S3Exception notEmpty = s3Error(() -> chunked.deleteBucket(b -> b.bucket(bucket)));
        assertThat(notEmpty.statusCode()).isEqualTo(409);
        assertThat(notEmpty.awsErrorDetails().errorCode()).isEqualTo("BucketNotEmpty");
    }

    @Test
    void wrongContentMd5IsRefusedWithBadDigest() {
        String bucket = "integrity-md5";
        createBucket(bucket);
        byte[] data = TestData.bytes(11, 200 * KIB);
        byte[] other = TestData.bytes(12, 200 * KIB);
        String wrongMd5 = java.util.Base64.getEncoder()
                .encodeToString(java.util.HexFormat.of().parseHex(TestData.md5Hex(other)));
        S3Exception e = s3Error(() -> whenRequired.putObject(
                b -> b.bucket(bucket).key("k").contentMD5(wrongMd5), RequestBody.fromBytes(data)));
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        assertThat(s3Error(() -> whenRequired.headObject(b -> b.bucket(bucket).key("k")))
                        .statusCode())
                .as("nothing stored after BadDigest")
                .isEqualTo(404);
    }

    @Test
    void wrongChecksumHeaderIsRefusedWithBadDigest() {
        String bucket = "integrity-crc";
        createBucket(bucket);
        byte[] data = TestData.bytes(13, 200 * KIB);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(TestData.bytes(14, 200 * KIB));
        String wrongCrc = java.util.Base64.getEncoder()
                .encodeToString(
                        ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
        WHEN_REQUIRED_PUTS.clear();
        Throwable thrown = catchThrowable(() -> whenRequired.putObject(
                b -> b.bucket(bucket).key("k").checksumCRC32(wrongCrc), RequestBody.fromBytes(data)));
        assertThat(WHEN_REQUIRED_PUTS)
                .as("the SDK sent the given (wrong) checksum as a header")
                .singleElement()
                .satisfies(r -> assertThat(r.firstMatchingHeader("x-amz-checksum-crc32"))
                        .hasValue(wrongCrc));
        assertThat(thrown)
                .as("a PUT whose body does not match its x-amz-checksum-crc32 header must be refused")
                .isInstanceOf(S3Exception.class);
        S3Exception e = (S3Exception) thrown;
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        assertThat(s3Error(() -> whenRequired.headObject(b -> b.bucket(bucket).key("k")))
                        .statusCode())
                .as("nothing stored after BadDigest")
                .isEqualTo(404);
    }

    @Test
    void wrongSecretIsRefusedWithSignatureDoesNotMatch() {
        String bucket = "auth";
        createBucket(bucket);
        try (S3Client wrong = appliance.client(appliance.accessKey(), appliance.secretKey() + "x", b -> {})) {
            S3Exception list = s3Error(wrong::listBuckets);
            assertThat(list.statusCode()).isEqualTo(403);
            assertThat(list.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");

            S3Exception putRefused = s3Error(() -> put(wrong, bucket, "intruder", new byte[] {1}));
            assertThat(putRefused.statusCode()).isEqualTo(403);
            assertThat(putRefused.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
        }
        assertThat(chunked.listObjectsV2(b -> b.bucket(bucket)).contents())
                .as("a refused PUT stores nothing")
                .isEmpty();
        try (S3Client unknown = appliance.client("NOSUCHACCESSKEY00000", appliance.secretKey(), b -> {})) {
            S3Exception e = s3Error(unknown::listBuckets);
            assertThat(e.statusCode()).isEqualTo(403);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId");
        }
    }
}
