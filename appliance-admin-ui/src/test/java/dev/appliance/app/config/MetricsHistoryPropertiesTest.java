package dev.appliance.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.app.cli.ServerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard history's settings ({@code appliance.metrics.*}): documented defaults, each source, bad values. */
class MetricsHistoryPropertiesTest {

    @Test
    void defaults_areTheDocumentedOnes() {
        ApplianceProperties.Metrics m =
                ServerOptions.parse(List.of(), Map.of(), Map.of()).properties().metrics();
        assertThat(m.sampleInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(m.trafficHistory()).isEqualTo(Duration.ofHours(1));
        assertThat(m.capacityInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(m.capacityHistory()).isEqualTo(Duration.ofDays(7));
        assertThat(m.forecastMinSpan()).isEqualTo(Duration.ofHours(1));
        assertThat(m.toString()).contains("token=unset").contains("sampleInterval=PT10S");
    }

    @Test
    void systemPropertiesAndTheEnvironment_setThem() {
        ApplianceProperties.Metrics m = ServerOptions.parse(
                        List.of(),
                        Map.of("APPLIANCE_METRICS_CAPACITY_HISTORY", "30d", "APPLIANCE_METRICS_TOKEN", "t0ken-secret"),
                        Map.of("appliance.metrics.sample-interval", "1s", "appliance.metrics.forecast-min-span", "0s"))
                .properties()
                .metrics();
        assertThat(m.sampleInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(m.capacityHistory()).isEqualTo(Duration.ofDays(30));
        assertThat(m.forecastMinSpan()).isZero();
        assertThat(m.toString()).doesNotContain("t0ken-secret");
    }

    @Test
    void anIntervalUnderASecond_isRefused_namingThePropertyAndTheValue() {
        assertThatThrownBy(() ->
                        ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.metrics.sample-interval", "500ms")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-Dappliance.metrics.sample-interval '500ms': expected a duration of at least 1s, such as"
                        + " 10s, 5m, 7d or PT10S");
        assertThatThrownBy(() ->
                        ServerOptions.parse(List.of(), Map.of("APPLIANCE_METRICS_CAPACITY_INTERVAL", "0s"), Map.of()))
                .hasMessageStartingWith("APPLIANCE_METRICS_CAPACITY_INTERVAL '0s'");
    }
}
