package dev.appliance.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.app.cli.ServerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The health checks' interval ({@code appliance.health.checks-interval}): its default, each source, a bad value. */
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
    void anIntervalUnderASecond_isRefused_namingThePropertyAndTheValue() {
        assertThatThrownBy(() ->
                        ServerOptions.parse(List.of(), Map.of("APPLIANCE_HEALTH_CHECKS_INTERVAL", "0s"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("APPLIANCE_HEALTH_CHECKS_INTERVAL '0s'");
    }
}
