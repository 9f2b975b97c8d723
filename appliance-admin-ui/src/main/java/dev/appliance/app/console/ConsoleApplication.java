package dev.appliance.app.console;

import dev.appliance.app.cli.ServerOptions.HostPort;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.app.metrics.ApplianceMetrics;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.tls.ServerTls;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;

/**
 * The Spring Boot application behind the console address: admin REST API, console sessions, status and health. Every
 * request passes Spring Security first ({@link ConsoleSecurity}): only the public status and health answer anonymous
 * callers.
 */
@SpringBootApplication
public class ConsoleApplication {

    /** How long the console's requests in flight may run on when it stops (Tomcat's graceful shutdown). */
    public static final java.time.Duration STOP_TIMEOUT = java.time.Duration.ofSeconds(10);

    /** A running console; closing stops it. */
    public record Running(ConfigurableApplicationContext context) implements AutoCloseable {
        public int port() {
            return ((WebServerApplicationContext) context).getWebServer().getPort();
        }

        @Override
        public void close() {
            context.close();
        }
    }

    /**
     * @param properties the validated configuration; the console listens on {@code appliance.console.address}
     * @param credentials the keys the S3 endpoint knows; admin API requests are SigV4-signed with them
     * @param authorizer asked for every non-public request ({@code admin:<METHOD> <path>}, the path as routed)
     */
    public static Running start(
            ApplianceProperties properties,
            ApplianceStore store,
            S3Server s3,
            CredentialsProvider credentials,
            Authorizer authorizer) {
        return start(properties, store, s3, credentials, authorizer, c -> {});
    }

    /** As above, serving {@code metrics} at {@code /actuator/prometheus} (with the configured bearer token). */
    public static Running start(
            ApplianceProperties properties,
            ApplianceStore store,
            S3Server s3,
            CredentialsProvider credentials,
            Authorizer authorizer,
            ApplianceMetrics metrics) {
        return start(properties, store, s3, credentials, authorizer, c -> metrics.beans()
                .initialize((org.springframework.context.support.GenericApplicationContext) c));
    }

    /** As above; {@code extra} adds beans before the context starts (tests observe which handlers run). */
    static Running start(
            ApplianceProperties properties,
            ApplianceStore store,
            S3Server s3,
            CredentialsProvider credentials,
            Authorizer authorizer,
            ApplicationContextInitializer<ConfigurableApplicationContext> extra) {
        HostPort address = properties.console().address();
        var ctx = new SpringApplicationBuilder(ConsoleApplication.class)
                .properties(tls(properties.s3().certsDir()))
                .bannerMode(Banner.Mode.OFF)
                .web(WebApplicationType.SERVLET)
                .logStartupInfo(false)
                .initializers(new ApplianceBeans(properties, store, s3, credentials, authorizer), extra)
                .properties(Map.ofEntries(
                        Map.entry("server.port", Integer.toString(address.port())),
                        Map.entry("server.address", address.bindHost()),
                        Map.entry("spring.main.register-shutdown-hook", "false"),
                        // on stop, requests in flight finish (up to 10 s) before Tomcat closes; the S3 port drained
                        // before (ApplianceMain), the unit's TimeoutStopSec covers both (RpmPackageIT checks)
                        Map.entry("server.shutdown", "graceful"),
                        Map.entry("spring.lifecycle.timeout-per-shutdown-phase", STOP_TIMEOUT.toSeconds() + "s"),
                        Map.entry("management.endpoints.web.exposure.include", "health,prometheus"),
                        // the health check is public (AdminAuthorization): anonymous callers get UP or DOWN (503)
                        // and nothing else; authenticated admins (a principal) get each indicator
                        Map.entry("management.endpoint.health.show-details", "when-authorized"),
                        // Spring Security first, before any filter reads the body or the path (ConsoleSecurity)
                        Map.entry("spring.security.filter.order", Integer.toString(Ordered.HIGHEST_PRECEDENCE + 1)),
                        // no generated in-memory user: callers are the appliance's keys, tokens and sessions
                        Map.entry(
                                "spring.autoconfigure.exclude",
                                "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration"),
                        Map.entry("server.servlet.session.cookie.name", ConsoleSecurity.SESSION_COOKIE),
                        Map.entry("server.servlet.session.cookie.http-only", "true"),
                        Map.entry("server.servlet.session.cookie.same-site", "strict"),
                        Map.entry("server.servlet.session.tracking-modes", "cookie"),
                        Map.entry("server.servlet.session.timeout", "30m"),
                        Map.entry("logging.level.root", "WARN"),
                        // springdoc warns at every start that its document is on; here it is on by design, behind the
                        // console's authorization (docs/admin-api.md), so the warning would only alarm the operator
                        Map.entry("logging.level.org.springdoc.core.events.SpringDocAppInitializer", "ERROR"),
                        // the appliance's registry is made before the context (ApplianceMetrics) and has meters when
                        // Boot adds its property filters; no property here configures them, so the warning is noise
                        Map.entry("logging.level.io.micrometer.prometheusmetrics.PrometheusMeterRegistry", "ERROR")))
                .run();
        return new Running(ctx);
    }

    /** The SSL bundle Tomcat serves from, named in {@code server.ssl.bundle}. */
    static final String TLS_BUNDLE = "appliance";

    /**
     * HTTPS with the S3 port's certificate and key when {@code --certs-dir} is given, so the console's session cookie
     * and the credentials typed at login never cross the network in clear where S3 does not. Tomcat then has only the
     * TLS connector: no plain HTTP listener is left beside it. Read once at start, as the S3 port does.
     */
    static Map<String, Object> tls(Path certsDir) {
        if (certsDir == null) {
            return Map.of();
        }
        String pem = "spring.ssl.bundle.pem." + TLS_BUNDLE + ".keystore.";
        return Map.of(
                pem + "certificate",
                certsDir.resolve(ServerTls.CERT_FILE).toUri().toString(),
                pem + "private-key",
                certsDir.resolve(ServerTls.KEY_FILE).toUri().toString(),
                "server.ssl.bundle",
                TLS_BUNDLE,
                "server.ssl.enabled-protocols",
                "TLSv1.3,TLSv1.2",
                // Tomcat marks the cookie Secure on a secure request anyway; saying so keeps it if a proxy is put in
                // front
                "server.servlet.session.cookie.secure",
                "true");
    }
}
