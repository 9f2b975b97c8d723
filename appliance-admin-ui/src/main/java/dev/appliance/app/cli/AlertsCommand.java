package dev.appliance.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code appliance alerts [--all] [--json]} lists the running appliance's alerts (codes and runbooks in docs/alerts.md);
 * {@code appliance alerts ack ID} acknowledges one. Both ask the console's signed admin API.
 */
public final class AlertsCommand {
    public static final String USAGE = """
            usage: appliance alerts [--all] [--json] [--console URL] [--cacert FILE] [--user KEY] [--password SECRET]
                   appliance alerts ack ID [--json] [--console URL] [--cacert FILE] [--user KEY] [--password SECRET]
              --all       also list alerts cleared recently
              --json      print the server's JSON answer as is
              --console   the appliance's console address (default http://127.0.0.1:9001; https:// when the
                          server has --certs-dir)
              --cacert    trust this PEM certificate for https (e.g. the server's CERTS_DIR/public.crt)
              --user      access key of the root user (default: environment APPLIANCE_ROOT_USER)
              --password  its secret key (default: environment APPLIANCE_ROOT_PASSWORD)
              ID          an alert id as listed: CODE:bucket (e.g. VERSIONS_PER_KEY_HIGH:backups) or, for a health
                          check, CODE:check (e.g. DRIVE_OUT_OF_SERVICE:drive.set1.slot2)
            exit status: 0 answered, 1 server not reachable or refused (unknown id included), 2 bad arguments""";

    static final String PATH = "/api/v1/admin/alerts";

    /** The parsed arguments; {@code ackId} is null for a listing. */
    public record Options(String ackId, boolean all, boolean json, AdminClient client) {}

    private AlertsCommand() {}

    public static Options parse(List<String> args, Map<String, String> env) {
        String[] ack = {null};
        boolean[] acking = {false};
        boolean[] all = {false};
        ConsoleFlags flags = ConsoleFlags.walk(args, Set.of("--all"), sw -> all[0] = true, arg -> {
            if (!acking[0] && ack[0] == null && arg.equals("ack")) {
                acking[0] = true;
            } else if (acking[0] && ack[0] == null) {
                ack[0] = arg;
            } else {
                throw new IllegalArgumentException(
                        "unexpected argument '" + arg + "'" + (acking[0] ? "" : " (expected 'ack ID' or options)"));
            }
        });
        if (acking[0] && ack[0] == null) {
            throw new IllegalArgumentException(
                    "ack: missing the alert ID (as listed by 'appliance alerts', CODE:bucket or CODE:check)");
        }
        // a bucket name, or a health check's id (net.ipv4.tcp_rmem, drive.set1.slot2)
        if (ack[0] != null && !ack[0].matches("[A-Z_]+:[a-z0-9][a-z0-9._-]{1,127}")) {
            throw new IllegalArgumentException("ack: '" + ack[0] + "' is not an alert ID (expected CODE:bucket or"
                    + " CODE:check, e.g. VERSIONS_PER_KEY_HIGH:backups)");
        }
        if (ack[0] != null && all[0]) {
            throw new IllegalArgumentException("--all lists alerts; it does not go with ack");
        }
        return new Options(ack[0], all[0], flags.json(), flags.client(env));
    }

    /** Lists or acknowledges and prints; returns the server's JSON answer. */
    public static JsonNode run(Options o, PrintStream out) throws AdminClient.Unreachable {
        if (o.ackId() != null) {
            JsonNode a = o.client().json("POST", PATH + "/" + AdminClient.segment(o.ackId()) + "/ack", "");
            if (o.json()) {
                out.println(a);
            } else {
                out.printf(
                        "%s acknowledged at %s; it stays acknowledged until it clears (raised again, it is new)%n",
                        a.path("id").asText(),
                        a.path("acknowledgedAt").asText(a.path("clearedAt").asText()));
                if (!"active".equals(a.path("state").asText())) {
                    out.println(
                            "(it had already cleared at " + a.path("clearedAt").asText() + ")");
                }
            }
            return a;
        }
        JsonNode root = o.client().json("GET", PATH, o.all() ? "all=true" : "");
        if (o.json()) {
            out.println(root);
        } else {
            print(root, out);
        }
        return root;
    }

    static void print(JsonNode root, PrintStream out) {
        out.printf(
                "Alerts: %d active (%d unacknowledged, %d critical)%n",
                root.path("active").asInt(),
                root.path("unacknowledged").asInt(),
                root.path("critical").asInt());
        for (JsonNode a : root.path("alerts")) {
            boolean active = "active".equals(a.path("state").asText());
            out.println();
            out.printf(
                    "%s  %s  %s%s%n",
                    a.path("severity").asText(),
                    a.path("id").asText(),
                    active
                            ? "raised " + a.path("raisedAt").asText()
                            : "CLEARED " + a.path("clearedAt").asText(),
                    a.path("acknowledged").asBoolean()
                            ? ", acknowledged " + a.path("acknowledgedAt").asText()
                            : "");
            out.println("  " + a.path("summary").asText());
            out.println("  Cause:  " + a.path("cause").asText());
            out.println("  Remedy: " + a.path("remedy").asText());
            JsonNode f = a.path("figures");
            StringBuilder keys = new StringBuilder();
            for (JsonNode k : f.path("worstKeys")) {
                keys.append(keys.isEmpty() ? "" : ", ")
                        .append(k.path("key").asText())
                        .append(" (")
                        .append(k.path("versions").asLong())
                        .append(")");
            }
            if (!keys.isEmpty()) {
                out.println("  Worst keys: " + keys);
            }
            out.println("  Runbook: docs/alerts.md#" + a.path("code").asText().toLowerCase(java.util.Locale.ROOT)
                    + (active && !a.path("acknowledged").asBoolean()
                            ? "; acknowledge: appliance alerts ack "
                                    + a.path("id").asText()
                            : ""));
        }
    }
}
