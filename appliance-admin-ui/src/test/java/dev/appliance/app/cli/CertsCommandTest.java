package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertsCommandTest {

    @Test
    void parse_takesDirHostsAndForceInBothFlagForms() {
        CertsCommand.Options o = CertsCommand.parse(List.of(
                "generate", "--dir", "/etc/appliance/certs", "--host=a.lab,b.lab", "--host", "c.lab", "--force"));
        assertThat(o.dir()).isEqualTo(Path.of("/etc/appliance/certs"));
        assertThat(o.hosts()).containsExactly("a.lab", "b.lab", "c.lab");
        assertThat(o.force()).isTrue();
        assertThat(CertsCommand.parse(List.of("generate")).dir()).isEqualTo(Path.of("certs"));
    }

    @Test
    void parse_namesWhatIsWrong() {
        assertThatThrownBy(() -> CertsCommand.parse(List.of())).hasMessageContaining("missing subcommand");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("make"))).hasMessageContaining("'make'");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("generate", "--bogus")))
                .hasMessageContaining("'--bogus'");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("generate", "--dir")))
                .hasMessageContaining("--dir: missing value");
        assertThatThrownBy(() -> CertsCommand.parse(List.of("generate", "stray")))
                .hasMessageContaining("'stray'");
    }
}
