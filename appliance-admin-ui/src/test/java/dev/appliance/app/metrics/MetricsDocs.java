package dev.appliance.app.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/** Reads the metric names out of docs/metrics.md, the Prometheus alert rules and the Grafana dashboard. */
final class MetricsDocs {
    private static final Pattern METRIC = Pattern.compile("\\bappliance_[a-z0-9_]+");
    /** A row of the table in docs/metrics.md: {@code | `name` | type | ...}. */
    private static final Pattern DOC_ROW = Pattern.compile("^\\| `(appliance_[a-z0-9_]+)` \\|", Pattern.MULTILINE);

    private MetricsDocs() {}

    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "no README.md with a docs/ folder above " + Path.of("").toAbsolutePath());
    }

    /** The metric families (as {@code # TYPE} names them) in the table of docs/metrics.md. */
    static Set<String> documentedFamilies() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher m = DOC_ROW.matcher(Files.readString(root().resolve("docs/metrics.md")));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Every {@code appliance_*} series name in the alert rules' expressions (parsed as YAML, as Prometheus does). */
    @SuppressWarnings("unchecked")
    static Set<String> alertRuleMetrics() throws IOException {
        Map<String, Object> doc =
                new Yaml().load(Files.readString(root().resolve("docs/prometheus/appliance-alerts.yml")));
        Set<String> names = new TreeSet<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) doc.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                if (rule.get("alert") == null || rule.get("expr") == null) {
                    throw new IllegalStateException("a rule without alert or expr: " + rule);
                }
                names.addAll(metricsIn(String.valueOf(rule.get("expr"))));
            }
        }
        return names;
    }

    /** Every {@code appliance_*} series name in the dashboard's panel queries. */
    static Set<String> dashboardMetrics() throws IOException {
        JsonNode dashboard = new ObjectMapper()
                .readTree(
                        root().resolve("docs/grafana/appliance-dashboard.json").toFile());
        Set<String> names = new TreeSet<>();
        for (JsonNode expr : dashboard.findValues("expr")) {
            names.addAll(metricsIn(expr.asText()));
        }
        return names;
    }

    static Set<String> metricsIn(String expression) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(expression);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }
}
