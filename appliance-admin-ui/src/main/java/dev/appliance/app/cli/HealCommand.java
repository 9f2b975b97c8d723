package dev.appliance.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.SigV4;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code appliance heal status [--json] [--console URL] [--user KEY --password SECRET]}: asks the running appliance
 * (its console port, the SigV4-signed admin API) which drives are in service and how the heal of replaced drives is
 * going: objects and bytes, rate, ETA, failures by name.
 */
public final class HealCommand {
    public static final String USAGE = """
            usage: appliance heal status [--json] [--console URL] [--user KEY] [--password SECRET]
              --json      print the server's JSON answer as is
              --console   the appliance's console address (default http://127.0.0.1:9001)
              --user      access key of the root user (default: environment APPLIANCE_ROOT_USER)
              --password  its secret key (default: environment APPLIANCE_ROOT_PASSWORD)
            exit status: 0 answered, 1 server not reachable or refused, 2 bad arguments""";

    static final String PATH = "/api/v1/admin/heal/drives";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The parsed arguments of {@code heal status}. */
    public record Options(boolean json, URI console, String user, String password) {}

    /** Says why the server could not answer; {@link #getMessage()} is meant for the operator. */
    public static final class Unreachable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message);
        }
    }

    private HealCommand() {}

    public static Options parse(List<String> args, Map<String, String> env) {
        if (args.isEmpty() || !args.getFirst().equals("status")) {
            throw new IllegalArgumentException(
                    args.isEmpty()
                            ? "missing subcommand (expected 'status')"
                            : "unknown subcommand '" + args.getFirst() + "' (expected 'status')");
        }
        boolean[] json = {false};
        String[] console = {"http://127.0.0.1:9001"};
        String[] user = {env.get("APPLIANCE_ROOT_USER")};
        String[] password = {env.get("APPLIANCE_ROOT_PASSWORD")};
        Arguments.walk(
                args.subList(1, args.size()),
                Set.of("--console", "--user", "--password"),
                Set.of("--json"),
                new Arguments.Visitor() {
                    @Override
                    public void option(String flag, String value) {
                        switch (flag) {
                            case "--console" -> console[0] = value;
                            case "--user" -> user[0] = value;
                            case "--password" -> password[0] = value;
                            default -> json[0] = true;
                        }
                    }

                    @Override
                    public void positional(String arg) {
                        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
                    }
                });
        if (user[0] == null || user[0].isBlank() || password[0] == null || password[0].isBlank()) {
            throw new IllegalArgumentException("no credentials: give --user and --password, or set"
                    + " APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD");
        }
        return new Options(json[0], consoleUri(console[0]), user[0], password[0]);
    }

    static URI consoleUri(String value) {
        String v = value.contains("://") ? value : "http://" + value;
        try {
            URI u = new URI(v);
            if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())
                    || u.getHost() == null
                    || (u.getPath() != null
                            && !u.getPath().isEmpty()
                            && !u.getPath().equals("/"))) {
                throw new URISyntaxException(v, "not an http(s)://HOST:PORT address");
            }
            return new URI(u.getScheme(), null, u.getHost(), u.getPort(), null, null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "--console '" + value + "': expected the console address, e.g. http://127.0.0.1:9001");
        }
    }

    /** Fetches the drives' heal status and prints it; the JSON answer is returned for callers that want figures. */
    public static JsonNode run(Options o, PrintStream out) throws Unreachable {
        String body = fetch(o);
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new Unreachable(
                    "the console at " + o.console() + " answered something that is not JSON: " + abbreviate(body));
        }
        if (o.json()) {
            out.println(body);
        } else {
            print(root, out);
        }
        return root;
    }

    private static String fetch(Options o) throws Unreachable {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        String host = o.console().getPort() < 0
                ? o.console().getHost()
                : o.console().getHost() + ":" + o.console().getPort();
        TreeMap<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of(host));
        headers.put("x-amz-content-sha256", List.of(SigV4.EMPTY_SHA256));
        headers.put("x-amz-date", List.of(amzDate));
        String region = S3ServerConfig.DEFAULT_REGION;
        String signature =
                SigV4.sign(o.password(), date, region, amzDate, "GET", PATH, "", headers, SigV4.EMPTY_SHA256);
        String authorization = SigV4.ALGORITHM + " Credential=" + o.user() + "/" + SigV4.scope(date, region, "s3")
                + ", SignedHeaders=" + String.join(";", headers.keySet()) + ", Signature=" + signature;
        HttpRequest request = HttpRequest.newBuilder(o.console().resolve(PATH))
                .timeout(Duration.ofSeconds(30))
                .header("x-amz-content-sha256", SigV4.EMPTY_SHA256)
                .header("x-amz-date", amzDate)
                .header("Authorization", authorization)
                .GET()
                .build();
        HttpResponse<String> response;
        try (HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build()) {
            response = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException | HttpConnectTimeoutException e) {
            throw new Unreachable("cannot reach the appliance console at " + o.console()
                    + " (connection refused or timed out): is the server running? Give its console address with"
                    + " --console");
        } catch (IOException e) {
            throw new Unreachable("cannot reach the appliance console at " + o.console() + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted");
        }
        if (response.statusCode() != 200) {
            String detail = abbreviate(response.body());
            try {
                JsonNode err = JSON.readTree(response.body());
                if (err.has("code")) {
                    detail = err.path("code").asText() + ": "
                            + err.path("message").asText();
                }
            } catch (IOException e) {
                // not JSON: shown as it is
            }
            throw new Unreachable("the console at " + o.console() + " answered " + response.statusCode()
                    + (response.statusCode() == 403 ? " (are --user/--password the root credentials?)" : "")
                    + ": " + detail);
        }
        return response.body();
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
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
