package dev.appliance.app.metrics;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Days until the pool is full, from a least-squares line through its used bytes over time. Pure: the same points give
 * the same answer. It answers a number only when the history says something: at least two measurements spanning
 * {@code minSpan}, usage growing, and full within {@value #HORIZON_DAYS} days at that rate; otherwise no number and
 * the reason. The figure is the free bytes of the last measurement divided by the fitted growth rate, so a noisy
 * series moves the rate, not the starting point.
 *
 * <p>The version alerts' projection in core ({@code VersionAlerts}) extrapolates a rate measured between two scanner
 * cycles against a count cap; a fit over a series is a different computation, so nothing there is reused.
 */
final class CapacityForecast {
    /** Beyond this the rate is indistinguishable from flat for an operator: no number is given. */
    static final int HORIZON_DAYS = 3650;

    private static final double SECONDS_PER_DAY = 86_400;

    private CapacityForecast() {}

    /** One measurement of the pool: used and usable bytes after erasure overhead. */
    record Measurement(Instant time, long usedBytes, long usableBytes) {
        Measurement {
            requireNonNull(time, "time");
        }
    }

    /**
     * @param history measurements, oldest first
     * @param minSpan how much time the measurements must span before a forecast is made
     */
    static TrafficHistory.Forecast of(List<Measurement> history, Duration minSpan) {
        requireNonNull(history, "history");
        requireNonNull(minSpan, "minSpan");
        if (history.isEmpty()) {
            return new TrafficHistory.Forecast(null, 0, null, "No capacity measured yet.");
        }
        Measurement first = history.getFirst();
        Measurement last = history.getLast();
        double spanSeconds = Duration.between(first.time(), last.time()).toMillis() / 1000.0;
        double basedOnHours = round1(spanSeconds / 3600);
        long free = last.usableBytes() - last.usedBytes();
        if (free <= 0) {
            return new TrafficHistory.Forecast(
                    0.0, basedOnHours, null, "Full now: the pool has no usable space left (" + usage(last) + ").");
        }
        if (history.size() < 2 || spanSeconds < minSpan.toMillis() / 1000.0) {
            return new TrafficHistory.Forecast(
                    null,
                    basedOnHours,
                    null,
                    "Not enough history yet: usage has been measured over " + hours(spanSeconds) + " ("
                            + history.size() + " measurement" + (history.size() == 1 ? "" : "s")
                            + "); a forecast needs at least two spanning " + hours(minSpan.toSeconds()) + ".");
        }
        double perDay = slopePerSecond(history) * SECONDS_PER_DAY;
        if (!(perDay > 0)) {
            return new TrafficHistory.Forecast(
                    null,
                    basedOnHours,
                    round1(perDay),
                    "Usage is flat or shrinking over the last " + hours(spanSeconds) + ": no end in sight.");
        }
        double days = free / perDay;
        if (days > HORIZON_DAYS) {
            return new TrafficHistory.Forecast(
                    null,
                    basedOnHours,
                    round1(perDay),
                    "Growing too slowly to forecast: at the rate of the last " + hours(spanSeconds) + ", more than "
                            + HORIZON_DAYS / 365 + " years.");
        }
        return new TrafficHistory.Forecast(
                round1(days),
                basedOnHours,
                round1(perDay),
                "At the growth rate of the last " + hours(spanSeconds) + " (" + history.size()
                        + " measurements, a least-squares line), " + usage(last) + ".");
    }

    /** The least-squares slope of used bytes over time, in bytes a second (centred sums: no loss of precision). */
    static double slopePerSecond(List<Measurement> history) {
        Instant origin = history.getFirst().time();
        int n = history.size();
        double meanT = 0;
        double meanU = 0;
        for (Measurement m : history) {
            meanT += seconds(origin, m) / n;
            meanU += (double) m.usedBytes() / n;
        }
        double sxx = 0;
        double sxy = 0;
        for (Measurement m : history) {
            double dt = seconds(origin, m) - meanT;
            sxx += dt * dt;
            sxy += dt * (m.usedBytes() - meanU);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    private static double seconds(Instant origin, Measurement m) {
        return Duration.between(origin, m.time()).toMillis() / 1000.0;
    }

    private static String usage(Measurement m) {
        return String.format(
                Locale.ROOT,
                "%.1f%% used",
                m.usableBytes() <= 0 ? 100.0 : Math.min(100.0, 100.0 * m.usedBytes() / m.usableBytes()));
    }

    /** {@code 90 min}, {@code 3.5 hours}, {@code 6.2 days}: the span a figure rests on, as an operator reads it. */
    static String hours(double seconds) {
        if (seconds < 2 * 3600) {
            return Math.round(seconds / 60) + " min";
        }
        if (seconds < 48 * 3600) {
            return String.format(Locale.ROOT, "%.1f hours", seconds / 3600);
        }
        return String.format(Locale.ROOT, "%.1f days", seconds / SECONDS_PER_DAY);
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
