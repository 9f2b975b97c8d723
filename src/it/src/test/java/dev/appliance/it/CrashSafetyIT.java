package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.appliance.it.crash.CrashRun;
import java.nio.file.Path;
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
        CrashRun run =
                new CrashRun(config, appliance, CrashSafetyIT::healIdle, CrashSafetyIT::auditedLockedPuts, System.out);
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
        assertThat(result.lockedPutsAudited())
                .as("PUTs with Object Lock headers acknowledged and found in the audit log")
                .isPositive();
    }

    /** The request ids of the allowed PutObject calls on the lock bucket that the audit log's export holds. */
    private static java.util.Set<String> auditedLockedPuts(ApplianceProcess p) {
        AdminApi.Answer export = new AdminApi(p, p.workDir())
                .call("GET", "/api/v1/admin/audit/export?action=s3%3APutObject&bucket=" + CrashRun.LOCKED, null);
        assertThat(export.status()).as(export.body()).isEqualTo(200);
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (JsonNode e : export.jsonLines()) {
            // the filter's action is a prefix: PutObjectRetention and PutObjectLegalHold match it too
            if (e.path("action").asText().equals("s3:PutObject")
                    && e.path("outcome").asText().equals("allowed")
                    && e.path("status").asInt() == 200) {
                ids.add(e.path("requestId").asText());
            }
        }
        return ids;
    }

    /**
     * The heal status of the console API: null while the healer still has items (pending or retrying), else the
     * failures it recorded (an empty list when none).
     */
    private static java.util.List<String> healIdle(ApplianceProcess p) {
        // the signed status: the public one has the counts but not the failures by name
        JsonNode heal = new AdminApi(p, p.workDir()).status().path("heal");
        if (heal.path("pending").asLong() > 0 || heal.path("retrying").asLong() > 0) {
            return null;
        }
        java.util.List<String> failed = new java.util.ArrayList<>();
        if (heal.path("failed").asLong() > 0) {
            failed.add("the healer failed " + heal.path("failed").asLong() + " items: " + heal.path("lastFailures"));
        }
        return failed;
    }
}
