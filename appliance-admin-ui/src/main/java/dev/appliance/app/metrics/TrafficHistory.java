package dev.appliance.app.metrics;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.StorageCapacity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A short history of the S3 traffic and a longer, coarse one of the pool's used capacity, kept in memory for the
 * console's dashboard ({@code GET /api/v1/admin/metrics/history}): graphs and a days-to-full forecast without a
 * Prometheus server.
 *
 * <ul>
 *   <li>Traffic: {@link #sampleTraffic()} reads the S3 endpoint's cumulative meters ({@link S3RequestMeters}: requests
 *       by status, bytes received and sent, the latency timers) and stores the difference from its previous read,
 *       divided by the time between the two reads, as one point. Nothing is added to the request path: the meters
 *       are kept per request for Prometheus already, and are only read here. The mean latency is exact (time over
 *       count); the p50 and p99 are the upper bounds of the latency buckets ({@link S3RequestMeters#LATENCY_BUCKETS})
 *       the interval's 50th and 99th percentile fall in, as precise as those buckets, null above the last.
 *   <li>Capacity: {@link #sampleCapacity()} records the pool's used and usable bytes; {@link CapacityForecast} fits
 *       a line through them.
 * </ul>
 *
 * <p>Both histories are rings of primitives sized from the {@link Settings} at construction: memory does not grow
 * with uptime. Time is the injected clock's; the caller schedules the samples ({@link ApplianceMetrics} on its one
 * daemon thread, never an S3 event loop). Reads may come from any thread.
 */
public final class TrafficHistory {
    /** No history may hold more points than this (fixed memory, whatever the settings). */
    static final int MAX_POINTS = 100_000;

    /**
     * @param sampleInterval how often the traffic is sampled: the width of one point
     * @param trafficHistory how much traffic history is kept
     * @param capacityInterval how often used capacity is measured
     * @param capacityHistory how much capacity history is kept (and the forecast can look back on)
     * @param forecastMinSpan how long the capacity measurements must span before a forecast is made
     */
    public record Settings(
            Duration sampleInterval,
            Duration trafficHistory,
            Duration capacityInterval,
            Duration capacityHistory,
            Duration forecastMinSpan) {
        public static final Settings DEFAULT = new Settings(
                Duration.ofSeconds(10),
                Duration.ofHours(1),
                Duration.ofMinutes(5),
                Duration.ofDays(7),
                Duration.ofHours(1));

        public Settings {
            positive(sampleInterval, "appliance.metrics.sample-interval");
            positive(trafficHistory, "appliance.metrics.traffic-history");
            positive(capacityInterval, "appliance.metrics.capacity-interval");
            positive(capacityHistory, "appliance.metrics.capacity-history");
            requireNonNull(forecastMinSpan, "appliance.metrics.forecast-min-span");
            points(trafficHistory, sampleInterval, "appliance.metrics.traffic-history");
            points(capacityHistory, capacityInterval, "appliance.metrics.capacity-history");
        }

        int trafficPoints() {
            return points(trafficHistory, sampleInterval, "appliance.metrics.traffic-history");
        }

        int capacityPoints() {
            return points(capacityHistory, capacityInterval, "appliance.metrics.capacity-history");
        }

        private static void positive(Duration d, String name) {
            requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + ": " + d + " (expected a positive duration)");
            }
        }

        private static int points(Duration window, Duration interval, String name) {
            long n = Math.max(1, window.toMillis() / Math.max(1, interval.toMillis()));
            if (n > MAX_POINTS) {
                throw new IllegalArgumentException(name + ": " + window + " at one point every " + interval + " is " + n
                        + " points (expected at most " + MAX_POINTS + ")");
            }
            return (int) n;
        }
    }

    /**
     * The traffic of one interval, ending at {@code time}; rates are per second over the interval.
     *
     * @param errorsPerSecond answers with a 5xx status (the appliance failed the request)
     * @param rejectedPerSecond answers with a 4xx status (refused, not found, precondition failed, ...)
     * @param latencyMsMean mean latency of the requests answered in the interval; null: none answered
     * @param latencyMsP50 upper bound of the latency bucket holding the interval's median; null: none answered
     * @param latencyMsP99 the same for the 99th percentile; null: none answered, or above the last bucket (60 s)
     */
    public record Point(
            Instant time,
            double requestsPerSecond,
            double bytesInPerSecond,
            double bytesOutPerSecond,
            double errorsPerSecond,
            double rejectedPerSecond,
            Double latencyMsMean,
            Double latencyMsP50,
            Double latencyMsP99) {}

    /**
     * When the pool is full at the rate it has been filling.
     *
     * @param daysToFull days until usable capacity is reached; null: not known (the reason says why)
     * @param basedOnHours the span of the capacity measurements the figure rests on
     * @param growthBytesPerDay the fitted growth of used bytes a day (negative: shrinking); null: not computed
     * @param reason in words: what the figure rests on, or why there is none
     */
    public record Forecast(Double daysToFull, double basedOnHours, Double growthBytesPerDay, String reason) {}

    /**
     * @param intervalSeconds the traffic sample interval
     * @param points the traffic, oldest first
     * @param forecast the days-to-full forecast over the capacity history
     */
    public record Snapshot(double intervalSeconds, List<Point> points, Forecast forecast) {}

    private final MeterRegistry registry;
    private final Supplier<StorageCapacity> capacity;
    private final Clock clock;
    private final Settings settings;

    // the traffic ring: column arrays, slot = (start + i) % length
    private final long[] times;
    private final double[][] rates; // REQUESTS..REJECTED, by column
    private final double[][] latencies; // MEAN, P50, P99; NaN for null
    private int start;
    private int size;
    private Totals previous;

    // the capacity ring
    private final long[] capacityTimes;
    private final long[] used;
    private final long[] usable;
    private int capacityStart;
    private int capacitySize;

    private static final int REQUESTS = 0;
    private static final int BYTES_IN = 1;
    private static final int BYTES_OUT = 2;
    private static final int ERRORS = 3;
    private static final int REJECTED = 4;
    private static final int MEAN = 0;
    private static final int P50 = 1;
    private static final int P99 = 2;

    /**
     * @param registry where the S3 endpoint's meters are ({@link S3RequestMeters}); meters not there yet count 0
     * @param capacity the pool's capacity now; a usable size of 0 (nothing measured) is not recorded
     */
    public TrafficHistory(MeterRegistry registry, Supplier<StorageCapacity> capacity, Clock clock, Settings settings) {
        this.registry = requireNonNull(registry, "registry");
        this.capacity = requireNonNull(capacity, "capacity");
        this.clock = requireNonNull(clock, "clock");
        this.settings = requireNonNull(settings, "settings");
        int n = settings.trafficPoints();
        this.times = new long[n];
        this.rates = new double[5][n];
        this.latencies = new double[3][n];
        int c = settings.capacityPoints();
        this.capacityTimes = new long[c];
        this.used = new long[c];
        this.usable = new long[c];
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Reads the meters and adds the traffic since the previous read as one point; the first read (and one after the
     * clock went backwards) only sets the baseline.
     */
    public void sampleTraffic() {
        Totals now = Totals.read(registry, clock.instant());
        synchronized (this) {
            Totals before = previous;
            previous = now;
            if (before == null) {
                return;
            }
            double seconds = Duration.between(before.time, now.time).toNanos() / 1e9;
            if (seconds <= 0) {
                return;
            }
            int slot = size < times.length ? (start + size++) % times.length : advance();
            times[slot] = now.time.toEpochMilli();
            rates[REQUESTS][slot] = rate(now.requests - before.requests, seconds);
            rates[BYTES_IN][slot] = rate(now.bytesIn - before.bytesIn, seconds);
            rates[BYTES_OUT][slot] = rate(now.bytesOut - before.bytesOut, seconds);
            rates[ERRORS][slot] = rate(now.errors - before.errors, seconds);
            rates[REJECTED][slot] = rate(now.rejected - before.rejected, seconds);
            long answered = now.latencyCount - before.latencyCount;
            double nanos = now.latencyNanos - before.latencyNanos;
            latencies[MEAN][slot] = answered > 0 ? round3(nanos / answered / 1e6) : Double.NaN;
            latencies[P50][slot] = quantileBoundMs(before, now, 0.50);
            latencies[P99][slot] = quantileBoundMs(before, now, 0.99);
        }
    }

    /** Records the pool's used and usable bytes now (nothing when capacity is not measured). */
    public void sampleCapacity() {
        StorageCapacity c = capacity.get();
        Instant at = clock.instant();
        if (c == null || c.usableBytes() <= 0) {
            return;
        }
        synchronized (this) {
            int slot;
            if (capacitySize < capacityTimes.length) {
                slot = (capacityStart + capacitySize++) % capacityTimes.length;
            } else {
                slot = capacityStart;
                capacityStart = (capacityStart + 1) % capacityTimes.length;
            }
            capacityTimes[slot] = at.toEpochMilli();
            used[slot] = c.usableBytes() - c.freeBytes();
            usable[slot] = c.usableBytes();
        }
    }

    /** The traffic points and the forecast, as they are now. */
    public synchronized Snapshot snapshot() {
        List<Point> points = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            int s = (start + i) % times.length;
            points.add(new Point(
                    Instant.ofEpochMilli(times[s]),
                    rates[REQUESTS][s],
                    rates[BYTES_IN][s],
                    rates[BYTES_OUT][s],
                    rates[ERRORS][s],
                    rates[REJECTED][s],
                    orNull(latencies[MEAN][s]),
                    orNull(latencies[P50][s]),
                    orNull(latencies[P99][s])));
        }
        List<CapacityForecast.Measurement> measured = new ArrayList<>(capacitySize);
        for (int i = 0; i < capacitySize; i++) {
            int s = (capacityStart + i) % capacityTimes.length;
            measured.add(new CapacityForecast.Measurement(Instant.ofEpochMilli(capacityTimes[s]), used[s], usable[s]));
        }
        return new Snapshot(
                settings.sampleInterval().toMillis() / 1000.0,
                List.copyOf(points),
                CapacityForecast.of(measured, settings.forecastMinSpan()));
    }

    /** Drops the oldest point; its slot is the new point's. */
    private int advance() {
        int slot = start;
        start = (start + 1) % times.length;
        return slot;
    }

    private static double rate(double delta, double seconds) {
        return delta <= 0 ? 0 : round3(delta / seconds); // a meter never goes back; if it did, no negative rates
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    private static Double orNull(double v) {
        return Double.isNaN(v) ? null : v;
    }

    /** The upper bound, in ms, of the first bucket holding the {@code q} quantile of the interval's requests. */
    private static double quantileBoundMs(Totals before, Totals now, double q) {
        long answered = now.latencyCount - before.latencyCount;
        if (answered <= 0) {
            return Double.NaN;
        }
        long rank = (long) Math.ceil(q * answered);
        for (int b = 0; b < now.atOrBelow.length; b++) {
            if (now.atOrBelow[b] - before.atOrBelow[b] >= rank) {
                return S3RequestMeters.LATENCY_BUCKETS[b].toNanos() / 1e6;
            }
        }
        return Double.NaN; // above the last bucket: no bound to give
    }

    /** The cumulative meters at one instant, summed over every operation and status. */
    private record Totals(
            Instant time,
            double requests,
            double errors,
            double rejected,
            double bytesIn,
            double bytesOut,
            long latencyCount,
            double latencyNanos,
            long[] atOrBelow) {

        static Totals read(MeterRegistry registry, Instant time) {
            double requests = 0;
            double errors = 0;
            double rejected = 0;
            for (Counter c : registry.find(S3RequestMeters.REQUESTS).counters()) {
                double n = c.count();
                requests += n;
                String status = c.getId().getTag("status");
                if (status != null && status.length() == 3 && status.charAt(0) == '5') {
                    errors += n;
                } else if (status != null && status.length() == 3 && status.charAt(0) == '4') {
                    rejected += n;
                }
            }
            long count = 0;
            double nanos = 0;
            Duration[] bounds = S3RequestMeters.LATENCY_BUCKETS;
            long[] atOrBelow = new long[bounds.length];
            for (Timer t : registry.find(S3RequestMeters.DURATION).timers()) {
                // one snapshot per timer, so that its count and its buckets agree with each other
                var snapshot = t.takeSnapshot();
                count += snapshot.count();
                nanos += snapshot.total(TimeUnit.NANOSECONDS);
                for (CountAtBucket bucket : snapshot.histogramCounts()) {
                    for (int b = 0; b < bounds.length; b++) {
                        if (bucket.bucket(TimeUnit.NANOSECONDS) == bounds[b].toNanos()) {
                            atOrBelow[b] += (long) bucket.count(); // Prometheus buckets are cumulative (le)
                        }
                    }
                }
            }
            return new Totals(
                    time,
                    requests,
                    errors,
                    rejected,
                    total(registry, S3RequestMeters.RECEIVED),
                    total(registry, S3RequestMeters.SENT),
                    count,
                    nanos,
                    atOrBelow);
        }

        private static double total(MeterRegistry registry, String name) {
            Counter c = registry.find(name).counter();
            return c == null ? 0 : c.count();
        }
    }
}
