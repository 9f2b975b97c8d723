package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.auth.Authorizer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API's JSON, field by field, as the CLI ({@code appliance heal}, {@code appliance alerts}), the
 * integration tests and monitoring read it (docs/operations.md), through a real console over real drives; and bad
 * request bodies answered with a 400 problem naming the field.
 */
class ConsoleResponseShapeTest {
    private static final String SECRET = "root-secret-for-the-shape-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;
    private static S3Server s3;

    @BeforeAll
    static void start() throws Exception {
        store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        store.scanNow(); // a completed scanner cycle, so that lastCycle has its fields
        app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {});
        s3 = app.s3;
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        } else if (store != null) {
            store.close();
        }
    }

    private static final List<String> DRIVE_FIELDS =
            List.of("path", "set", "slot", "state", "online", "problem", "slowCalls", "ioErrors", "faultsInjected");
    private static final List<String> CLOCK_FIELDS = List.of(
            "trustedTime",
            "systemTime",
            "systemClockBelieved",
            "ntp",
            "forwardJumpNotBelievedAtStartSeconds",
            "healthy");

    @Test
    void status_publicAndAdmin() throws Exception {
        JsonNode pub = get("/api/v1/status", false);
        assertThat(names(pub))
                .containsExactlyInAnyOrder(
                        "sets", "drivesPerSet", "parity", "drives", "heal", "retentionClock", "alerts");
        assertThat(names(pub.get("drives").get(0)))
                .containsExactlyInAnyOrder("set", "slot", "state", "online", "slowCalls", "ioErrors", "faultsInjected");
        assertThat(names(pub.get("heal")))
                .containsExactlyInAnyOrder("pending", "retrying", "healed", "failed", "drivesHealing");
        assertThat(names(pub.get("retentionClock"))).containsExactlyInAnyOrderElementsOf(CLOCK_FIELDS);
        assertThat(names(pub.get("alerts"))).containsExactlyInAnyOrder("active", "unacknowledged", "critical");
        assertThat(pub.get("sets").isInt()).isTrue();
        assertThat(pub.get("drives").get(0).get("set").asInt()).isEqualTo(1);
        assertThat(pub.get("drives").get(0).get("state").asText()).isEqualTo("online");
        assertThat(pub.get("retentionClock").get("healthy").isBoolean()).isTrue();

        JsonNode admin = get("/api/v1/admin/status", true);
        assertThat(names(admin))
                .containsExactlyInAnyOrder(
                        "deploymentId",
                        "retentionClock",
                        "s3Port",
                        "sets",
                        "drivesPerSet",
                        "parity",
                        "drives",
                        "heal",
                        "alerts");
        assertThat(admin.get("s3Port").asInt()).isEqualTo(s3.port());
        assertThat(names(admin.get("drives").get(3))).containsExactlyInAnyOrderElementsOf(DRIVE_FIELDS);
        assertThat(admin.get("drives").get(3).get("problem").asText()).isEmpty(); // online: no problem
        assertThat(admin.get("drives").get(3).get("slot").asInt()).isEqualTo(4);
        assertThat(names(admin.get("heal")))
                .containsExactlyInAnyOrder(
                        "pending", "spilled", "retrying", "healed", "failed", "lastFailures", "drives");
        assertThat(admin.get("heal").get("lastFailures").isArray()).isTrue();
        assertThat(names(admin.get("alerts"))).containsExactlyInAnyOrder("active", "unacknowledged", "critical", "ids");
        assertThat(names(admin.get("retentionClock"))).containsExactlyInAnyOrderElementsOf(CLOCK_FIELDS);
    }

    @Test
    void heal_drivesAndRetry() throws Exception {
        JsonNode drives = get("/api/v1/admin/heal/drives", true);
        assertThat(names(drives)).containsExactlyInAnyOrder("drives", "heals");
        assertThat(drives.get("drives")).hasSize(4);
        assertThat(names(drives.get("drives").get(0))).containsExactlyInAnyOrderElementsOf(DRIVE_FIELDS);
        assertThat(drives.get("heals").isArray()).isTrue();

        HttpResponse<String> retry = send("POST", "/api/v1/admin/heal/retry", null);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(names(JSON.readTree(retry.body()))).containsExactly("pending");
    }

    @Test
    void scanner_settingsAndLastCycle() throws Exception {
        JsonNode scanner = get("/api/v1/admin/scanner", true);
        assertThat(names(scanner))
                .containsExactly("lifecycleDaySeconds", "maxVersionsPerKey", "healChecks", "lastCycle");
        assertThat(scanner.get("lifecycleDaySeconds").asDouble()).isEqualTo(86_400.0);
        assertThat(names(scanner.get("lastCycle")))
                .containsExactly("cycle", "started", "finished", "buckets", "drives");
        assertThat(scanner.get("lastCycle").get("buckets").has("bkt")).isTrue();
    }

    @Test
    void alerts_listAndUnknownAck() throws Exception {
        JsonNode alerts = get("/api/v1/admin/alerts?all=true", true);
        assertThat(names(alerts)).containsExactly("active", "unacknowledged", "critical", "alerts");
        assertThat(alerts.get("alerts").isArray()).isTrue();
        HttpResponse<String> ack = send("POST", "/api/v1/admin/alerts/NO_SUCH%3Ax/ack", null);
        assertThat(ack.statusCode()).isEqualTo(404);
        assertThat(names(JSON.readTree(ack.body()))).contains("type", "title", "status", "detail", "code", "message");
        assertThat(JSON.readTree(ack.body()).get("code").asText()).isEqualTo("NO_SUCH_ALERT");
    }

    @Test
    void bucketSettings_getPutAndBadBodies() throws Exception {
        HttpResponse<String> put = send(
                "PUT", "/api/v1/admin/buckets/bkt/settings", "{\"quotaBytes\":1000000,\"versionAlertThreshold\":50}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        JsonNode settings = JSON.readTree(put.body());
        assertThat(names(settings))
                .containsExactly(
                        "bucket",
                        "quotaBytes",
                        "sosapi",
                        "versionAlertThreshold",
                        "versionAlertThresholdInEffect",
                        "usage",
                        "pool");
        assertThat(settings.get("quotaBytes").asLong()).isEqualTo(1_000_000);
        assertThat(settings.get("sosapi").isNull()).isTrue();
        assertThat(settings.get("versionAlertThresholdInEffect").asInt()).isEqualTo(50);
        assertThat(names(settings.get("usage")))
                .containsExactlyInAnyOrder("objects", "versions", "deleteMarkers", "bytes", "countedAt");
        assertThat(names(settings.get("pool"))).containsExactlyInAnyOrder("usableBytes", "freeBytes");
        assertThat(names(get("/api/v1/admin/buckets/bkt/settings", true))).isEqualTo(names(settings));

        // a value of the wrong type is named, not a bare 400 page or a stack trace
        HttpResponse<String> wrongType = send("PUT", "/api/v1/admin/buckets/bkt/settings", "{\"quotaBytes\":\"lots\"}");
        assertThat(wrongType.statusCode()).isEqualTo(400);
        JsonNode problem = JSON.readTree(wrongType.body());
        assertThat(names(problem)).contains("type", "title", "status", "detail", "code", "message");
        assertThat(problem.get("code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(problem.get("message").asText()).contains("quotaBytes").contains("lots");
        // RFC 9457: its media type, the status again, and the field at fault by name
        assertThat(wrongType.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(problem.get("status").asInt()).isEqualTo(400);
        assertThat(problem.get("field").asText()).isEqualTo("quotaBytes");
        assertThat(problem.get("type").asText()).isEqualTo("urn:appliance:problem:INVALID_ARGUMENT");
        HttpResponse<String> notJson = send("PUT", "/api/v1/admin/buckets/bkt/settings", "{quota");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(names(JSON.readTree(notJson.body())))
                .contains("type", "title", "status", "detail", "code", "message");
        assertThat(store.bucketSettings("bkt").quotaBytes()).isEqualTo(1_000_000L);
    }

    @Test
    void errorsSpringRaisesBeforeAControllerAreProblemsToo() throws Exception {
        HttpResponse<String> noRoute = send("GET", "/api/v1/admin/no-such-thing", null);
        assertThat(noRoute.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(noRoute.body()).get("code").asText()).isEqualTo("NoSuchRoute");
        HttpResponse<String> method = send("DELETE", "/api/v1/admin/scanner", null);
        assertThat(method.statusCode()).isEqualTo(405);
        JsonNode problem = JSON.readTree(method.body());
        assertThat(problem.get("code").asText()).isEqualTo("MethodNotAllowed");
        assertThat(problem.get("status").asInt()).isEqualTo(405);
    }

    @Test
    void faults_listPutClearAndBadBodies() throws Exception {
        List<String> fields = List.of(
                "drive", "path", "readErrors", "writeErrors", "diskFull", "gone", "latencyMillis", "commitStallMillis");
        JsonNode list = get("/api/v1/admin/test/faults", true);
        assertThat(list).hasSize(4);
        assertThat(names(list.get(0))).containsExactlyElementsOf(fields);
        HttpResponse<String> put = send("PUT", "/api/v1/admin/test/faults/2", "{\"latencyMillis\":5}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        JsonNode one = JSON.readTree(put.body());
        assertThat(names(one)).containsExactlyElementsOf(fields);
        assertThat(one.get("latencyMillis").asLong()).isEqualTo(5);
        assertThat(one.get("readErrors").asBoolean()).isFalse();
        HttpResponse<String> clear = send("DELETE", "/api/v1/admin/test/faults/2", null);
        assertThat(JSON.readTree(clear.body()).get("latencyMillis").asLong()).isZero();

        HttpResponse<String> wrongType = send("PUT", "/api/v1/admin/test/faults/1", "{\"gone\":\"maybe\"}");
        assertThat(wrongType.statusCode()).isEqualTo(400);
        JsonNode problem = JSON.readTree(wrongType.body());
        assertThat(names(problem)).contains("type", "title", "status", "detail", "code", "message");
        assertThat(problem.get("code").asText()).isEqualTo("InvalidArgument");
        assertThat(problem.get("message").asText()).contains("gone").contains("maybe");
        assertThat(store.drives().get(1).faults()).isNull();

        HttpResponse<String> all = send("DELETE", "/api/v1/admin/test/faults", null);
        assertThat(JSON.readTree(all.body())).hasSize(4);
    }

    private static List<String> names(JsonNode node) {
        List<String> out = new ArrayList<>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static JsonNode get(String path, boolean signed) throws Exception {
        HttpResponse<String> r = signed ? send("GET", path, null) : unsigned(path);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static HttpResponse<String> unsigned(String path) throws Exception {
        return app.send("GET", path, null, null);
    }

    /** A request signed as the CLI signs it (SigV4, service s3); the query is part of the signed request. */
    private static HttpResponse<String> send(String method, String pathAndQuery, String body) throws Exception {
        return app.signed(method, pathAndQuery, body);
    }
}
