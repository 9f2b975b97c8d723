package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CpuChecksTest {
    @TempDir
    Path root;

    private List<Check> run(FakeHost host, long capacity) {
        return CpuChecks.run(host.view(), new CpuChecks.Capacity(capacity, "test"));
    }

    @Test
    void everyFeature_present_passes() {
        List<Check> checks = run(FakeHost.healthy(root), Requirements.TB);
        for (String id : List.of("cpu.avx2", "cpu.avx512", "cpu.aes", "cpu.sha")) {
            assertThat(check(checks, id).result()).as(id).isEqualTo(Result.PASS);
        }
        assertThat(check(checks, "cpu.avx512").measured()).startsWith("avx512f");
    }

    @ParameterizedTest
    @CsvSource({"cpu.avx2, avx2", "cpu.aes, aes", "cpu.sha, sha_ni"})
    void aMissingFeature_warnsWithTheFlagNamed(String id, String flag) {
        String flags = "fpu avx avx2 aes sha_ni avx512f".replace(" " + flag, "");
        List<Check> checks = run(FakeHost.healthy(root).cpus(1, 16, 1, flags), Requirements.TB);
        Check c = check(checks, id);
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("no " + flag);
        assertThat(c.remediation()).isNotBlank();
    }

    @Test
    void avx512_isOnlyNoted_neverHeldAgainstTheMachine() {
        Check c = check(run(FakeHost.healthy(root).cpus(1, 16, 1, "avx2 aes sha_ni"), Requirements.TB), "cpu.avx512");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).isEqualTo("no avx512f");
    }

    @Test
    void noFlagsLine_warnsUnknown() {
        FakeHost host = FakeHost.healthy(root).file("/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd aes\n");
        Check c = check(run(host, Requirements.TB), "cpu.avx2");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("unknown");
    }

    /** The table at each boundary: up to 1 TB 8 cores, 10 TB 16, 100 TB 32, 1 PB 64, more 128. */
    @ParameterizedTest
    @CsvSource({
        "1000000000000, 8, PASS",
        "1000000000000, 7, WARN",
        "1000000000001, 16, PASS",
        "1000000000001, 15, WARN",
        "10000000000000, 16, PASS",
        "10000000000001, 31, WARN",
        "100000000000000, 32, PASS",
        "100000000000001, 63, WARN",
        "1000000000000000, 64, PASS",
        "1000000000000001, 128, PASS",
        "1000000000000001, 127, WARN",
        // below half the table fails
        "1000000000000001, 64, WARN",
        "1000000000000001, 63, FAIL",
        "1000000000000, 4, WARN",
        "1000000000000, 3, FAIL"
    })
    void cores_areHeldAgainstTheCapacityTable(long capacity, int cores, Result expected) {
        Check c = check(run(FakeHost.healthy(root).cpus(1, cores, 1, "avx2 aes sha_ni"), capacity), "cpu.cores");
        assertThat(c.result()).as(c.toString()).isEqualTo(expected);
    }

    @Test
    void hyperThreads_areNotCores() {
        // 8 cores with 2 threads each: 16 logical CPUs, but 10 TB asks for 16 physical cores
        Check c = check(run(FakeHost.healthy(root).cpus(1, 8, 2, "avx2"), 10 * Requirements.TB), "cpu.cores");
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).isEqualTo("8 physical cores (16 logical CPUs)");
        assertThat(c.expected()).startsWith(">= 16 physical cores for 10.0 TB stored");
    }

    @Test
    void coresOfEveryPackage_count() {
        Check c = check(run(FakeHost.healthy(root).cpus(2, 8, 2, "avx2"), 10 * Requirements.TB), "cpu.cores");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).isEqualTo("16 physical cores (32 logical CPUs)");
    }

    @Test
    void unknownCapacity_isHeldAgainstTheSmallestTier() {
        List<Check> checks =
                CpuChecks.run(FakeHost.healthy(root).cpus(1, 8, 1, "avx2").view(), CpuChecks.Capacity.UNKNOWN);
        Check c = check(checks, "cpu.cores");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.expected()).startsWith(">= 8 physical cores for an unknown capacity");
    }

    @Test
    void withoutCoreIds_logicalCpusCount() {
        FakeHost host = FakeHost.healthy(root)
                .file("/proc/cpuinfo", "processor\t: 0\nflags\t: avx2\n\nprocessor\t: 1\nflags\t: avx2\n");
        assertThat(check(run(host, Requirements.TB), "cpu.cores").measured())
                .isEqualTo("2 physical cores (2 logical CPUs)");
    }
}
