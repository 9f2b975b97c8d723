package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.TestDriveSettings;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.testing.TestStore;
import dev.appliance.installer.system.SystemView;
import dev.appliance.s3.auth.Authorizer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A drive that stalls, end to end on a real console over a real four-drive store: a commit stalled by fault injection
 * overruns the drive timeout (set to 500 ms), the engine takes the drive out of service as faulty, and the next
 * scheduled runtime check (every second here, the preflight rules every hour) reports {@code drive.set1.slot2} failed
 * and raises {@code DRIVE_OUT_OF_SERVICE}, without anyone asking for a run; once the drive is back, the next one clears
 * it. The preflight rules do not run meanwhile; a requested run runs them.
 */
class DriveStallHealthChecksTest {
    private static final String SECRET = "drive-stall-health-test-secret-0123";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DRIVE = "drive.set1.slot2";
    private static final String ALERT = "DRIVE_OUT_OF_SERVICE:" + DRIVE;
    /** Far above the 1 s runtime interval and the 3 s stall, for a loaded machine. */
    private static final Duration AWAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private static JsonNode check(JsonNode report, String id) {
        for (JsonNode c : report.path("checks")) {
            if (c.path("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError("no check " + id + " in " + report);
    }

    private static JsonNode report(ConsoleTestAppliance app) throws Exception {
        HttpResponse<String> r = app.signed("GET", "/api/v1/health/checks", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** A read of the console that may fail (a request). */
    private interface Read<T> {
        T get() throws Exception;
    }

    /**
     * Reads until {@code done} holds, as the scheduled runs leave their results; never asks for a run. (A run publishes
     * its report before it updates the alerts, so each is awaited on its own.)
     */
    private static <T> T await(String what, Read<T> read, Predicate<T> done) throws Exception {
        long deadline = System.nanoTime() + AWAIT.toNanos();
        while (true) {
            T value = read.get();
            if (done.test(value)) {
                return value;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + AWAIT.toSeconds() + " s: " + what + "; last read " + value);
            }
            Thread.sleep(50);
        }
    }

    private static String result(JsonNode report, String id) {
        return check(report, id).path("result").asText();
    }

    private static String state(JsonNode alert) {
        return alert == null ? "absent" : alert.path("state").asText();
    }

    private static JsonNode alert(ConsoleTestAppliance app, String id) throws Exception {
        HttpResponse<String> r = app.signed("GET", "/api/v1/admin/alerts?all=true", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        for (JsonNode a : JSON.readTree(r.body()).path("alerts")) {
            if (a.path("id").asText().equals(id)) {
                return a;
            }
        }
        return null;
    }

    @Test
    void aStalledDrive_isTakenOutByTheEngine_andTheNextScheduledRuntimeCheckFailsItAndRaisesTheAlert()
            throws Exception {
        // a short drive timeout instead of 30 s; no periodic drive check of the engine: the test brings the drive back
        // once done with it, so a loaded machine cannot end the fault before a scheduled health check saw it
        ApplianceStore store = Stores.open(TestStore.on(tmp)
                .driveSettings(TestDriveSettings.deadline(Duration.ofMillis(500), 10))
                .config());
        store.makeBucket("bucket");
        Map<String, String> settings = Map.of(
                "appliance.health.drive-checks-interval", "1s",
                "appliance.health.checks-interval", "1h");
        try (ConsoleTestAppliance app = ConsoleTestAppliance.start(
                store, SECRET, Authorizer.allowAll(), settings, c -> ((GenericApplicationContext) c)
                        // the host's files as they are, its NTP state fixed: asking the host takes seconds here
                        .registerBean(
                                SystemView.class,
                                () -> new SystemView(Path.of("/"), () -> HostTimeSync.State.SYNCHRONIZED)))) {
            JsonNode first = report(app);
            assertThat(check(first, DRIVE).path("result").asText()).isEqualTo("pass");
            Instant preflightAt = Instant.parse(first.path("preflightCheckedAt").asText());

            // the second drive's commits stall 3 s: a write's commit overruns the 500 ms timeout there
            HttpResponse<String> inject =
                    app.signed("PUT", "/api/v1/admin/test/faults/1", "{\"commitStallMillis\": 3000}");
            assertThat(inject.statusCode()).as(inject.body()).isEqualTo(200);
            HttpResponse<String> put = app.s3As("PUT", "/bucket/key", "data", ConsoleTestAppliance.ACCESS_KEY, SECRET);
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(app.store.drives().get(1).isFaulty()).isTrue();

            JsonNode failed = await(
                    DRIVE + " failed", () -> report(app), r -> result(r, DRIVE).equals("fail"));
            JsonNode c = check(failed, DRIVE);
            assertThat(c.path("source").asText()).isEqualTo("runtime");
            assertThat(c.path("measured").asText())
                    .startsWith(tmp.resolve("drive2") + " faulty: stalled")
                    .contains("did not answer within 500 ms");
            assertThat(c.path("remediation").asText()).contains("overran the drive timeout", "smartctl -a");
            // 3 of 4 still write: the set keeps its quorum
            assertThat(check(failed, "quorum.set1").path("result").asText()).isEqualTo("pass");
            // the runtime checks ran on their own schedule; the preflight rules did not run again
            assertThat(Instant.parse(failed.path("preflightCheckedAt").asText()))
                    .isEqualTo(preflightAt);
            assertThat(Instant.parse(failed.path("checkedAt").asText())).isAfter(preflightAt);

            JsonNode a = await(ALERT + " raised", () -> alert(app, ALERT), x -> state(x).equals("active"));
            assertThat(a.path("severity").asText()).isEqualTo("CRITICAL");
            assertThat(a.path("summary").asText()).contains(DRIVE, "faulty");

            // the stall ends, the engine's drive check (its probe) brings the drive back, the next scheduled run clears
            // the alert
            assertThat(app.signed("DELETE", "/api/v1/admin/test/faults/1", null).statusCode())
                    .isEqualTo(200);
            await(
                    "the drive back in service",
                    () -> {
                        app.store.checkDrivesNow();
                        return app.store.drives().get(1).isOnline();
                    },
                    online -> online);
            await(DRIVE + " passing again", () -> report(app), r -> result(r, DRIVE)
                    .equals("pass"));
            await(ALERT + " cleared", () -> alert(app, ALERT), x -> state(x).equals("cleared"));

            // a requested run runs the preflight rules too
            HttpResponse<String> run = app.signed("POST", "/api/v1/health/checks/run", null);
            assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
            assertThat(Instant.parse(
                            JSON.readTree(run.body()).path("preflightCheckedAt").asText()))
                    .isAfter(preflightAt);
        }
    }
}
