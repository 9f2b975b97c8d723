package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartCopyResponse;

/** Multipart uploads, UploadPartCopy, CopyObject and conditional PUTs through the AWS SDK v2, on a real process. */
class MultipartCopyIT {
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "mp-it-admin", "mp-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
        s3.createBucket(b -> b.bucket("mpart"));
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static String md5Hex(byte[]... chunks) throws Exception {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (byte[] c : chunks) {
            md5.update(c);
        }
        return HexFormat.of().formatHex(md5.digest());
    }

    @Test
    void multipartUpload_roundTripsWithTheMultipartEtagAndPartNumberReads() throws Exception {
        byte[] p1 = TestData.bytes(1, 5 * MIB);
        byte[] p2 = TestData.bytes(2, 5 * MIB + 11);
        byte[] p3 = TestData.bytes(3, 777);
        String id = s3.createMultipartUpload(
                        b -> b.bucket("mpart").key("big/object").contentType("application/x-backup"))
                .uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        int n = 1;
        for (byte[] p : List.of(p1, p2, p3)) {
            int number = n++;
            var up = s3.uploadPart(
                    b -> b.bucket("mpart").key("big/object").uploadId(id).partNumber(number), RequestBody.fromBytes(p));
            assertThat(up.eTag()).isEqualTo("\"" + md5Hex(p) + "\"");
            // The client sends a CRC32 with each part by default; as on S3, completing must name it.
            assertThat(up.checksumCRC32()).isNotNull();
            parts.add(CompletedPart.builder()
                    .partNumber(number)
                    .eTag(up.eTag())
                    .checksumCRC32(up.checksumCRC32())
                    .build());
        }
        assertThat(s3.listParts(b -> b.bucket("mpart").key("big/object").uploadId(id))
                        .parts())
                .extracting(p -> p.partNumber())
                .containsExactly(1, 2, 3);
        assertThat(s3.listMultipartUploads(b -> b.bucket("mpart")).uploads())
                .extracting(u -> u.uploadId())
                .containsExactly(id);

        String etag = s3.completeMultipartUpload(b -> b.bucket("mpart")
                        .key("big/object")
                        .uploadId(id)
                        .multipartUpload(
                                CompletedMultipartUpload.builder().parts(parts).build()))
                .eTag();
        MessageDigest md5s = MessageDigest.getInstance("MD5");
        for (byte[] p : List.of(p1, p2, p3)) {
            md5s.update(MessageDigest.getInstance("MD5").digest(p));
        }
        assertThat(etag).isEqualTo("\"" + HexFormat.of().formatHex(md5s.digest()) + "-3\"");

        byte[] all =
                s3.getObjectAsBytes(b -> b.bucket("mpart").key("big/object")).asByteArray();
        assertThat(md5Hex(all)).isEqualTo(md5Hex(p1, p2, p3));
        HeadObjectResponse head = s3.headObject(b -> b.bucket("mpart").key("big/object"));
        assertThat(head.contentType()).isEqualTo("application/x-backup");
        assertThat(head.contentLength()).isEqualTo((long) p1.length + p2.length + p3.length);

        var second =
                s3.getObjectAsBytes(b -> b.bucket("mpart").key("big/object").partNumber(2));
        assertThat(second.asByteArray()).isEqualTo(p2);
        assertThat(second.response().partsCount()).isEqualTo(3);
        assertThat(s3.listMultipartUploads(b -> b.bucket("mpart")).uploads()).isEmpty();
    }

    @Test
    void badCompletions_getTheAwsErrors() {
        String id = s3.createMultipartUpload(b -> b.bucket("mpart").key("bad")).uploadId();
        var u1 = s3.uploadPart(
                b -> b.bucket("mpart").key("bad").uploadId(id).partNumber(1), RequestBody.fromString("a"));
        var u2 = s3.uploadPart(
                b -> b.bucket("mpart").key("bad").uploadId(id).partNumber(2), RequestBody.fromString("b"));
        S3Exception tooSmall = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket("mpart")
                        .key("bad")
                        .uploadId(id)
                        .multipartUpload(m -> m.parts(
                                CompletedPart.builder()
                                        .partNumber(1)
                                        .eTag(u1.eTag())
                                        .checksumCRC32(u1.checksumCRC32())
                                        .build(),
                                CompletedPart.builder()
                                        .partNumber(2)
                                        .eTag(u2.eTag())
                                        .checksumCRC32(u2.checksumCRC32())
                                        .build()))));
        assertThat(tooSmall.awsErrorDetails().errorCode()).isEqualTo("EntityTooSmall");
        S3Exception wrongEtag = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket("mpart")
                        .key("bad")
                        .uploadId(id)
                        .multipartUpload(m -> m.parts(CompletedPart.builder()
                                .partNumber(1)
                                .eTag("\"00\"")
                                .build()))));
        assertThat(wrongEtag.awsErrorDetails().errorCode()).isEqualTo("InvalidPart");
        s3.abortMultipartUpload(b -> b.bucket("mpart").key("bad").uploadId(id));
        S3Exception gone = catchThrowableOfType(
                S3Exception.class,
                () -> s3.listParts(b -> b.bucket("mpart").key("bad").uploadId(id)));
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.awsErrorDetails().errorCode()).isEqualTo("NoSuchUpload");
    }

    @Test
    void uploadPartCopy_copiesRangesOfAnotherObject() throws Exception {
        byte[] source = TestData.bytes(9, 12 * MIB);
        s3.putObject(b -> b.bucket("mpart").key("source"), RequestBody.fromBytes(source));
        String id = s3.createMultipartUpload(b -> b.bucket("mpart").key("assembled"))
                .uploadId();
        UploadPartCopyResponse c1 = s3.uploadPartCopy(b -> b.sourceBucket("mpart")
                .sourceKey("source")
                .destinationBucket("mpart")
                .destinationKey("assembled")
                .uploadId(id)
                .partNumber(1)
                .copySourceRange("bytes=0-" + (6 * MIB - 1)));
        UploadPartCopyResponse c2 = s3.uploadPartCopy(b -> b.sourceBucket("mpart")
                .sourceKey("source")
                .destinationBucket("mpart")
                .destinationKey("assembled")
                .uploadId(id)
                .partNumber(2)
                .copySourceRange("bytes=" + (6 * MIB) + "-" + (source.length - 1)));
        s3.completeMultipartUpload(b -> b.bucket("mpart")
                .key("assembled")
                .uploadId(id)
                .multipartUpload(m -> m.parts(
                        CompletedPart.builder()
                                .partNumber(1)
                                .eTag(c1.copyPartResult().eTag())
                                .build(),
                        CompletedPart.builder()
                                .partNumber(2)
                                .eTag(c2.copyPartResult().eTag())
                                .build())));
        byte[] back =
                s3.getObjectAsBytes(b -> b.bucket("mpart").key("assembled")).asByteArray();
        assertThat(md5Hex(back)).isEqualTo(md5Hex(source));
    }

    @Test
    void copyObject_copiesDataAndHonoursDirectivesVersionsAndConditions() throws Exception {
        s3.createBucket(b -> b.bucket("copies"));
        s3.putBucketVersioning(
                b -> b.bucket("copies").versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        byte[] v1 = TestData.bytes(21, 2 * MIB + 5);
        String v1Id = s3.putObject(
                        b -> b.bucket("copies")
                                .key("doc")
                                .contentType("text/plain")
                                .metadata(java.util.Map.of("a", "1")),
                        RequestBody.fromBytes(v1))
                .versionId();
        s3.putObject(b -> b.bucket("copies").key("doc"), RequestBody.fromString("second"));

        CopyObjectResponse copied = s3.copyObject(b -> b.sourceBucket("copies")
                .sourceKey("doc")
                .sourceVersionId(v1Id)
                .destinationBucket("mpart")
                .destinationKey("doc-copy"));
        assertThat(copied.copyObjectResult().eTag()).isEqualTo("\"" + md5Hex(v1) + "\"");
        assertThat(copied.copySourceVersionId()).isEqualTo(v1Id);
        assertThat(s3.getObjectAsBytes(b -> b.bucket("mpart").key("doc-copy")).asByteArray())
                .isEqualTo(v1);
        HeadObjectResponse head = s3.headObject(b -> b.bucket("mpart").key("doc-copy"));
        assertThat(head.contentType()).isEqualTo("text/plain");
        assertThat(head.metadata()).containsEntry("a", "1");

        s3.copyObject(b -> b.sourceBucket("mpart")
                .sourceKey("doc-copy")
                .destinationBucket("mpart")
                .destinationKey("doc-copy")
                .metadataDirective(MetadataDirective.REPLACE)
                .contentType("application/json")
                .metadata(java.util.Map.of("b", "2")));
        HeadObjectResponse replaced = s3.headObject(b -> b.bucket("mpart").key("doc-copy"));
        assertThat(replaced.contentType()).isEqualTo("application/json");
        assertThat(replaced.metadata()).containsEntry("b", "2").doesNotContainKey("a");

        S3Exception toItself = catchThrowableOfType(
                S3Exception.class,
                () -> s3.copyObject(b -> b.sourceBucket("mpart")
                        .sourceKey("doc-copy")
                        .destinationBucket("mpart")
                        .destinationKey("doc-copy")));
        assertThat(toItself.awsErrorDetails().errorCode()).isEqualTo("InvalidRequest");
        S3Exception condition = catchThrowableOfType(
                S3Exception.class,
                () -> s3.copyObject(b -> b.sourceBucket("mpart")
                        .sourceKey("doc-copy")
                        .destinationBucket("mpart")
                        .destinationKey("other")
                        .copySourceIfMatch("\"0123\"")));
        assertThat(condition.statusCode()).isEqualTo(412);
    }

    @Test
    void conditionalPuts_refuseOverwritesTheyDoNotAllow() {
        s3.putObject(b -> b.bucket("mpart").key("once").ifNoneMatch("*"), RequestBody.fromString("first"));
        S3Exception exists = catchThrowableOfType(
                S3Exception.class,
                () -> s3.putObject(
                        b -> b.bucket("mpart").key("once").ifNoneMatch("*"), RequestBody.fromString("again")));
        assertThat(exists.statusCode()).isEqualTo(412);
        String etag = s3.headObject(b -> b.bucket("mpart").key("once")).eTag();
        s3.putObject(b -> b.bucket("mpart").key("once").ifMatch(etag), RequestBody.fromString("second"));
        S3Exception stale = catchThrowableOfType(
                S3Exception.class,
                () -> s3.putObject(b -> b.bucket("mpart").key("once").ifMatch(etag), RequestBody.fromString("third")));
        assertThat(stale.statusCode()).isEqualTo(412);
        assertThat(s3.getObjectAsBytes(b -> b.bucket("mpart").key("once")).asUtf8String())
                .isEqualTo("second");
    }

    @Test
    void objectAndBucketTags_roundTripAndCountOnHead() {
        s3.putObject(b -> b.bucket("mpart").key("tagged").tagging("a=1&b=two%20words"), RequestBody.fromString("x"));
        assertThat(s3.headObject(b -> b.bucket("mpart").key("tagged")).tagCount())
                .isEqualTo(2);
        assertThat(s3.getObjectTagging(b -> b.bucket("mpart").key("tagged")).tagSet())
                .extracting(t -> t.key() + "=" + t.value())
                .containsExactlyInAnyOrder("a=1", "b=two words");
        s3.putObjectTagging(b -> b.bucket("mpart")
                .key("tagged")
                .tagging(t -> t.tagSet(software.amazon.awssdk.services.s3.model.Tag.builder()
                        .key("only")
                        .value("one")
                        .build())));
        assertThat(s3.getObjectTagging(b -> b.bucket("mpart").key("tagged")).tagSet())
                .extracting(t -> t.key())
                .containsExactly("only");
        assertThat(s3.getObjectAsBytes(b -> b.bucket("mpart").key("tagged")).asUtf8String())
                .isEqualTo("x");
        s3.deleteObjectTagging(b -> b.bucket("mpart").key("tagged"));
        assertThat(s3.getObjectTagging(b -> b.bucket("mpart").key("tagged")).tagSet())
                .isEmpty();
        S3Exception tooMany = catchThrowableOfType(
                S3Exception.class,
                () -> s3.putObject(
                        b -> b.bucket("mpart").key("t2").tagging("a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11"),
                        RequestBody.fromString("x")));
        assertThat(tooMany.statusCode()).isEqualTo(400);

        S3Exception none = catchThrowableOfType(S3Exception.class, () -> s3.getBucketTagging(b -> b.bucket("mpart")));
        assertThat(none.awsErrorDetails().errorCode()).isEqualTo("NoSuchTagSet");
        s3.putBucketTagging(b -> b.bucket("mpart")
                .tagging(t -> t.tagSet(software.amazon.awssdk.services.s3.model.Tag.builder()
                        .key("team")
                        .value("backup")
                        .build())));
        assertThat(s3.getBucketTagging(b -> b.bucket("mpart")).tagSet())
                .extracting(t -> t.key() + "=" + t.value())
                .containsExactly("team=backup");
        s3.deleteBucketTagging(b -> b.bucket("mpart"));
        assertThat(catchThrowableOfType(S3Exception.class, () -> s3.getBucketTagging(b -> b.bucket("mpart")))
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void getObjectAttributes_reportsSizeEtagAndParts() {
        s3.putObject(b -> b.bucket("mpart").key("attrs"), RequestBody.fromString("hello"));
        var attrs = s3.getObjectAttributes(b -> b.bucket("mpart")
                .key("attrs")
                .objectAttributes(
                        software.amazon.awssdk.services.s3.model.ObjectAttributes.E_TAG,
                        software.amazon.awssdk.services.s3.model.ObjectAttributes.OBJECT_SIZE,
                        software.amazon.awssdk.services.s3.model.ObjectAttributes.STORAGE_CLASS));
        assertThat(attrs.objectSize()).isEqualTo(5L);
        assertThat(attrs.eTag()).isEqualTo("5d41402abc4b2a76b9719d911017c592");
        assertThat(attrs.storageClassAsString()).isEqualTo("STANDARD");
    }

    @Test
    void flexibleChecksums_areStoredAndReturnedWhenAsked() throws Exception {
        byte[] data = TestData.bytes(77, 300_000);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(data);
        byte[] crcBytes =
                java.nio.ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
        String expected = java.util.Base64.getEncoder().encodeToString(crcBytes);
        // The default client sends the CRC32 as an aws-chunked trailer.
        s3.putObject(
                b -> b.bucket("mpart").key("crc-trailer").checksumAlgorithm(ChecksumAlgorithm.CRC32),
                RequestBody.fromBytes(data));
        var got = s3.getObjectAsBytes(b -> b.bucket("mpart").key("crc-trailer").checksumMode(ChecksumMode.ENABLED));
        assertThat(got.response().checksumCRC32()).isEqualTo(expected);
        assertThat(got.asByteArray()).isEqualTo(data);
        assertThat(s3.headObject(b -> b.bucket("mpart").key("crc-trailer").checksumMode(ChecksumMode.ENABLED))
                        .checksumCRC32())
                .isEqualTo(expected);
        // Not asked for: not returned.
        assertThat(s3.headObject(b -> b.bucket("mpart").key("crc-trailer")).checksumCRC32())
                .isNull();

        // A SHA-256 given as a header up front, by a client that does not stream trailers.
        S3Client plain = appliance.client(
                appliance.accessKey(),
                appliance.secretKey(),
                c -> c.requestChecksumCalculation(
                        software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED));
        String sha = java.util.Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(data));
        plain.putObject(b -> b.bucket("mpart").key("sha-header").checksumSHA256(sha), RequestBody.fromBytes(data));
        assertThat(s3.headObject(b -> b.bucket("mpart").key("sha-header").checksumMode(ChecksumMode.ENABLED))
                        .checksumSHA256())
                .isEqualTo(sha);
        var attrs = s3.getObjectAttributes(b -> b.bucket("mpart")
                .key("sha-header")
                .objectAttributes(software.amazon.awssdk.services.s3.model.ObjectAttributes.CHECKSUM));
        assertThat(attrs.checksum().checksumSHA256()).isEqualTo(sha);
    }
}
