package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.testing.FakeHost;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemoryChecksTest {
    @TempDir
    Path root;

    private Check run(FakeHost host, int drives, int requests, String id) {
        return check(MemoryChecks.run(host.view(), drives, requests), id);
    }

    /**
     * 8 drives and 256 requests in flight want 4 + 8 + 4 = 16 GiB (16777216 KiB); MemTotal within 95% of it passes,
     * at least half warns, less fails.
     */
    @ParameterizedTest
    @CsvSource({
        "16777216, PASS",
        "15938356, PASS", // 95% of 16 GiB, rounded up to the KiB
        "15938355, WARN",
        "8388608, WARN",
        "8388607, FAIL"
    })
    void ram_isHeldAgainstTheDrivesAndRequestsInFlight(long memTotalKiB, Result expected) {
        Check c = run(FakeHost.healthy(root).memory(memTotalKiB, 0), 8, 256, "memory.ram");
        assertThat(c.result()).as(c.toString()).isEqualTo(expected);
        assertThat(c.expected()).startsWith(">= 16.0 GiB for 8 drives and 256 requests in flight");
    }

    @Test
    void ram_growsWithRequestsInFlight() {
        // 4 + 8 + 1024 × 16 MiB = 28 GiB
        Check c = run(FakeHost.healthy(root).memory(16L << 20, 0), 8, 1024, "memory.ram");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.expected()).startsWith(">= 28.0 GiB");
        assertThat(c.measured()).isEqualTo("16.0 GiB");
    }

    @Test
    void ram_withoutDrives_assumesTheSmallestSet() {
        Check c = run(FakeHost.healthy(root).memory(12L << 20, 0), 0, 256, "memory.ram");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.expected()).contains("for 4 drives (no --drives");
    }

    @ParameterizedTest
    @CsvSource({"0, 60, PASS", "8388608, 10, PASS", "8388608, 1, PASS", "8388608, 11, WARN", "8388608, 60, WARN"})
    void swap_isOffOrBarelyUsed(long swapKiB, int swappiness, Result expected) {
        FakeHost host = FakeHost.healthy(root).memory(64L << 20, swapKiB).sysctl("vm.swappiness", "" + swappiness);
        Check c = run(host, 4, 256, "memory.swap");
        assertThat(c.result()).as(c.toString()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"[always] madvise never, WARN", "always [madvise] never, PASS", "always madvise [never], PASS"})
    void transparentHugePages_madviseOrNever(String enabled, Result expected) {
        Check c = run(
                FakeHost.healthy(root).file("/sys/kernel/mm/transparent_hugepage/enabled", enabled),
                4,
                256,
                "memory.thp");
        assertThat(c.result()).isEqualTo(expected);
        assertThat(c.measured()).isEqualTo(MemoryChecks.selectedMode(enabled));
    }

    @Test
    void transparentHugePages_absentFromTheKernel_passes() {
        Check c =
                run(FakeHost.healthy(root).remove("/sys/kernel/mm/transparent_hugepage/enabled"), 4, 256, "memory.thp");
        assertThat(c.result()).isEqualTo(Result.PASS);
    }

    @ParameterizedTest
    @CsvSource({"262144, PASS", "1048576, PASS", "262143, WARN", "65530, WARN"})
    void maxMapCount_atLeast262144(String value, Result expected) {
        Check c = run(FakeHost.healthy(root).sysctl("vm.max_map_count", value), 4, 256, "vm.max_map_count");
        assertThat(c.result()).isEqualTo(expected);
        assertThat(c.measured()).isEqualTo(value);
    }

    @Test
    void unreadableMeminfo_warnsUnknown() {
        Check c = run(FakeHost.healthy(root).remove("/proc/meminfo"), 4, 256, "memory.ram");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("unknown");
    }
}
