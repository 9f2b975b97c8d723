package dev.appliance.app.cli;

import dev.appliance.app.config.ApplianceBinding;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.s3.S3ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code appliance server}.
 *
 * @param drives expanded drive paths
 * @param embeddedDefault true when no drive was given and the four drives under {@code ./data} are used
 * @param allowRootDrives drives may share the root filesystem (the embedded default, or {@code --allow-root-drives})
 * @param certsDir TLS certificate directory ({@code public.crt}, {@code private.key}), or null for plain HTTP
 * @param domain virtual-hosted-style domain, or null (the environment variable APPLIANCE_DOMAIN applies then)
 * @param maxConnections open S3 connections accepted (default 10,000)
 * @param maxRequests S3 requests in flight (0: from memory and CPUs)
 * @param scanner lifecycle day length, versions cap and scanner pace
 * @param timeouts S3 request timeouts: the head of a request, silence inside a body, an idle connection
 * @param properties everything as bound and validated, for what the options above do not carry
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
        S3ServerConfig.Timeouts timeouts,
        ApplianceProperties properties) {

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
        public static final Scanner DEFAULTS =
                new Scanner(null, 0, null, 1000, StoreAdmin.DEFAULT_HEAL_SAMPLE_CYCLES, null);
    }

    public static final String USAGE = """
            usage: appliance server [DRIVE...] [--address HOST:PORT] [--console-address HOST:PORT]
                                    [--parity N] [--allow-root-drives] [--certs-dir DIR] [--domain NAME]
                                    [--max-connections N] [--max-requests N]
                                    [--max-versions-per-key N] [--lifecycle-day DURATION]
                                    [--scanner-interval DURATION] [--scanner-rate N]
                                    [--heal-sample-cycles N] [--deep-scan-interval DURATION]
                                    [--header-timeout DURATION] [--body-timeout DURATION]
                                    [--idle-timeout DURATION] [--log-dir DIR] [--config FILE]
              DRIVE              drive directories; {1...N} expands, e.g. /mnt/disk{1...8}
                                 (default: ./data/disk{1...4}, created if missing, EC 2+2)
              --address          S3 API address (default :9000)
              --console-address  admin console address (default :9001)
              --parity           parity shards per erasure set (default by set size: 4-5 drives 2, 6-7 3, 8+ 4)
              --allow-root-drives  accept drives on the root filesystem (trials only)
              --certs-dir        TLS on the S3 port and the console from DIR/public.crt and DIR/private.key
                                 (PEM); plain HTTP without it (lab mode). Make a pair: appliance certs generate
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
              --log-dir          log to DIR/appliance.log and DIR/access.log, rotated by size (default:
                                 standard output only)
              --config           settings file, YAML (or .properties): appliance.* properties as listed in
                                 docs/operations.md; flags, -D properties and the environment override it
            environment: APPLIANCE_ROOT_USER, APPLIANCE_ROOT_PASSWORD set the root credentials (both or
                         neither; user 3 to 128 characters, password 8 to 128; without them they are
                         generated and printed); APPLIANCE_DOMAIN is the default of --domain;
                         APPLIANCE_<PROPERTY> sets any property, e.g. APPLIANCE_SCANNER_RATE=500""";

    /** Host and port; an empty host listens on every interface. */
    public record HostPort(String host, int port) {
        /** A value that is not {@code HOST:PORT} or {@code :PORT}; the message says what was expected. */
        public static final class Invalid extends IllegalArgumentException {
            private static final long serialVersionUID = 1L;

            Invalid(String message) {
                super(message);
            }
        }

        public static HostPort parse(String value) {
            int colon = value.lastIndexOf(':');
            if (colon < 0) {
                throw new Invalid("expected HOST:PORT or :PORT");
            }
            String host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new Invalid("port is not a number");
            }
            if (port < 0 || port > 65535) {
                throw new Invalid("port " + port + " (expected 0..65535)");
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

    /** Each flag that takes a value and the property ({@link ApplianceProperties}) it sets. */
    public static final Map<String, String> FLAG_PROPERTIES = Map.ofEntries(
            Map.entry("--address", "appliance.s3.address"),
            Map.entry("--console-address", "appliance.console.address"),
            Map.entry("--parity", "appliance.drives.parity"),
            Map.entry("--certs-dir", "appliance.s3.certs-dir"),
            Map.entry("--domain", "appliance.s3.domain"),
            Map.entry("--max-connections", "appliance.s3.max-connections"),
            Map.entry("--max-requests", "appliance.s3.max-requests"),
            Map.entry("--max-versions-per-key", "appliance.scanner.max-versions-per-key"),
            Map.entry("--lifecycle-day", "appliance.scanner.lifecycle-day"),
            Map.entry("--scanner-interval", "appliance.scanner.interval"),
            Map.entry("--scanner-rate", "appliance.scanner.rate"),
            Map.entry("--heal-sample-cycles", "appliance.scanner.heal-sample-cycles"),
            Map.entry("--deep-scan-interval", "appliance.scanner.deep-scan-interval"),
            Map.entry("--header-timeout", "appliance.s3.timeouts.header"),
            Map.entry("--body-timeout", "appliance.s3.timeouts.body"),
            Map.entry("--idle-timeout", "appliance.s3.timeouts.idle"),
            Map.entry("--log-dir", "appliance.logging.dir"));

    static final String ALLOW_ROOT_DRIVES = "--allow-root-drives";
    static final String CONFIG = "--config";

    /** Flags only, as if nothing were set in the environment or a file (tests). */
    public static ServerOptions parse(List<String> args) {
        return parse(args, Map.of(), Map.of());
    }

    /**
     * Maps the arguments onto {@link ApplianceProperties} names ({@code --scanner-rate 5} is {@code
     * appliance.scanner.rate=5}, drive {@code i} is {@code appliance.drives.paths[i]}), binds them over the {@code -D}
     * properties, the environment and the {@code --config} file, validates, and expands the drives.
     *
     * @throws IllegalArgumentException naming the flag (or variable, or file line) and the bad value
     */
    public static ServerOptions parse(
            List<String> args, Map<String, String> env, Map<String, String> systemProperties) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> flagNames = new HashMap<>();
        List<String> driveArgs = new ArrayList<>();
        Path[] configFile = {null};
        Set<String> withValue = new HashSet<>(FLAG_PROPERTIES.keySet());
        withValue.add(CONFIG);
        Arguments.walk(args, withValue, Set.of(ALLOW_ROOT_DRIVES), new Arguments.Visitor() {
            @Override
            public void option(String flag, String value) {
                if (flag.equals(CONFIG)) {
                    configFile[0] = Path.of(value);
                    return;
                }
                String property =
                        flag.equals(ALLOW_ROOT_DRIVES) ? "appliance.drives.allow-root" : FLAG_PROPERTIES.get(flag);
                values.put(property, value == null ? "true" : value);
                flagNames.put(property, flag);
            }

            @Override
            public void positional(String arg) {
                driveArgs.add(arg);
            }
        });
        for (int i = 0; i < driveArgs.size(); i++) {
            values.put("appliance.drives.paths[" + i + "]", driveArgs.get(i));
            flagNames.put("appliance.drives.paths[" + i + "]", "drive argument");
        }
        return of(ApplianceBinding.bind(values, flagNames, systemProperties, env, configFile[0]));
    }

    /** The options the start uses, from bound and validated properties; expands the drive ellipses. */
    public static ServerOptions of(ApplianceProperties p) {
        boolean embedded = p.drives().paths().isEmpty();
        List<String> expanded = embedded
                ? DriveEllipsis.expand("./data/disk{1...4}")
                : DriveEllipsis.expandAll(p.drives().paths());
        List<Path> drives = expanded.stream().map(Path::of).toList();
        HostPort address = p.s3().address();
        HostPort console = p.console().address();
        if (address.port() != 0
                && address.port() == console.port()
                && address.host().equals(console.host())) {
            throw new IllegalArgumentException("--console-address " + console + " is the same as --address");
        }
        var s = p.scanner();
        var t = p.s3().timeouts();
        return new ServerOptions(
                drives,
                embedded,
                address,
                console,
                p.drives().allowRoot() || embedded,
                p.drives().parity() == null ? -1 : p.drives().parity(),
                p.s3().certsDir(),
                p.s3().domain(),
                p.s3().maxConnections(),
                p.s3().maxRequests() == null ? 0 : p.s3().maxRequests(),
                new Scanner(
                        s.lifecycleDay(),
                        s.maxVersionsPerKey() == null ? 0 : s.maxVersionsPerKey(),
                        s.interval(),
                        s.rate(),
                        s.healSampleCycles(),
                        s.deepScanInterval()),
                new S3ServerConfig.Timeouts(t.header(), t.body(), t.idle()),
                p);
    }
}
