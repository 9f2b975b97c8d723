package dev.appliance.core.objectlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetentionClockTest {
    private static final Instant T0 = Instant.parse("2030-06-01T12:00:00Z");

    /** A wall clock and a monotonic clock the test moves by hand. */
    static final class Clocks extends Clock {
        long wallMillis = T0.toEpochMilli();
        long nanos = 1_000_000_000L;

        void elapse(Duration d) {
            wallMillis += d.toMillis();
            nanos += d.toNanos();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(wallMillis);
        }
    }

    /** An in-memory store recording every save. */
    static final class MemoryStore implements RetentionClock.Store {
        long persisted = Long.MIN_VALUE;
        final List<Long> saves = new ArrayList<>();

        @Override
        public long load() {
            return persisted;
        }

        @Override
        public void save(long epochMillis) {
            persisted = epochMillis;
            saves.add(epochMillis);
        }
    }

    private final Clocks clocks = new Clocks();
    private final MemoryStore store = new MemoryStore();

    private HostTimeSync.State hostSync = HostTimeSync.State.UNSYNCHRONIZED;

    private RetentionClock clock() {
        return new RetentionClock(clocks, () -> clocks.nanos, store, () -> hostSync);
    }

    @Test
    void now_followsTheWallClockWhileBothClocksAgree() {
        RetentionClock c = clock();
        assertThat(c.now()).isEqualTo(T0);
        clocks.elapse(Duration.ofHours(5));
        assertThat(c.now()).isEqualTo(T0.plus(Duration.ofHours(5)));
        assertThat(c.wallClockBelieved()).isTrue();
    }

    @Test
    void now_whenWallClockSetBackwards_neverRunsBackwards() {
        RetentionClock c = clock();
        clocks.elapse(Duration.ofMinutes(10));
        Instant before = c.now();
        clocks.wallMillis -= Duration.ofDays(30).toMillis();
        assertThat(c.now()).isEqualTo(before);
        assertThat(c.wallClockBelieved()).isFalse();
        // time stands still until the wall clock catches up, then follows it again
        clocks.elapse(Duration.ofDays(29));
        assertThat(c.now()).isEqualTo(before);
        clocks.elapse(Duration.ofDays(2));
        assertThat(c.now()).isEqualTo(Instant.ofEpochMilli(clocks.wallMillis));
    }

    @Test
    void now_whenWallClockJumpsForward_believesOnlyTheMonotonicElapsedTimePlusAllowance() {
        RetentionClock c = clock();
        clocks.elapse(Duration.ofHours(1));
        clocks.wallMillis += Duration.ofDays(365).toMillis(); // operator sets the clock a year ahead
        Instant trusted = c.now();
        Duration elapsed = Duration.ofHours(1);
        Instant ceiling = T0.plus(elapsed)
                .plusMillis(elapsed.toMillis() * RetentionClock.MAX_GAIN_PPM / 1_000_000)
                .plus(RetentionClock.FORWARD_ALLOWANCE);
        assertThat(trusted).isEqualTo(ceiling);
        assertThat(c.wallClockBelieved()).isFalse();
        // a day later the jump is still not believed: 1,000 ppm of a day is 86.4 s
        clocks.elapse(Duration.ofDays(1));
        assertThat(Duration.between(T0, c.now()))
                .isLessThan(Duration.ofHours(25).plusMinutes(3));
    }

    @Test
    void now_absorbsCrystalDriftBelowTheGainLimit() {
        RetentionClock c = clock();
        // the wall clock (NTP-disciplined) gains 500 ppm on this machine's monotonic clock for 30 days
        for (int day = 0; day < 30; day++) {
            clocks.nanos += Duration.ofDays(1).toNanos();
            clocks.wallMillis += Duration.ofDays(1).toMillis() + 43_200; // + 43.2 s a day = 500 ppm
        }
        assertThat(c.now()).isEqualTo(Instant.ofEpochMilli(clocks.wallMillis));
        assertThat(c.wallClockBelieved()).isTrue();
    }

    @Test
    void start_whenWallClockBehindThePersistedTime_startsFromThePersistedTime() {
        Instant persisted = T0.plus(Duration.ofDays(3));
        store.persisted = persisted.toEpochMilli();
        RetentionClock c = clock(); // the machine restarted with its clock three days behind
        assertThat(c.now()).isEqualTo(persisted);
        clocks.elapse(Duration.ofDays(1));
        assertThat(c.now()).isEqualTo(persisted);
    }

    @Test
    void save_persistsTheNewestTrustedTime_andSaveIfDueWaitsForTheInterval() {
        RetentionClock c = clock();
        clocks.elapse(Duration.ofSeconds(1));
        c.saveIfDue();
        assertThat(store.saves).isEmpty();
        clocks.elapse(RetentionClock.PERSIST_INTERVAL);
        c.saveIfDue();
        assertThat(store.saves).containsExactly(c.now().toEpochMilli());
        clocks.wallMillis -= Duration.ofHours(2).toMillis();
        c.save();
        // setting the clock back does not lower what is persisted
        assertThat(store.persisted).isEqualTo(T0.plus(Duration.ofSeconds(11)).toEpochMilli());
        RetentionClock restarted = clock();
        assertThat(restarted.now()).isEqualTo(T0.plus(Duration.ofSeconds(11)));
    }

    @Test
    void latest_isTheLaterOfTrustedAndWallTime() {
        RetentionClock c = clock();
        clocks.wallMillis += Duration.ofDays(2).toMillis();
        assertThat(c.latest()).isEqualTo(Instant.ofEpochMilli(clocks.wallMillis));
        assertThat(c.now()).isBefore(c.latest());
    }

    @Test
    void start_whenWallClockJumpedForwardWhileStopped_onAnUnsynchronizedHost_believesOnlyTheAllowance() {
        store.persisted = T0.toEpochMilli();
        clocks.wallMillis = T0.plus(Duration.ofDays(400)).toEpochMilli(); // set forward while the appliance was down
        RetentionClock c = clock();
        assertThat(c.now()).isEqualTo(T0.plus(RetentionClock.FORWARD_ALLOWANCE));
        RetentionClock.Status status = c.status();
        assertThat(status.wallClockBelieved()).isFalse();
        assertThat(status.hostSync()).isEqualTo(HostTimeSync.State.UNSYNCHRONIZED);
        assertThat(status.forwardJumpNotBelievedAtStart())
                .isEqualTo(Duration.ofDays(400).minus(RetentionClock.FORWARD_ALLOWANCE));
        clocks.elapse(Duration.ofHours(1));
        // from there trusted time follows the monotonic clock, not the wall clock
        assertThat(c.now()).isBefore(T0.plus(Duration.ofHours(1)).plus(Duration.ofMinutes(2)));
    }

    @Test
    void start_afterAQuickRestart_onAnUnsynchronizedHost_followsTheWallClock() {
        store.persisted = T0.toEpochMilli();
        clocks.wallMillis = T0.plus(Duration.ofSeconds(30)).toEpochMilli();
        RetentionClock c = clock();
        assertThat(c.now()).isEqualTo(T0.plus(Duration.ofSeconds(30)));
        assertThat(c.status().forwardJumpNotBelievedAtStart()).isZero();
        assertThat(c.status().wallClockBelieved()).isTrue();
    }

    @Test
    void start_whenWallClockIsAheadOfThePersistedTime_onAnNtpSynchronizedHost_believesIt() {
        hostSync = HostTimeSync.State.SYNCHRONIZED;
        store.persisted = T0.toEpochMilli();
        clocks.wallMillis = T0.plus(Duration.ofDays(7)).toEpochMilli(); // a week powered off
        RetentionClock c = clock();
        assertThat(c.now()).isEqualTo(T0.plus(Duration.ofDays(7)));
        assertThat(c.status().forwardJumpNotBelievedAtStart()).isZero();
    }

    @Test
    void hostTimeSync_answersOnThisMachine() {
        HostTimeSync.State s = HostTimeSync.state();
        if (System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            assertThat(s).as("adjtimex binding").isNotEqualTo(HostTimeSync.State.UNKNOWN);
        } else {
            assertThat(s).isEqualTo(HostTimeSync.State.UNKNOWN);
        }
    }
}
