package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.testing.FakeHost;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NetworkChecksTest {
    @TempDir
    Path tmp;

    private Check mtu(FakeHost host) {
        return check(
                Preflight.run(host.view(), new Preflight.Options(java.util.List.of(), OptionalLong.empty(), 256)),
                "net.mtu");
    }

    @Test
    void oneMtuOnEveryInterface_passes() {
        Check c = mtu(FakeHost.healthy(tmp));
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).isEqualTo("eth0, eth1: 9000");
    }

    @Test
    void differentMtus_warn_namingEachInterface() {
        Check c =
                mtu(FakeHost.healthy(tmp).networkInterface("eth2", 1500, true).networkInterface("bond0", 9000, false));
        assertThat(c.result()).isEqualTo(Result.WARN);
        // bond0 has no device link here and is not a bond (no bonding directory): virtual, left out
        assertThat(c.measured()).isEqualTo("eth2: 1500; eth0, eth1: 9000");
        assertThat(c.remediation()).contains("same on the switches");
    }

    @Test
    void interfacesThatAreDown_andLoopback_areLeftOut_andVirtualOnesCountWhenNothingElseIsUp() {
        FakeHost host = new FakeHost(tmp)
                .networkInterface("lo", 65536, false)
                .networkInterface("veth0", 1450, false)
                .file("/sys/class/net/eth0/mtu", "1500")
                .file("/sys/class/net/eth0/operstate", "down");
        assertThat(NetworkChecks.mtu(NetworkChecks.interfaces(host.view())).measured())
                .isEqualTo("veth0: 1450");
    }

    @Test
    void noSysfs_warnsUnknown() {
        Check c = NetworkChecks.mtu(NetworkChecks.interfaces(new FakeHost(tmp).view()));
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("unknown: ");
    }
}
