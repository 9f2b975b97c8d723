package dev.appliance.installer.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every rule against the machine the tests run on: whatever it is, each check comes back whole. */
class PreflightOnThisMachineTest {
    @TempDir
    Path tmp;

    @Test
    void kernelParameters_areReadWhole() {
        // pid_max is at least 301 on every Linux; a reader that takes /proc's size 0 at its word gets its first digit
        long pidMax = Long.parseLong(SystemView.real().sysctl("kernel.pid_max").orElseThrow());
        assertThat(pidMax).isGreaterThanOrEqualTo(301);
    }

    @Test
    void everyCheck_hasAResult_andARemediationUnlessItPassed() throws IOException {
        List<Path> drives =
                List.of(Files.createDirectories(tmp.resolve("drive1")), Files.createDirectories(tmp.resolve("drive2")));
        List<Check> checks = Preflight.run(
                SystemView.real(),
                new Preflight.Options(drives, OptionalLong.empty(), Requirements.DEFAULT_REQUESTS_IN_FLIGHT));
        assertThat(checks).extracting(Check::id).doesNotHaveDuplicates();
        assertThat(checks)
                .extracting(Check::id)
                .contains(
                        "cpu.avx2",
                        "cpu.avx512",
                        "cpu.aes",
                        "cpu.sha",
                        "cpu.cores",
                        "memory.ram",
                        "memory.swap",
                        "memory.thp",
                        "vm.max_map_count",
                        "net.core.rmem_max",
                        "net.ipv4.tcp_slow_start_after_idle",
                        "kernel.clocksource",
                        "limits.open-files",
                        "time.sync",
                        "drives.exist",
                        "drives.count",
                        "drives.root-disk",
                        "drives.filesystem",
                        "drives.free-space",
                        "drives.inodes");
        assertThat(checks).allSatisfy(c -> {
            assertThat(c.result()).as(c.id()).isNotNull();
            assertThat(c.measured()).as(c.id()).isNotBlank();
            assertThat(c.expected()).as(c.id()).isNotBlank();
            if (c.result() != Result.PASS) {
                assertThat(c.remediation()).as(c.id()).isNotBlank();
            }
        });
        // two directories side by side share one filesystem: the drive rules must see that on any machine
        assertThat(checks)
                .filteredOn(c -> c.id().equals("drives.distinct"))
                .singleElement()
                .extracting(Check::result)
                .isEqualTo(Result.FAIL);
    }
}
