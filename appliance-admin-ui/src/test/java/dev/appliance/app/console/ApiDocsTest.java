package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.testing.TestStore;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI document and Swagger UI on the console address: an admin gets an OpenAPI 3 document of the admin API
 * and a Swagger UI whose every file comes from the appliance itself; an anonymous caller and a user without a policy
 * get neither.
 */
class ApiDocsTest {
    private static final String SECRET = "root-secret-for-the-api-docs-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** springdoc's entry points: the document, its YAML form, Swagger UI's page, its redirect and its config. */
    private static final List<String> DOC_PATHS = List.of(
            "/v3/api-docs",
            "/v3/api-docs.yaml",
            "/v3/api-docs/swagger-config",
            "/swagger-ui.html",
            "/swagger-ui/index.html",
            "/swagger-ui/swagger-initializer.js",
            "/swagger-ui/swagger-ui-bundle.js");

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static NewAccessKey unprivileged;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.identity().createUser("nobody");
        unprivileged = store.identity().createAccessKey("nobody");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void openApiDocument_forAnAdmin_listsTheAdminApi() throws Exception {
        HttpResponse<String> r = app.signed("GET", "/v3/api-docs", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode doc = JSON.readTree(r.body());
        assertThat(doc.path("openapi").asText()).startsWith("3.");
        assertThat(doc.path("info").path("title").asText()).isEqualTo("Appliance admin API");
        assertThat(doc.path("info").path("version").asText()).isEqualTo(ApiDocumentation.VERSION);
        assertThat(doc.path("info").path("description").asText()).contains("SigV4");
        List<String> paths = new ArrayList<>();
        doc.path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths)
                .contains(
                        "/api/v1/admin/iam/users",
                        "/api/v1/admin/iam/users/{name}",
                        "/api/v1/admin/heal/drives",
                        "/api/v1/admin/drives",
                        "/api/v1/admin/sets",
                        "/api/v1/admin/config");
        assertThat(doc.path("paths")
                        .path("/api/v1/admin/drives")
                        .path("get")
                        .path("summary")
                        .asText())
                .startsWith("Drives:");
        // the response of the drives listing is described down to its nested records
        assertThat(doc.path("components").path("schemas").has("DriveDetail")).isTrue();
        assertThat(doc.path("components").path("securitySchemes").has("sigv4")).isTrue();
    }

    @Test
    void swaggerUi_forAnAdmin_loadsEveryFileFromTheAppliance() throws Exception {
        HttpResponse<String> page = app.signed("GET", "/swagger-ui/index.html", null);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        List<String> refs = new ArrayList<>();
        Matcher m = Pattern.compile("(?:src|href)=\"([^\"]+)\"").matcher(page.body());
        while (m.find()) {
            refs.add(m.group(1));
        }
        assertThat(refs).as("scripts and styles of the page").isNotEmpty().anySatisfy(ref -> assertThat(ref)
                .endsWith(".js"));
        for (String ref : refs) {
            assertThat(ref).as("no other host, no CDN").doesNotContain("//").doesNotStartWith("http");
            String path = "/swagger-ui/" + (ref.startsWith("./") ? ref.substring(2) : ref);
            HttpResponse<String> file = app.signed("GET", path, null);
            assertThat(file.statusCode()).as(path).isEqualTo(200);
        }
        // the initializer points Swagger UI at this appliance's document, not a public one
        HttpResponse<String> init = app.signed("GET", "/swagger-ui/swagger-initializer.js", null);
        assertThat(init.statusCode()).isEqualTo(200);
        assertThat(init.body())
                .contains("/v3/api-docs/swagger-config")
                .doesNotContain("petstore")
                .doesNotContainPattern("https?://");
        HttpResponse<String> config = app.signed("GET", "/v3/api-docs/swagger-config", null);
        assertThat(JSON.readTree(config.body()).path("url").asText()).isEqualTo("/v3/api-docs");
    }

    @Test
    void documentAndUi_areRefusedToAnonymousCallersAndUsersWithoutAPolicy() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (String path : DOC_PATHS) {
            int anonymous = app.send("GET", path, null, null).statusCode();
            if (anonymous != 401 && anonymous != 403) {
                leaks.add("anonymous " + path + " -> " + anonymous);
            }
            int user = app.sendAs("GET", path, null, unprivileged.key().accessKeyId(), unprivileged.secretAccessKey())
                    .statusCode();
            if (user != 403) {
                leaks.add("no-policy user " + path + " -> " + user);
            }
        }
        assertThat(leaks).isEmpty();
    }
}
