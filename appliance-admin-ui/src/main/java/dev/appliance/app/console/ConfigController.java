package dev.appliance.app.console;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.policy.AdminAction;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/config}: every option of the appliance ({@code appliance.*}) with its description, type
 * and default, read from the configuration metadata that {@code spring-boot-configuration-processor} writes at
 * compile time from {@link ApplianceProperties}' javadoc, and its current value from the bound {@link
 * ApplianceProperties}. So a new property is listed, described, the moment it is added, and the listing cannot drift
 * from the code.
 *
 * <p>A secret's value is never answered: {@code "(set)"} when it has one, else null. Which options are secrets is
 * decided by name ({@link #isSecret}), so a new {@code ...token}, {@code ...secret} or {@code ...password} option is
 * hidden without anyone remembering to list it. Every option needs a restart today: the process binds them once, at
 * start.
 */
@RestController
@Tag(name = "configuration", description = "The appliance's settings")
class ConfigController {
    /** Where the configuration processor writes its metadata; every Boot jar carries one, we keep only ours. */
    static final String METADATA = "META-INF/spring-configuration-metadata.json";

    private static final String PREFIX = "appliance.";
    private static final Set<String> SECRET_SUFFIXES = Set.of("token", "secret", "password");

    private final List<Option> options;

    ConfigController(ApplianceProperties properties) {
        this.options = options(properties, metadata(ConfigController.class.getClassLoader()));
    }

    /** Every option, by name. */
    record Config(List<Option> options) {}

    /**
     * One option.
     *
     * @param name the property name ({@code appliance.drives.timeout}); environment variables and flags map to it as
     *     docs/operations.md lists
     * @param description what it sets, from the javadoc of {@link ApplianceProperties}
     * @param type what a value looks like: {@code Duration} (500ms, 10s, 5m, 24h or PT10S), {@code Integer}, {@code
     *     Boolean}, {@code String}, {@code Path}, {@code List<String>} (comma-separated), {@code host:port}
     * @param defaultValue as it would be written in a configuration file; null: none (the description says what null
     *     means)
     * @param value the value in force, written the same way; for a secret {@code "(set)"} or null
     * @param secret its value is never shown
     * @param restartRequired a change takes effect only after a restart
     */
    record Option(
            String name,
            String description,
            String type,
            String defaultValue,
            String value,
            boolean secret,
            boolean restartRequired) {}

    /** One property of the metadata file (the fields this listing reads). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record MetadataProperty(String name, String type, String description, String sourceType, JsonNode defaultValue) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record MetadataFile(List<MetadataProperty> properties) {}

    @Operation(
            summary = "Every configuration option: description, type, default, value in force",
            description = "Secrets answer \"(set)\" or null, never their value. Every option needs a restart.")
    @AdminOperation(AdminAction.GET_CONFIG)
    @GetMapping("/api/v1/admin/config")
    Config config() {
        return new Config(options);
    }

    /**
     * The {@code appliance.*} properties of every metadata file on the class path (in the packaged jar, the
     * application's own next to its libraries').
     */
    static List<MetadataProperty> metadata(ClassLoader loader) {
        ObjectMapper json = new ObjectMapper();
        List<MetadataProperty> out = new ArrayList<>();
        try {
            for (URL url : Collections.list(loader.getResources(METADATA))) {
                try (InputStream in = url.openStream()) {
                    MetadataFile file = json.readValue(in, MetadataFile.class);
                    if (file.properties() == null) {
                        continue;
                    }
                    for (MetadataProperty p : file.properties()) {
                        if (p.sourceType() != null && p.sourceType().startsWith(ApplianceProperties.class.getName())) {
                            out.add(p);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + METADATA, e);
        }
        if (out.isEmpty()) {
            // a build without the configuration processor: refuse to start rather than list nothing
            throw new IllegalStateException(METADATA + " describes no appliance.* property: built without "
                    + "spring-boot-configuration-processor?");
        }
        out.sort(Comparator.comparing(MetadataProperty::name));
        return out;
    }

    private static List<Option> options(ApplianceProperties properties, List<MetadataProperty> metadata) {
        List<Option> out = new ArrayList<>();
        for (MetadataProperty p : metadata) {
            boolean secret = isSecret(p.name());
            Object current = valueOf(properties, p.name());
            String value = secret ? (isSet(current) ? "(set)" : null) : render(current);
            String defaultValue = p.defaultValue() == null || p.defaultValue().isNull()
                    ? null
                    : (p.defaultValue().isArray()
                            ? render(toStrings(p.defaultValue()))
                            : p.defaultValue().asText());
            out.add(new Option(
                    p.name(),
                    plain(p.description()),
                    typeName(p.type()),
                    secret ? null : defaultValue,
                    value,
                    secret,
                    true));
        }
        return List.copyOf(out);
    }

    /** A secret by name: its last segment ends with token, secret or password. */
    static boolean isSecret(String name) {
        String last = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return SECRET_SUFFIXES.stream().anyMatch(last::endsWith);
    }

    private static boolean isSet(Object value) {
        return value != null && !(value instanceof String s && s.isBlank());
    }

    /** The bound value of {@code name}, found by walking the records' components (kebab-case names). */
    private static Object valueOf(ApplianceProperties properties, String name) {
        if (!name.startsWith(PREFIX)) {
            throw new IllegalStateException("not an appliance property: " + name);
        }
        Object node = properties;
        for (String segment : name.substring(PREFIX.length()).split("\\.")) {
            if (node == null) {
                return null;
            }
            node = component(node, segment);
        }
        return node;
    }

    private static Object component(Object record, String segment) {
        for (RecordComponent c : record.getClass().getRecordComponents()) {
            if (kebab(c.getName()).equals(segment)) {
                try {
                    return c.getAccessor().invoke(record);
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IllegalStateException("cannot read " + c, e);
                }
            }
        }
        // the metadata names a property the record does not have: the build is inconsistent
        throw new IllegalStateException(record.getClass().getName() + " has no component for '" + segment + "'");
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static List<String> toStrings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** A value as it would be written in a configuration file. */
    private static String render(Object value) {
        return switch (value) {
            case null -> null;
            case Duration d -> duration(d);
            case Collection<?> c -> c.stream().map(String::valueOf).collect(Collectors.joining(","));
            default -> value.toString();
        };
    }

    /** The largest whole unit Spring's binder reads back (30s, 5m, 300ms), else ISO-8601. */
    private static String duration(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toNanosPart() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (ms % sizes[i] == 0) {
                return ms / sizes[i] + units[i];
            }
        }
        return ms + "ms";
    }

    /** The javadoc's inline tags as plain text: {@code {@code x}} → {@code x}. */
    private static String plain(String javadoc) {
        return javadoc == null ? null : javadoc.replaceAll("\\{@(?:code|link|literal) ([^}]*)}", "$1");
    }

    /** {@code java.util.List<java.lang.String>} → {@code List<String>}; a host and port as {@code host:port}. */
    private static String typeName(String type) {
        if (type == null) {
            return null;
        }
        if (type.endsWith("$HostPort")) {
            return "host:port";
        }
        return type.replaceAll("(?:[a-z][a-z0-9_]*\\.)+", "").replaceAll("\\w+\\$", "");
    }
}
