package dev.appliance.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code appliance logging access-log [on|off]} shows or switches the running appliance's S3 access log through the
 * console's signed admin API ({@code GET|PUT /api/v1/admin/logging/access-log}). The switch lasts until the server
 * stops: a restart comes back to {@code appliance.logging.access-log}.
 */
public final class LoggingCommand {
    public static final String USAGE = """
            usage: appliance logging access-log [on|off] [--json] [--console URL] [--cacert FILE] [--user KEY]
                                                [--password SECRET]
              on|off      switch the S3 access log (one line per request) at once, until the server stops;
                          without it: show whether it is on
              --json      print the server's JSON answer as is
              --console   the appliance's console address (default http://127.0.0.1:9001)
              --cacert    trust this PEM certificate for https (e.g. the server's CERTS_DIR/public.crt)
              --user      access key of the root user (default: environment APPLIANCE_ROOT_USER)
              --password  its secret key (default: environment APPLIANCE_ROOT_PASSWORD)
            exit status: 0 answered, 1 server not reachable or refused, 2 bad arguments""";

    static final String PATH = "/api/v1/admin/logging/access-log";

    /** The parsed arguments; {@code enable} is null to only show the state. */
    public record Options(Boolean enable, boolean json, AdminClient client) {}

    private LoggingCommand() {}

    public static Options parse(List<String> args, Map<String, String> env) {
        List<String> words = new ArrayList<>();
        ConsoleFlags flags = ConsoleFlags.walk(args, Set.of(), sw -> {}, words::add);
        if (words.isEmpty() || !words.getFirst().equals("access-log")) {
            throw new IllegalArgumentException(
                    words.isEmpty()
                            ? "missing 'access-log'"
                            : "unknown '" + words.getFirst() + "' (expected access-log)");
        }
        if (words.size() > 2) {
            throw new IllegalArgumentException("unexpected argument '" + words.get(2) + "'");
        }
        Boolean enable = null;
        if (words.size() == 2) {
            enable = switch (words.get(1)) {
                case "on" -> true;
                case "off" -> false;
                default -> throw new IllegalArgumentException("'" + words.get(1) + "': expected on or off");
            };
        }
        return new Options(enable, flags.json(), flags.client(env));
    }

    /** Shows or switches, and prints the state; returns the server's JSON answer. */
    public static JsonNode run(Options o, PrintStream out) throws AdminClient.Unreachable {
        JsonNode state = o.enable() == null
                ? o.client().json("GET", PATH, "")
                : o.client().json("PUT", PATH, "", "{\"enabled\":" + o.enable() + "}");
        if (o.json()) {
            out.println(state);
        } else {
            out.printf(
                    "S3 access log: %s (%d lines written, %d dropped since start)%n",
                    state.path("enabled").asBoolean() ? "on" : "off",
                    state.path("written").asLong(),
                    state.path("dropped").asLong());
        }
        return state;
    }
}
