package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Multipart flexible checksums through the AWS SDK for Java v2 on a real process: COMPOSITE and FULL_OBJECT uploads
 * for every algorithm, checked against values computed here independently (the JDK's CRC32/CRC32C/SHA-256 and a
 * bitwise CRC-64/NVME), and paging of ListMultipartUploads with a delimiter.
 */
class MultipartChecksumIT {
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
                        tmp.resolve("appliance"), "mpc-it-admin", "mpc-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
        s3.createBucket(b -> b.bucket("sums"));
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    // ---- independent reference values ----

    private static byte[] checksum(ChecksumAlgorithm a, byte[] data) throws Exception {
        return switch (a) {
            case CRC32 -> {
                CRC32 c = new CRC32();
                c.update(data);
                yield ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
            }
            case CRC32_C -> {
                CRC32C c = new CRC32C();
                c.update(data);
                yield ByteBuffer.allocate(4).putInt((int) c.getValue()).array();
            }
            case CRC64_NVME -> {
                long crc = -1L;
                for (byte x : data) {
                    crc ^= x & 0xff;
                    for (int k = 0; k < 8; k++) {
                        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9a6c9329ac4bc9b5L : crc >>> 1;
                    }
                }
                yield ByteBuffer.allocate(8).putLong(~crc).array();
            }
            case SHA256 -> MessageDigest.getInstance("SHA-256").digest(data);
            case SHA1 -> MessageDigest.getInstance("SHA-1").digest(data);
            default -> throw new IllegalArgumentException(a.toString());
        };
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static String valueOf(ChecksumAlgorithm a, HeadObjectResponse h) {
        return switch (a) {
            case CRC32 -> h.checksumCRC32();
            case CRC32_C -> h.checksumCRC32C();
            case CRC64_NVME -> h.checksumCRC64NVME();
            case SHA256 -> h.checksumSHA256();
            default -> h.checksumSHA1();
        };
    }

    private static String valueOf(ChecksumAlgorithm a, CompleteMultipartUploadResponse r) {
        return switch (a) {
            case CRC32 -> r.checksumCRC32();
            case CRC32_C -> r.checksumCRC32C();
            case CRC64_NVME -> r.checksumCRC64NVME();
            case SHA256 -> r.checksumSHA256();
            default -> r.checksumSHA1();
        };
    }

    private static String valueOf(ChecksumAlgorithm a, UploadPartResponse r) {
        return switch (a) {
            case CRC32 -> r.checksumCRC32();
            case CRC32_C -> r.checksumCRC32C();
            case CRC64_NVME -> r.checksumCRC64NVME();
            case SHA256 -> r.checksumSHA256();
            default -> r.checksumSHA1();
        };
    }

    private static CompletedPart.Builder withChecksum(CompletedPart.Builder b, ChecksumAlgorithm a, String v) {
        return switch (a) {
            case CRC32 -> b.checksumCRC32(v);
            case CRC32_C -> b.checksumCRC32C(v);
            case CRC64_NVME -> b.checksumCRC64NVME(v);
            case SHA256 -> b.checksumSHA256(v);
            default -> b.checksumSHA1(v);
        };
    }

    /**
     * Uploads three parts (5 MiB + 3, 5 MiB, 1 byte) in an upload of {@code a}/{@code type}, completes it, and checks
     * the object's checksum, from the Complete result and from HEAD with checksum mode, against {@code expected}.
     * CRC64NVME values are sent precomputed (the SDK computes that algorithm only with the CRT installed).
     */
    private void roundTrip(String key, ChecksumAlgorithm a, ChecksumType type) throws Exception {
        List<byte[]> data = List.of(TestData.bytes(31, 5 * MIB + 3), TestData.bytes(32, 5 * MIB), new byte[] {7});
        var created = s3.createMultipartUpload(
                b -> b.bucket("sums").key(key).checksumAlgorithm(a).checksumType(type));
        assertThat(created.checksumAlgorithm()).isEqualTo(a);
        assertThat(created.checksumType()).isEqualTo(type);
        String id = created.uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        List<byte[]> raw = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            int number = i + 1;
            byte[] body = data.get(i);
            String own = b64(checksum(a, body));
            UploadPartResponse up = a == ChecksumAlgorithm.CRC64_NVME
                    ? s3.uploadPart(
                            b -> b.bucket("sums")
                                    .key(key)
                                    .uploadId(id)
                                    .partNumber(number)
                                    .checksumCRC64NVME(own),
                            RequestBody.fromBytes(body))
                    : s3.uploadPart(
                            b -> b.bucket("sums")
                                    .key(key)
                                    .uploadId(id)
                                    .partNumber(number)
                                    .checksumAlgorithm(a),
                            RequestBody.fromBytes(body));
            assertThat(valueOf(a, up)).as("part %d checksum", number).isEqualTo(own);
            parts.add(withChecksum(CompletedPart.builder().partNumber(number).eTag(up.eTag()), a, own)
                    .build());
            raw.add(checksum(a, body));
        }
        String expected =
                type == ChecksumType.COMPOSITE ? b64(checksum(a, concat(raw))) + "-3" : b64(checksum(a, concat(data)));

        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(
                b -> b.bucket("sums").key(key).uploadId(id).multipartUpload(m -> m.parts(parts)));
        assertThat(valueOf(a, done)).isEqualTo(expected);
        assertThat(done.checksumType()).isEqualTo(type);
        HeadObjectResponse head = s3.headObject(b -> b.bucket("sums").key(key).checksumMode(ChecksumMode.ENABLED));
        assertThat(valueOf(a, head)).isEqualTo(expected);
        assertThat(head.checksumType()).isEqualTo(type);
        HeadObjectResponse second =
                s3.headObject(b -> b.bucket("sums").key(key).partNumber(2).checksumMode(ChecksumMode.ENABLED));
        assertThat(valueOf(a, second)).isEqualTo(b64(raw.get(1)));
        byte[] back = s3.getObjectAsBytes(b -> b.bucket("sums").key(key)).asByteArray();
        assertThat(back).isEqualTo(concat(data));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "CRC32, COMPOSITE",
        "CRC32, FULL_OBJECT",
        "CRC32_C, COMPOSITE",
        "CRC32_C, FULL_OBJECT",
        "CRC64_NVME, FULL_OBJECT",
        "SHA256, COMPOSITE"
    })
    void multipartChecksum_roundTrips(ChecksumAlgorithm algorithm, ChecksumType type) throws Exception {
        roundTrip((algorithm + "-" + type).toLowerCase(java.util.Locale.ROOT), algorithm, type);
    }

    @Test
    void fullObjectValueStatedOnCompletion_isChecked() throws Exception {
        byte[] data = TestData.bytes(40, 200_000);
        String id = s3.createMultipartUpload(b -> b.bucket("sums")
                        .key("stated")
                        .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                        .checksumType(ChecksumType.FULL_OBJECT))
                .uploadId();
        UploadPartResponse up = s3.uploadPart(
                b -> b.bucket("sums")
                        .key("stated")
                        .uploadId(id)
                        .partNumber(1)
                        .checksumAlgorithm(ChecksumAlgorithm.CRC32_C),
                RequestBody.fromBytes(data));
        String right = b64(checksum(ChecksumAlgorithm.CRC32_C, data));
        String wrong = b64(checksum(ChecksumAlgorithm.CRC32_C, new byte[3]));
        S3Exception bad = catchThrowableOfType(
                S3Exception.class,
                () -> s3.completeMultipartUpload(b -> b.bucket("sums")
                        .key("stated")
                        .uploadId(id)
                        .checksumType(ChecksumType.FULL_OBJECT)
                        .checksumCRC32C(wrong)
                        .multipartUpload(m -> m.parts(CompletedPart.builder()
                                .partNumber(1)
                                .eTag(up.eTag())
                                .build()))));
        assertThat(bad.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
        assertThat(s3.listParts(b -> b.bucket("sums").key("stated").uploadId(id))
                        .parts())
                .as("the upload is still there")
                .hasSize(1);
        var done = s3.completeMultipartUpload(b -> b.bucket("sums")
                .key("stated")
                .uploadId(id)
                .checksumType(ChecksumType.FULL_OBJECT)
                .checksumCRC32C(right)
                .multipartUpload(m -> m.parts(
                        CompletedPart.builder().partNumber(1).eTag(up.eTag()).build())));
        assertThat(done.checksumCRC32C()).isEqualTo(right);
    }

    @Test
    void listMultipartUploads_pagesWithADelimiter() {
        s3.createBucket(b -> b.bucket("uploads"));
        List<String> ids = new ArrayList<>();
        for (String k : List.of("logs/a", "logs/b", "data/x/1", "top", "top", "zz")) {
            ids.add(s3.createMultipartUpload(b -> b.bucket("uploads").key(k)).uploadId());
        }
        List<String> seen = new ArrayList<>();
        int pages = 0;
        for (ListMultipartUploadsResponse page : s3.listMultipartUploadsPaginator(
                b -> b.bucket("uploads").delimiter("/").maxUploads(2))) {
            pages++;
            assertThat(page.uploads().size() + page.commonPrefixes().size()).isLessThanOrEqualTo(2);
            page.commonPrefixes().forEach(p -> seen.add(p.prefix()));
            page.uploads().forEach(u -> seen.add(u.key() + "#" + u.uploadId()));
        }
        assertThat(pages).isEqualTo(3);
        // two uploads of one key come oldest first (by upload id when initiated in the same millisecond)
        assertThat(seen).hasSize(5);
        assertThat(seen.subList(0, 2)).containsExactly("data/", "logs/");
        assertThat(seen.subList(2, 4)).containsExactlyInAnyOrder("top#" + ids.get(3), "top#" + ids.get(4));
        assertThat(seen.get(4)).isEqualTo("zz#" + ids.get(5));
    }
}
