package dev.appliance.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.console.ConsoleApplication;
import dev.appliance.app.console.health.HealthChecks;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.auth.SigV4;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /actuator/prometheus} on a real appliance (store on four drive directories, the S3 endpoint, the console):
 * refused without the bearer token, and after some S3 traffic the scrape parses and holds the documented metrics with
 * the values that traffic implies; no secret appears in it.
 */
class MetricsEndpointTest {
    static final String ACCESS_KEY = "ROOTKEY";
    static final String SECRET = "metrics-test-secret-key-0123456789";
    static final String TOKEN = "scrape-token-abcdefghijklmnop";

    @TempDir
    static Path tmp;

    static ApplianceStore store;
    static ApplianceMetrics metrics;
    static S3Server s3;
    static ConsoleApplication.Running console;
    static HttpClient http;
    static String scrapeText;
    static Scrape scrape;

    @BeforeAll
    static void startAndSendTraffic() throws Exception {
        List<Path> drives = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            drives.add(Files.createDirectories(tmp.resolve("drive-" + i)));
        }
        store = Stores.open(new StoreConfig(drives, 0, -1, true, Clock.systemUTC()));
        metrics = ApplianceMetrics.of(store);
        CredentialsProvider credentials = k -> k.equals(ACCESS_KEY) ? Optional.of(SECRET) : Optional.empty();
        s3 = S3Server.start(
                store, new S3ServerConfig("127.0.0.1", 0, null, credentials, Authorizer.allowAll()), metrics.s3());
        metrics.watch(s3);
        var properties = ServerOptions.parse(
                        List.of("--console-address", "127.0.0.1:0"), Map.of("APPLIANCE_METRICS_TOKEN", TOKEN), Map.of())
                .properties();
        console = ConsoleApplication.start(properties, store, s3, credentials, Authorizer.allowAll(), metrics);
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        assertThat(s3("PUT", "/photos", "", SECRET, ACCESS_KEY).statusCode()).isEqualTo(200);
        String body = "x".repeat(10_000);
        assertThat(s3("PUT", "/photos/a.jpg", body, SECRET, ACCESS_KEY).statusCode())
                .isEqualTo(200);
        assertThat(s3("PUT", "/photos/b.jpg", body, SECRET, ACCESS_KEY).statusCode())
                .isEqualTo(200);
        assertThat(s3("GET", "/photos/a.jpg", null, SECRET, ACCESS_KEY).body()).isEqualTo(body);
        assertThat(s3("GET", "/photos/none.jpg", null, SECRET, ACCESS_KEY).statusCode())
                .isEqualTo(404);
        assertThat(s3("GET", "/photos/a.jpg", null, "wrong-secret", ACCESS_KEY).statusCode())
                .isEqualTo(403);
        assertThat(s3("GET", "/photos/a.jpg", null, SECRET, "NOSUCHKEY").statusCode())
                .isEqualTo(403);
        store.scanNow();
        metrics.refresh();
        // the health checks' gauges exist once a run ended (the first starts with the console, on its own thread)
        console.context().getBean(HealthChecks.class).runNow(false);

        HttpResponse<String> ok = scrape("Bearer " + TOKEN);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().firstValue("content-type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        scrapeText = ok.body();
        scrape = Scrape.parse(scrapeText);
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.close();
        }
        if (console != null) {
            console.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    void scrape_withoutOrWithAnotherToken_isRefused() throws Exception {
        HttpResponse<String> none = scrape(null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("www-authenticate"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(scrape("Bearer not-the-token").statusCode()).isEqualTo(401);
        assertThat(scrape("Bearer " + TOKEN + "x").statusCode()).isEqualTo(401);
        assertThat(scrape("Basic " + TOKEN).statusCode()).isEqualTo(401);
        assertThat(none.body()).doesNotContain("appliance_");
    }

    @Test
    void requests_areCountedByOperationAndStatus() {
        assertThat(scrape.value("appliance_s3_requests_total", "api", "CreateBucket", "status", "200"))
                .isEqualTo(1);
        assertThat(scrape.value("appliance_s3_requests_total", "api", "PutObject", "status", "200"))
                .isEqualTo(2);
        assertThat(scrape.value("appliance_s3_requests_total", "api", "GetObject", "status", "200"))
                .isEqualTo(1);
        assertThat(scrape.value("appliance_s3_requests_total", "api", "GetObject", "status", "404"))
                .isEqualTo(1);
        // refused by the signature check on the event loop, before an operation was chosen
        assertThat(scrape.value("appliance_s3_requests_total", "api", "Unknown", "status", "403"))
                .isEqualTo(2);
        assertThat(scrape.value("appliance_s3_auth_failures_total", "reason", "signature_mismatch"))
                .isEqualTo(1);
        assertThat(scrape.value("appliance_s3_auth_failures_total", "reason", "unknown_key"))
                .isEqualTo(1);
        assertThat(scrape.value("appliance_s3_auth_failures_total", "reason", "expired"))
                .isZero();
    }

    @Test
    void latency_isAHistogramPerOperationWithBoundedBuckets() {
        assertThat(scrape.value("appliance_s3_request_duration_seconds_count", "api", "PutObject"))
                .isEqualTo(2);
        assertThat(scrape.value("appliance_s3_request_duration_seconds_sum", "api", "PutObject"))
                .isPositive();
        assertThat(scrape.value("appliance_s3_request_duration_seconds_bucket", "api", "PutObject", "le", "+Inf"))
                .isEqualTo(2);
        long buckets = scrape.samples().stream()
                .filter(s -> s.name().equals("appliance_s3_request_duration_seconds_bucket")
                        && "PutObject".equals(s.labels().get("api")))
                .count();
        assertThat(buckets).isEqualTo(S3RequestMeters.LATENCY_BUCKETS.length + 1);
        assertThat(scrape.types()).containsEntry("appliance_s3_request_duration_seconds", "histogram");
    }

    @Test
    void bytes_inAndOut_countTheBodies() {
        assertThat(scrape.value("appliance_s3_received_bytes_total")).isGreaterThanOrEqualTo(20_000);
        assertThat(scrape.value("appliance_s3_sent_bytes_total")).isGreaterThanOrEqualTo(10_000);
    }

    @Test
    void md5OfOneBlockBodies_isCountedByHowItWasComputed() throws Exception {
        double before = scrape.value("appliance_md5_bodies_total", "way", "lanes")
                + scrape.value("appliance_md5_bodies_total", "way", "alone");
        assertThat(scrape.value("appliance_md5_batches_total")).isGreaterThanOrEqualTo(0);
        assertThat(s3("PUT", "/md5-bodies", "", SECRET, ACCESS_KEY).statusCode())
                .isEqualTo(200);
        // a body of one block from 64 KiB up goes to the lanes (hashed alone here: no other write waits)
        assertThat(s3("PUT", "/md5-bodies/one-block", "y".repeat(100_000), SECRET, ACCESS_KEY)
                        .statusCode())
                .isEqualTo(200);
        Scrape after = Scrape.parse(scrape("Bearer " + TOKEN).body());
        assertThat(after.value("appliance_md5_bodies_total", "way", "lanes")
                        + after.value("appliance_md5_bodies_total", "way", "alone"))
                .isGreaterThanOrEqualTo(before + 1);
        assertThat(after.types()).containsEntry("appliance_md5_bodies_total", "counter");
    }

    @Test
    void engineFigures_areThere() {
        assertThat(scrape.value("appliance_capacity_usable_bytes")).isPositive();
        assertThat(scrape.value("appliance_capacity_free_bytes")).isPositive();
        assertThat(scrape.value("appliance_capacity_used_bytes")).isGreaterThanOrEqualTo(0);
        String drive = store.drives().getFirst().root().toString();
        assertThat(scrape.value("appliance_drive_calls_total", "drive", drive, "set", "1"))
                .isPositive();
        assertThat(scrape.value("appliance_drive_call_duration_seconds_total", "drive", drive))
                .isPositive();
        assertThat(scrape.value("appliance_drive_errors_total", "drive", drive)).isZero();
        assertThat(scrape.value("appliance_drive_state", "drive", drive, "state", "online"))
                .isEqualTo(1);
        assertThat(scrape.value("appliance_drive_state", "drive", drive, "state", "faulty"))
                .isZero();
        assertThat(scrape.value("appliance_set_drives_online", "set", "1")).isEqualTo(4);
        assertThat(scrape.value("appliance_set_write_quorum", "set", "1")).isEqualTo(3); // 2+2: data + 1
        assertThat(scrape.value("appliance_heal_queue_pending")).isZero();
        assertThat(scrape.value("appliance_heal_healed_total")).isZero();
        assertThat(scrape.value("appliance_scanner_cycles_total")).isGreaterThanOrEqualTo(1);
        assertThat(scrape.value("appliance_scanner_last_cycle_keys")).isEqualTo(2);
        assertThat(scrape.value("appliance_scanner_last_cycle_duration_seconds"))
                .isGreaterThanOrEqualTo(0);
        // two keys of one version each: both in the first class and every class above it
        assertThat(scrape.value("appliance_keys_by_versions", "le", "1")).isEqualTo(2);
        assertThat(scrape.value("appliance_keys_by_versions", "le", "+Inf")).isEqualTo(2);
        assertThat(scrape.value("appliance_bucket_usage_bytes", "bucket", "photos"))
                .isEqualTo(20_000);
        assertThat(scrape.value("appliance_bucket_objects", "bucket", "photos")).isEqualTo(2);
        assertThat(scrape.value("appliance_alerts_active", "code", "VERSIONS_NEAR_CAP"))
                .isZero();
        assertThat(scrape.value("appliance_s3_connections")).isGreaterThanOrEqualTo(0);
        // every drive is in service: their runtime checks pass (0); a drive that is out of service reads 2
        assertThat(scrape.value("appliance_health_check", "check", "drive.set1.slot1", "source", "runtime"))
                .isZero();
        assertThat(scrape.value("appliance_health_check", "check", "drives.exist", "source", "preflight"))
                .isZero();
        assertThat(scrape.value("appliance_s3_requests_waiting")).isZero();
    }

    @Test
    void scrape_holdsNoSecret() {
        assertThat(scrapeText).isNotEmpty().doesNotContain(SECRET).doesNotContain(TOKEN);
    }

    /** Every metric family the appliance registers is listed in docs/metrics.md, and every one listed exists. */
    @Test
    void docsMetricsPage_listsExactlyTheRegisteredFamilies() throws Exception {
        var documented = MetricsDocs.documentedFamilies();
        var registered = new java.util.TreeSet<String>();
        scrape.types().keySet().stream().filter(n -> n.startsWith("appliance_")).forEach(registered::add);
        assertThat(documented).containsExactlyInAnyOrderElementsOf(registered);
    }

    /** The shipped alert rules and dashboard name only metrics the scrape has. */
    @Test
    void alertRulesAndDashboard_referenceOnlyExistingMetrics() throws Exception {
        var names = scrape.sampleNames();
        var rules = MetricsDocs.alertRuleMetrics();
        assertThat(rules).as("metrics the alert rules use").isNotEmpty();
        assertThat(names).containsAll(rules);
        var panels = MetricsDocs.dashboardMetrics();
        assertThat(panels).as("metrics the dashboard uses").isNotEmpty();
        assertThat(names).containsAll(panels);
    }

    static HttpResponse<String> scrape(String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + console.port() + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(30))
                .GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One path-style S3 request, SigV4-signed with {@code secret} for {@code accessKey}. */
    static HttpResponse<String> s3(String method, String path, String body, String secret, String accessKey)
            throws Exception {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        String payload = SigV4.sha256Hex(bytes);
        TreeMap<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of("127.0.0.1:" + s3.port()));
        headers.put("x-amz-content-sha256", List.of(payload));
        headers.put("x-amz-date", List.of(amzDate));
        String signature =
                SigV4.sign(secret, date, S3ServerConfig.DEFAULT_REGION, amzDate, method, path, "", headers, payload);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s3.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(bytes))
                .header("x-amz-content-sha256", payload)
                .header("x-amz-date", amzDate)
                .header(
                        "Authorization",
                        SigV4.ALGORITHM + " Credential=" + accessKey + "/"
                                + SigV4.scope(date, S3ServerConfig.DEFAULT_REGION, "s3")
                                + ", SignedHeaders=" + String.join(";", headers.keySet()) + ", Signature="
                                + signature)
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
