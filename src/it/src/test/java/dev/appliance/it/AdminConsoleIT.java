package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's drives, sets and configuration listing and its OpenAPI document and Swagger UI, from the packaged
 * appliance (the configuration metadata and Swagger UI's webjar must be in the jar), through curl's SigV4 signer:
 * an admin gets them, an anonymous caller does not, and the metrics token and root secret never appear.
 */
class AdminConsoleIT {
    private static final String SECRET = "console-it-secret-" + UUID.randomUUID();
    private static final String TOKEN = "console-it-token-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static AdminApi admin;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(
                        ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), "console-it-admin", SECRET)
                                .withEnv("APPLIANCE_METRICS_TOKEN", TOKEN)
                                .withEnv("APPLIANCE_SCANNER_RATE", "321"))
                .start();
        admin = new AdminApi(appliance, tmp);
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void config_listsEveryOptionWithItsValue_andHidesTheToken() {
        AdminApi.Answer a = admin.call("GET", "/api/v1/admin/config", null);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(a.body()).doesNotContain(TOKEN).doesNotContain(SECRET);
        Map<String, JsonNode> options = new HashMap<>();
        a.json().path("options").forEach(o -> options.put(o.path("name").asText(), o));
        assertThat(options).containsKeys("appliance.drives.paths", "appliance.s3.address", "appliance.scanner.rate");
        options.values().forEach(o -> assertThat(o.path("description").asText())
                .as(o.toString())
                .isNotBlank());
        assertThat(options.get("appliance.metrics.token").path("value").asText())
                .isEqualTo("(set)");
        assertThat(options.get("appliance.scanner.rate").path("value").asText()).isEqualTo("321");
        assertThat(options.get("appliance.scanner.rate").path("defaultValue").asText())
                .isEqualTo("1000");
        assertThat(admin.call("GET", "/api/v1/admin/config", null, false).status())
                .isIn(401, 403);
    }

    @Test
    void drivesAndSets_showFourDrivesInServiceAndTheQuorumsHeld() {
        AdminApi.Answer sets = admin.call("GET", "/api/v1/admin/sets", null);
        assertThat(sets.status()).as(sets.body()).isEqualTo(200);
        JsonNode set = sets.json().path("sets").get(0);
        assertThat(set.path("drives").asInt()).isEqualTo(ApplianceProcess.DRIVES);
        assertThat(set.path("online").asInt()).isEqualTo(ApplianceProcess.DRIVES);
        assertThat(set.path("writeQuorumHeld").asBoolean()).isTrue();

        AdminApi.Answer drives = admin.call("GET", "/api/v1/admin/drives", null);
        assertThat(drives.status()).as(drives.body()).isEqualTo(200);
        List<String> states = new ArrayList<>();
        drives.json().path("drives").forEach(d -> states.add(d.path("state").asText()));
        assertThat(states).hasSize(ApplianceProcess.DRIVES).containsOnly("online");
    }

    @Test
    void openApiAndSwaggerUi_areServedFromTheJar_toAnAdminOnly() {
        AdminApi.Answer doc = admin.call("GET", "/v3/api-docs", null);
        assertThat(doc.status()).as(doc.body()).isEqualTo(200);
        assertThat(doc.json().path("openapi").asText()).startsWith("3.");
        List<String> paths = new ArrayList<>();
        doc.json().path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).contains("/api/v1/admin/iam/users", "/api/v1/admin/drives", "/api/v1/admin/config");

        AdminApi.Answer page = admin.call("GET", "/swagger-ui/index.html", null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("swagger-ui-bundle.js").doesNotContain("https://");
        assertThat(admin.call("GET", "/swagger-ui/swagger-ui-bundle.js", null).status())
                .isEqualTo(200);

        for (String path : List.of("/v3/api-docs", "/swagger-ui/index.html")) {
            assertThat(admin.call("GET", path, null, false).status()).as(path).isIn(401, 403);
        }
    }
}
