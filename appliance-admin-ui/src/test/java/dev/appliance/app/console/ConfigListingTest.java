package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.s3.auth.Authorizer;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v1/admin/config} against the configuration metadata the build generates: every option listed,
 * described, typed, with its default and the value in force, and secrets never shown.
 */
class ConfigListingTest {
    private static final String SECRET = "root-secret-for-the-config-test";
    private static final String TOKEN = "scrape-token-that-must-never-be-shown";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void everyOption_isListedDescribedWithItsDefaultAndValue_andSecretsAreNeverShown() throws Exception {
        ApplianceStore store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        Map<String, String> settings = Map.of(
                "appliance.metrics.token", TOKEN,
                "appliance.scanner.rate", "250",
                "appliance.drives.timeout", "45s",
                "appliance.drives.paths", "/srv/d1,/srv/d2");
        try (ConsoleTestAppliance app =
                ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), settings, c -> {})) {
            HttpResponse<String> r = app.signed("GET", "/api/v1/admin/config", null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).doesNotContain(TOKEN).doesNotContain(SECRET);

            Map<String, JsonNode> options = new HashMap<>();
            for (JsonNode o : JSON.readTree(r.body()).path("options")) {
                options.put(o.path("name").asText(), o);
            }
            // every option of the generated metadata, and the metadata covers every property of the record
            Set<String> metadata = metadataNames();
            assertThat(options.keySet()).isEqualTo(metadata);
            assertThat(metadata).containsAll(leafProperties("appliance", ApplianceProperties.class));
            for (JsonNode o : options.values()) {
                assertThat(o.path("description").asText())
                        .as(o.toString())
                        .isNotBlank()
                        .doesNotContain("{@");
                assertThat(o.path("type").asText()).as(o.toString()).isNotBlank();
                assertThat(o.path("restartRequired").asBoolean()).isTrue();
            }

            JsonNode token = options.get("appliance.metrics.token");
            assertThat(token.path("secret").asBoolean()).isTrue();
            assertThat(token.path("value").asText()).isEqualTo("(set)");
            assertThat(options.values().stream().filter(o -> o.path("secret").asBoolean()))
                    .hasSize(1);

            assertOption(options, "appliance.scanner.rate", "Integer", "1000", "250");
            assertOption(options, "appliance.drives.timeout", "Duration", "30s", "45s");
            assertOption(options, "appliance.drives.straggler", "Duration", "300ms", "300ms");
            assertOption(options, "appliance.s3.timeouts.idle", "Duration", "5m", "5m");
            assertOption(options, "appliance.drives.metadata-journal", "Boolean", "true", "true");
            assertOption(options, "appliance.drives.paths", "List<String>", null, "/srv/d1,/srv/d2");
            assertOption(options, "appliance.console.address", "host:port", ":9001", "127.0.0.1:0");
            assertOption(options, "appliance.s3.domain", "String", null, null);
            assertThat(options.get("appliance.drives.parity").path("value").isNull())
                    .isTrue();

            assertThat(app.send("GET", "/api/v1/admin/config", null, null).statusCode())
                    .isIn(401, 403);
        }
    }

    @Test
    void unsetSecret_isNull() {
        ApplianceProperties properties =
                ServerOptions.parse(List.of(), Map.of(), Map.of()).properties();
        ConfigController.Option token = new ConfigController(properties)
                .config().options().stream()
                        .filter(o -> o.name().equals("appliance.metrics.token"))
                        .findFirst()
                        .orElseThrow();
        assertThat(token.secret()).isTrue();
        assertThat(token.value()).isNull();
        assertThat(ConfigController.isSecret("appliance.future.root-password")).isTrue();
        assertThat(ConfigController.isSecret("appliance.scanner.max-versions-per-key"))
                .isFalse();
    }

    private static void assertOption(
            Map<String, JsonNode> options, String name, String type, String defaultValue, String value) {
        JsonNode o = options.get(name);
        assertThat(o).as(name).isNotNull();
        assertThat(o.path("type").asText()).as(name).isEqualTo(type);
        assertThat(
                        o.path("defaultValue").isNull()
                                ? null
                                : o.path("defaultValue").asText())
                .as(name)
                .isEqualTo(defaultValue);
        assertThat(o.path("value").isNull() ? null : o.path("value").asText())
                .as(name)
                .isEqualTo(value);
        assertThat(o.path("secret").asBoolean()).as(name).isFalse();
    }

    /** The appliance.* names of the generated metadata file(s), read independently of the controller. */
    private static Set<String> metadataNames() throws Exception {
        Set<String> out = new TreeSet<>();
        for (URL url : Collections.list(
                ConfigListingTest.class.getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode p : JSON.readTree(in).path("properties")) {
                    if (p.path("name").asText().startsWith("appliance.")) {
                        out.add(p.path("name").asText());
                    }
                }
            }
        }
        assertThat(out).as("the configuration processor's output").isNotEmpty();
        return out;
    }

    /** Every leaf property of the record tree: nested records declared in ApplianceProperties are groups. */
    private static List<String> leafProperties(String prefix, Class<?> record) {
        List<String> out = new ArrayList<>();
        for (RecordComponent c : record.getRecordComponents()) {
            String name = prefix + "."
                    + c.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
            if (c.getType().isRecord() && c.getType().getEnclosingClass() == ApplianceProperties.class) {
                out.addAll(leafProperties(name, c.getType()));
            } else {
                out.add(name);
            }
        }
        return out;
    }
}
