package dev.appliance.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.app.cli.CertsCommand;
import dev.appliance.app.cli.ServerOptions;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The checks {@code appliance server} makes before it writes anything, and help as an answer rather than an error. */
class StartChecksTest {
    @Test
    void aBusyPort_isRefusedNamingTheAddressAndTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            var address = new ServerOptions.HostPort("127.0.0.1", taken.getLocalPort());
            assertThatThrownBy(() -> ApplianceMain.probeListen(address, "--console-address"))
                    .hasMessage("cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + " (--console-address): address already in use");
        }
    }

    @Test
    void aFreePort_passesTheProbeAndIsFreeAgainAfterIt() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            port = s.getLocalPort();
        }
        var address = new ServerOptions.HostPort("127.0.0.1", port);
        ApplianceMain.probeListen(address, "--address");
        try (ServerSocket again = new ServerSocket()) {
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress("127.0.0.1", port)); // the probe let it go
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void help_anywhereInTheArguments_answersWithTheCommandsUsage() {
        assertThat(ApplianceMain.helpFor(new String[] {"server", "--help"})).isEqualTo(ServerOptions.USAGE);
        assertThat(ApplianceMain.helpFor(new String[] {"server", "/mnt/disk{1...4}", "-h"}))
                .isEqualTo(ServerOptions.USAGE);
        assertThat(ApplianceMain.helpFor(new String[] {"certs", "generate", "--help"}))
                .isEqualTo(CertsCommand.USAGE);
        assertThat(ApplianceMain.helpFor(new String[] {"--help"})).contains(ServerOptions.USAGE, CertsCommand.USAGE);
        assertThat(ApplianceMain.helpFor(new String[] {"server", "/mnt/disk1"})).isNull();
        assertThat(ApplianceMain.helpFor(new String[] {})).isNull();
    }
}
