package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/** curl with presigned GET and PUT URLs made by the SDK v2 presigner; tampered and expired URLs are refused. */
class PresignedCurlIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;
    private static S3Presigner presigner;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "presign-it-admin", "presign-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
        presigner = S3Presigner.builder()
                .endpointOverride(appliance.s3Endpoint())
                .region(Region.of(ApplianceProcess.REGION))
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(appliance.accessKey(), appliance.secretKey())))
                .build();
        s3.createBucket(b -> b.bucket("presigned"));
    }

    @AfterAll
    static void stop() {
        if (presigner != null) {
            presigner.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static Commands.Result curl(String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("curl", "-sS", "-w", "\n%{http_code}"));
        cmd.addAll(List.of(args));
        return Commands.run(tmp, cmd, Map.of(), 60);
    }

    private static int status(Commands.Result r) {
        String out = r.stdout();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1).strip());
    }

    @Test
    void presignedPutThenGet_withCurl_roundTripsTheContent() throws Exception {
        byte[] data = TestData.bytes(42, 300_000);
        Path upload = tmp.resolve("upload.bin");
        Files.write(upload, data);
        String put = presigner
                .presignPutObject(b -> b.signatureDuration(Duration.ofMinutes(10))
                        .putObjectRequest(r -> r.bucket("presigned").key("dir/curl file.bin")))
                .url()
                .toString();
        Commands.Result up = curl("-o", "/dev/null", "-T", upload.toString(), put);
        assertThat(status(up)).as(up.stderr()).isEqualTo(200);

        String get = presigner
                .presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(10))
                        .getObjectRequest(r -> r.bucket("presigned").key("dir/curl file.bin")))
                .url()
                .toString();
        Path download = tmp.resolve("download.bin");
        Commands.Result down = curl("-o", download.toString(), get);
        assertThat(status(down)).as(down.stderr()).isEqualTo(200);
        assertThat(Files.readAllBytes(download)).isEqualTo(data);
        assertThat(TestData.unquote(s3.headObject(b -> b.bucket("presigned").key("dir/curl file.bin"))
                        .eTag()))
                .isEqualTo(TestData.md5Hex(data));
    }

    @Test
    void tamperedUrls_andUnsignedAmzHeaders_areRefused() {
        s3.putObject(b -> b.bucket("presigned").key("t"), software.amazon.awssdk.core.sync.RequestBody.fromString("t"));
        String get = presigner
                .presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(10))
                        .getObjectRequest(r -> r.bucket("presigned").key("t")))
                .url()
                .toString();
        Commands.Result otherKey = curl(get.replace("/presigned/t?", "/presigned/u?"));
        assertThat(status(otherKey)).isEqualTo(403);
        assertThat(otherKey.stdout())
                .contains("<Code>SignatureDoesNotMatch</Code>")
                .contains("<RequestId>");

        String sig = get.replaceAll(".*X-Amz-Signature=([0-9a-f]{64}).*", "$1");
        String flipped = get.replace(sig, (sig.charAt(0) == 'a' ? "b" : "a") + sig.substring(1));
        assertThat(status(curl(flipped))).isEqualTo(403);

        Commands.Result tooLong = curl(get.replaceAll("X-Amz-Expires=[0-9]+", "X-Amz-Expires=604801"));
        assertThat(status(tooLong)).isEqualTo(400);
        assertThat(tooLong.stdout()).contains("<Code>AuthorizationQueryParametersError</Code>");

        Commands.Result injected = curl("-H", "x-amz-meta-injected: 1", get);
        assertThat(status(injected)).isEqualTo(403);
        assertThat(injected.stdout()).contains("<Code>AccessDenied</Code>").contains("x-amz-meta-injected");

        Commands.Result both = curl(
                "-H",
                "Authorization: AWS4-HMAC-SHA256 Credential=x/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature="
                        + "0".repeat(64),
                get);
        assertThat(status(both)).isEqualTo(400);
        assertThat(both.stdout()).contains("<Code>InvalidArgument</Code>");

        Commands.Result ok = curl(get);
        assertThat(status(ok)).isEqualTo(200);
        assertThat(ok.stdout()).startsWith("t\n");
    }

    @Test
    void expiredUrl_isAccessDenied_requestHasExpired() throws Exception {
        URI get = presigner
                .presignGetObject(b -> b.signatureDuration(Duration.ofSeconds(1))
                        .getObjectRequest(r -> r.bucket("presigned").key("whatever")))
                .url()
                .toURI();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Commands.Result r;
        do {
            r = curl(get.toString());
        } while (!r.stdout().contains("Request has expired") && System.nanoTime() < deadline);
        assertThat(status(r)).isEqualTo(403);
        assertThat(r.stdout()).contains("<Code>AccessDenied</Code>").contains("<Message>Request has expired</Message>");
    }
}
