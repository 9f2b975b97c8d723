package dev.appliance.app;

import dev.appliance.app.cli.AlertsCommand;
import dev.appliance.app.cli.CertsCommand;
import dev.appliance.app.cli.HealCommand;
import dev.appliance.app.cli.LoggingCommand;
import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.app.console.ConsoleApplication;
import dev.appliance.app.credentials.CredentialStore;
import dev.appliance.app.credentials.IdentityKeys;
import dev.appliance.app.credentials.RootCredentials;
import dev.appliance.app.logging.ServiceLogging;
import dev.appliance.app.metrics.ApplianceMetrics;
import dev.appliance.app.metrics.TrafficHistory;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.access.AccessLog;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.StoreBucketPolicies;
import dev.appliance.s3.tls.ServerTls;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Command-line entry point: {@code appliance server [DRIVES...] [flags]}, {@code appliance certs generate ...},
 * {@code appliance heal status} and {@code appliance alerts [ack ID]} (both ask a running server).
 *
 * <p>Order of start: first everything that may refuse it, writing nothing: the options (a bad value stops here with a
 * message naming it), the root credentials from the environment, the TLS certificate and key when {@code --certs-dir}
 * is given, both listening addresses (bound and let go), the drives (count, order, deployment, root filesystem) and, on
 * a first start, the config directory. Only then are drive directories created and the drives opened (formatted on
 * first use); generated root credentials are printed before they are stored; the S3 endpoint and the console start.
 * Each failure prints one clear line and exits with status 1 (2 for usage errors). {@code -h}/{@code --help} prints
 * the usage and exits with status 0.
 */
public final class ApplianceMain {
    /** The start banner, start failures and the stop ({@link ServiceLogging#BANNER}). */
    private static final Logger LOG = LoggerFactory.getLogger(ServiceLogging.BANNER);
    /** Compiled policy sets kept (one per distinct combination of a user's policies and a bucket policy). */
    private static final int POLICY_SETS = 10_000;

    private ApplianceMain() {}

    public static void main(String[] args) {
        // One line per log record (the engine logs through java.util.logging before Spring Boot starts).
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        // msgpack (the metadata codec) would reach for sun.misc.Unsafe, which the JVM warns about on stderr (and a
        // later
        // JDK refuses); its ByteBuffer implementation needs no Unsafe
        if (System.getProperty("msgpack.universal-buffer") == null) {
            System.setProperty("msgpack.universal-buffer", "true");
        }
        PrintStream out = System.out;
        String help = helpFor(args);
        if (help != null) {
            out.println(help);
            out.flush();
            System.exit(0);
            return;
        }
        if (args.length > 0 && args[0].equals("certs")) {
            certs(Arrays.asList(args).subList(1, args.length), out);
            return;
        }
        if (args.length > 0 && args[0].equals("heal")) {
            System.exit(heal(Arrays.asList(args).subList(1, args.length), System.getenv(), out, System.err));
            return;
        }
        if (args.length > 0 && args[0].equals("alerts")) {
            System.exit(alerts(Arrays.asList(args).subList(1, args.length), System.getenv(), out, System.err));
            return;
        }
        if (args.length > 0 && args[0].equals("logging")) {
            System.exit(logging(Arrays.asList(args).subList(1, args.length), System.getenv(), out, System.err));
            return;
        }
        if (args.length == 0 || !args[0].equals("server")) {
            System.err.println(
                    args.length == 0
                            ? ServerOptions.USAGE
                            : "unknown command '" + args[0] + "' (expected server, certs, heal, alerts or logging)\n"
                                    + ServerOptions.USAGE);
            System.exit(2);
        }
        // Every line the server prints from here on is a log line with its time (docs/operations.md#logging)
        ServiceLogging.configure(ServiceLogging.Settings.CONSOLE);
        ServerOptions options;
        try {
            options = ServerOptions.parse(
                    Arrays.asList(args).subList(1, args.length), System.getenv(), systemProperties());
        } catch (IllegalArgumentException e) {
            LOG.error(e.getMessage());
            System.err.println(ServerOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            logTo(options.properties().logging());
            run(options, System.getenv());
        } catch (RuntimeException | java.io.IOException | InterruptedException e) {
            LOG.error("cannot start: " + e.getMessage());
            ServiceLogging.stop(); // the log file's queue is written out before the exit
            System.exit(1);
        }
    }

    /** Switches to the rotated log files when a log directory is set; standard output only otherwise. */
    private static void logTo(ApplianceProperties.Logging logging) {
        if (logging.dir() != null) {
            ServiceLogging.configure(new ServiceLogging.Settings(
                    logging.dir(),
                    logging.maxFileSize().toBytes(),
                    logging.maxFiles(),
                    java.time.Duration.ofSeconds(1)));
        }
    }

    /** The JVM's {@code -D} properties, read once (the configuration takes the {@code appliance.*} ones). */
    private static Map<String, String> systemProperties() {
        Map<String, String> out = new java.util.HashMap<>();
        System.getProperties().forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
        return out;
    }

    /**
     * The usage to print when the arguments ask for help ({@code -h} or {@code --help} anywhere, or {@code help} as
     * the command), else null. Help is an answer, not an error: it goes to standard output with status 0.
     */
    static String helpFor(String[] args) {
        List<String> all = Arrays.asList(args);
        boolean asked = all.contains("-h") || all.contains("--help") || (args.length > 0 && args[0].equals("help"));
        if (!asked) {
            return null;
        }
        return switch (args[0]) {
            case "server" -> ServerOptions.USAGE;
            case "certs" -> CertsCommand.USAGE;
            case "heal" -> HealCommand.USAGE;
            case "alerts" -> AlertsCommand.USAGE;
            case "logging" -> LoggingCommand.USAGE;
            default ->
                String.join(
                        "\n",
                        ServerOptions.USAGE,
                        CertsCommand.USAGE,
                        HealCommand.USAGE,
                        AlertsCommand.USAGE,
                        LoggingCommand.USAGE);
        };
    }

    private static void certs(List<String> args, PrintStream out) {
        CertsCommand.Options options;
        try {
            options = CertsCommand.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("appliance certs: " + e.getMessage());
            System.err.println(CertsCommand.USAGE);
            System.exit(2);
            return;
        }
        try {
            CertsCommand.run(options, out);
        } catch (RuntimeException | java.io.IOException e) {
            System.err.println("appliance certs: " + e.getMessage());
            System.exit(1);
        }
    }

    /** {@code appliance alerts [ack ID]}: asks the running server; returns the exit status. */
    static int alerts(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        AlertsCommand.Options options;
        try {
            options = AlertsCommand.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("appliance alerts: " + e.getMessage());
            err.println(AlertsCommand.USAGE);
            return 2;
        }
        try {
            AlertsCommand.run(options, out);
            return 0;
        } catch (dev.appliance.app.cli.AdminClient.Unreachable e) {
            err.println("appliance alerts: " + e.getMessage());
            return 1;
        }
    }

    /** {@code appliance logging access-log [on|off]}: asks the running server; returns the exit status. */
    static int logging(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        LoggingCommand.Options options;
        try {
            options = LoggingCommand.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("appliance logging: " + e.getMessage());
            err.println(LoggingCommand.USAGE);
            return 2;
        }
        try {
            LoggingCommand.run(options, out);
            return 0;
        } catch (dev.appliance.app.cli.AdminClient.Unreachable e) {
            err.println("appliance logging: " + e.getMessage());
            return 1;
        }
    }

    /**
     * Applies the scanner options and starts the background scanner. A short lifecycle day (tests, demos) also
     * shortens the cycle interval to a quarter of a day, so that expiry happens within about a day of being due.
     */
    static void applyScannerOptions(ApplianceStore store, ServerOptions.Scanner o) {
        java.time.Duration interval = o.interval() != null ? o.interval() : java.time.Duration.ofMinutes(1);
        if (o.lifecycleDay() != null) {
            store.lifecycleDayLength(o.lifecycleDay());
            java.time.Duration quarter = o.lifecycleDay().dividedBy(4);
            if (o.interval() == null && quarter.compareTo(interval) < 0) {
                interval = quarter;
            }
        }
        if (o.maxVersionsPerKey() > 0) {
            store.maxVersionsPerKey(o.maxVersionsPerKey());
        }
        store.scannerPace(interval, o.keysPerSecond() >= 0 ? o.keysPerSecond() : 1000);
        store.scannerHealChecks(
                o.healSampleCycles() >= 0 ? o.healSampleCycles() : StoreAdmin.DEFAULT_HEAL_SAMPLE_CYCLES,
                o.deepScanInterval());
        store.startScanner();
    }

    /** {@code appliance heal status} and {@code heal start}: asks the running server; returns the exit status. */
    static int heal(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        HealCommand.Options options;
        try {
            options = HealCommand.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("appliance heal: " + e.getMessage());
            err.println(HealCommand.USAGE);
            return 2;
        }
        try {
            HealCommand.run(options, out);
            return 0;
        } catch (dev.appliance.app.cli.AdminClient.Unreachable e) {
            err.println("appliance heal: " + e.getMessage());
            return 1;
        }
    }

    /** The dashboard's history as configured (bounded there: a history too long for its interval is refused). */
    private static TrafficHistory.Settings historySettings(ApplianceProperties.Metrics m) {
        return new TrafficHistory.Settings(
                m.sampleInterval(), m.trafficHistory(), m.capacityInterval(), m.capacityHistory(), m.forecastMinSpan());
    }

    static void run(ServerOptions options, Map<String, String> env) throws java.io.IOException, InterruptedException {
        // Everything that can refuse the start is checked before anything is written: the credentials from the
        // environment, the TLS files, both listening addresses, the drives and the config directory.
        Optional<RootCredentials> fromEnv = CredentialStore.fromEnvironment(env);
        ServerTls tls = options.certsDir() == null ? null : ServerTls.load(options.certsDir());
        String domain = options.domain(); // --domain, else APPLIANCE_DOMAIN (bound with the rest)
        TrafficHistory.Settings history = historySettings(options.properties().metrics());
        probeListen(options.address(), "--address");
        probeListen(options.consoleAddress(), "--console-address");
        // Create missing drive directories only before the first format: later, a missing directory may be a disk
        // that is not mounted, and must be reported, not silently replaced by an empty directory.
        boolean anyFormatted = options.drives().stream().anyMatch(d -> Files.exists(new LocalDrive(d).formatFile()));
        boolean createMissing = options.embeddedDefault() || !anyFormatted;
        List<Path> drives = options.drives().stream()
                .map(p -> p.toAbsolutePath().normalize())
                .toList();
        StoreConfig config = new StoreConfig(drives, 0, options.parity(), options.allowRootDrives(), Clock.systemUTC())
                // appliance.drives.metadata-journal=false: force each rewritten metadata file (docs/object-lock.md)
                .withMetadataJournal(options.properties().drives().metadataJournal())
                .withDriveSettings(options.properties().drives().driveSettings());
        Stores.checkDrives(config, createMissing);
        Path configDir = CredentialStore.defaultConfigDir(env);
        if (fromEnv.isEmpty() && !anyFormatted) {
            requireWritable(configDir); // the key of the credentials about to be generated goes there
        }

        if (createMissing) {
            for (Path d : drives) {
                Files.createDirectories(d);
            }
        }
        ApplianceStore store = Stores.open(config);
        applyScannerOptions(store, options.scanner());
        var credentialStore = new CredentialStore(store.drives(), store.deploymentId(), configDir);
        var creds = credentialStore.resolve(env, ApplianceMain::showGenerated);
        String accessKey = creds.credentials().accessKey();
        String secret = creds.credentials().secretKey();
        // Users' secrets on the drives are sealed under a key derived from the root secret, which is not on the drives
        try {
            store.identity().unlock(IdentityKeys.derive(secret, store.deploymentId()));
        } catch (dev.appliance.core.identity.IdentityException e) {
            LOG.warn(e.getMessage() + "; IAM users cannot sign in, the root credential can");
        }
        store.identity().reserveAccessKeyId(accessKey);
        // IAM users sign with their own keys; the root key is allowed everything, a user what its policies allow
        CredentialsProvider credentials = AccountCredentials.forS3(accessKey, secret, store.identity());
        // the console takes the root key even while it is off for S3: the way to turn it back on
        CredentialsProvider consoleCredentials = new AccountCredentials(accessKey, secret, store.identity());
        Authorizer authorizer = new PolicyAuthorizer(
                accessKey,
                store.identity(),
                new UserPolicies(store.identity(), new PolicySetCache(POLICY_SETS)),
                new StoreBucketPolicies(store)); // and the bucket's policy; anonymous callers get only what it grants
        // before S3 starts: its first request is counted
        ApplianceMetrics metrics = ApplianceMetrics.of(store, history, Clock.systemUTC());
        S3Server s3;
        try {
            s3 = S3Server.start(
                    store,
                    new S3ServerConfig(
                            options.address().bindHost(),
                            options.address().port(),
                            S3ServerConfig.DEFAULT_REGION,
                            credentials,
                            authorizer,
                            tls,
                            domain,
                            S3ServerConfig.Limits.of(options.maxConnections(), options.maxRequests()),
                            options.timeouts()),
                    metrics.s3(),
                    new AccessLog(
                            ServiceLogging.accessWriter(),
                            options.properties().logging().accessLog()));
        } catch (Exception e) { // Netty rethrows the bind failure (an IOException) undeclared
            store.close();
            throw cannotListen(options.address(), "--address", e);
        }
        ConsoleApplication.Running console;
        try {
            metrics.watch(s3);
            metrics.start();
            console =
                    ConsoleApplication.start(options.properties(), store, s3, consoleCredentials, authorizer, metrics);
        } catch (RuntimeException e) {
            s3.close();
            store.close();
            throw cannotListen(options.consoleAddress(), "--console-address", e);
        }
        java.time.Duration grace = options.properties().shutdown().grace();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            // S3 first: new requests refused, uploads in flight finish (up to the grace period); the
                            // console (graceful too) and the store (heal journal, retention clock) close after them
                            s3.close(grace);
                            console.close();
                            metrics.close();
                            store.close();
                            LOG.info("stopped");
                            ServiceLogging.stop(); // last: writes out the queued lines
                        },
                        "shutdown"));
        exitZeroOnSigterm();
        if (options.properties().testing().faultInjection()
                && options.properties().testing().haltBeforeBanner()) {
            Runtime.getRuntime().halt(137); // tests: as a SIGKILL at the worst moment, credentials stored, no banner
        }

        LOG.info(String.format(
                "Appliance %s: %d drive(s), %d erasure set(s) of %d, EC %d+%d",
                store.deploymentId(),
                drives.size(),
                store.setCount(),
                store.drivesPerSet(),
                store.drivesPerSet() - store.parity(),
                store.parity()));
        for (String w : store.startupWarnings()) {
            LOG.warn(w);
        }
        if (!store.lifecycleDayLength().equals(java.time.Duration.ofDays(1))) {
            LOG.warn("a lifecycle day lasts " + store.lifecycleDayLength()
                    + " (--lifecycle-day): lifecycle rules expire objects that much sooner; tests and demos only");
        }
        String host = options.address().host().isEmpty()
                ? "127.0.0.1"
                : options.address().host();
        String scheme = tls == null ? "http" : "https";
        LOG.info(String.format("S3 API:   %s://%s:%d", scheme, host, s3.port()));
        if (tls == null) {
            LOG.info("S3 TLS:   off, plain HTTP (lab mode; --certs-dir DIR enables TLS)");
        } else {
            LOG.info(String.format(
                    "S3 TLS:   on, certificate %s, valid until %s (%s)",
                    tls.certificate().getSubjectX500Principal().getName(),
                    tls.certificate().getNotAfter().toInstant(),
                    options.certsDir().resolve(ServerTls.CERT_FILE)));
            String warning = tls.validityWarning(java.time.Instant.now());
            if (warning != null) {
                LOG.warn(warning);
            }
        }
        if (domain != null) {
            LOG.info("S3 virtual-hosted style: bucket." + domain.toLowerCase(java.util.Locale.ROOT));
        }
        // the console serves HTTPS with the S3 port's certificate when there is one (ConsoleApplication.tls)
        LOG.info(String.format("Console:  %s://%s:%d", scheme, host, console.port()));
        LOG.info("Root user: " + accessKey + " (credentials " + creds.source()
                + (creds.generated() ? ", the password is printed above" : "") + ")");
        LOG.info(String.format(
                "Try: AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=... aws --endpoint-url %s://%s:%d s3 ls",
                accessKey, scheme, host, s3.port()));
        if (options.properties().logging().accessLog()) {
            LOG.info("S3 access log: on (appliance.logging.access-log)");
        }
        if (creds.generated()) {
            credentialStore.confirmShown(); // the start finished with them printed: later starts name the user only
        }
    }

    /**
     * SIGTERM is how systemd (and an admin) asks the service to stop: the JVM would run the shutdown hook and exit 143
     * (128 + SIGTERM); here the same orderly stop ends with status 0, so a requested stop is a success and an exit
     * status other than 0 means something went wrong. SIGINT keeps the JVM's handling (130). sun.misc.Signal (module
     * jdk.unsupported, in the bundled runtime) is the JDK's only way to handle a signal.
     */
    private static void exitZeroOnSigterm() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> System.exit(0));
        } catch (IllegalArgumentException e) {
            // the signal is reserved (a JVM started with -Xrs): the JVM's default, exit 143 after the same hook
        }
    }

    /**
     * Printed before the credentials are stored, so that stored credentials were always shown; to standard output only
     * (the journal under systemd), never into a log file ({@link ServiceLogging#SHOWN_ONCE}).
     */
    private static void showGenerated(RootCredentials c, boolean again) {
        org.slf4j.Logger shown = LoggerFactory.getLogger(ServiceLogging.SHOWN_ONCE);
        shown.info(
                again
                        ? "Root credentials generated by an earlier start that did not finish, shown again until a"
                                + " start finishes (kept encrypted; see docs/operations.md):"
                        : "Root credentials were generated and are shown this once (kept encrypted; see"
                                + " docs/operations.md):");
        shown.info("  RootUser:     " + c.accessKey());
        shown.info("  RootPassword: " + c.secretKey());
    }

    /**
     * Binds {@code address} and lets it go again, so that a port in use refuses the start before the drives are
     * formatted. A port taken in the short moment between this probe and the real bind still fails the start, with
     * the same message; nothing is lost then (see {@link CredentialStore#resolve}).
     */
    static void probeListen(ServerOptions.HostPort address, String flag) {
        try (var channel = java.nio.channels.ServerSocketChannel.open()) {
            channel.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new java.net.InetSocketAddress(address.bindHost(), address.port()));
        } catch (java.io.IOException | RuntimeException e) {
            throw cannotListen(address, flag, e);
        }
    }

    static IllegalStateException cannotListen(ServerOptions.HostPort address, String flag, Throwable e) {
        String host = address.bindHost().contains(":") ? "[" + address.bindHost() + "]" : address.bindHost();
        String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            // Netty, Tomcat and the JDK each word it differently
            if (t.getMessage() != null
                    && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("in use")) {
                reason = "address already in use";
                break;
            }
        }
        return new IllegalStateException(
                "cannot listen on " + host + ":" + address.port() + " (" + flag + "): " + reason, e);
    }

    /** The directory (or where it would be created) must take new files. */
    private static void requireWritable(Path dir) {
        Path p = dir.toAbsolutePath();
        while (p.getParent() != null && Files.notExists(p)) {
            p = p.getParent();
        }
        if (!Files.isDirectory(p) || !Files.isWritable(p)) {
            throw new IllegalStateException("config directory " + dir + " (APPLIANCE_CONFIG_DIR) cannot be written: "
                    + p + " is not a writable directory; the key of the generated root credentials is kept there");
        }
    }
}
