package dev.appliance.app.console.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.objectlock.RetentionClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The clock indicator's warning, from real retention clocks started the ways it warns about. */
class ClockHealthIndicatorTest {
    private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

    /** A retention clock whose persisted trusted time is {@code persisted}, the host's NTP state {@code sync}. */
    private static RetentionClock clock(Instant persisted, HostTimeSync.State sync) {
        RetentionClock.Store store = new RetentionClock.Store() {
            @Override
            public long load() {
                return persisted.toEpochMilli();
            }

            @Override
            public void save(long epochMillis) {}
        };
        return new RetentionClock(Clock.fixed(NOW, ZoneOffset.UTC), () -> 0L, store, () -> sync);
    }

    @Test
    void anOrdinaryStart_withNtp_hasNoWarning() {
        assertThat(ClockHealthIndicator.warning(clock(NOW.minusSeconds(5), HostTimeSync.State.SYNCHRONIZED)
                        .status()))
                .isNull();
    }

    @Test
    void aForwardJumpNotBelievedAtStart_isWarnedAbout() {
        RetentionClock.Status s = clock(NOW.minus(Duration.ofHours(2)), HostTimeSync.State.UNSYNCHRONIZED)
                .status();
        assertThat(s.forwardJumpNotBelievedAtStart()).isPositive();
        assertThat(ClockHealthIndicator.warning(s))
                .contains("ahead of the persisted trusted time at start")
                .contains(Long.toString(s.forwardJumpNotBelievedAtStart().toSeconds()) + " s");
    }

    @Test
    void aSystemClockBehindTrustedTime_isWarnedAbout() {
        RetentionClock.Status s = clock(NOW.plus(Duration.ofHours(1)), HostTimeSync.State.SYNCHRONIZED)
                .status();
        assertThat(s.wallClockBelieved()).isFalse();
        assertThat(ClockHealthIndicator.warning(s)).contains("disagrees with trusted time");
    }

    @Test
    void anUnsynchronisedHost_isWarnedAbout() {
        RetentionClock.Status s =
                clock(NOW.minusSeconds(5), HostTimeSync.State.UNSYNCHRONIZED).status();
        assertThat(ClockHealthIndicator.warning(s)).contains("not synchronised by NTP");
    }
}
