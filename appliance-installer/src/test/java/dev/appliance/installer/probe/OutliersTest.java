package dev.appliance.installer.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutliersTest {
    private static final long MS = 1_000_000;
    private static final long MB = 1_000_000;

    /** {@code count} equal drives at 1 ms, 200 MB/s writes, 250 MB/s reads. */
    private static List<ProbeOutcome.Measured> equal(int count) {
        List<ProbeOutcome.Measured> m = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            m.add(new ProbeOutcome.Measured(Path.of("/mnt/disk" + i), MS, 200 * MB, 250 * MB));
        }
        return m;
    }

    @Test
    void equalDrives_haveNoOutlier() {
        assertThat(Outliers.of(equal(8))).isEmpty();
    }

    @Test
    void aDriveAboveTwiceTheMedianLatency_isAnOutlier_atTwiceItIsNot() {
        List<ProbeOutcome.Measured> m = equal(8);
        m.set(2, new ProbeOutcome.Measured(Path.of("/mnt/disk3"), 2 * MS + 1, 200 * MB, 250 * MB));
        m.set(5, new ProbeOutcome.Measured(Path.of("/mnt/disk6"), 2 * MS, 200 * MB, 250 * MB));
        assertThat(Outliers.of(m))
                .containsExactly(
                        java.util.Map.entry(Path.of("/mnt/disk3"), "sync latency 2.00 ms against a median of 1.00 ms"));
    }

    @Test
    void aDriveBelowHalfTheMedianThroughput_isAnOutlier_forWritesOrReads() {
        List<ProbeOutcome.Measured> m = equal(4);
        m.set(0, new ProbeOutcome.Measured(Path.of("/mnt/disk1"), MS, 99 * MB, 250 * MB));
        m.set(3, new ProbeOutcome.Measured(Path.of("/mnt/disk4"), 3 * MS, 200 * MB, 100 * MB));
        assertThat(Outliers.of(m))
                .containsExactly(
                        java.util.Map.entry(Path.of("/mnt/disk1"), "writes 99 MB/s against a median of 200 MB/s"),
                        java.util.Map.entry(
                                Path.of("/mnt/disk4"),
                                "sync latency 3.00 ms against a median of 1.00 ms, reads 100 MB/s against a median of"
                                        + " 250 MB/s"));
    }

    @Test
    void theMedian_ofAnEvenCount_isTheMeanOfTheMiddleTwo() {
        List<ProbeOutcome.Measured> m = new ArrayList<>();
        long[] latencies = {4, 1, 3, 2};
        for (int i = 0; i < latencies.length; i++) {
            m.add(new ProbeOutcome.Measured(Path.of("/d" + i), latencies[i] * MS, MB, MB));
        }
        assertThat(Outliers.medians(m).latencyNanos()).isEqualTo(2_500_000);
    }

    @Test
    void withFewerThanThreeDrives_nothingIsFlagged() {
        List<ProbeOutcome.Measured> m = List.of(
                new ProbeOutcome.Measured(Path.of("/d1"), MS, 200 * MB, 200 * MB),
                new ProbeOutcome.Measured(Path.of("/d2"), 50 * MS, 2 * MB, 2 * MB));
        assertThat(Outliers.of(m)).isEmpty();
    }
}
