package dev.appliance.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text-format scrape, parsed: every sample with its labels, and the metric families declared by
 * {@code # TYPE} lines. Strict enough to fail on a line Prometheus would reject.
 */
record Scrape(List<Sample> samples, Map<String, String> types) {
    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)( -?\\d+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    static Scrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                types.put(parts[2], parts[3]);
                continue;
            }
            if (line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("a sample line: %s", line).isTrue();
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                }
                assertThat(end).as("labels of %s", line).isEqualTo(m.group(3).length());
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Scrape(samples, types);
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels} (key, value, key, value...). */
    double value(String name, String... labels) {
        double sum = 0;
        boolean found = false;
        for (Sample s : samples) {
            if (s.name().equals(name) && has(s, labels)) {
                sum += s.value();
                found = true;
            }
        }
        assertThat(found).as("a sample %s %s", name, List.of(labels)).isTrue();
        return sum;
    }

    boolean has(String name, String... labels) {
        return samples.stream().anyMatch(s -> s.name().equals(name) && has(s, labels));
    }

    private static boolean has(Sample s, String... labels) {
        for (int i = 0; i < labels.length; i += 2) {
            if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                return false;
            }
        }
        return true;
    }

    /** Every sample name (with the _bucket, _count, _sum, _total, _max forms as they appear). */
    Set<String> sampleNames() {
        Set<String> names = new TreeSet<>();
        samples.forEach(s -> names.add(s.name()));
        return names;
    }
}
