package dev.appliance.app.cli;

import dev.appliance.s3.S3ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The options of {@code appliance server}.
 *
 * @param drives expanded drive paths
 * @param embeddedDefault true when no drive was given and the four drives under {@code ./data} are used
 * @param allowRootDrives drives may share the root filesystem (the embedded default, or {@code --allow-root-drives})
 * @param certsDir TLS certificate directory ({@code public.crt}, {@code private.key}), or null for plain HTTP
 * @param domain virtual-hosted-style domain, or null (the environment variable APPLIANCE_DOMAIN applies then)
 * @param maxConnections open S3 connections accepted (0: the default)
 * @param maxRequests S3 requests in flight (0: from memory and CPUs)
 * @param scanner lifecycle day length, versions cap and scanner pace
 * @param timeouts S3 request timeouts: the head of a request, silence inside a body, an idle connection
 */
public record ServerOptions(
        List<Path> drives,
        boolean embeddedDefault,
        HostPort address,
        HostPort consoleAddress,
        boolean allowRootDrives,
        int parity,
        Path certsDir,
        String domain,
        int maxConnections,
        int maxRequests,
        Scanner scanner,
        S3ServerConfig.Timeouts timeouts) {

    /**
     * The background scanner's settings.
     *
     * @param lifecycleDay the length of a lifecycle "day" (null: 24 hours); shorter only for tests and demos
     * @param maxVersionsPerKey the most versions one key may have (0: the default, 10,000)
     * @param interval the least time between the starts of two scanner cycles (null: 1 minute, or a quarter of a
     *     shorter lifecycle day)
     * @param keysPerSecond the most keys scanned a second (-1: the default, 1,000; 0: unlimited)
     * @param healSampleCycles every key gets a heal check once in this many cycles (-1: the default, 16; 0: never)
     * @param deepScanInterval how often a cycle verifies every shard's bitrot checksums (null: never)
     */
    public record Scanner(
            Duration lifecycleDay,
            int maxVersionsPerKey,
            Duration interval,
            int keysPerSecond,
            int healSampleCycles,
            Duration deepScanInterval) {
        public static final Scanner DEFAULTS = new Scanner(null, 0, null, -1, -1, null);
    }

    public static final String USAGE = """
            usage: appliance server [DRIVE...] [--address HOST:PORT] [--console-address HOST:PORT]
                                    [--parity N] [--allow-root-drives] [--certs-dir DIR] [--domain NAME]
                                    [--max-connections N] [--max-requests N]
                                    [--max-versions-per-key N] [--lifecycle-day DURATION]
                                    [--scanner-interval DURATION] [--scanner-rate N]
                                    [--heal-sample-cycles N] [--deep-scan-interval DURATION]
                                    [--header-timeout DURATION] [--body-timeout DURATION]
                                    [--idle-timeout DURATION]
              DRIVE              drive directories; {1...N} expands, e.g. /mnt/disk{1...8}
                                 (default: ./data/disk{1...4}, created if missing, EC 2+2)
              --address          S3 API address (default :9000)
              --console-address  admin console address (default :9001)
              --parity           parity shards per erasure set (default by set size: 4-5 drives 2, 6-7 3, 8+ 4)
              --allow-root-drives  accept drives on the root filesystem (trials only)
              --certs-dir        TLS on the S3 port from DIR/public.crt and DIR/private.key (PEM);
                                 plain HTTP without it (lab mode). Make a pair: appliance certs generate
              --domain           virtual-hosted-style domain: Host bucket.NAME addresses bucket
              --max-connections  open S3 connections accepted (default 10000)
              --max-requests     S3 requests in flight; more wait (default from memory and CPUs)
              --max-versions-per-key  versions one key may have; a PUT beyond is refused (default 10000)
              --lifecycle-day    length of a lifecycle day, e.g. 10s (default 24h; tests and demos only)
              --scanner-interval least time between scanner cycles, e.g. 30s (default 1m)
              --scanner-rate     keys the scanner reads a second, 0 unlimited (default 1000)
              --heal-sample-cycles  the scanner heal-checks every key once in N cycles, 0 never (default 16)
              --deep-scan-interval  a scanner cycle verifies every shard's bitrot checksums this often,
                                 e.g. 30d (default never: it reads all data)
              --header-timeout   time a client has to send a request's line and headers (default 30s)
              --body-timeout     silence allowed inside a request body before the request is cut (default 60s)
              --idle-timeout     an idle keep-alive connection is closed after this (default 5m)
            environment: APPLIANCE_ROOT_USER, APPLIANCE_ROOT_PASSWORD set the root credentials (both or
                         neither; user 3 to 128 characters, password 8 to 128; without them they are
                         generated and printed); APPLIANCE_DOMAIN is the default of --domain""";

    /** Host and port; an empty host listens on every interface. */
    public record HostPort(String host, int port) {
        public static HostPort parse(String flag, String value) {
            int colon = value.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(flag + " '" + value + "': expected HOST:PORT or :PORT");
            }
            String host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " '" + value + "': port is not a number");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(flag + " '" + value + "': port " + port + " (expected 0..65535)");
            }
            return new HostPort(host, port);
        }

        public String bindHost() {
            return host.isEmpty() ? "0.0.0.0" : host;
        }

        @Override
        public String toString() {
            return (host.isEmpty() ? "" : host) + ":" + port;
        }
    }

    /** The values being collected while the arguments are walked. */
    private static final class Parsed {
        final List<String> driveArgs = new ArrayList<>();
        HostPort address = new HostPort("", 9000);
        HostPort console = new HostPort("", 9001);
        boolean allowRoot;
        int parity = -1;
        Path certsDir;
        String domain;
        int maxConnections;
        int maxRequests;
        Duration lifecycleDay;
        int maxVersionsPerKey;
        Duration scannerInterval;
        int scannerRate = -1;
        int healSampleCycles = -1;
        Duration deepScanInterval;
        Duration headerTimeout = S3ServerConfig.Timeouts.DEFAULTS.requestHead();
        Duration bodyTimeout = S3ServerConfig.Timeouts.DEFAULTS.bodyRead();
        Duration idleTimeout = S3ServerConfig.Timeouts.DEFAULTS.idle();
    }

    private static final Set<String> WITH_VALUE = Set.of(
            "--address",
            "--console-address",
            "--parity",
            "--certs-dir",
            "--domain",
            "--max-connections",
            "--max-requests",
            "--max-versions-per-key",
            "--lifecycle-day",
            "--scanner-interval",
            "--scanner-rate",
            "--heal-sample-cycles",
            "--deep-scan-interval",
            "--header-timeout",
            "--body-timeout",
            "--idle-timeout");

    public static ServerOptions parse(List<String> args) {
        Parsed p = new Parsed();
        Arguments.walk(args, WITH_VALUE, Set.of("--allow-root-drives"), new Arguments.Visitor() {
            @Override
            public void option(String flag, String value) {
                switch (flag) {
                    case "--address" -> p.address = HostPort.parse(flag, value);
                    case "--console-address" -> p.console = HostPort.parse(flag, value);
                    case "--certs-dir" -> p.certsDir = Path.of(value);
                    case "--domain" -> p.domain = value;
                    case "--max-connections" -> p.maxConnections = positive(flag, value);
                    case "--max-requests" -> p.maxRequests = positive(flag, value);
                    case "--max-versions-per-key" -> p.maxVersionsPerKey = positive(flag, value);
                    case "--lifecycle-day" -> p.lifecycleDay = duration(flag, value);
                    case "--scanner-interval" -> p.scannerInterval = duration(flag, value);
                    case "--scanner-rate" -> p.scannerRate = nonNegative(flag, value);
                    case "--heal-sample-cycles" -> p.healSampleCycles = nonNegative(flag, value);
                    case "--deep-scan-interval" -> p.deepScanInterval = duration(flag, value);
                    case "--header-timeout" -> p.headerTimeout = duration(flag, value);
                    case "--body-timeout" -> p.bodyTimeout = duration(flag, value);
                    case "--idle-timeout" -> p.idleTimeout = duration(flag, value);
                    case "--allow-root-drives" -> p.allowRoot = true;
                    default -> {
                        try {
                            p.parity = Integer.parseInt(value);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--parity '" + value + "': not a number");
                        }
                    }
                }
            }

            @Override
            public void positional(String arg) {
                p.driveArgs.add(arg);
            }
        });
        boolean embedded = p.driveArgs.isEmpty();
        List<String> expanded =
                embedded ? DriveEllipsis.expand("./data/disk{1...4}") : DriveEllipsis.expandAll(p.driveArgs);
        List<Path> drives = expanded.stream().map(Path::of).toList();
        if (p.address.port() != 0
                && p.address.port() == p.console.port()
                && p.address.host().equals(p.console.host())) {
            throw new IllegalArgumentException("--console-address " + p.console + " is the same as --address");
        }
        return new ServerOptions(
                drives,
                embedded,
                p.address,
                p.console,
                p.allowRoot || embedded,
                p.parity,
                p.certsDir,
                p.domain,
                p.maxConnections,
                p.maxRequests,
                new Scanner(
                        p.lifecycleDay,
                        p.maxVersionsPerKey,
                        p.scannerInterval,
                        p.scannerRate,
                        p.healSampleCycles,
                        p.deepScanInterval),
                new S3ServerConfig.Timeouts(p.headerTimeout, p.bodyTimeout, p.idleTimeout));
    }

    private static int nonNegative(String flag, String value) {
        return value.equals("0") ? 0 : positive(flag, value);
    }

    /** A positive duration: a number with a unit (ms, s, m, h, d), e.g. {@code 10s}, or ISO-8601 ({@code PT10S}). */
    static Duration duration(String flag, String value) {
        Duration d = null;
        try {
            if (value.startsWith("P") || value.startsWith("p")) {
                d = Duration.parse(value);
            } else {
                java.util.regex.Matcher m =
                        java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h|d)").matcher(value);
                if (m.matches()) {
                    long n = Long.parseLong(m.group(1));
                    d = switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        case "h" -> Duration.ofHours(n);
                        default -> Duration.ofDays(n);
                    };
                }
            }
        } catch (RuntimeException e) {
            d = null;
        }
        if (d == null || d.isNegative() || d.isZero() || d.toMillis() < 1) {
            throw new IllegalArgumentException(
                    flag + " '" + value + "': expected a positive duration such as 500ms, 10s, 5m, 24h or PT10S");
        }
        return d;
    }

    private static int positive(String flag, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(flag + " '" + value + "': expected a positive number");
    }
}
