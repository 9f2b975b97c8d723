package dev.appliance.installer.tune;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.check.SysctlRule;
import dev.appliance.installer.testing.FakeHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysctlTuningTest {
    @TempDir
    Path root;

    /** A kernel at common distribution defaults: every network parameter short of the rule. */
    private FakeHost untuned() {
        return FakeHost.healthy(root)
                .sysctl("net.core.rmem_max", "212992")
                .sysctl("net.core.wmem_max", "212992")
                .sysctl("net.ipv4.tcp_rmem", "4096\t131072\t6291456")
                .sysctl("net.ipv4.tcp_wmem", "4096\t16384\t4194304")
                .sysctl("net.core.somaxconn", "4096")
                .sysctl("net.ipv4.tcp_max_syn_backlog", "1024")
                .sysctl("net.core.netdev_max_backlog", "1000")
                .sysctl("net.ipv4.tcp_slow_start_after_idle", "1")
                .sysctl("vm.swappiness", "60")
                .sysctl("vm.max_map_count", "65530");
    }

    @Test
    void proposed_raisesWhatFallsShort_andKeepsWhatAlreadyMeetsTheRule() {
        FakeHost host = untuned().sysctl("net.core.somaxconn", "65535").sysctl("vm.swappiness", "1");
        List<String> lines = SysctlTuning.proposed(host.view());
        assertThat(lines)
                .filteredOn(l -> !l.startsWith("#") && !l.isEmpty())
                .containsExactly(
                        "net.core.rmem_max = 67108864",
                        "net.core.wmem_max = 67108864",
                        "net.ipv4.tcp_rmem = 4096 131072 67108864",
                        "net.ipv4.tcp_wmem = 4096 65536 67108864",
                        "net.core.somaxconn = 65535", // an administrator's higher value is never lowered
                        "net.ipv4.tcp_max_syn_backlog = 8192",
                        "net.core.netdev_max_backlog = 30000",
                        "net.ipv4.tcp_slow_start_after_idle = 0",
                        "vm.swappiness = 1",
                        "vm.max_map_count = 262144");
    }

    @Test
    void diff_ofAFreshHost_addsEveryLine() throws IOException {
        List<String> diff = SysctlTuning.diff(untuned().view());
        assertThat(diff).allSatisfy(l -> assertThat(l).startsWith("+"));
        assertThat(diff).contains("+net.core.rmem_max = 67108864");
    }

    @Test
    void apply_writesTheFileUnderTheRoot_andThenNothingIsLeftToChange() throws IOException {
        FakeHost host = untuned();
        Path written = SysctlTuning.apply(host.view());
        assertThat(written).isEqualTo(root.resolve("etc/sysctl.d/90-appliance.conf"));
        assertThat(Files.readAllLines(written)).isEqualTo(SysctlTuning.proposed(host.view()));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(written)))
                .isEqualTo("rw-r--r--");
        try (var left = Files.list(written.getParent())) {
            assertThat(left).containsExactly(written); // no temporary file left beside it
        }
        assertThat(SysctlTuning.diff(host.view())).isEmpty();
    }

    @Test
    void diff_againstAnOlderFile_removesAndAdds() throws IOException {
        FakeHost host = untuned();
        SysctlTuning.apply(host.view());
        Path file = root.resolve("etc/sysctl.d/90-appliance.conf");
        String old = Files.readString(file)
                .replace("net.core.netdev_max_backlog = 30000", "net.core.netdev_max_backlog = 5000");
        Files.writeString(file, old);
        assertThat(SysctlTuning.diff(host.view()))
                .filteredOn(l -> !l.startsWith(" "))
                .containsExactly("-net.core.netdev_max_backlog = 5000", "+net.core.netdev_max_backlog = 30000");
    }

    @Test
    void everyRecommendedValue_meetsItsOwnRule() {
        for (SysctlRule rule : SysctlRule.RECOMMENDED) {
            assertThat(rule.satisfiedBy(rule.recommended())).as(rule.key()).isTrue();
        }
    }

    @Test
    void lineDiff_marksCommonRemovedAndAddedLines() {
        assertThat(LineDiff.of(List.of("a", "b", "c"), List.of("a", "x", "c", "d")))
                .containsExactly(" a", "-b", "+x", " c", "+d");
        assertThat(LineDiff.of(List.of("a"), List.of("a"))).isEmpty();
        assertThat(LineDiff.of(List.of(), List.of("a"))).containsExactly("+a");
        assertThat(LineDiff.of(List.of("a"), List.of())).containsExactly("-a");
    }
}
