package dev.appliance.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code appliance heal status [--json] [--console URL] [--cacert FILE] [--user KEY --password SECRET]}: asks the running appliance
 * (its console port, the SigV4-signed admin API) which drives are in service and how the heal of replaced drives is
 * going: objects and bytes, rate, ETA, failures by name. {@code appliance heal start BUCKET[/PREFIX]} starts the heal of
 * a bucket, or of the keys under a prefix in it, in the background ({@code POST /api/v1/admin/heal/buckets}).
 */
public final class HealCommand {
    public static final String USAGE = """
            usage: appliance heal status [--json] [--console URL] [--cacert FILE] [--user KEY] [--password SECRET]
                   appliance heal start BUCKET[/PREFIX] [--json] [--console URL] [--cacert FILE] [--user KEY]
                                        [--password SECRET]
              status      drives in service and the heals of replaced drives
              start       heal every version of every object of BUCKET, or under PREFIX in it (e.g. backups/vm1/),
                          in the background; follow it on the console's Drives page
              --json      print the server's JSON answer as is
              --console   the appliance's console address (default http://127.0.0.1:9001; https:// when the
                          server has --certs-dir)
              --cacert    trust this PEM certificate for https (e.g. the server's CERTS_DIR/public.crt)
              --user      access key of the root user (default: environment APPLIANCE_ROOT_USER)
              --password  its secret key (default: environment APPLIANCE_ROOT_PASSWORD)
            exit status: 0 answered, 1 server not reachable or refused, 2 bad arguments""";

    static final String PATH = "/api/v1/admin/heal/drives";
    static final String BUCKETS_PATH = "/api/v1/admin/heal/buckets";

    /**
     * The parsed arguments of {@code heal status} and {@code heal start}.
     *
     * @param cacert the PEM certificate to trust for https, or null
     * @param bucket the bucket to heal ({@code start}), else null
     * @param prefix the prefix in it, "" for the whole bucket ({@code start}), else null
     */
    public record Options(
            boolean json, URI console, String user, String password, Path cacert, String bucket, String prefix) {
        /** Whether this is {@code heal start}. */
        public boolean start() {
            return bucket != null;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private HealCommand() {}

    public static Options parse(List<String> args, Map<String, String> env) {
        if (args.isEmpty()
                || !(args.getFirst().equals("status") || args.getFirst().equals("start"))) {
            throw new IllegalArgumentException(
                    args.isEmpty()
                            ? "missing subcommand (expected 'status' or 'start')"
                            : "unknown subcommand '" + args.getFirst() + "' (expected 'status' or 'start')");
        }
        boolean start = args.getFirst().equals("start");
        List<String> target = new java.util.ArrayList<>();
        ConsoleFlags flags = ConsoleFlags.walk(args.subList(1, args.size()), Set.of(), sw -> {}, arg -> {
            if (!start || !target.isEmpty()) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            }
            target.add(arg);
        });
        String bucket = null;
        String prefix = null;
        if (start) {
            if (target.isEmpty()
                    || target.getFirst().isEmpty()
                    || target.getFirst().startsWith("/")) {
                throw new IllegalArgumentException(
                        "'start' needs BUCKET or BUCKET/PREFIX, e.g. backups or backups/vm1/");
            }
            String t = target.getFirst();
            int slash = t.indexOf('/');
            bucket = slash < 0 ? t : t.substring(0, slash);
            prefix = slash < 0 ? "" : t.substring(slash + 1);
        }
        String[] credentials = flags.credentials(env);
        AdminClient.trusting(flags.cacert()); // a bad --cacert is a usage error (status 2), found before any request
        return new Options(
                flags.json(), flags.consoleUri(), credentials[0], credentials[1], flags.cacert(), bucket, prefix);
    }

    /** Fetches the drives' heal status and prints it; the JSON answer is returned for callers that want figures. */
    public static JsonNode run(Options o, PrintStream out) throws AdminClient.Unreachable {
        AdminClient client = new AdminClient(o.console(), o.user(), o.password(), AdminClient.trusting(o.cacert()));
        if (o.start()) {
            var body = JSON.createObjectNode().put("bucket", o.bucket()).put("prefix", o.prefix());
            JsonNode heal = client.json("POST", BUCKETS_PATH, "", body.toString());
            if (o.json()) {
                out.println(heal);
            } else {
                out.printf(
                        "Heal %d of %s: %s (started %s)%n",
                        heal.path("id").asLong(),
                        heal.path("prefix").asText().isEmpty()
                                ? "bucket " + heal.path("bucket").asText()
                                : heal.path("bucket").asText() + "/"
                                        + heal.path("prefix").asText(),
                        heal.path("state").asText(),
                        heal.path("started").asText());
                out.println("Its progress: the console's Drives page, or GET " + BUCKETS_PATH + ".");
            }
            return heal;
        }
        JsonNode root = client.json("GET", PATH, "");
        if (o.json()) {
            out.println(root);
        } else {
            print(root, out);
        }
        return root;
    }

    static void print(JsonNode root, PrintStream out) {
        int online = 0;
        int total = 0;
        for (JsonNode d : root.path("drives")) {
            total++;
            if ("online".equals(d.path("state").asText())) {
                online++;
            }
        }
        out.printf("Drives: %d of %d in service and whole%n", online, total);
        for (JsonNode d : root.path("drives")) {
            String state = d.path("state").asText();
            if (!"online".equals(state)) {
                out.printf(
                        "  %s (set %d, slot %d): %s%s%n",
                        d.path("path").asText(),
                        d.path("set").asInt(),
                        d.path("slot").asInt(),
                        state,
                        d.path("problem").asText().isEmpty()
                                ? ""
                                : ": " + d.path("problem").asText());
            }
        }
        JsonNode heals = root.path("heals");
        if (heals.isEmpty()) {
            out.println("No drive heal since start.");
            return;
        }
        for (JsonNode h : heals) {
            out.printf(
                    "Drive heal %s (set %d, slot %d): %s%n",
                    h.path("drive").asText(),
                    h.path("set").asInt(),
                    h.path("slot").asInt(),
                    h.path("state").asText().toUpperCase(Locale.ROOT));
            long estimated = h.path("objectsEstimated").asLong();
            out.printf(
                    "  objects: %d scanned%s: %d healed, %d skipped, %d failed; %s written%n",
                    h.path("objectsScanned").asLong(),
                    estimated > 0 ? " of about " + estimated : "",
                    h.path("objectsHealed").asLong(),
                    h.path("objectsSkipped").asLong(),
                    h.path("objectsFailed").asLong(),
                    bytes(h.path("bytesHealed").asLong()));
            out.printf(
                    "  buckets: %d of %d done%s%n",
                    h.path("bucketsDone").asInt(),
                    h.path("bucketsTotal").asInt(),
                    h.path("bucket").isNull() || h.path("bucket").isMissingNode()
                            ? ""
                            : "; at " + h.path("bucket").asText() + "/"
                                    + h.path("lastKey").asText(""));
            if ("healing".equals(h.path("state").asText())) {
                long eta = h.path("etaSeconds").asLong(-1);
                out.printf(
                        "  rate: %.1f objects/s, %s/s; ETA %s%n",
                        h.path("objectsPerSecond").asDouble(),
                        bytes(h.path("bytesPerSecond").asLong()),
                        eta < 0
                                ? "unknown"
                                : Duration.ofSeconds(eta)
                                        .toString()
                                        .substring(2)
                                        .toLowerCase(Locale.ROOT));
            }
            out.printf(
                    "  started %s, updated %s%s%s%n",
                    h.path("started").asText(),
                    h.path("updated").asText(),
                    h.path("finished").isNull()
                            ? ""
                            : ", finished " + h.path("finished").asText(),
                    h.path("resumes").asInt() > 0
                            ? ", resumed " + h.path("resumes").asInt() + "x after restarts"
                            : "");
            for (JsonNode f : h.path("failures")) {
                out.printf(
                        "  %s: %s%n", f.path("name").asText(), f.path("reason").asText());
            }
        }
    }

    static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? n + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
