package dev.appliance.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that stands still until a test steps it (UTC): rates and ETAs come out exact, unlike {@link MovableClock},
 * which follows the wall clock.
 */
public final class SteppedClock extends Clock {
    private volatile Instant now;

    public SteppedClock(Instant start) {
        this.now = start;
    }

    /** Steps the clock by {@code d} (negative: back). */
    public void advance(Duration d) {
        now = now.plus(d);
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
        return now;
    }
}
