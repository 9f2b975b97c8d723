package dev.appliance.app.console.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.core.testing.TestStore;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.Result;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime checks: drives on a real four-drive store in the states the engine puts them in (and one slowed by
 * injected latency), the latency outlier rule, the retention clock from real retention clocks started in each state,
 * the sets' quorum.
 */
class RuntimeChecksTest {
    @TempDir
    Path tmp;

    private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

    /** A retention clock whose persisted trusted time is {@code persisted}, the host's NTP state {@code sync}. */
    private static RetentionClock.Status clock(Instant persisted, HostTimeSync.State sync) {
        RetentionClock.Store store = new RetentionClock.Store() {
            @Override
            public long load() {
                return persisted.toEpochMilli();
            }

            @Override
            public void save(long epochMillis) {}
        };
        return new RetentionClock(Clock.fixed(NOW, ZoneOffset.UTC), () -> 0L, store, () -> sync).status();
    }

    @Test
    void aSynchronisedClockThatAgreesWithTrustedTime_passes() {
        Check c = RuntimeChecks.clock(clock(NOW.minusSeconds(5), HostTimeSync.State.SYNCHRONIZED));
        assertThat(c.id()).isEqualTo("clock.retention");
        assertThat(c.result()).isEqualTo(Result.PASS);
        assertThat(c.measured()).contains("system clock " + NOW + " (believed)", "NTP synchronized");
        assertThat(c.remediation()).isEmpty();
    }

    @Test
    void anUnsynchronisedHost_warns_withTheIndicatorsReasonAndChrony() {
        Check c = RuntimeChecks.clock(clock(NOW.minusSeconds(5), HostTimeSync.State.UNSYNCHRONIZED));
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).contains("NTP unsynchronized");
        assertThat(c.remediation())
                .contains("not synchronised by NTP")
                .contains("chronyd")
                .contains("docs/object-lock.md");
    }

    @Test
    void aSystemClockBehindTrustedTime_fails() {
        Check c = RuntimeChecks.clock(clock(NOW.plus(Duration.ofHours(1)), HostTimeSync.State.SYNCHRONIZED));
        assertThat(c.result()).isEqualTo(Result.FAIL);
        assertThat(c.measured()).contains("(not believed)");
        assertThat(c.remediation()).contains("disagrees with trusted time");
    }

    @Test
    void aForwardJumpNotBelievedAtStart_warns_withHowFar() {
        Check c = RuntimeChecks.clock(clock(NOW.minus(Duration.ofHours(2)), HostTimeSync.State.UNSYNCHRONIZED));
        assertThat(c.result()).isEqualTo(Result.WARN);
        assertThat(c.measured()).contains("forward jump not believed at start: ");
        assertThat(c.remediation()).contains("ahead of the persisted trusted time at start");
    }

    @Test
    void aDriveTheEngineTookOutAsFaulty_fails_newErrorsWarnOnce_andAHealthyDrivePasses() {
        try (ApplianceStore store = TestStore.on(tmp).open()) {
            RuntimeChecks checks = new RuntimeChecks();
            List<Check> first = checks.drives(store);
            assertThat(first)
                    .extracting(Check::id)
                    .containsExactly("drive.set1.slot1", "drive.set1.slot2", "drive.set1.slot3", "drive.set1.slot4");
            assertThat(first).extracting(Check::result).containsOnly(Result.PASS);

            LocalDrive second = store.drives().get(1);
            LocalDrive third = store.drives().get(2);
            // what DriveCalls does on I/O errors and on a call that overran the drive timeout
            second.recordIoError(System.currentTimeMillis(), 10, 60_000);
            assertThat(third.markFaulty("a call stalled for 30000 ms")).isTrue();
            List<Check> after = checks.drives(store);
            assertThat(after.get(1).result()).isEqualTo(Result.WARN);
            assertThat(after.get(1).measured()).contains("I/O errors 1 (1 new)");
            Check faulty = after.get(2);
            assertThat(faulty.result()).isEqualTo(Result.FAIL);
            assertThat(faulty.measured())
                    .isEqualTo(third.root() + " faulty: a call stalled for 30000 ms; I/O errors 0 (0 new), slow calls 0"
                            + " (0 new), stalled now 0");
            assertThat(faulty.remediation()).contains("smartctl -a", "replace it", "docs/healing.md");
            // the error is old news at the next run: the drive passes again; the faulty one fails until it is back
            List<Check> later = checks.drives(store);
            assertThat(later.get(1).result()).isEqualTo(Result.PASS);
            assertThat(later.get(2).result()).isEqualTo(Result.FAIL);
        }
    }

    /** {@code calls} calls whose mean latency is {@code meanMillis}. */
    private static RuntimeChecks.Interval interval(long calls, double meanMillis) {
        return new RuntimeChecks.Interval(calls, Math.round(calls * meanMillis * 1e6));
    }

    @Test
    void theMedian_isOfTheDrivesWithCalls_theMeanOfTheMiddleTwoOfAnEvenCount() {
        assertThat(RuntimeChecks.medianMillis(
                        List.of(interval(10, 1), interval(10, 9), interval(0, 0), interval(5, 3))))
                .isEqualTo(3.0);
        assertThat(RuntimeChecks.medianMillis(
                        List.of(interval(10, 1), interval(10, 2), interval(10, 6), interval(4, 4))))
                .isEqualTo(3.0);
        assertThat(RuntimeChecks.medianMillis(List.of(interval(0, 0), interval(0, 0))))
                .isNaN();
    }

    @Test
    void aDriveFarAboveItsSetsMedianAndTheFloor_isAnOutlier_andOnlyThen() {
        List<RuntimeChecks.Interval> fastSet = List.of(interval(200, 1.0), interval(180, 1.2), interval(190, 0.9));
        assertThat(RuntimeChecks.latencyOutlier(interval(200, 60), fastSet)).isTrue();
        // above 3x the median, but under the floor: an idle fast set's spread never warns
        assertThat(RuntimeChecks.latencyOutlier(interval(200, 15), fastSet)).isFalse();
        assertThat(RuntimeChecks.latencyOutlier(interval(200, 20), fastSet)).isFalse();
        // above the floor, but within 3x the median: the whole set is slow (busy), this drive no more than the others
        List<RuntimeChecks.Interval> busySet = List.of(interval(50, 25), interval(50, 30), interval(50, 20));
        assertThat(RuntimeChecks.latencyOutlier(interval(50, 70), busySet)).isFalse();
        assertThat(RuntimeChecks.latencyOutlier(interval(50, 80), busySet)).isTrue();
        // too few calls to judge: one slow fsync of an idle drive
        assertThat(RuntimeChecks.latencyOutlier(interval(RuntimeChecks.OUTLIER_MIN_CALLS - 1, 500), fastSet))
                .isFalse();
        assertThat(RuntimeChecks.latencyOutlier(interval(RuntimeChecks.OUTLIER_MIN_CALLS, 500), fastSet))
                .isTrue();
        // nothing to compare with: no other drive had calls
        assertThat(RuntimeChecks.latencyOutlier(interval(200, 500), List.of(interval(0, 0), interval(0, 0))))
                .isFalse();
        // the median is of the others: in a set of two, the slow drive does not raise its own bar
        assertThat(RuntimeChecks.latencyOutlier(interval(100, 60), List.of(interval(100, 2))))
                .isTrue();
    }

    private static final Pattern MEAN =
            Pattern.compile("mean (\\d+\\.\\d+) ms \\(the set's other drives: median (\\d+\\.\\d+) ms\\)");

    private static void put(ApplianceStore store, String key) throws Exception {
        byte[] data = new byte[1000];
        store.putObject("bucket", key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    @Test
    void aDriveSlowedByInjectedLatency_warnsWithItsIntervalMeanAndItsSetsMedian_andPassesOnceFastAgain()
            throws Exception {
        try (ApplianceStore store = TestStore.on(tmp).open()) {
            store.makeBucket("bucket");
            RuntimeChecks checks = new RuntimeChecks();
            assertThat(checks.drives(store)).extracting(Check::result).containsOnly(Result.PASS);

            LocalDrive slow = store.drives().get(2);
            // every operation on it waits 60 ms first: far slower than its set, well within the write straggler
            slow.injectFaults(new DriveFaults(false, false, false, false, 60));
            try {
                // enough calls for the rule to judge the drive, however few calls a small PUT makes per drive
                long callsBefore = slow.calls();
                for (int i = 0; slow.calls() - callsBefore < RuntimeChecks.OUTLIER_MIN_CALLS; i++) {
                    put(store, "slow-" + i);
                }
            } finally {
                slow.injectFaults(null);
            }
            List<Check> after = checks.drives(store);
            Check c = after.get(2);
            assertThat(c.id()).isEqualTo("drive.set1.slot3");
            assertThat(c.result()).as(c.measured()).isEqualTo(Result.WARN);
            // the latency rule, not the slow-call one: no call was given up on
            assertThat(c.measured())
                    .startsWith(slow.root() + " online, slow against its set: ")
                    .contains("slow calls 0 (0 new)", "I/O errors 0 (0 new)");
            Matcher m = MEAN.matcher(c.measured());
            assertThat(m.find()).as(c.measured()).isTrue();
            double mean = Double.parseDouble(m.group(1));
            double median = Double.parseDouble(m.group(2));
            assertThat(mean).isGreaterThanOrEqualTo(60.0).isGreaterThan(3 * median);
            assertThat(c.remediation()).contains("smartctl -a", "iostat -x", "replace it");
            assertThat(List.of(after.get(0), after.get(1), after.get(3)))
                    .extracting(Check::result)
                    .containsOnly(Result.PASS);

            // the next interval holds fast calls only: the slow spell is not judged again
            for (int i = 0; i < 4; i++) {
                put(store, "fast-" + i);
            }
            List<Check> later = checks.drives(store);
            assertThat(later).extracting(Check::result).containsOnly(Result.PASS);
            assertThat(later.get(2).measured()).contains("calls since the previous check");
        }
    }

    @Test
    void aSetWithoutWriteQuorum_fails() {
        List<Check> checks = RuntimeChecks.quorum(List.of(new SetQuorum(1, 4, 4, 2, 3), new SetQuorum(2, 4, 2, 2, 3)));
        assertThat(checks).extracting(Check::id).containsExactly("quorum.set1", "quorum.set2");
        assertThat(checks).extracting(Check::result).containsExactly(Result.PASS, Result.FAIL);
        assertThat(checks.get(1).measured()).isEqualTo("2 of 4 drives in service (write quorum 3, read quorum 2)");
    }
}
