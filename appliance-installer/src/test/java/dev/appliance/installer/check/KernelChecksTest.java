package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.installer.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class KernelChecksTest {
    @TempDir
    Path root;

    private Check run(FakeHost host, String id) {
        return check(KernelChecks.run(host.view()), id);
    }

    @Test
    void aTunedHost_passesEveryKernelCheck() {
        List<Check> checks = KernelChecks.run(FakeHost.healthy(root).view());
        assertThat(checks)
                .allSatisfy(c -> assertThat(c.result()).as(c.toString()).isEqualTo(Result.PASS));
        assertThat(checks)
                .extracting(Check::id)
                .containsExactly(
                        "net.core.rmem_max",
                        "net.core.wmem_max",
                        "net.ipv4.tcp_rmem",
                        "net.ipv4.tcp_wmem",
                        "net.core.somaxconn",
                        "net.ipv4.tcp_max_syn_backlog",
                        "net.core.netdev_max_backlog",
                        "net.ipv4.tcp_slow_start_after_idle",
                        "kernel.clocksource",
                        "limits.open-files",
                        "time.sync");
    }

    /** Each parameter at its threshold passes and just past it warns (the thresholds written out, not read back). */
    @ParameterizedTest
    @CsvSource({
        "net.core.rmem_max, 67108864, PASS",
        "net.core.rmem_max, 67108863, WARN",
        "net.core.rmem_max, 212992, WARN",
        "net.core.wmem_max, 67108864, PASS",
        "net.core.wmem_max, 67108863, WARN",
        "net.ipv4.tcp_rmem, 4096\t131072\t67108864, PASS",
        "net.ipv4.tcp_rmem, 4096\t131072\t67108863, WARN",
        "net.ipv4.tcp_rmem, 4096\t131072\t6291456, WARN",
        "net.ipv4.tcp_wmem, 4096\t16384\t67108864, PASS",
        "net.ipv4.tcp_wmem, 4096\t16384\t4194304, WARN",
        "net.core.somaxconn, 4096, PASS",
        "net.core.somaxconn, 4095, WARN",
        "net.ipv4.tcp_max_syn_backlog, 8192, PASS",
        "net.ipv4.tcp_max_syn_backlog, 8191, WARN",
        "net.core.netdev_max_backlog, 30000, PASS",
        "net.core.netdev_max_backlog, 29999, WARN",
        "net.ipv4.tcp_slow_start_after_idle, 0, PASS",
        "net.ipv4.tcp_slow_start_after_idle, 1, WARN"
    })
    void networkParameters_areHeldAgainstTheirThresholds(String key, String value, Result expected) {
        Check c = run(FakeHost.healthy(root).sysctl(key, value), key);
        assertThat(c.result()).as(c.toString()).isEqualTo(expected);
        assertThat(c.measured()).isEqualTo(value.replace('\t', ' '));
        if (expected != Result.PASS) {
            assertThat(c.remediation()).contains("tune --apply").contains(key);
        }
    }

    @Test
    void anUnreadableParameter_warnsUnknown() {
        Check c = run(FakeHost.healthy(root).remove("/proc/sys/net/core/somaxconn"), "net.core.somaxconn");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("unknown: /proc/sys/net/core/somaxconn");
    }

    @ParameterizedTest
    @CsvSource({"tsc, PASS", "kvm-clock, WARN", "hpet, WARN"})
    void clocksource_tsc(String source, Result expected) {
        Check c = run(
                FakeHost.healthy(root).file("/sys/devices/system/clocksource/clocksource0/current_clocksource", source),
                "kernel.clocksource");
        assertThat(c.result()).isEqualTo(expected);
        assertThat(c.measured()).startsWith(source + " (available: tsc hpet acpi_pm)");
    }

    @Test
    void clocksource_unreadable_warns() {
        Check c = run(
                FakeHost.healthy(root).remove("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
                "kernel.clocksource");
        assertThat(c.result()).isEqualTo(Result.WARN);
    }

    @ParameterizedTest
    @CsvSource({
        "1048576, 1048576, PASS",
        "1024, 1048576, PASS", // the JVM raises its soft limit to the hard one
        "1024, 1048575, WARN",
        "1024, 4096, WARN",
        "unlimited, unlimited, PASS"
    })
    void openFiles_withoutAUnit_areWhatAServerStartedHereGets(String soft, String hard, Result expected) {
        FakeHost host = FakeHost.healthy(root)
                .file("/proc/self/limits", "Max open files            " + soft + "  " + hard + "  files\n");
        Check c = run(host, "limits.open-files");
        assertThat(c.result()).as(c.toString()).isEqualTo(expected);
        assertThat(c.measured()).contains("no appliance.service installed");
    }

    @Test
    void openFiles_ofTheInstalledUnit_countOverTheShells() {
        FakeHost host = FakeHost.healthy(root)
                .file("/proc/self/limits", "Max open files            1024  4096  files\n")
                .file("/usr/lib/systemd/system/appliance.service", "[Service]\nLimitNOFILE=1048576\n");
        Check c = run(host, "limits.open-files");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).isEqualTo("1048576 (LimitNOFILE in /usr/lib/systemd/system/appliance.service)");
    }

    @Test
    void openFiles_aDropInLowersTheUnits() {
        FakeHost host = FakeHost.healthy(root)
                .file("/usr/lib/systemd/system/appliance.service", "[Service]\nLimitNOFILE=1048576\n")
                .file("/etc/systemd/system/appliance.service.d/10-limits.conf", "[Service]\nLimitNOFILE=4096:65536\n");
        Check c = run(host, "limits.open-files");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured())
                .isEqualTo("65536 (LimitNOFILE in /etc/systemd/system/appliance.service.d/10-limits.conf)");
    }

    @Test
    void openFiles_aUnitWithoutTheSetting_hasSystemdsDefault() {
        FakeHost host = FakeHost.healthy(root).file("/etc/systemd/system/appliance.service", "[Service]\n");
        Check c = run(host, "limits.open-files");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("524288 (");
    }

    @ParameterizedTest
    @EnumSource(HostTimeSync.State.class)
    void timeSync_followsTheKernelsNtpState_asTheRetentionClockDoes(HostTimeSync.State state) {
        Check c = run(FakeHost.healthy(root).timeSync(state), "time.sync");
        Result expected =
                switch (state) {
                    case SYNCHRONIZED -> Result.PASS;
                    case UNSYNCHRONIZED -> Result.FAIL;
                    case UNKNOWN -> Result.WARN;
                };
        assertThat(c.result()).isEqualTo(expected);
        if (expected != Result.PASS) {
            assertThat(c.remediation()).contains("chronyd");
        }
    }
}
