package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code appliance logging access-log [on|off]}: the arguments, and bad input named. */
class LoggingCommandTest {
    private static final Map<String, String> ENV =
            Map.of("APPLIANCE_ROOT_USER", "root", "APPLIANCE_ROOT_PASSWORD", "s3cret");

    @Test
    void showsOrSwitches() {
        assertThat(LoggingCommand.parse(List.of("access-log"), ENV).enable()).isNull();
        assertThat(LoggingCommand.parse(List.of("access-log", "on", "--json"), ENV))
                .satisfies(o -> assertThat(o.enable()).isTrue())
                .satisfies(o -> assertThat(o.json()).isTrue());
        assertThat(LoggingCommand.parse(List.of("access-log", "off", "--console", "10.0.0.5:9101"), ENV)
                        .enable())
                .isFalse();
    }

    @Test
    void badInput_isNamed() {
        assertThatThrownBy(() -> LoggingCommand.parse(List.of(), ENV)).hasMessageContaining("missing 'access-log'");
        assertThatThrownBy(() -> LoggingCommand.parse(List.of("audit-log", "on"), ENV))
                .hasMessageContaining("unknown 'audit-log'");
        assertThatThrownBy(() -> LoggingCommand.parse(List.of("access-log", "yes"), ENV))
                .hasMessageContaining("'yes': expected on or off");
        assertThatThrownBy(() -> LoggingCommand.parse(List.of("access-log", "on", "now"), ENV))
                .hasMessageContaining("unexpected argument 'now'");
        assertThatThrownBy(() -> LoggingCommand.parse(List.of("access-log"), Map.of()))
                .hasMessageContaining("no credentials");
    }
}
