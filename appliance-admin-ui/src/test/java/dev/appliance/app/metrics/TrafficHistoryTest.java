package dev.appliance.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.SteppedClock;
import dev.appliance.core.StorageCapacity;
import dev.appliance.s3.api.S3Dispatcher.Operation;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's history over the S3 endpoint's real meters (a Prometheus registry fed as the endpoint feeds it) and
 * a clock the test moves: one point per sample, rates over the time that really passed, latency from the timers, a
 * bounded ring, and the capacity history behind the forecast.
 */
class TrafficHistoryTest {
    private static final long MS = 1_000_000L;

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final S3RequestMeters s3 = new S3RequestMeters(registry);
    private final SteppedClock clock = new SteppedClock(Instant.parse("2026-11-26T12:00:00Z"));
    private final AtomicReference<StorageCapacity> capacity = new AtomicReference<>(new StorageCapacity(0, 0));

    @AfterEach
    void close() {
        registry.close();
    }

    private TrafficHistory history(TrafficHistory.Settings settings) {
        return new TrafficHistory(registry, capacity::get, clock, settings);
    }

    @Test
    void aSampleIsTheTrafficSinceThePrevious_perSecond_withItsLatency() {
        TrafficHistory history = history(TrafficHistory.Settings.DEFAULT);
        s3.requestCompleted(Operation.PUT_OBJECT, 200, 1 * MS); // before the baseline: not in any point
        history.sampleTraffic();
        assertThat(history.snapshot().points()).isEmpty();
        assertThat(history.snapshot().intervalSeconds()).isEqualTo(10.0);

        for (int i = 0; i < 40; i++) {
            s3.requestCompleted(Operation.PUT_OBJECT, 200, 3 * MS);
        }
        for (int i = 0; i < 9; i++) {
            s3.requestCompleted(Operation.GET_OBJECT, 404, 20 * MS);
        }
        s3.requestCompleted(Operation.GET_OBJECT, 503, 2000 * MS);
        s3.bytesReceived(1_000_000);
        s3.bytesSent(500_000);
        clock.advance(Duration.ofSeconds(10));
        history.sampleTraffic();

        TrafficHistory.Point p = history.snapshot().points().getFirst();
        assertThat(p.time()).isEqualTo(clock.instant());
        assertThat(p.requestsPerSecond()).isEqualTo(5.0);
        assertThat(p.bytesInPerSecond()).isEqualTo(100_000.0);
        assertThat(p.bytesOutPerSecond()).isEqualTo(50_000.0);
        assertThat(p.errorsPerSecond()).isEqualTo(0.1);
        assertThat(p.rejectedPerSecond()).isEqualTo(0.9);
        assertThat(p.latencyMsMean()).isEqualTo((40 * 3 + 9 * 20 + 2000) / 50.0);
        assertThat(p.latencyMsP50()).isEqualTo(5.0); // the 25th of 50 is in the <= 5 ms bucket
        assertThat(p.latencyMsP99()).isEqualTo(2500.0); // the 50th is the 2 s one: <= 2.5 s

        // a quiet interval, and one that lasted 4 s (the thread was late): rates over the time that passed
        clock.advance(Duration.ofSeconds(10));
        history.sampleTraffic();
        s3.requestCompleted(Operation.HEAD_OBJECT, 200, 7 * MS);
        s3.requestCompleted(Operation.HEAD_OBJECT, 200, 7 * MS);
        clock.advance(Duration.ofSeconds(4));
        history.sampleTraffic();
        var points = history.snapshot().points();
        assertThat(points).hasSize(3);
        assertThat(points.get(1).requestsPerSecond()).isZero();
        assertThat(points.get(1).bytesInPerSecond()).isZero();
        assertThat(points.get(1).latencyMsMean()).isNull();
        assertThat(points.get(1).latencyMsP99()).isNull();
        assertThat(points.get(2).requestsPerSecond()).isEqualTo(0.5);
        assertThat(points.get(2).latencyMsMean()).isEqualTo(7.0);
        assertThat(points.get(2).latencyMsP99()).isEqualTo(10.0);
    }

    @Test
    void latencyBeyondTheLastBucket_hasNoPercentileBound_butAMean() {
        TrafficHistory history = history(TrafficHistory.Settings.DEFAULT);
        history.sampleTraffic();
        s3.requestCompleted(Operation.PUT_OBJECT, 200, 90_000 * MS);
        clock.advance(Duration.ofSeconds(10));
        history.sampleTraffic();
        TrafficHistory.Point p = history.snapshot().points().getFirst();
        assertThat(p.latencyMsMean()).isEqualTo(90_000.0);
        assertThat(p.latencyMsP50()).isNull();
        assertThat(p.latencyMsP99()).isNull();
    }

    @Test
    void theRingKeepsTheNewestPoints_andNoMore() {
        TrafficHistory history = history(new TrafficHistory.Settings(
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                Duration.ofMinutes(5),
                Duration.ofDays(7),
                Duration.ofHours(1)));
        history.sampleTraffic();
        for (int i = 1; i <= 5; i++) {
            for (int r = 0; r < i * 10; r++) {
                s3.requestCompleted(Operation.GET_OBJECT, 200, MS);
            }
            clock.advance(Duration.ofSeconds(10));
            history.sampleTraffic();
        }
        var points = history.snapshot().points();
        assertThat(points).extracting(TrafficHistory.Point::requestsPerSecond).containsExactly(3.0, 4.0, 5.0);
        assertThat(points.getLast().time()).isEqualTo(clock.instant());
        assertThat(points.getFirst().time()).isEqualTo(clock.instant().minusSeconds(20));
    }

    @Test
    void aClockThatWentBack_givesNoPoint_andNoNegativeRate() {
        TrafficHistory history = history(TrafficHistory.Settings.DEFAULT);
        history.sampleTraffic();
        s3.requestCompleted(Operation.GET_OBJECT, 200, MS);
        clock.advance(Duration.ofSeconds(-30));
        history.sampleTraffic();
        assertThat(history.snapshot().points()).isEmpty();
        // the next interval is measured from the read after the jump
        s3.requestCompleted(Operation.GET_OBJECT, 200, MS);
        clock.advance(Duration.ofSeconds(10));
        history.sampleTraffic();
        assertThat(history.snapshot().points())
                .extracting(TrafficHistory.Point::requestsPerSecond)
                .containsExactly(0.1);
    }

    @Test
    void capacityHistory_isBounded_skipsUnmeasured_andFeedsTheForecast() {
        long tb = 1L << 40;
        TrafficHistory history = history(new TrafficHistory.Settings(
                Duration.ofSeconds(10),
                Duration.ofHours(1),
                Duration.ofMinutes(5),
                Duration.ofHours(2), // 24 measurements
                Duration.ofHours(1)));
        history.sampleCapacity(); // nothing measured yet (usable 0): not recorded
        assertThat(history.snapshot().forecast().reason()).isEqualTo("No capacity measured yet.");

        // 10 TiB usable; used grows 10 GiB every 5 minutes from 1 TiB, for 3 hours: the ring holds the last 2
        for (int i = 0; i <= 36; i++) {
            long used = tb + i * (10L << 30);
            capacity.set(new StorageCapacity(10 * tb, 10 * tb - used));
            history.sampleCapacity();
            if (i == 6) {
                TrafficHistory.Forecast early = history.snapshot().forecast();
                assertThat(early.daysToFull()).isNull();
                assertThat(early.reason()).startsWith("Not enough history yet: usage has been measured over 30 min");
            }
            clock.advance(Duration.ofMinutes(5));
        }
        TrafficHistory.Forecast f = history.snapshot().forecast();
        assertThat(f.basedOnHours()).isEqualTo(23 * 5 / 60.0, org.assertj.core.api.Assertions.within(0.05));
        assertThat(f.growthBytesPerDay()).isCloseTo(288.0 * (10L << 30), org.assertj.core.api.Assertions.within(1.0));
        long usedNow = tb + 36 * (10L << 30);
        assertThat(f.daysToFull()).isEqualTo(Math.round((10.0 * tb - usedNow) / (288.0 * (10L << 30)) * 10) / 10.0);
    }

    @Test
    void settingsThatWouldHoldTooManyPoints_areRefused() {
        assertThatThrownBy(() -> new TrafficHistory.Settings(
                        Duration.ofSeconds(1),
                        Duration.ofDays(30),
                        Duration.ofMinutes(5),
                        Duration.ofDays(7),
                        Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("appliance.metrics.traffic-history")
                .hasMessageContaining("expected at most 100000");
        assertThatThrownBy(() -> new TrafficHistory.Settings(
                        Duration.ZERO, Duration.ofHours(1), Duration.ofMinutes(5), Duration.ofDays(7), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("appliance.metrics.sample-interval");
    }
}
