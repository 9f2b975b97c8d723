package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The Prometheus scrape of a real process started with a metrics token: refused without the token, and after S3 calls
 * made with the AWS SDK its counters moved as those calls imply; neither the S3 secret key nor the token appears in the
 * scrape or the process's output.
 */
class MetricsIT {
    private static final String TOKEN = "metrics-it-token-" + UUID.randomUUID();
    private static final int OBJECT_SIZE = 50_000;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "metrics-it-admin", "metrics-it-secret-" + UUID.randomUUID())
                        .withEnv("APPLIANCE_METRICS_TOKEN", TOKEN))
                .start();
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static HttpResponse<String> scrape(String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(appliance.consoleUri().resolve("/actuator/prometheus"))
                .timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the one sample {@code name{labels}} (labels in the order Prometheus writes them: sorted), or 0. */
    private static double sample(String text, String name, String labels) {
        Pattern p = Pattern.compile(
                "(?m)^" + Pattern.quote(name + (labels.isEmpty() ? "" : "{" + labels + "}")) + " (\\S+)$");
        Matcher m = p.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void scrape_countsTheSdksCalls_andHoldsNoSecret() throws Exception {
        assertThat(scrape(null).statusCode()).isEqualTo(401);
        assertThat(scrape("Bearer wrong-" + TOKEN).statusCode()).isEqualTo(401);
        HttpResponse<String> first = scrape("Bearer " + TOKEN);
        assertThat(first.statusCode()).isEqualTo(200);
        double putsBefore = sample(first.body(), "appliance_s3_requests_total", "api=\"PutObject\",status=\"200\"");
        double inBefore = sample(first.body(), "appliance_s3_received_bytes_total", "");
        double outBefore = sample(first.body(), "appliance_s3_sent_bytes_total", "");

        S3Client s3 = appliance.client();
        s3.createBucket(b -> b.bucket("metrics"));
        byte[] data = TestData.bytes(7, OBJECT_SIZE);
        for (int i = 0; i < 3; i++) {
            String key = "obj-" + i;
            s3.putObject(b -> b.bucket("metrics").key(key), RequestBody.fromBytes(data));
        }
        assertThat(s3.getObjectAsBytes(b -> b.bucket("metrics").key("obj-0")).asByteArray())
                .isEqualTo(data);
        try (S3Client wrong = appliance.client(appliance.accessKey(), "not-the-secret", b -> {})) {
            assertThatThrownBy(() -> wrong.listBuckets())
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        }

        String text = scrape("Bearer " + TOKEN).body();
        assertThat(sample(text, "appliance_s3_requests_total", "api=\"PutObject\",status=\"200\"") - putsBefore)
                .isEqualTo(3);
        assertThat(sample(text, "appliance_s3_requests_total", "api=\"CreateBucket\",status=\"200\""))
                .isEqualTo(1);
        assertThat(sample(text, "appliance_s3_requests_total", "api=\"GetObject\",status=\"200\""))
                .isEqualTo(1);
        assertThat(sample(text, "appliance_s3_request_duration_seconds_count", "api=\"PutObject\""))
                .isEqualTo(3);
        assertThat(sample(text, "appliance_s3_received_bytes_total", "") - inBefore)
                .isGreaterThanOrEqualTo(3.0 * OBJECT_SIZE);
        assertThat(sample(text, "appliance_s3_sent_bytes_total", "") - outBefore)
                .isGreaterThanOrEqualTo(OBJECT_SIZE);
        assertThat(sample(text, "appliance_s3_auth_failures_total", "reason=\"signature_mismatch\""))
                .isGreaterThanOrEqualTo(1);
        assertThat(text).contains("appliance_drive_calls_total{drive=\"");
        assertThat(sample(text, "appliance_capacity_usable_bytes", "")).isPositive();
        assertThat(sample(text, "appliance_set_drives_online", "set=\"1\"")).isEqualTo(4);

        assertThat(text).doesNotContain(appliance.secretKey()).doesNotContain(TOKEN);
        assertThat(appliance.logs()).doesNotContain(TOKEN);
    }
}
