package dev.appliance.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.cli.ServerOptions.HostPort;
import dev.appliance.core.drive.DriveSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's configuration as bound by Spring from flags, {@code -D} properties, the environment and the {@code
 * --config} file: each source alone, their precedence, the older spellings, and bad values named where they were
 * given.
 */
class ApplianceBindingTest {
    @TempDir
    Path tmp;

    private static ServerOptions parse(List<String> args, Map<String, String> env) {
        return ServerOptions.parse(args, env, Map.of());
    }

    private Path yaml(String text) throws Exception {
        return Files.writeString(tmp.resolve("appliance.yml"), text);
    }

    @Test
    void defaults_areTheDocumentedOnes() {
        ApplianceProperties p = parse(List.of(), Map.of()).properties();
        assertThat(p.s3().address()).isEqualTo(new HostPort("", 9000));
        assertThat(p.console().address()).isEqualTo(new HostPort("", 9001));
        assertThat(p.s3().maxConnections()).isEqualTo(10_000);
        assertThat(p.s3().maxRequests()).isNull();
        assertThat(p.s3().timeouts().header()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.s3().timeouts().body()).isEqualTo(Duration.ofSeconds(60));
        assertThat(p.s3().timeouts().idle()).isEqualTo(Duration.ofMinutes(5));
        assertThat(p.scanner().rate()).isEqualTo(1000);
        assertThat(p.scanner().healSampleCycles()).isEqualTo(16);
        assertThat(p.drives().paths()).isEmpty();
        assertThat(p.drives().metadataJournal()).isTrue();
        assertThat(p.drives().driveSettings()).isEqualTo(DriveSettings.DEFAULTS);
        assertThat(p.testing().faultInjection()).isFalse();
    }

    @Test
    void driveSettings_areBoundFromEverySource_asTheEngineTakesThem() throws Exception {
        Path file = yaml("""
                appliance:
                  drives:
                    timeout: 45s
                    error-limit: 3
                    error-window: 2m
                """);
        ServerOptions o = ServerOptions.parse(
                List.of("--config", file.toString()),
                Map.of("APPLIANCE_DRIVES_CHECK_INTERVAL", "0", "APPLIANCE_DRIVES_ERROR_LIMIT", "4"),
                Map.of("appliance.drives.straggler", "150ms", "appliance.drives.write-straggler", "PT1S"));
        assertThat(o.properties().drives().driveSettings())
                .isEqualTo(new DriveSettings(
                        Duration.ofSeconds(45),
                        Duration.ofMillis(150),
                        Duration.ofSeconds(1),
                        4,
                        Duration.ofMinutes(2),
                        Duration.ZERO));
    }

    @Test
    void badDriveSettings_nameThePropertyAndTheValue() throws Exception {
        assertThatThrownBy(() -> ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.drives.timeout", "0s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-Dappliance.drives.timeout '0s': expected a positive duration such as 500ms, 10s, 5m,"
                        + " 24h or PT10S");
        assertThatThrownBy(() -> parse(List.of(), Map.of("APPLIANCE_DRIVES_STRAGGLER", "-1s")))
                .hasMessage("APPLIANCE_DRIVES_STRAGGLER '-1s': expected 0 or a positive duration such as 500ms, 10s,"
                        + " 5m or PT10S");
        assertThatThrownBy(() -> parse(List.of(), Map.of("APPLIANCE_DRIVES_ERROR_LIMIT", "-2")))
                .hasMessage("APPLIANCE_DRIVES_ERROR_LIMIT '-2': expected 0 or a positive number");
        assertThatThrownBy(() -> parse(List.of(), Map.of("APPLIANCE_DRIVES_ERROR_LIMIT", "many")))
                .hasMessage("APPLIANCE_DRIVES_ERROR_LIMIT 'many': expected a whole number");
        Path file = yaml("appliance:\n  drives:\n    check-interval: often\n");
        assertThatThrownBy(() -> parse(List.of("--config", file.toString()), Map.of()))
                .hasMessageStartingWith("appliance.drives.check-interval 'often' (")
                .hasMessageContaining(file.getFileName().toString());
    }

    @Test
    void retiredEngineProperties_areRefusedNamingTheirReplacement() {
        assertThatThrownBy(
                        () -> ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.driveTimeoutMillis", "2000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-Dappliance.driveTimeoutMillis '2000': no longer read; set appliance.drives.timeout"
                        + " instead (docs/operations.md)");
        assertThatThrownBy(() -> ServerOptions.parse(List.of(), Map.of(), Map.of("appliance.driveCheckSeconds", "0")))
                .hasMessageContaining("set appliance.drives.check-interval");
    }

    @Test
    void environment_setsPropertiesByRelaxedNames() {
        ServerOptions o = parse(
                List.of(),
                Map.of(
                        "APPLIANCE_SCANNER_RATE", "250",
                        "APPLIANCE_S3_ADDRESS", "127.0.0.1:9100",
                        "APPLIANCE_S3_TIMEOUTS_IDLE", "2m",
                        "APPLIANCE_DRIVES_PATHS", "/mnt/a{1...2},/mnt/b{1...2}",
                        "APPLIANCE_DOMAIN", "s3.lab",
                        "APPLIANCE_ROOT_USER", "admin")); // read by the credential store, ignored here
        assertThat(o.scanner().keysPerSecond()).isEqualTo(250);
        assertThat(o.address()).isEqualTo(new HostPort("127.0.0.1", 9100));
        assertThat(o.timeouts().idle()).isEqualTo(Duration.ofMinutes(2));
        assertThat(o.drives())
                .containsExactly(Path.of("/mnt/a1"), Path.of("/mnt/a2"), Path.of("/mnt/b1"), Path.of("/mnt/b2"));
        assertThat(o.embeddedDefault()).isFalse();
        assertThat(o.domain()).isEqualTo("s3.lab");
    }

    @Test
    void file_setsPropertiesAndFlagsThenEnvironmentOverrideIt() throws Exception {
        Path file = yaml("""
                appliance:
                  scanner:
                    rate: 100
                    heal-sample-cycles: 8
                    lifecycle-day: 10s
                  s3:
                    max-connections: 300
                    max-requests: 40
                  drives:
                    paths:
                      - /srv/d{1...4}
                    parity: 2
                """);
        ServerOptions fileOnly = parse(List.of("--config", file.toString()), Map.of());
        assertThat(fileOnly.scanner().keysPerSecond()).isEqualTo(100);
        assertThat(fileOnly.scanner().healSampleCycles()).isEqualTo(8);
        assertThat(fileOnly.scanner().lifecycleDay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(fileOnly.maxConnections()).isEqualTo(300);
        assertThat(fileOnly.parity()).isEqualTo(2);
        assertThat(fileOnly.drives()).hasSize(4).first().isEqualTo(Path.of("/srv/d1"));

        // flags > environment > file, per property; a list (the drives) comes whole from the first source that has it
        ServerOptions all = parse(
                List.of("--config=" + file, "--scanner-rate", "5", "/mnt/x{1...6}"),
                Map.of("APPLIANCE_SCANNER_RATE", "50", "APPLIANCE_S3_MAX_CONNECTIONS", "200"));
        assertThat(all.scanner().keysPerSecond()).isEqualTo(5);
        assertThat(all.maxConnections()).isEqualTo(200);
        assertThat(all.maxRequests()).isEqualTo(40);
        assertThat(all.drives()).hasSize(6).first().isEqualTo(Path.of("/mnt/x1"));
    }

    @Test
    void propertiesFile_isReadByItsExtension() throws Exception {
        Path file = Files.writeString(tmp.resolve("appliance.properties"), "appliance.scanner.rate=7\n");
        assertThat(parse(List.of("--config", file.toString()), Map.of())
                        .scanner()
                        .keysPerSecond())
                .isEqualTo(7);
    }

    @Test
    void systemProperties_comeBetweenFlagsAndEnvironment_andKeepTheirOlderNames() {
        ServerOptions o = ServerOptions.parse(
                List.of("--scanner-rate", "5"),
                Map.of("APPLIANCE_SCANNER_HEAL_SAMPLE_CYCLES", "3", "APPLIANCE_SCANNER_RATE", "9"),
                Map.of(
                        "appliance.scanner.heal-sample-cycles", "4",
                        "appliance.scanner.rate", "6",
                        "appliance.faultInjection", "true",
                        "appliance.faultInjection.haltBeforeBanner", "true",
                        "appliance.metadataJournal", "false",
                        "user.home", "/somewhere"));
        assertThat(o.scanner().keysPerSecond()).isEqualTo(5);
        assertThat(o.scanner().healSampleCycles()).isEqualTo(4);
        assertThat(o.properties().testing().faultInjection()).isTrue();
        assertThat(o.properties().testing().haltBeforeBanner()).isTrue();
        assertThat(o.properties().drives().metadataJournal()).isFalse();
    }

    @Test
    void badValues_nameWhereTheyWereGivenAndTheValue() throws Exception {
        assertThatThrownBy(() -> parse(List.of("--scanner-rate", "fast"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--scanner-rate 'fast': expected a whole number");
        assertThatThrownBy(() -> parse(List.of("--scanner-rate=-3"), Map.of()))
                .hasMessage("--scanner-rate '-3': expected 0 or a positive number");
        assertThatThrownBy(() -> parse(List.of("--idle-timeout", "0s"), Map.of()))
                .hasMessage("--idle-timeout '0s': expected a positive duration such as 500ms, 10s, 5m, 24h or PT10S");
        assertThatThrownBy(() -> parse(List.of("--address", "localhost"), Map.of()))
                .hasMessage("--address 'localhost': expected HOST:PORT or :PORT");
        assertThatThrownBy(() -> parse(List.of(), Map.of("APPLIANCE_SCANNER_RATE", "-1")))
                .hasMessage("APPLIANCE_SCANNER_RATE '-1': expected 0 or a positive number");
        assertThatThrownBy(() -> parse(List.of(), Map.of("APPLIANCE_S3_TIMEOUTS_BODY", "soon")))
                .hasMessageStartingWith("APPLIANCE_S3_TIMEOUTS_BODY 'soon': expected a positive duration");
        Path file = yaml("appliance:\n  s3:\n    max-requests: 0\n");
        assertThatThrownBy(() -> parse(List.of("--config", file.toString()), Map.of()))
                .hasMessageStartingWith("appliance.s3.max-requests '0' (")
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageEndingWith("): expected a positive number");
        assertThatThrownBy(() ->
                        parse(List.of("--config", tmp.resolve("absent.yml").toString()), Map.of()))
                .hasMessageContaining("--config '")
                .hasMessageContaining("no such file");
    }

    @Test
    void aBadFlagValue_isReportedEvenWhenTheFileHadAGoodOne() throws Exception {
        Path file = yaml("appliance:\n  drives:\n    parity: 2\n");
        assertThatThrownBy(() -> parse(List.of("--config", file.toString(), "--parity", "0"), Map.of()))
                .hasMessage("--parity '0': expected a positive number");
    }
}
