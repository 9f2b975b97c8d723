package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The drive settings' defaults (the values the engine always had) and their validation. */
class DriveSettingsTest {
    private static final Duration S = Duration.ofSeconds(1);

    @Test
    void defaults_areTheEnginesLongStandingValues() {
        assertThat(DriveSettings.DEFAULTS)
                .isEqualTo(new DriveSettings(
                        Duration.ofSeconds(30),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(2),
                        10,
                        Duration.ofMinutes(1),
                        Duration.ofSeconds(10)));
    }

    @Test
    void badValues_areRefusedNamingTheValue() {
        assertThatThrownBy(() -> new DriveSettings(Duration.ZERO, S, S, 1, S, S))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout: PT0S (expected at least 1 ms)");
        assertThatThrownBy(() -> new DriveSettings(Duration.ofNanos(999_999), S, S, 1, S, S))
                .hasMessage("timeout: PT0.000999999S (expected at least 1 ms)");
        assertThatThrownBy(() -> new DriveSettings(S, Duration.ofMillis(-1), S, 1, S, S))
                .hasMessage("straggler: PT-0.001S (expected zero or more)");
        assertThatThrownBy(() -> new DriveSettings(S, S, Duration.ofSeconds(-2), 1, S, S))
                .hasMessage("writeStraggler: PT-2S (expected zero or more)");
        assertThatThrownBy(() -> new DriveSettings(S, S, S, -1, S, S))
                .hasMessage("errorLimit: -1 (expected 0 or more)");
        assertThatThrownBy(() -> new DriveSettings(S, S, S, 1, Duration.ZERO, S))
                .hasMessage("errorWindow: PT0S (expected at least 1 ms)");
        assertThatThrownBy(() -> new DriveSettings(S, S, S, 1, S, Duration.ofSeconds(-10)))
                .hasMessage("checkInterval: PT-10S (expected zero or more)");
        assertThatThrownBy(() -> new DriveSettings(S, S, S, 1, S, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("checkInterval");
    }

    @Test
    void zeroStragglersErrorLimitAndCheckInterval_areAllowed() {
        DriveSettings s = new DriveSettings(S, Duration.ZERO, Duration.ZERO, 0, S, Duration.ZERO);
        assertThat(s.errorLimit()).isZero();
        assertThat(s.checkInterval()).isZero();
    }
}
