package dev.appliance.core.alerts;

/**
 * Counts events over the last hour in two tumbling windows (the previous one weighted by how much of it still lies in
 * the last hour): two counters instead of a timestamp per event. Not thread-safe; owners synchronize.
 */
final class RateWindow {
    static final long WINDOW_MILLIS = 3_600_000L;
    /** Rates are taken over at least this span, so that a few quick events do not read as a huge hourly rate. */
    static final long MIN_SPAN_MILLIS = 10_000L;

    private long firstMillis = -1;
    private long currentStart;
    private long current;
    private long previous;

    void add(long nowMillis, long n) {
        roll(nowMillis);
        if (firstMillis < 0) {
            firstMillis = nowMillis;
            currentStart = nowMillis;
        }
        current += n;
    }

    private void roll(long nowMillis) {
        if (firstMillis < 0) {
            return;
        }
        long windows = (nowMillis - currentStart) / WINDOW_MILLIS;
        if (windows == 1) {
            previous = current;
            current = 0;
            currentStart += WINDOW_MILLIS;
        } else if (windows >= 2) {
            previous = 0;
            current = 0;
            currentStart += windows * WINDOW_MILLIS;
        }
    }

    /** Events in the last hour (estimated at the edge between the two windows). */
    long lastHour(long nowMillis) {
        roll(nowMillis);
        if (firstMillis < 0) {
            return 0;
        }
        double intoCurrent = (double) (nowMillis - currentStart) / WINDOW_MILLIS;
        return Math.round(current + previous * (1 - intoCurrent));
    }

    /** Events per hour over the last hour, or over the time since the first event when that is shorter. */
    double perHour(long nowMillis) {
        long count = lastHour(nowMillis);
        if (count == 0) {
            return 0;
        }
        long span = Math.max(MIN_SPAN_MILLIS, Math.min(WINDOW_MILLIS, nowMillis - firstMillis));
        return count * (double) WINDOW_MILLIS / span;
    }

    /** How long events have been counted, in millis (0 before the first). */
    long observedMillis(long nowMillis) {
        return firstMillis < 0 ? 0 : nowMillis - firstMillis;
    }
}
