package dev.appliance.app.console.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.core.testing.TestStore;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime checks: drives on a real four-drive store in the states the engine puts them in, the retention clock from
 * real retention clocks started in each state, the sets' quorum.
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

    @Test
    void aSetWithoutWriteQuorum_fails() {
        List<Check> checks = RuntimeChecks.quorum(List.of(new SetQuorum(1, 4, 4, 2, 3), new SetQuorum(2, 4, 2, 2, 3)));
        assertThat(checks).extracting(Check::id).containsExactly("quorum.set1", "quorum.set2");
        assertThat(checks).extracting(Check::result).containsExactly(Result.PASS, Result.FAIL);
        assertThat(checks.get(1).measured()).isEqualTo("2 of 4 drives in service (write quorum 3, read quorum 2)");
    }
}
