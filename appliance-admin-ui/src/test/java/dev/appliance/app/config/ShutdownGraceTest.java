package dev.appliance.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.console.ConsoleApplication;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The stop's time budget: systemd sends SIGKILL {@code TimeoutStopSec} after SIGTERM, so the default grace of S3
 * requests in flight, the console's graceful stop and the store's close must fit in it, with room to spare.
 */
class ShutdownGraceTest {
    /** What closing the store (heal journal, retention clock, drives) may take after the two drains, at most. */
    private static final Duration STORE_CLOSE_MARGIN = Duration.ofSeconds(15);

    private static Duration unitStopTimeout() throws Exception {
        Path unit = Path.of("..", "packaging", "rpm", "files", "appliance.service");
        Matcher m = Pattern.compile("(?m)^TimeoutStopSec=(\\d+)s?$").matcher(Files.readString(unit));
        assertThat(m.find()).as("TimeoutStopSec= in %s", unit).isTrue();
        return Duration.ofSeconds(Long.parseLong(m.group(1)));
    }

    @Test
    void defaultGrace_plusTheConsolesStop_leavesTheStoreTimeBeforeTheUnitsStopTimeout() throws Exception {
        Duration grace = ServerOptions.parse(List.of(), Map.of(), Map.of())
                .properties()
                .shutdown()
                .grace();
        assertThat(grace).isEqualTo(Duration.ofSeconds(90));
        assertThat(grace.plus(ConsoleApplication.STOP_TIMEOUT).plus(STORE_CLOSE_MARGIN))
                .as(
                        "grace %s + console %s + store %s within the unit's TimeoutStopSec",
                        grace, ConsoleApplication.STOP_TIMEOUT, STORE_CLOSE_MARGIN)
                .isLessThanOrEqualTo(unitStopTimeout());
    }

    @Test
    void grace_isSetFromTheEnvironment_andANegativeOneIsRefused() {
        assertThat(ServerOptions.parse(List.of(), Map.of("APPLIANCE_SHUTDOWN_GRACE", "30s"), Map.of())
                        .properties()
                        .shutdown()
                        .grace())
                .isEqualTo(Duration.ofSeconds(30));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> ServerOptions.parse(List.of(), Map.of("APPLIANCE_SHUTDOWN_GRACE", "-1s"), Map.of()))
                .hasMessageContaining("APPLIANCE_SHUTDOWN_GRACE '-1s'")
                .hasMessageContaining("expected 0 or a positive duration");
    }
}
