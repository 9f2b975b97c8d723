package dev.appliance.app.config;

import dev.appliance.app.cli.ServerOptions.HostPort;
import jakarta.validation.Validation;
import jakarta.validation.ValidatorFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.FileSystemResource;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

/**
 * Binds and validates {@link ApplianceProperties} with Spring's {@link Binder} before the Spring context exists: the
 * start must refuse a bad value before it formats a drive, and the S3 server starts before the console's context.
 *
 * <p>Sources, first wins: command-line flags (already mapped to property names by the CLI), {@code -D} system
 * properties (also the older spellings {@code -Dappliance.faultInjection}, {@code
 * -Dappliance.faultInjection.haltBeforeBanner}, {@code -Dappliance.metadataJournal}), environment variables with
 * Spring's relaxed names ({@code APPLIANCE_SCANNER_RATE}; also {@code APPLIANCE_DOMAIN}), then the {@code --config}
 * file (YAML, or {@code .properties}). A bad value is an {@link IllegalArgumentException} naming where it was given
 * (the flag, the variable, the file and line) and the value.
 */
public final class ApplianceBinding {
    static final String FLAGS = "command line";
    static final String SYSTEM_PROPERTIES = "system properties";
    // Spring maps relaxed names (APPLIANCE_SCANNER_RATE) only for a source named so
    static final String ENVIRONMENT = StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME;

    /** Older names still accepted, as system properties: name → property. */
    private static final Map<String, String> LEGACY_SYSTEM_PROPERTIES = Map.of(
            "appliance.faultInjection", "appliance.testing.fault-injection",
            "appliance.faultInjection.haltBeforeBanner", "appliance.testing.halt-before-banner",
            "appliance.metadataJournal", "appliance.drives.metadata-journal");

    /**
     * Names the engine once read itself, in milliseconds or seconds, no longer read: a start that gives one is refused
     * rather than run with the default unseen. Name → the property that replaced it.
     */
    private static final Map<String, String> RETIRED_SYSTEM_PROPERTIES = Map.of(
            "appliance.driveTimeoutMillis", "appliance.drives.timeout",
            "appliance.driveStragglerMillis", "appliance.drives.straggler",
            "appliance.driveWriteStragglerMillis", "appliance.drives.write-straggler",
            "appliance.driveErrorLimit", "appliance.drives.error-limit",
            "appliance.driveErrorWindowMillis", "appliance.drives.error-window",
            "appliance.driveCheckSeconds", "appliance.drives.check-interval");

    /** Older names still accepted, as environment variables: name → relaxed name. */
    private static final Map<String, String> LEGACY_ENVIRONMENT = Map.of("APPLIANCE_DOMAIN", "APPLIANCE_S3_DOMAIN");

    static {
        // Binding runs before Spring Boot sets up logging: keep the validator's start-up notice off the console.
        LoggingSystem.get(ApplianceBinding.class.getClassLoader())
                .setLogLevel("org.hibernate.validator", LogLevel.WARN);
    }

    private static final ValidatorFactory VALIDATION = Validation.byDefaultProvider()
            .configure()
            .messageInterpolator(new ParameterMessageInterpolator()) // no expression language needed
            .buildValidatorFactory();

    private ApplianceBinding() {}

    /**
     * @param flags property name → value as given on the command line
     * @param flagNames property name → how it was spelled on the command line (for messages)
     * @param systemProperties the JVM's {@code -D} properties (only {@code appliance.*} are read)
     * @param env the process environment
     * @param configFile the {@code --config} file, or null
     */
    public static ApplianceProperties bind(
            Map<String, String> flags,
            Map<String, String> flagNames,
            Map<String, String> systemProperties,
            Map<String, String> env,
            Path configFile) {
        MutablePropertySources sources = new MutablePropertySources();
        sources.addLast(new MapPropertySource(FLAGS, new LinkedHashMap<>(flags)));
        Map<String, Object> sys = new LinkedHashMap<>();
        systemProperties.forEach((k, v) -> {
            String replacement = RETIRED_SYSTEM_PROPERTIES.get(k);
            if (replacement != null) {
                throw new IllegalArgumentException("-D" + k + " '" + v + "': no longer read; set " + replacement
                        + " instead (docs/operations.md)");
            }
            if (k.startsWith("appliance.")) {
                sys.put(LEGACY_SYSTEM_PROPERTIES.getOrDefault(k, k), v);
            }
        });
        sources.addLast(new MapPropertySource(SYSTEM_PROPERTIES, sys));
        Map<String, Object> environment = new LinkedHashMap<>(env);
        LEGACY_ENVIRONMENT.forEach((old, current) -> {
            if (env.containsKey(old) && !env.containsKey(current)) {
                environment.put(current, env.get(old));
            }
        });
        sources.addLast(new SystemEnvironmentPropertySource(ENVIRONMENT, environment));
        if (configFile != null) {
            for (PropertySource<?> s : load(configFile)) {
                sources.addLast(s);
            }
        }
        ApplicationConversionService conversion = new ApplicationConversionService();
        conversion.addConverter(String.class, HostPort.class, HostPort::parse);
        Binder binder = new Binder(ConfigurationPropertySources.from(sources), null, conversion);
        var validator = new SpringValidatorAdapter(VALIDATION.getValidator());
        try {
            return binder.bindOrCreate(
                    "appliance", Bindable.of(ApplianceProperties.class), new ValidationBindHandler(validator));
        } catch (BindException e) {
            throw new IllegalArgumentException(explain(e, flagNames), e);
        }
    }

    private static List<PropertySource<?>> load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--config '" + file + "': no such file");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        try {
            var resource = new FileSystemResource(file);
            List<PropertySource<?>> loaded = name.endsWith(".properties")
                    ? new PropertiesPropertySourceLoader().load(file.toString(), resource)
                    : new YamlPropertySourceLoader().load(file.toString(), resource);
            return loaded.isEmpty() ? List.of(new OriginTrackedMapPropertySource(file.toString(), Map.of())) : loaded;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("--config '" + file + "': cannot be read: " + e.getMessage(), e);
        }
    }

    /** One line per bad value: where it was given, the value, what was expected. */
    private static String explain(BindException e, Map<String, String> flagNames) {
        if (e.getCause() instanceof BindValidationException v) {
            List<String> lines = new ArrayList<>();
            for (ObjectError error : v.getValidationErrors().getAllErrors()) {
                ConfigurationProperty bound = null;
                if (error instanceof FieldError f) {
                    bound = boundProperty(v.getValidationErrors().getBoundProperties(), f);
                }
                String where = bound != null
                        ? describe(bound, flagNames)
                        : "appliance." + (error instanceof FieldError f ? dashed(f.getField()) : error.getObjectName());
                lines.add(where + ": " + error.getDefaultMessage());
            }
            return String.join("; ", lines);
        }
        String where = e.getProperty() != null
                ? describe(e.getProperty(), flagNames)
                : e.getName().toString();
        return where + ": " + expected(e);
    }

    private static ConfigurationProperty boundProperty(Iterable<ConfigurationProperty> bound, FieldError f) {
        String field = f.getField();
        ConfigurationPropertyName name = ConfigurationPropertyName.of(
                (field.startsWith("appliance.") ? "" : f.getObjectName() + ".") + dashed(field));
        for (ConfigurationProperty p : bound) {
            if (p.getName().equals(name)) {
                return p;
            }
        }
        return null;
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static String describe(ConfigurationProperty p, Map<String, String> flagNames) {
        String value = " '" + p.getValue() + "'";
        String name = p.getName().toString();
        Object source = p.getSource() == null ? null : p.getSource().getUnderlyingSource();
        String sourceName = source instanceof PropertySource<?> ps ? ps.getName() : "";
        Origin origin = p.getOrigin();
        return switch (sourceName) {
            case FLAGS -> flagNames.getOrDefault(name, name) + value;
            case SYSTEM_PROPERTIES -> "-D" + name + value;
            case ENVIRONMENT -> {
                if (origin instanceof SystemEnvironmentOrigin env) {
                    yield env.getProperty() + value;
                }
                yield (origin instanceof PropertySourceOrigin o ? o.getPropertyName() : name) + value;
            }
            default -> name + value + " (" + (origin != null ? origin : sourceName) + ")";
        };
    }

    /** What a value that could not be converted should have looked like. */
    private static String expected(BindException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof HostPort.Invalid) {
                return t.getMessage();
            }
        }
        Class<?> type = e.getTarget().getType().resolve(Object.class);
        if (type == Duration.class) {
            return ApplianceProperties.POSITIVE_DURATION;
        }
        if (type == int.class || type == Integer.class) {
            return "expected a whole number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "expected true or false";
        }
        return "expected a " + type.getSimpleName();
    }
}
