package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.s3.auth.Authorizer;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin mutations through a real console over real drives land in the audit log (refusals as denied, reads not at
 * all), and the audit endpoints answer them: the query with its filters, the export as JSON lines, both signed only.
 */
class ConsoleAuditTest {
    private static final String SECRET = "root-secret-for-the-audit-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;

    @BeforeAll
    static void start() throws Exception {
        ApplianceStore store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        // everything but fault injection on drive 0 is allowed: that one is a refusal to audit
        Authorizer authorizer = Authorizer.byAction(
                (key, action, bucket, object) -> !action.equals("admin:Route:PUT /api/v1/admin/test/faults/0"));
        app = ConsoleTestAppliance.start(store, SECRET, authorizer, c -> {});
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static JsonNode query(String params) throws Exception {
        HttpResponse<String> r = app.signed("GET", "/api/v1/admin/audit" + params, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static List<String> actions(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("events").forEach(e -> out.add(e.get("action").asText()));
        return out;
    }

    @Test
    void adminMutationsAreAuditedWithWhoWhatAndOutcomeAndReadsAreNot() throws Exception {
        Instant start = Instant.now();
        assertThat(app.signed("PUT", "/api/v1/admin/buckets/bkt/settings", "{\"quotaBytes\":1048576}")
                        .statusCode())
                .isEqualTo(200);
        assertThat(app.signed("GET", "/api/v1/admin/buckets/bkt/settings", null).statusCode())
                .isEqualTo(200);
        assertThat(app.signed("PUT", "/api/v1/admin/test/faults/0", "{}").statusCode())
                .isEqualTo(403);
        assertThat(app.send("POST", "/api/v1/admin/heal/retry", null, null).statusCode())
                .isEqualTo(401); // unsigned

        String since = "?from=" + URLEncoder.encode(start.toString(), StandardCharsets.UTF_8);
        JsonNode page = query(since + "&action=admin:");
        assertThat(actions(page))
                .containsExactly(
                        "admin:PUT /api/v1/admin/buckets/bkt/settings",
                        "admin:PUT /api/v1/admin/test/faults/0",
                        "admin:POST /api/v1/admin/heal/retry");
        JsonNode settings = page.get("events").get(0);
        assertThat(settings.get("principal").asText()).isEqualTo(ConsoleTestAppliance.ACCESS_KEY);
        assertThat(settings.get("outcome").asText()).isEqualTo(AuditEvent.ALLOWED);
        assertThat(settings.get("resource").asText()).isEqualTo("bkt");
        assertThat(settings.get("source").asText()).isEqualTo("127.0.0.1");
        JsonNode refused = page.get("events").get(1);
        assertThat(refused.get("outcome").asText()).isEqualTo(AuditEvent.DENIED);
        assertThat(refused.get("status").asInt()).isEqualTo(403);
        assertThat(refused.get("principal").asText()).isEqualTo(ConsoleTestAppliance.ACCESS_KEY);
        assertThat(page.get("events").get(2).get("principal").asText()).isEqualTo("unauthenticated");

        assertThat(actions(query(since + "&bucket=bkt")))
                .containsExactly("admin:PUT /api/v1/admin/buckets/bkt/settings");
        assertThat(actions(query(since + "&outcome=denied"))).hasSize(2);
        JsonNode limited = query(since + "&limit=1");
        assertThat(limited.get("count").asInt()).isEqualTo(1);
        assertThat(limited.get("truncated").asBoolean()).isTrue();
    }

    @Test
    void theExportStreamsJsonLinesAndBothEndpointsNeedASignature() throws Exception {
        app.signed("PUT", "/api/v1/admin/buckets/bkt/settings", "{\"sosapi\":true}");
        HttpResponse<String> export = app.signed("GET", "/api/v1/admin/audit/export?action=admin:PUT", null);
        assertThat(export.statusCode()).isEqualTo(200);
        assertThat(export.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
        String[] lines = export.body().split("\n");
        assertThat(lines).isNotEmpty();
        for (String line : lines) {
            JsonNode e = JSON.readTree(line);
            assertThat(e.get("action").asText()).startsWith("admin:PUT");
            assertThat(e.get("id").asText()).isNotEmpty();
        }
        assertThat(app.send("GET", "/api/v1/admin/audit", null, null).statusCode())
                .isEqualTo(401);
        assertThat(app.send("GET", "/api/v1/admin/audit/export", null, null).statusCode())
                .isEqualTo(401);
        assertThat(app.signed("GET", "/api/v1/admin/audit?from=yesterday", null).statusCode())
                .isEqualTo(400);
        assertThat(app.signed("GET", "/api/v1/admin/audit?limit=0", null).statusCode())
                .isEqualTo(400);
    }
}
