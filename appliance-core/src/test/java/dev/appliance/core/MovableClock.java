package dev.appliance.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The wall clock plus an offset a test moves forwards and backwards at will (UTC). */
public final class MovableClock extends Clock {
    /** How far this clock is ahead of the wall clock (negative: behind). */
    public volatile Duration offset = Duration.ZERO;

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
        return Instant.now().plus(offset);
    }

    /** Moves the clock {@code days} whole days forward. */
    public void forwardDays(int days) {
        offset = offset.plus(Duration.ofDays(days));
    }
}
