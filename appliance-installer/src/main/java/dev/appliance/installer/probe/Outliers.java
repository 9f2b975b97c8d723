package dev.appliance.installer.probe;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Which drives are much slower than the others. An erasure set writes every stripe to all its drives and acknowledges
 * on a quorum, so one slow drive sets the pace (or leaves its shards behind for healing): a drive whose sync latency is
 * more than {@link #LATENCY_FACTOR} times the median of the drives probed together, or whose write or read throughput
 * is below {@link #THROUGHPUT_FACTOR} of the median, is an outlier. With fewer than {@link #MIN_DRIVES} drives there
 * is no meaningful median and nothing is flagged.
 */
public final class Outliers {
    private Outliers() {}

    public static final double LATENCY_FACTOR = 2.0;

    public static final double THROUGHPUT_FACTOR = 0.5;

    public static final int MIN_DRIVES = 3;

    /** The medians of a set of measurements. */
    public record Medians(long latencyNanos, long writeBytesPerSecond, long readBytesPerSecond) {}

    public static Medians medians(List<ProbeOutcome.Measured> measured) {
        return new Medians(
                median(measured, ProbeOutcome.Measured::latencyNanos),
                median(measured, ProbeOutcome.Measured::writeBytesPerSecond),
                median(measured, ProbeOutcome.Measured::readBytesPerSecond));
    }

    /** The outlying drives, each with why (in the measurements' order); empty when none is. */
    public static Map<Path, String> of(List<ProbeOutcome.Measured> measured) {
        Map<Path, String> outliers = new LinkedHashMap<>();
        if (measured.size() < MIN_DRIVES) {
            return outliers;
        }
        Medians m = medians(measured);
        for (ProbeOutcome.Measured d : measured) {
            List<String> why = new ArrayList<>();
            if (d.latencyNanos() > m.latencyNanos() * LATENCY_FACTOR) {
                why.add("sync latency " + millis(d.latencyNanos()) + " against a median of "
                        + millis(m.latencyNanos()));
            }
            if (d.writeBytesPerSecond() < m.writeBytesPerSecond() * THROUGHPUT_FACTOR) {
                why.add("writes " + rate(d.writeBytesPerSecond()) + " against a median of "
                        + rate(m.writeBytesPerSecond()));
            }
            if (d.readBytesPerSecond() < m.readBytesPerSecond() * THROUGHPUT_FACTOR) {
                why.add("reads " + rate(d.readBytesPerSecond()) + " against a median of "
                        + rate(m.readBytesPerSecond()));
            }
            if (!why.isEmpty()) {
                outliers.put(d.drive(), String.join(", ", why));
            }
        }
        return outliers;
    }

    /** The middle value; the mean of the two middle ones for an even count. */
    static long median(List<ProbeOutcome.Measured> measured, ToLongFunction<ProbeOutcome.Measured> value) {
        long[] v = measured.stream().mapToLong(value).sorted().toArray();
        if (v.length == 0) {
            return 0;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    public static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    public static String rate(long bytesPerSecond) {
        return String.format(Locale.ROOT, "%.0f MB/s", bytesPerSecond / 1e6);
    }
}
