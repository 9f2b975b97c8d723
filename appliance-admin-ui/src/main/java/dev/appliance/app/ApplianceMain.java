package dev.appliance.app;

import dev.appliance.app.cli.AlertsCommand;
import dev.appliance.app.cli.CertsCommand;
import dev.appliance.app.cli.HealCommand;
import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.console.ConsoleApplication;
import dev.appliance.app.credentials.CredentialStore;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureObjectStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.tls.ServerTls;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Command-line entry point: {@code appliance server [DRIVES...] [flags]}, {@code appliance certs generate ...},
 * {@code appliance heal status} and {@code appliance alerts [ack ID]} (both ask a running server).
 *
 * <p>Order of start: parse and check the options (a bad value stops here with a message naming it), load the TLS
 * certificate and key when {@code --certs-dir} is given (a bad file stops here with a message naming it), open the drives
 * (formatting them on first use, refusing foreign or misordered drives), settle the root credentials, start the S3
 * endpoint, then the console. Each failure prints one clear line and exits with status 1 (2 for usage errors).
 */
public final class ApplianceMain {
    private ApplianceMain() {}

    public static void main(String[] args) {
        // One line per log record (the engine logs through java.util.logging before Spring Boot starts).
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        PrintStream out = System.out;
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
        if (args.length == 0 || !args[0].equals("server")) {
            System.err.println(
                    args.length == 0
                            ? ServerOptions.USAGE
                            : "unknown command '" + args[0] + "' (expected server, certs, heal or alerts)\n"
                                    + ServerOptions.USAGE);
            System.exit(2);
        }
        ServerOptions options;
        try {
            options = ServerOptions.parse(Arrays.asList(args).subList(1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println("appliance: " + e.getMessage());
            System.err.println(ServerOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            run(options, System.getenv(), out);
        } catch (RuntimeException | java.io.IOException | InterruptedException e) {
            System.err.println("appliance: cannot start: " + e.getMessage());
            System.exit(1);
        }
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

    /**
     * Applies the scanner options and starts the background scanner. A short lifecycle day (tests, demos) also
     * shortens the cycle interval to a quarter of a day, so that expiry happens within about a day of being due.
     */
    static void applyScannerOptions(ErasureObjectStore store, ServerOptions.Scanner o) {
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
                o.healSampleCycles() >= 0 ? o.healSampleCycles() : ErasureObjectStore.DEFAULT_HEAL_SAMPLE_CYCLES,
                o.deepScanInterval());
        store.startScanner();
    }

    /** {@code appliance heal status}: asks the running server; returns the exit status. */
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

    static void run(ServerOptions options, Map<String, String> env, PrintStream out)
            throws java.io.IOException, InterruptedException {
        ServerTls tls = options.certsDir() == null ? null : ServerTls.load(options.certsDir());
        String domain = options.domain() != null ? options.domain() : env.get("APPLIANCE_DOMAIN");
        // Create missing drive directories only before the first format: later, a missing directory may be a disk
        // that is not mounted, and must be reported, not silently replaced by an empty directory.
        boolean anyFormatted = options.drives().stream().anyMatch(d -> Files.exists(new LocalDrive(d).formatFile()));
        if (options.embeddedDefault() || !anyFormatted) {
            for (Path d : options.drives()) {
                Files.createDirectories(d);
            }
        }
        List<Path> drives = options.drives().stream()
                .map(p -> p.toAbsolutePath().normalize())
                .toList();
        ErasureObjectStore store = ErasureObjectStore.open(
                new StoreConfig(drives, 0, options.parity(), options.allowRootDrives(), Clock.systemUTC())
                        // -Dappliance.metadataJournal=false: force each rewritten metadata file (docs/object-lock.md)
                        .withMetadataJournal(!"false".equals(System.getProperty("appliance.metadataJournal"))));
        applyScannerOptions(store, options.scanner());
        var creds = new CredentialStore(store.drives(), store.deploymentId(), CredentialStore.defaultConfigDir(env))
                .resolve(env);
        String accessKey = creds.credentials().accessKey();
        String secret = creds.credentials().secretKey();
        CredentialsProvider credentials = key -> key.equals(accessKey) ? Optional.of(secret) : Optional.empty();
        Authorizer authorizer = Authorizer.allowAll();
        S3Server s3 = S3Server.start(
                store,
                new S3ServerConfig(
                        options.address().bindHost(),
                        options.address().port(),
                        S3ServerConfig.DEFAULT_REGION,
                        credentials,
                        authorizer,
                        tls,
                        domain,
                        S3ServerConfig.Limits.of(
                                options.maxConnections() > 0
                                        ? options.maxConnections()
                                        : S3ServerConfig.Limits.DEFAULT_MAX_CONNECTIONS,
                                options.maxRequests()),
                        options.timeouts()));
        var console = ConsoleApplication.start(options.consoleAddress(), store, s3, credentials, authorizer);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            s3.close();
                            console.close();
                            store.close();
                        },
                        "shutdown"));

        out.printf(
                "Appliance %s: %d drive(s), %d erasure set(s) of %d, EC %d+%d%n",
                store.deploymentId(),
                drives.size(),
                store.setCount(),
                store.drivesPerSet(),
                store.drivesPerSet() - store.parity(),
                store.parity());
        for (String w : store.startupWarnings()) {
            out.println("WARNING: " + w);
        }
        if (!store.lifecycleDayLength().equals(java.time.Duration.ofDays(1))) {
            out.println("WARNING: a lifecycle day lasts " + store.lifecycleDayLength()
                    + " (--lifecycle-day): lifecycle rules expire objects that much sooner; tests and demos only");
        }
        String host = options.address().host().isEmpty()
                ? "127.0.0.1"
                : options.address().host();
        String scheme = tls == null ? "http" : "https";
        out.printf("S3 API:   %s://%s:%d%n", scheme, host, s3.port());
        if (tls == null) {
            out.println("S3 TLS:   off, plain HTTP (lab mode; --certs-dir DIR enables TLS)");
        } else {
            out.printf(
                    "S3 TLS:   on, certificate %s, valid until %s (%s)%n",
                    tls.certificate().getSubjectX500Principal().getName(),
                    tls.certificate().getNotAfter().toInstant(),
                    options.certsDir().resolve(ServerTls.CERT_FILE));
            String warning = tls.validityWarning(java.time.Instant.now());
            if (warning != null) {
                out.println("WARNING: " + warning);
            }
        }
        if (domain != null) {
            out.printf("S3 virtual-hosted style: bucket.%s%n", domain.toLowerCase(java.util.Locale.ROOT));
        }
        out.printf("Console:  http://%s:%d%n", host, console.port());
        if (creds.generated()) {
            out.println(
                    "Root credentials were generated and are shown this once (kept encrypted; see docs/operations.md):");
            out.println("  RootUser:     " + accessKey);
            out.println("  RootPassword: " + secret);
        } else {
            out.println("Root user: " + accessKey + " (credentials " + creds.source() + ")");
        }
        out.printf(
                "Try: AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=... aws --endpoint-url %s://%s:%d s3 ls%n",
                accessKey, scheme, host, s3.port());
        out.flush();
    }
}
