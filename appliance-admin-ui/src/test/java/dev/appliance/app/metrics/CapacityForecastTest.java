package dev.appliance.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The days-to-full forecast over hard series: too short, flat, shrinking, noisy, already full, a fast fill. */
class CapacityForecastTest {
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    private static final long TB = 1L << 40;
    private static final long GB = 1L << 30;
    private static final Duration HOUR = Duration.ofHours(1);

    /** {@code n} measurements every {@code step}, used bytes from {@code used.at(i)}, 10 TiB usable. */
    private static List<CapacityForecast.Measurement> series(
            int n, Duration step, java.util.function.IntToLongFunction used) {
        List<CapacityForecast.Measurement> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new CapacityForecast.Measurement(T0.plus(step.multipliedBy(i)), used.applyAsLong(i), 10 * TB));
        }
        return out;
    }

    @Test
    void noMeasurement_isNotKnown() {
        TrafficHistory.Forecast f = CapacityForecast.of(List.of(), HOUR);
        assertThat(f.daysToFull()).isNull();
        assertThat(f.reason()).isEqualTo("No capacity measured yet.");
    }

    @Test
    void oneMeasurement_orTooShortASpan_isNotKnownYet_andSaysWhatItHas() {
        TrafficHistory.Forecast one = CapacityForecast.of(series(1, Duration.ofMinutes(5), i -> TB), HOUR);
        assertThat(one.daysToFull()).isNull();
        assertThat(one.reason()).startsWith("Not enough history yet").contains("1 measurement)");

        // 55 minutes of a fast fill: still not enough span for an honest figure
        TrafficHistory.Forecast shortSpan =
                CapacityForecast.of(series(12, Duration.ofMinutes(5), i -> TB + i * 100 * GB), HOUR);
        assertThat(shortSpan.daysToFull()).isNull();
        assertThat(shortSpan.basedOnHours()).isEqualTo(0.9);
        assertThat(shortSpan.reason())
                .contains("measured over 55 min (12 measurements)")
                .contains("spanning 60 min");

        // exactly the span needed: a figure
        TrafficHistory.Forecast enough =
                CapacityForecast.of(series(13, Duration.ofMinutes(5), i -> TB + i * 100 * GB), HOUR);
        assertThat(enough.daysToFull()).isNotNull();
        assertThat(enough.basedOnHours()).isEqualTo(1.0);
    }

    @Test
    void flatUsage_hasNoEnd() {
        TrafficHistory.Forecast f = CapacityForecast.of(series(97, Duration.ofMinutes(5), i -> 3 * TB), HOUR);
        assertThat(f.daysToFull()).isNull();
        assertThat(f.growthBytesPerDay()).isEqualTo(0.0);
        assertThat(f.reason()).startsWith("Usage is flat or shrinking over the last 8.0 hours");
    }

    @Test
    void shrinkingUsage_hasNoEnd_andReportsTheNegativeRate() {
        TrafficHistory.Forecast f =
                CapacityForecast.of(series(25, HOUR, i -> 5 * TB - i * 10 * GB), Duration.ofHours(6));
        assertThat(f.daysToFull()).isNull();
        assertThat(f.growthBytesPerDay()).isCloseTo(-240.0 * GB, within(1.0));
        assertThat(f.basedOnHours()).isEqualTo(24.0);
    }

    @Test
    void steadyGrowth_isFreeBytesOverTheRate() {
        // 1 TiB used, growing 100 GiB a day measured hourly over 3 days: (10 TiB - 1.29 TiB) / 100 GiB a day
        long perHour = 100 * GB / 24;
        TrafficHistory.Forecast f = CapacityForecast.of(series(73, HOUR, i -> TB + i * perHour), HOUR);
        long usedNow = TB + 72 * perHour;
        double expected = (10.0 * TB - usedNow) / (perHour * 24.0);
        assertThat(f.daysToFull()).isCloseTo(expected, within(0.05));
        assertThat(f.basedOnHours()).isEqualTo(72.0);
        assertThat(f.reason()).startsWith("At the growth rate of the last 3.0 days (73 measurements");
    }

    @Test
    void noisyGrowth_followsTheTrend_notTheLastWiggle() {
        // 50 GiB a day, with ±200 GiB of noise on each measurement (backup jobs land and are pruned): the fit finds
        // the trend within a few percent, where the last two points alone could say anything
        Random random = new Random(42);
        long perFiveMinutes = 50 * GB / 288;
        List<CapacityForecast.Measurement> noisy = series(
                7 * 288,
                Duration.ofMinutes(5),
                i -> 4 * TB + i * perFiveMinutes + (long) ((random.nextDouble() * 2 - 1) * 200 * GB));
        TrafficHistory.Forecast f = CapacityForecast.of(noisy, HOUR);
        assertThat(f.growthBytesPerDay()).isCloseTo(50.0 * GB, within(3.0 * GB));
        CapacityForecast.Measurement last = noisy.getLast();
        double expected = (double) (last.usableBytes() - last.usedBytes()) / (50.0 * GB);
        assertThat(f.daysToFull()).isCloseTo(expected, within(expected * 0.06));
    }

    @Test
    void alreadyFull_isZeroDays_whateverTheHistory() {
        TrafficHistory.Forecast full = CapacityForecast.of(series(3, Duration.ofMinutes(5), i -> 10 * TB), HOUR);
        assertThat(full.daysToFull()).isEqualTo(0.0);
        assertThat(full.reason()).startsWith("Full now").contains("100.0% used");
        // used above usable (a drive went offline and usable shrank below what is stored)
        TrafficHistory.Forecast over =
                CapacityForecast.of(List.of(new CapacityForecast.Measurement(T0, 12 * TB, 10 * TB)), HOUR);
        assertThat(over.daysToFull()).isEqualTo(0.0);
    }

    @Test
    void growthTooSlowToMatter_isNoFigure_ratherThanThousandsOfYears() {
        // 1 byte an hour over a day
        TrafficHistory.Forecast f = CapacityForecast.of(series(25, HOUR, i -> TB + i), HOUR);
        assertThat(f.daysToFull()).isNull();
        assertThat(f.reason()).startsWith("Growing too slowly to forecast");
    }

    @Test
    void slope_isTheLeastSquaresLine_throughUnevenlySpacedPoints() {
        // used = 7 + 3 t (t in seconds) at uneven times, with a symmetric wobble that cancels out in the fit
        List<CapacityForecast.Measurement> points = List.of(
                new CapacityForecast.Measurement(T0, 7 + 1, 100),
                new CapacityForecast.Measurement(T0.plusSeconds(10), 37 - 1, 100),
                new CapacityForecast.Measurement(T0.plusSeconds(30), 97 - 1, 100),
                new CapacityForecast.Measurement(T0.plusSeconds(40), 127 + 1, 100));
        assertThat(CapacityForecast.slopePerSecond(points)).isCloseTo(3.0, within(0.05));
    }
}
