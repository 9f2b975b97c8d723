package dev.appliance.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.app.cli.ServerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The health checks' intervals ({@code appliance.health.checks-interval} of the preflight rules, {@code
 * appliance.health.drive-checks-interval} of the runtime checks): their defaults, each source, a bad value.
 */
class HealthPropertiesTest {

    @Test
    void theInterval_defaultsToFiveMinutes_andIsSetByTheEnvironmentOrASystemProperty() {
        assertThat(ServerOptions.parse(List.of(), Map.of(), Map.of())
                        .properties()
                        .health()
                        .checksInterval())
                .isEqualTo(Duration.ofMinutes(5));
        assertThat(ServerOptions.parse(List.of(), Map.of("APPLIANCE_HEALTH_CHECKS_INTERVAL", "1m"), Map.of())
                        .properties()
                        .health()
                        .checksInterval())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.health.checks-interval", "30s"))
                        .properties()
                        .health()
                        .checksInterval())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theDriveChecksInterval_defaultsToThirtySeconds_andIsSetApartFromThePreflightOne() {
        ApplianceProperties.Health defaults =
                ServerOptions.parse(List.of(), Map.of(), Map.of()).properties().health();
        assertThat(defaults.driveChecksInterval()).isEqualTo(Duration.ofSeconds(30));
        ApplianceProperties.Health fromEnv = ServerOptions.parse(
                        List.of(), Map.of("APPLIANCE_HEALTH_DRIVE_CHECKS_INTERVAL", "10s"), Map.of())
                .properties()
                .health();
        assertThat(fromEnv.driveChecksInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(fromEnv.checksInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.health.drive-checks-interval", "2m"))
                        .properties()
                        .health()
                        .driveChecksInterval())
                .isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void anIntervalUnderASecond_isRefused_namingThePropertyAndTheValue() {
        assertThatThrownBy(() ->
                        ServerOptions.parse(List.of(), Map.of("APPLIANCE_HEALTH_CHECKS_INTERVAL", "0s"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("APPLIANCE_HEALTH_CHECKS_INTERVAL '0s'");
        assertThatThrownBy(() -> ServerOptions.parse(
                        List.of(), Map.of(), Map.of("appliance.health.drive-checks-interval", "500ms")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("-Dappliance.health.drive-checks-interval '500ms'")
                .hasMessageContaining("at least 1s");
    }
}
