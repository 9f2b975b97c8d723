package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.app.metrics.ApplianceMetrics;
import dev.appliance.app.metrics.TrafficHistory;
import dev.appliance.core.SteppedClock;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.api.S3Dispatcher.Operation;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.support.GenericApplicationContext;

/**
 * {@code GET /api/v1/admin/metrics/history} on a real console over a real store, with the appliance's metrics and a
 * clock the test moves: the S3 meters fed as the endpoint feeds them show as rates per interval, the forecast says why
 * it has no figure yet, an auditor reads it and a user without a policy does not.
 */
class MetricsHistoryResourceTest {
    private static final String SECRET = "root-secret-for-the-history-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = 1_000_000L;

    @TempDir
    static Path tmp;

    private static final SteppedClock CLOCK = new SteppedClock(Instant.parse("2026-11-26T12:00:00Z"));
    private static ConsoleTestAppliance app;
    private static ApplianceMetrics metrics;
    private static NewAccessKey auditor;
    private static NewAccessKey nobody;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 3);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.identity().createUser("watcher");
        store.identity().attachUserPolicy("watcher", "arn:aws:iam::aws:policy/auditor");
        auditor = store.identity().createAccessKey("watcher");
        store.identity().createUser("nobody");
        nobody = store.identity().createAccessKey("nobody");
        metrics = ApplianceMetrics.of(store, TrafficHistory.Settings.DEFAULT, CLOCK);
        app = ConsoleTestAppliance.startWithIdentity(
                store, SECRET, c -> metrics.beans().initialize((GenericApplicationContext) c));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }

    @Test
    void theHistory_showsTheS3TrafficPerInterval_andTheForecastSaysWhatItRestsOn() throws Exception {
        TrafficHistory history = metrics.history();
        history.sampleTraffic(); // the baseline, as the metrics thread takes it at start
        history.sampleCapacity();
        for (int i = 0; i < 30; i++) {
            metrics.s3().requestCompleted(Operation.PUT_OBJECT, 200, 4 * MS);
        }
        metrics.s3().requestCompleted(Operation.GET_OBJECT, 500, 40 * MS);
        metrics.s3().bytesReceived(3_000_000);
        metrics.s3().bytesSent(10_000);
        CLOCK.advance(Duration.ofSeconds(10));
        history.sampleTraffic();
        metrics.s3().requestCompleted(Operation.LIST_OBJECTS_V2, 200, 30 * MS);
        CLOCK.advance(Duration.ofSeconds(10));
        history.sampleTraffic();

        HttpResponse<String> r = app.signed("GET", "/api/v1/admin/metrics/history", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(names(body)).containsExactly("intervalSeconds", "points", "forecast");
        assertThat(body.path("intervalSeconds").asDouble()).isEqualTo(10.0);
        JsonNode points = body.path("points");
        assertThat(points).hasSize(2);
        JsonNode first = points.get(0);
        assertThat(names(first))
                .containsExactly(
                        "time",
                        "requestsPerSecond",
                        "bytesInPerSecond",
                        "bytesOutPerSecond",
                        "errorsPerSecond",
                        "rejectedPerSecond",
                        "latencyMsMean",
                        "latencyMsP50",
                        "latencyMsP99");
        assertThat(first.path("time").asText()).isEqualTo("2026-11-26T12:00:10Z");
        assertThat(first.path("requestsPerSecond").asDouble()).isEqualTo(3.1);
        assertThat(first.path("bytesInPerSecond").asDouble()).isEqualTo(300_000.0);
        assertThat(first.path("bytesOutPerSecond").asDouble()).isEqualTo(1_000.0);
        assertThat(first.path("errorsPerSecond").asDouble()).isEqualTo(0.1);
        assertThat(first.path("rejectedPerSecond").asDouble()).isZero();
        assertThat(first.path("latencyMsMean").asDouble()).isEqualTo((30 * 4 + 40) / 31.0, within());
        assertThat(first.path("latencyMsP50").asDouble()).isEqualTo(5.0);
        assertThat(first.path("latencyMsP99").asDouble()).isEqualTo(50.0);
        JsonNode second = points.get(1);
        assertThat(second.path("time").asText()).isEqualTo("2026-11-26T12:00:20Z");
        assertThat(second.path("requestsPerSecond").asDouble()).isEqualTo(0.1);
        assertThat(second.path("bytesInPerSecond").asDouble()).isZero();

        // one capacity measurement of the real drives: no figure, and the reason says why
        JsonNode forecast = body.path("forecast");
        assertThat(names(forecast)).containsExactly("daysToFull", "basedOnHours", "growthBytesPerDay", "reason");
        assertThat(forecast.path("daysToFull").isNull()).isTrue();
        assertThat(forecast.path("basedOnHours").asDouble()).isZero();
        assertThat(forecast.path("reason").asText())
                .isEqualTo("Not enough history yet: usage has been measured over 0 min (1 measurement); a forecast"
                        + " needs at least two spanning 60 min.");
    }

    @Test
    void anAuditorReadsTheHistory_aUserWithoutAPolicyDoesNot() throws Exception {
        assertThat(app.sendAs(
                                "GET",
                                "/api/v1/admin/metrics/history",
                                null,
                                auditor.key().accessKeyId(),
                                auditor.secretAccessKey())
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<String> refused = app.sendAs(
                "GET", "/api/v1/admin/metrics/history", null, nobody.key().accessKeyId(), nobody.secretAccessKey());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(app.send("GET", "/api/v1/admin/metrics/history", null, null).statusCode())
                .isIn(401, 403);
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(0.001);
    }

    private static List<String> names(JsonNode node) {
        return iterable(node.fieldNames());
    }

    private static List<String> iterable(java.util.Iterator<String> it) {
        List<String> out = new java.util.ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
