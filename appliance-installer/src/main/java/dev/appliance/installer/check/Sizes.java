package dev.appliance.installer.check;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte counts as people write them: decimal units as disks are sold (TB), binary ones as RAM is (GiB). */
public final class Sizes {
    private Sizes() {}

    private static final Pattern SIZE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)");
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L),
            Map.entry("b", 1L),
            Map.entry("k", 1_000L),
            Map.entry("kb", 1_000L),
            Map.entry("m", 1_000_000L),
            Map.entry("mb", 1_000_000L),
            Map.entry("g", 1_000_000_000L),
            Map.entry("gb", 1_000_000_000L),
            Map.entry("t", 1_000_000_000_000L),
            Map.entry("tb", 1_000_000_000_000L),
            Map.entry("p", 1_000_000_000_000_000L),
            Map.entry("pb", 1_000_000_000_000_000L),
            Map.entry("kib", 1L << 10),
            Map.entry("mib", 1L << 20),
            Map.entry("gib", 1L << 30),
            Map.entry("tib", 1L << 40),
            Map.entry("pib", 1L << 50));

    /**
     * {@code 10TB}, {@code 1.5 PB}, {@code 500GiB}, {@code 4000000000000}: decimal units (KB, MB, GB, TB, PB) and
     * binary ones (KiB ... PiB).
     *
     * @throws IllegalArgumentException naming the text and what is expected
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        Long unit = m.matches() ? UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
        if (unit == null) {
            throw new IllegalArgumentException("'" + text
                    + "' (expected a size such as 10TB, 1.5PB or 500GiB; units KB MB GB TB PB, KiB ... PiB)");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
        if (bytes.signum() <= 0 || bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("'" + text + "' (expected a size above 0 and below 9 EB)");
        }
        return bytes.longValue();
    }

    /** {@code 7.2 TB}: disks' and capacity's unit. */
    public static String decimal(long bytes) {
        return scaled(bytes, 1000, "B", "KB", "MB", "GB", "TB", "PB", "EB");
    }

    /** {@code 15.6 GiB}: RAM's unit. */
    public static String binary(long bytes) {
        return scaled(bytes, 1024, "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB");
    }

    private static String scaled(long bytes, int base, String... units) {
        double v = bytes;
        int u = 0;
        while (v >= base && u < units.length - 1) {
            v /= base;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
