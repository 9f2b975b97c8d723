package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.testing.TestStore;
import dev.appliance.installer.system.SystemView;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.support.GenericApplicationContext;

/**
 * {@code /api/v1/health/checks} on a real console over a real four-drive store: denied by default (401 anonymous, 403
 * without the action, the auditor reads but does not run), the preflight and runtime checks in one list; a drive whose
 * directory is moved away fails its check, raises a critical alert and sets its gauge to 2, and all of it clears once
 * the directory is back.
 */
class HealthChecksResourceTest {
    private static final String SECRET = "health-checks-test-secret-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static NewAccessKey unprivileged;
    private static NewAccessKey auditor;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        IdentityStore identity = store.identity();
        identity.createUser("nobody");
        unprivileged = identity.createAccessKey("nobody");
        identity.createUser("watcher");
        identity.attachUserPolicy("watcher", "arn:aws:iam::aws:policy/auditor");
        auditor = identity.createAccessKey("watcher");
        // the host's files as they are, its NTP state fixed: time.sync is not this test's subject
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET, c -> ((GenericApplicationContext) c)
                .registerBean(
                        SystemView.class, () -> new SystemView(Path.of("/"), () -> HostTimeSync.State.SYNCHRONIZED)));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    private static JsonNode check(JsonNode report, String id) {
        for (JsonNode c : report.path("checks")) {
            if (c.path("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError("no check " + id + " in " + report);
    }

    private static JsonNode alert(String id) throws Exception {
        HttpResponse<String> r = app.signed("GET", "/api/v1/admin/alerts?all=true", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        for (JsonNode a : json(r).path("alerts")) {
            if (a.path("id").asText().equals(id)) {
                return a;
            }
        }
        return null;
    }

    private static double gauge(String check) {
        Gauge g = app.console
                .context()
                .getBean(MeterRegistry.class)
                .find("appliance.health.check")
                .tag("check", check)
                .gauge();
        assertThat(g).as("gauge of " + check).isNotNull();
        return g.value();
    }

    @Test
    void theChecks_areDeniedByDefault_readByAuditors_andRunByAdmins() throws Exception {
        assertThat(app.send("GET", "/api/v1/health/checks", null, null).statusCode())
                .isEqualTo(401);
        assertThat(app.send("POST", "/api/v1/health/checks/run", null, null).statusCode())
                .isEqualTo(401);
        String key = unprivileged.key().accessKeyId();
        assertThat(app.sendAs("GET", "/api/v1/health/checks", null, key, unprivileged.secretAccessKey())
                        .statusCode())
                .isEqualTo(403);
        assertThat(app.sendAs("POST", "/api/v1/health/checks/run", null, key, unprivileged.secretAccessKey())
                        .statusCode())
                .isEqualTo(403);
        String watcher = auditor.key().accessKeyId();
        HttpResponse<String> read =
                app.sendAs("GET", "/api/v1/health/checks", null, watcher, auditor.secretAccessKey());
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(app.sendAs("POST", "/api/v1/health/checks/run", null, watcher, auditor.secretAccessKey())
                        .statusCode())
                .isEqualTo(403);

        HttpResponse<String> run = app.signed("POST", "/api/v1/health/checks/run", null);
        assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
        for (JsonNode report : List.of(json(read), json(run))) {
            List<String> names = new ArrayList<>();
            report.fieldNames().forEachRemaining(names::add);
            assertThat(names).containsExactly("checkedAt", "preflightCheckedAt", "result", "checks");
            assertThat(Instant.parse(report.path("checkedAt").asText())).isBeforeOrEqualTo(Instant.now());
            assertThat(Instant.parse(report.path("preflightCheckedAt").asText()))
                    .isBeforeOrEqualTo(Instant.parse(report.path("checkedAt").asText()));
            String worst = "pass";
            for (JsonNode c : report.path("checks")) {
                List<String> fields = new ArrayList<>();
                c.fieldNames().forEachRemaining(fields::add);
                assertThat(fields).containsExactly("id", "result", "measured", "expected", "remediation", "source");
                assertThat(c.path("result").asText()).isIn("pass", "warn", "fail");
                assertThat(c.path("source").asText()).isIn("preflight", "runtime");
                // a warn or fail always says what to do
                assertThat(c.path("remediation").asText().isBlank())
                        .as(c.toString())
                        .isEqualTo(c.path("result").asText().equals("pass"));
                worst = c.path("result").asText().equals("fail") || worst.equals("fail")
                        ? "fail"
                        : c.path("result").asText().equals("warn") ? "warn" : worst;
            }
            assertThat(report.path("result").asText()).isEqualTo(worst);
            assertThat(check(report, "drives.exist").path("source").asText()).isEqualTo("preflight");
            assertThat(check(report, "drives.count").path("measured").asText()).isEqualTo("4 drives: 1 set of 4");
            assertThat(check(report, "time.sync").path("result").asText()).isEqualTo("pass");
            JsonNode drive = check(report, "drive.set1.slot1");
            assertThat(drive.path("source").asText()).isEqualTo("runtime");
            assertThat(drive.path("result").asText()).isEqualTo("pass");
            assertThat(drive.path("measured").asText())
                    .contains(tmp.resolve("drive1").toString() + " online");
            assertThat(check(report, "quorum.set1").path("result").asText()).isEqualTo("pass");
            assertThat(check(report, "clock.retention").path("source").asText()).isEqualTo("runtime");
        }
    }

    @Test
    void aDriveMovedAway_failsItsCheck_raisesACriticalAlert_andClearsOnceBack() throws Exception {
        Path drive = tmp.resolve("drive2");
        Path away = tmp.resolve("drive2-away");
        String id = "drive.set1.slot2";
        String alertId = "DRIVE_OUT_OF_SERVICE:" + id;
        Files.move(drive, away);
        try {
            HttpResponse<String> run = app.signed("POST", "/api/v1/health/checks/run", null);
            assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
            JsonNode report = json(run);
            JsonNode c = check(report, id);
            assertThat(c.path("result").asText()).isEqualTo("fail");
            assertThat(c.path("measured").asText()).contains(drive.toString(), "offline");
            assertThat(c.path("remediation").asText()).contains("mount it again at " + drive);
            assertThat(report.path("result").asText()).isEqualTo("fail");
            assertThat(check(report, "drives.exist").path("result").asText()).isEqualTo("fail");
            assertThat(alert("HEALTH_CHECK_FAILED:drives.exist").path("state").asText())
                    .isEqualTo("active");
            assertThat(gauge(id)).isEqualTo(2);

            JsonNode a = alert(alertId);
            assertThat(a).as("alert " + alertId).isNotNull();
            assertThat(a.path("state").asText()).isEqualTo("active");
            assertThat(a.path("severity").asText()).isEqualTo("CRITICAL");
            assertThat(a.path("bucket").isNull()).isTrue();
            assertThat(a.path("summary").asText()).contains(id, "fail");
            assertThat(a.path("remedy").asText()).contains("mount it again", "docs/alerts.md#drive_out_of_service");
            // a second run updates the same alert, never adds one
            assertThat(app.signed("POST", "/api/v1/health/checks/run", null).statusCode())
                    .isEqualTo(200);
            assertThat(alert(alertId).path("timesRaised").asInt()).isEqualTo(1);
        } finally {
            Files.move(away, drive);
        }
        HttpResponse<String> again = app.signed("POST", "/api/v1/health/checks/run", null);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(check(json(again), id).path("result").asText()).isEqualTo("pass");
        assertThat(gauge(id)).isZero();
        assertThat(alert(alertId).path("state").asText()).isEqualTo("cleared");
        assertThat(app.store.versionAlerts().summary().ids())
                .doesNotContainAnyElementsOf(Set.of(alertId, "HEALTH_CHECK_FAILED:drives.exist"));
    }
}
