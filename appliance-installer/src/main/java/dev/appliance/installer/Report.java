package dev.appliance.installer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.NodeFacts;
import dev.appliance.installer.check.Result;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The preflight report: one line per check for a person, or {@code {"checks": [...]}} (with the node's facts for
 * {@code compare}) for a script.
 */
final class Report {
    private Report() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Plain text, no escape codes: a line per check, what was expected and the fix under each warn or fail. */
    static String text(List<Check> checks) {
        int idWidth = checks.stream().mapToInt(c -> c.id().length()).max().orElse(1);
        StringBuilder out = new StringBuilder();
        Map<Result, Integer> counts = new EnumMap<>(Result.class);
        for (Check c : checks) {
            counts.merge(c.result(), 1, Integer::sum);
            out.append(String.format(
                    Locale.ROOT, "%-4s  %-" + idWidth + "s  %s%n", c.result().name(), c.id(), c.measured()));
            if (c.result() != Result.PASS) {
                String indent = " ".repeat(6 + idWidth + 2);
                out.append(indent).append("expected: ").append(c.expected()).append(System.lineSeparator());
                out.append(indent).append("fix: ").append(c.remediation()).append(System.lineSeparator());
            }
        }
        Result worst = Result.worst(checks);
        out.append(System.lineSeparator())
                .append(String.format(
                        Locale.ROOT,
                        "%s (exit %d): %d pass, %d warn, %d fail%n",
                        worst.label(),
                        worst.exitCode(),
                        counts.getOrDefault(Result.PASS, 0),
                        counts.getOrDefault(Result.WARN, 0),
                        counts.getOrDefault(Result.FAIL, 0)));
        return out.toString();
    }

    /** {@code {"checks":[{"id","result","measured","expected","remediation"}, ...]}}, results spelled in lower case. */
    static String json(List<Check> checks) {
        return json(checks, null);
    }

    /**
     * {@link #json(List)} and, when {@code node} is given, {@code "node": {...}} after the checks: the facts {@code
     * compare} judges the nodes by ({@link NodeReport} reads them back).
     */
    static String json(List<Check> checks, NodeFacts node) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (Check c : checks) {
            Map<String, String> row = new LinkedHashMap<>();
            row.put("id", c.id());
            row.put("result", c.result().label());
            row.put("measured", c.measured());
            row.put("expected", c.expected());
            row.put("remediation", c.remediation());
            rows.add(row);
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("checks", rows);
        if (node != null) {
            report.put("node", NodeReport.toJson(node));
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report);
        } catch (JsonProcessingException e) { // strings, numbers and lists only: cannot happen
            throw new UncheckedIOException(e);
        }
    }
}
