package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.it.crash.CrashRun;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety against the real process: a load of concurrent PUTs, overwrites, deletes and multipart uploads, the
 * appliance JVM killed with SIGKILL at a random moment, restarted, and everything it acknowledged checked, many times
 * in a row ({@link CrashRun}). Sized for the default suite; {@code -Pcrash} (or {@code -Dcrash.kills=N}) runs the long
 * version (docs/reliability.md, "Crash safety (SIGKILL)").
 */
class CrashSafetyIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void everyAcknowledgedOperationSurvivesSigkill() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                tmp.resolve("appliance"), "crash-it-admin", "crash-it-secret-" + UUID.randomUUID()));
        CrashRun.Config config = CrashRun.Config.from(System.getProperties());
        CrashRun run = new CrashRun(config, appliance, CrashSafetyIT::healIdle, System.out);
        CrashRun.Result result = run.run();
        System.out.println(result.summary());

        assertThat(result.failures())
                .as("after %d kills (seed %d)", result.kills(), config.seed())
                .isEmpty();
        if (config.maxMinutes() > 0) {
            assertThat(result.kills())
                    .as("kills within %s minutes", config.maxMinutes())
                    .isPositive();
        } else {
            assertThat(result.kills()).isEqualTo(config.kills());
        }
        assertThat(result.failedBeforeKill())
                .as("operations the live appliance failed (printed above)")
                .isZero();
        assertThat(result.acknowledged())
                .as("operations acknowledged")
                .isGreaterThanOrEqualTo((long) config.minAcknowledgedPerRound() * result.kills());
        assertThat(result.unknownOutcomes())
                .as("operations in flight at the kills (the kills must hit a busy process)")
                .isGreaterThan(0);
        assertThat(result.versionsRead()).isPositive();
        assertThat(result.retentionUpdates())
                .as("retention updates acknowledged")
                .isPositive();
    }

    /**
     * The heal status of the console API: null while the healer still has items (pending or retrying), else the
     * failures it recorded (an empty list when none).
     */
    private static java.util.List<String> healIdle(ApplianceProcess p) {
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(p.consoleUri() + "/api/v1/status"))
                            .timeout(Duration.ofSeconds(30))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("GET /api/v1/status: %s", r.body()).isEqualTo(200);
            JsonNode heal = JSON.readTree(r.body()).path("heal");
            if (heal.path("pending").asLong() > 0 || heal.path("retrying").asLong() > 0) {
                return null;
            }
            java.util.List<String> failed = new java.util.ArrayList<>();
            if (heal.path("failed").asLong() > 0) {
                failed.add(
                        "the healer failed " + heal.path("failed").asLong() + " items: " + heal.path("lastFailures"));
            }
            return failed;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
