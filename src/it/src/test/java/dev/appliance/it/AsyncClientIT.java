package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** The AWS SDK v2 async client (Netty HTTP client), with its default checksum behaviour, against a real process. */
class AsyncClientIT {
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3AsyncClient s3;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "async-it-admin", "async-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = S3AsyncClient.builder()
                .endpointOverride(URI.create(appliance.s3Endpoint().toString()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(appliance.accessKey(), appliance.secretKey())))
                .forcePathStyle(true)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(32))
                .build();
        s3.createBucket(b -> b.bucket("async")).get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static String md5(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
    }

    @Test
    void concurrentPutsAndGets_roundTrip() throws Exception {
        List<CompletableFuture<?>> puts = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            byte[] body = TestData.bytes(100 + i, (i % 4) * 700_000 + 13);
            bodies.add(body);
            int n = i;
            puts.add(s3.putObject(b -> b.bucket("async").key("obj-" + n), AsyncRequestBody.fromBytes(body)));
        }
        CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        for (int i = 0; i < bodies.size(); i++) {
            int n = i;
            byte[] back = s3.getObject(b -> b.bucket("async").key("obj-" + n), AsyncResponseTransformer.toBytes())
                    .get(60, TimeUnit.SECONDS)
                    .asByteArray();
            assertThat(md5(back)).as("obj-%d", i).isEqualTo(md5(bodies.get(i)));
        }
        assertThat(s3.listObjectsV2(b -> b.bucket("async").prefix("obj-"))
                        .get(30, TimeUnit.SECONDS)
                        .keyCount())
                .isEqualTo(24);
    }

    @Test
    void largeObjectFromFile_andMultipart_roundTrip() throws Exception {
        Path file = tmp.resolve("big.bin");
        String fileMd5 = TestData.writeRandomFile(file, 20L * MIB + 3, 5);
        s3.putObject(b -> b.bucket("async").key("big"), AsyncRequestBody.fromFile(file))
                .get(120, TimeUnit.SECONDS);
        Path back = tmp.resolve("big-back.bin");
        s3.getObject(b -> b.bucket("async").key("big"), AsyncResponseTransformer.toFile(back))
                .get(120, TimeUnit.SECONDS);
        assertThat(TestData.md5Hex(Files.readAllBytes(back))).isEqualTo(fileMd5);

        String id = s3.createMultipartUpload(b -> b.bucket("async").key("mp"))
                .get(30, TimeUnit.SECONDS)
                .uploadId();
        byte[] p1 = TestData.bytes(1, 5 * MIB);
        byte[] p2 = TestData.bytes(2, 1234);
        var u1 = s3.uploadPart(
                        b -> b.bucket("async").key("mp").uploadId(id).partNumber(1), AsyncRequestBody.fromBytes(p1))
                .get(60, TimeUnit.SECONDS);
        var u2 = s3.uploadPart(
                        b -> b.bucket("async").key("mp").uploadId(id).partNumber(2), AsyncRequestBody.fromBytes(p2))
                .get(60, TimeUnit.SECONDS);
        // The client adds a CRC32 to each part by default; as on S3, completing names it.
        s3.completeMultipartUpload(b -> b.bucket("async")
                        .key("mp")
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
                                        .build())))
                .get(60, TimeUnit.SECONDS);
        byte[] mp = s3.getObject(b -> b.bucket("async").key("mp"), AsyncResponseTransformer.toBytes())
                .get(60, TimeUnit.SECONDS)
                .asByteArray();
        assertThat(mp.length).isEqualTo(p1.length + p2.length);
        assertThat(md5(java.util.Arrays.copyOfRange(mp, 0, p1.length))).isEqualTo(md5(p1));
    }

    @Test
    void missingKey_failsWithNoSuchKey() {
        CompletableFuture<?> get =
                s3.getObject(b -> b.bucket("async").key("absent"), AsyncResponseTransformer.toBytes());
        assertThat(get)
                .failsWithin(30, TimeUnit.SECONDS)
                .withThrowableThat()
                .havingRootCause()
                .isInstanceOf(NoSuchKeyException.class);
    }
}
