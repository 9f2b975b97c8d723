package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerOptionsTest {

    @Test
    void ellipsis_expandsRangesWithPaddingAndProducts() {
        assertThat(DriveEllipsis.expand("/mnt/disk{1...4}"))
                .containsExactly("/mnt/disk1", "/mnt/disk2", "/mnt/disk3", "/mnt/disk4");
        assertThat(DriveEllipsis.expand("/d{08...10}")).containsExactly("/d08", "/d09", "/d10");
        assertThat(DriveEllipsis.expand("/h{1...2}/d{1...2}")).containsExactly("/h1/d1", "/h1/d2", "/h2/d1", "/h2/d2");
        assertThat(DriveEllipsis.expand("/plain")).containsExactly("/plain");
    }

    @Test
    void ellipsis_rejectsMalformedAndBackwardRanges() {
        assertThatThrownBy(() -> DriveEllipsis.expand("/mnt/disk{4...1}")).hasMessageContaining("runs backwards");
        assertThatThrownBy(() -> DriveEllipsis.expand("/mnt/disk{1..4}")).hasMessageContaining("malformed ellipsis");
        assertThatThrownBy(() -> DriveEllipsis.expand("/mnt/disk{1...5000}")).hasMessageContaining("at most 1024");
    }

    @Test
    void noDrives_meansTheEmbeddedDefault() {
        ServerOptions o = ServerOptions.parse(List.of());
        assertThat(o.embeddedDefault()).isTrue();
        assertThat(o.drives())
                .containsExactly(
                        Path.of("./data/disk1"),
                        Path.of("./data/disk2"),
                        Path.of("./data/disk3"),
                        Path.of("./data/disk4"));
        assertThat(o.address()).isEqualTo(new ServerOptions.HostPort("", 9000));
        assertThat(o.consoleAddress()).isEqualTo(new ServerOptions.HostPort("", 9001));
        assertThat(o.allowRootDrives()).isTrue();
    }

    @Test
    void flags_areParsedInBothForms() {
        ServerOptions o = ServerOptions.parse(
                List.of("/mnt/d{1...8}", "--address", "127.0.0.1:9100", "--console-address=:9101", "--parity", "3"));
        assertThat(o.drives()).hasSize(8);
        assertThat(o.embeddedDefault()).isFalse();
        assertThat(o.allowRootDrives()).isFalse();
        assertThat(o.address()).isEqualTo(new ServerOptions.HostPort("127.0.0.1", 9100));
        assertThat(o.address().bindHost()).isEqualTo("127.0.0.1");
        assertThat(o.consoleAddress().bindHost()).isEqualTo("0.0.0.0");
        assertThat(o.parity()).isEqualTo(3);
    }

    @Test
    void logging_aDirectoryByFlagOrVariable_offAndStandardOutputByDefault() {
        var defaults = ServerOptions.parse(List.of()).properties().logging();
        assertThat(defaults.dir()).isNull();
        assertThat(defaults.accessLog()).isFalse();
        assertThat(defaults.maxFileSize().toMegabytes()).isEqualTo(100);
        assertThat(defaults.maxFiles()).isEqualTo(10);
        var flag = ServerOptions.parse(List.of("--log-dir", "/var/log/appliance"))
                .properties()
                .logging();
        assertThat(flag.dir()).isEqualTo(java.nio.file.Path.of("/var/log/appliance"));
        var env = ServerOptions.parse(
                        List.of(),
                        java.util.Map.of(
                                "APPLIANCE_LOGGING_DIR", "/srv/logs",
                                "APPLIANCE_LOGGING_ACCESS_LOG", "true",
                                "APPLIANCE_LOGGING_MAX_FILE_SIZE", "10MB"),
                        java.util.Map.of())
                .properties()
                .logging();
        assertThat(env.dir()).isEqualTo(java.nio.file.Path.of("/srv/logs"));
        assertThat(env.accessLog()).isTrue();
        assertThat(env.maxFileSize().toMegabytes()).isEqualTo(10);
        assertThatThrownBy(() -> ServerOptions.parse(
                        List.of(), java.util.Map.of("APPLIANCE_LOGGING_MAX_FILES", "0"), java.util.Map.of()))
                .hasMessageContaining("APPLIANCE_LOGGING_MAX_FILES '0': expected a number from 1 to 20");
    }

    @Test
    void badValues_areNamedInTheMessage() {
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--address", "9000")))
                .hasMessageContaining("--address '9000'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--address", ":99999")))
                .hasMessageContaining("port 99999");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--parity", "two")))
                .hasMessageContaining("'two'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--bogus"))).hasMessageContaining("'--bogus'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--address", ":9000", "--console-address", ":9000")))
                .hasMessageContaining("same as --address");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--address"))).hasMessageContaining("missing value");
    }

    @Test
    void scannerFlags_setTheDayLengthVersionCapAndPace() {
        ServerOptions o = ServerOptions.parse(List.of(
                "--lifecycle-day",
                "10s",
                "--max-versions-per-key=500",
                "--scanner-interval",
                "PT2S",
                "--scanner-rate",
                "0",
                "--heal-sample-cycles",
                "4",
                "--deep-scan-interval",
                "30d"));
        assertThat(o.scanner())
                .isEqualTo(new ServerOptions.Scanner(
                        java.time.Duration.ofSeconds(10),
                        500,
                        java.time.Duration.ofSeconds(2),
                        0,
                        4,
                        java.time.Duration.ofDays(30)));
        assertThat(ServerOptions.parse(List.of("--header-timeout", "5s", "--body-timeout=20s", "--idle-timeout", "2m"))
                        .timeouts())
                .isEqualTo(new dev.appliance.s3.S3ServerConfig.Timeouts(
                        java.time.Duration.ofSeconds(5),
                        java.time.Duration.ofSeconds(20),
                        java.time.Duration.ofMinutes(2)));
        assertThat(ServerOptions.parse(List.of()).timeouts())
                .isEqualTo(dev.appliance.s3.S3ServerConfig.Timeouts.DEFAULTS);
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--body-timeout", "0s")))
                .hasMessageContaining("--body-timeout '0s'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--heal-sample-cycles", "-1")))
                .hasMessageContaining("--heal-sample-cycles '-1'");
        assertThat(ServerOptions.parse(List.of()).scanner()).isEqualTo(ServerOptions.Scanner.DEFAULTS);
        assertThat(ServerOptions.parse(
                                List.of("--header-timeout", "250ms", "--body-timeout", "3h", "--idle-timeout", "1d"))
                        .timeouts())
                .isEqualTo(new dev.appliance.s3.S3ServerConfig.Timeouts(
                        java.time.Duration.ofMillis(250), java.time.Duration.ofHours(3), java.time.Duration.ofDays(1)));
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--lifecycle-day", "ten")))
                .hasMessageContaining("--lifecycle-day 'ten'")
                .hasMessageContaining("positive duration");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--lifecycle-day", "0s")))
                .hasMessageContaining("--lifecycle-day '0s'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--max-versions-per-key", "0")))
                .hasMessageContaining("--max-versions-per-key '0'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--scanner-rate", "-1")))
                .hasMessageContaining("--scanner-rate '-1'");
    }
}
