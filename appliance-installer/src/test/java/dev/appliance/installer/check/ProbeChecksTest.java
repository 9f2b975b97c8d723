package dev.appliance.installer.check;

import static dev.appliance.installer.testing.FakeHost.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.installer.probe.ProbeOutcome;
import dev.appliance.installer.testing.FakeHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeChecksTest {
    @TempDir
    Path tmp;

    private static final long MS = 1_000_000;
    private static final long MB = 1_000_000;

    private static ProbeOutcome.Measured at(String drive, long latencyMs, long writeMb, long readMb) {
        return new ProbeOutcome.Measured(Path.of(drive), latencyMs * MS, writeMb * MB, readMb * MB);
    }

    @Test
    void equalDrives_pass_withTheMedians() {
        Check c = ProbeChecks.judge(List.of(at("/d1", 1, 200, 300), at("/d2", 1, 200, 300), at("/d3", 1, 200, 300)));
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).isEqualTo("median of 3 drives: sync latency 1.00 ms, writes 200 MB/s, reads 300 MB/s");
    }

    @Test
    void anOutlier_warns_noODirectWarns_aFailedDriveFails() {
        Check c = ProbeChecks.judge(List.of(
                at("/d1", 1, 200, 300),
                at("/d2", 1, 200, 300),
                at("/d3", 5, 200, 300),
                new ProbeOutcome.NoDirectIo(Path.of("/d4"), "the filesystem refuses O_DIRECT (Invalid argument)")));
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured())
                .isEqualTo("/d3: sync latency 5.00 ms against a median of 1.00 ms; /d4: the filesystem refuses"
                        + " O_DIRECT (Invalid argument) (median of 3 drives: sync latency 1.00 ms, writes 200 MB/s,"
                        + " reads 300 MB/s)");
        Check failed = ProbeChecks.judge(
                List.of(at("/d1", 1, 200, 300), new ProbeOutcome.Failed(Path.of("/d2"), "I/O error: EIO")));
        assertThat(failed.result()).isEqualTo(Result.FAIL);
        assertThat(failed.measured()).startsWith("/d2: I/O error: EIO (median of 1 drives");
    }

    @Test
    void aDriveFlaggedOnce_isProbedAgain_andKeepsItsBetterRound() {
        List<ProbeOutcome> first =
                List.of(at("/d1", 1, 200, 300), at("/d2", 1, 200, 300), at("/d3", 1, 200, 300), at("/d4", 9, 200, 300));
        List<Path> probedAgain = new java.util.ArrayList<>();
        // d4 was slow only the first time: the second round clears it
        List<ProbeOutcome> passing = ProbeChecks.confirmOutliers(first, drive -> {
            probedAgain.add(drive);
            return at(drive.toString(), 1, 190, 310);
        });
        assertThat(probedAgain).containsExactly(Path.of("/d4"));
        assertThat(ProbeChecks.judge(passing).result()).isEqualTo(Result.PASS);
        assertThat(passing.get(3)).isEqualTo(at("/d4", 1, 200, 310));
        // slow both times: still named
        List<ProbeOutcome> slow = ProbeChecks.confirmOutliers(first, drive -> at(drive.toString(), 8, 200, 300));
        Check c = ProbeChecks.judge(slow);
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).startsWith("/d4: sync latency 8.00 ms against a median of 1.00 ms");
    }

    @Test
    void preflight_probesOnlyWhenAsked() throws IOException {
        FakeHost host = FakeHost.healthy(tmp.resolve("root"));
        List<Path> drives = List.of(
                Files.createDirectories(tmp.resolve("d1")),
                Files.createDirectories(tmp.resolve("d2")),
                Files.createDirectories(tmp.resolve("d3")),
                Files.createDirectories(tmp.resolve("d4")));
        Preflight.Options options = new Preflight.Options(drives, OptionalLong.empty(), 256)
                .withSmart(device -> new dev.appliance.installer.smart.SmartReading.NotInstalled("nowhere"));
        assertThat(Preflight.run(host.view(), options)).extracting(Check::id).doesNotContain("drives.probe");
        Check probe = check(Preflight.run(host.view(), options.withProbe(true)), "drives.probe");
        // four writable directories: measured (an outlier among them only warns), or O_DIRECT refused (a warning)
        assertThat(probe.result()).as(probe.toString()).isNotEqualTo(Result.FAIL);
        assertThat(probe.measured()).containsAnyOf("median of 4 drives", "refuses O_DIRECT");
    }
}
