package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The S3 transport flags of {@code server} and the arguments of {@code certs generate}. */
class TransportOptionsTest {
    @Test
    void serverFlags_certsDirDomainAndLimits() {
        ServerOptions o = ServerOptions.parse(List.of(
                "--certs-dir",
                "/etc/appliance/certs",
                "--domain=s3.lab",
                "--max-connections",
                "500",
                "--max-requests=64"));
        assertThat(o.certsDir()).isEqualTo(Path.of("/etc/appliance/certs"));
        assertThat(o.domain()).isEqualTo("s3.lab");
        assertThat(o.maxConnections()).isEqualTo(500);
        assertThat(o.maxRequests()).isEqualTo(64);

        ServerOptions plain = ServerOptions.parse(List.of());
        assertThat(plain.certsDir()).isNull();
        assertThat(plain.domain()).isNull();
        assertThat(plain.maxConnections())
                .isEqualTo(dev.appliance.s3.S3ServerConfig.Limits.DEFAULT_MAX_CONNECTIONS); // the default, bound
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--max-requests", "0")))
                .hasMessageContaining("--max-requests '0'");
        assertThatThrownBy(() -> ServerOptions.parse(List.of("--certs-dir"))).hasMessageContaining("missing value");
    }

    @Test
    void certsGenerate_dirHostsForce() {
        CertsCommand.Options o = CertsCommand.parse(
                List.of("generate", "--dir", "/tmp/c", "--host", "a.lab", "--host=b.lab,10.0.0.5", "--force"));
        assertThat(o.dir()).isEqualTo(Path.of("/tmp/c"));
        assertThat(o.hosts()).containsExactly("a.lab", "b.lab", "10.0.0.5");
        assertThat(o.force()).isTrue();

        CertsCommand.Options defaults = CertsCommand.parse(List.of("generate"));
        assertThat(defaults.dir()).isEqualTo(Path.of("certs"));
        assertThat(defaults.hosts()).isEmpty();
        assertThat(defaults.force()).isFalse();

        assertThatThrownBy(() -> CertsCommand.parse(List.of())).hasMessageContaining("missing subcommand");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("renew"))).hasMessageContaining("unknown subcommand");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("generate", "--days", "3")))
                .hasMessageContaining("unknown option");
    }
}
