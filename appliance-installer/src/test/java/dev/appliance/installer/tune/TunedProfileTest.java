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

class TunedProfileTest {
    @TempDir
    Path root;

    /** The RPM's copy, from this module's directory (where the tests run). */
    private static final Path PACKAGED = Path.of("../packaging/rpm/files/tuned.conf");

    private static List<String> sysctlSection(List<String> profile) {
        return profile.subList(profile.indexOf("[sysctl]") + 1, profile.size()).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .toList();
    }

    @Test
    void theStandardProfile_setsEveryRecommendedParameter_atItsRecommendedValue() {
        List<String> profile = TunedProfile.standard();
        assertThat(profile).contains("include=throughput-performance", "[vm]", "transparent_hugepages=madvise");
        assertThat(sysctlSection(profile))
                .containsExactlyElementsOf(SysctlRule.RECOMMENDED.stream()
                        .map(r -> r.key() + "=" + r.recommended())
                        .toList());
    }

    @Test
    void thePackagedProfile_isTheStandardOne() throws IOException {
        String expected = String.join("\n", TunedProfile.standard()) + "\n";
        assertThat(Files.readString(PACKAGED))
                .as(
                        "packaging/rpm/files/tuned.conf must be TunedProfile.standard(), so the RPM's profile and the"
                                + " preflight agree; write it as:%n%s",
                        expected)
                .isEqualTo(expected);
    }

    @Test
    void theHostsProfile_keepsARunningValueThatAlreadyMeetsTheRule() {
        FakeHost host =
                FakeHost.healthy(root).sysctl("net.core.somaxconn", "65535").sysctl("vm.swappiness", "60");
        List<String> section = sysctlSection(TunedProfile.proposed(host.view()));
        assertThat(section)
                .contains("net.core.somaxconn=65535", "vm.swappiness=10", "net.ipv4.tcp_rmem=4096 131072 67108864");
    }

    @Test
    void apply_writesTheProfileUnderTheRoot_readableByAll_andThenNothingDiffers() throws IOException {
        FakeHost host = FakeHost.healthy(root);
        assertThat(TunedProfile.diff(host.view())).isNotEmpty().allSatisfy(l -> assertThat(l)
                .startsWith("+"));
        Path written = TunedProfile.apply(host.view());
        assertThat(written).isEqualTo(root.resolve("etc/tuned/appliance/tuned.conf"));
        assertThat(Files.getPosixFilePermissions(written)).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(TunedProfile.diff(host.view())).isEmpty();
        assertThat(Files.list(written.getParent())).containsExactly(written);
    }
}
