package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * One real appliance process ({@code java ... -jar appliance.jar server ...}, the jar run as {@link ApplianceLaunch}
 * says) on OS-chosen free ports, with its drives and its config dir (the key of the generated credentials) under a work
 * directory the test owns.
 *
 * <p>Stdout and stderr of every run go to files under {@code <workDir>/logs}; {@link #logs()} returns them for failure
 * messages ({@link DumpLogsOnFailure} prints them when a test fails). Readiness is the {@code S3 API:} and
 * {@code Console:} lines followed by the credential lines, then a successful TCP connect to the S3 port.
 */
public final class ApplianceProcess implements AutoCloseable {
    public static final int DRIVES = 4;
    public static final String REGION = "us-east-1";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    // the banner's lines are log lines: "<time> INFO  appliance: S3 API:   http://..." (docs/operations.md#logging)
    private static final Pattern S3_LINE = Pattern.compile("(?m): S3 API:\\s+(https?://\\S+)\\s*$");
    private static final Pattern CONSOLE_LINE = Pattern.compile("(?m): Console:\\s+(https?://\\S+)\\s*$");
    private static final Pattern ROOT_USER_LINE = Pattern.compile("(?m):   RootUser:\\s+(\\S+)\\s*$");
    private static final Pattern ROOT_PASSWORD_LINE = Pattern.compile("(?m):   RootPassword:\\s+(\\S+)\\s*$");
    private static final Pattern STORED_USER_LINE = Pattern.compile("(?m): Root user: (\\S+) \\(credentials ");

    /** Every instance created in this JVM, for {@link DumpLogsOnFailure} and the shutdown hook. */
    static final List<ApplianceProcess> INSTANCES = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> INSTANCES.forEach(p -> {
                            Process proc = p.process;
                            if (proc != null) {
                                proc.destroyForcibly();
                            }
                        }),
                        "kill-appliance-processes"));
    }

    private final Path workDir;
    private final Path configDir;
    private final Map<String, String> env;
    private final List<Path> drives = new ArrayList<>();
    private final List<String> extraArgs = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>();

    private Path launcher;
    private List<String> jarArguments; // null: ApplianceLaunch's (the AOT-cached extracted jar, or the fat jar)
    private ApplianceLaunch.Jit jit = ApplianceLaunch.Jit.byDefault();
    private Process process;
    private int runs;
    private Path stdoutFile;
    private Path stderrFile;
    private URI s3Endpoint;
    private URI consoleUri;
    private String accessKey;
    private String secretKey;

    private ApplianceProcess(Path workDir, Map<String, String> extraEnv) {
        this.workDir = workDir;
        this.configDir = workDir.resolve("config");
        this.env = new LinkedHashMap<>(extraEnv);
        this.env.put("APPLIANCE_CONFIG_DIR", configDir.toString());
        try {
            Files.createDirectories(configDir);
            Files.createDirectories(workDir.resolve("logs"));
            for (int i = 1; i <= DRIVES; i++) {
                Path d = workDir.resolve("disk" + i);
                Files.createDirectories(d);
                drives.add(d);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        INSTANCES.add(this);
    }

    /** A process whose root credentials come from APPLIANCE_ROOT_USER / APPLIANCE_ROOT_PASSWORD. */
    public static ApplianceProcess withRootCredentials(Path workDir, String user, String password) {
        ApplianceProcess p =
                new ApplianceProcess(workDir, Map.of("APPLIANCE_ROOT_USER", user, "APPLIANCE_ROOT_PASSWORD", password));
        p.accessKey = user;
        p.secretKey = password;
        return p;
    }

    /** A process without credential variables: it generates (first start) or loads (restart) its credentials. */
    public static ApplianceProcess withGeneratedCredentials(Path workDir) {
        return new ApplianceProcess(workDir, Map.of());
    }

    /** Adds server flags (e.g. {@code --certs-dir DIR}, {@code --domain NAME}) to every later start. */
    public ApplianceProcess withArgs(String... args) {
        extraArgs.addAll(List.of(args));
        return this;
    }

    /** The certificate the S3 port and the console serve ({@code --certs-dir}'s public.crt), or null without TLS. */
    public Path certificate() {
        int i = extraArgs.indexOf("--certs-dir");
        return i < 0 ? null : Path.of(extraArgs.get(i + 1)).resolve("public.crt");
    }

    /** Sets an environment variable (e.g. {@code APPLIANCE_METRICS_TOKEN}) for every later start. */
    public ApplianceProcess withEnv(String name, String value) {
        env.put(name, value);
        return this;
    }

    /** Adds JVM options (e.g. {@code -Dappliance.faultInjection=true}) to every later start. */
    public ApplianceProcess withJvmOptions(String... options) {
        jvmOptions.addAll(List.of(options));
        return this;
    }

    /**
     * Runs an installed {@code appliance} command ({@code LAUNCHER server ...}, e.g. the RPM's, with its own Java
     * runtime and JVM options) instead of {@code java -jar} with the built jar.
     */
    public ApplianceProcess withLauncher(Path launcher) {
        this.launcher = launcher;
        return this;
    }

    /**
     * Compiles as {@code jit} says instead of {@link ApplianceLaunch.Jit#byDefault()}: {@code PRODUCTION} for a test
     * of the data path under load, which should run the vectorised codec as shipped.
     */
    ApplianceProcess withJit(ApplianceLaunch.Jit jit) {
        this.jit = jit;
        return this;
    }

    /** Runs {@code arguments} (e.g. {@code -jar JAR}) in place of {@link ApplianceLaunch}'s choice (its training run). */
    ApplianceProcess runningJar(List<String> arguments) {
        this.jarArguments = List.copyOf(arguments);
        return this;
    }

    /**
     * The java command that runs the appliance jar with {@code args} (other subcommands, e.g. certs, alerts, or a server
     * run to its end): as {@link #start} runs it, the default {@link ApplianceLaunch.Jit}'s options and the AOT cache,
     * so a CLI call costs about 0.6 s of CPU instead of 2.3 s from the fat jar.
     */
    public static List<String> jarCommand(String... args) {
        ApplianceLaunch.Jit jit = ApplianceLaunch.Jit.byDefault();
        List<String> cmd = new ArrayList<>(List.of(ApplianceLaunch.java()));
        cmd.addAll(jit.options);
        cmd.addAll(ApplianceLaunch.jarArguments(jit));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts on the drives {@code <workDir>/disk{1...4}} (the process expands the ellipsis) and waits until ready. */
    public ApplianceProcess start() {
        return start(List.of(workDir.resolve("disk{1..." + DRIVES + "}").toString()));
    }

    /** Starts with the given drive arguments and waits until ready; fails with the process output otherwise. */
    public ApplianceProcess start(List<String> driveArgs) {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("already running");
        }
        launch(driveArgs);
        awaitReady();
        return this;
    }

    /** The outcome of a run that was expected to end by itself. */
    public record Exit(int status, String stdout, String stderr) {}

    /** Runs the process with the given drive arguments and waits for it to exit on its own (a refused start). */
    public Exit runUntilExit(List<String> driveArgs, Duration timeout) {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("already running");
        }
        launch(driveArgs);
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                String logs = logs();
                stop();
                throw new AssertionError("the appliance did not exit within " + timeout + "\n" + logs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new Exit(process.exitValue(), stdout(), stderr());
    }

    /** Stops (SIGTERM, then SIGKILL after 10 s) and starts again on the same drives, config dir and environment. */
    public ApplianceProcess restart() {
        stop();
        return start();
    }

    /**
     * SIGTERM via {@link Process#destroy()}, SIGKILL if it is still alive after 10 seconds.
     *
     * @return true when the process ended within the grace period after SIGTERM (or was not running)
     */
    public boolean stop() {
        return stop(STOP_GRACE);
    }

    /** As {@link #stop()}, with {@code grace} before the SIGKILL. */
    boolean stop(Duration grace) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return true;
        }
        p.destroy();
        try {
            if (p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
            System.err.println("[it] appliance did not stop within " + grace + " after SIGTERM: killing it");
            p.destroyForcibly();
            p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return false;
        }
    }

    /** Sends SIGTERM ({@link Process#destroy()}) and returns at once: the stop runs while the caller looks on. */
    public void terminate() {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("not running");
        }
        process.destroy();
    }

    /** The exit status of the process, which has ended. */
    public int exitStatus() {
        return process.exitValue();
    }

    /** Waits for the process to end by itself (after {@link #terminate()}); its exit status, or -1 on timeout. */
    public int awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * SIGKILL to the appliance JVM itself (it is launched as {@code java}, no wrapper script, so its pid is the JVM's):
     * no shutdown hook, no flush, no close runs. Waits until the process is gone.
     *
     * @return the exit status, 137 (128 + SIGKILL) on Linux
     */
    public int kill() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("not running");
        }
        String command = p.info().command().orElse("");
        assertThat(Path.of(command).getFileName().toString())
                .as("the process to kill is the JVM itself (pid %d: %s)", p.pid(), command)
                .startsWith("java");
        p.destroyForcibly(); // SIGKILL on Unix
        try {
            if (!p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the appliance (pid " + p.pid() + ") survived SIGKILL for " + STOP_GRACE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return p.exitValue();
    }

    @Override
    public void close() {
        stop();
    }

    /** The running process's id (benchmarks read its CPU time from /proc). */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    private void launch(List<String> driveArgs) {
        List<String> server = new ArrayList<>(List.of(
                "server", "--address", "127.0.0.1:0", "--console-address", "127.0.0.1:0", "--allow-root-drives"));
        server.addAll(extraArgs);
        server.addAll(driveArgs);
        List<String> cmd = new ArrayList<>();
        if (launcher != null) { // the launcher brings its own java and JVM options
            cmd.add(launcher.toString());
        } else {
            cmd.add(ApplianceLaunch.java());
            cmd.addAll(jit.options);
            cmd.addAll(jvmOptions);
            cmd.addAll(jarArguments != null ? jarArguments : ApplianceLaunch.jarArguments(jit));
        }
        cmd.addAll(server);
        runs++;
        stdoutFile = workDir.resolve("logs").resolve("run" + runs + ".stdout.log");
        stderrFile = workDir.resolve("logs").resolve("run" + runs + ".stderr.log");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectOutput(stdoutFile.toFile())
                .redirectError(stderrFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        pb.environment().remove("APPLIANCE_ROOT_USER");
        pb.environment().remove("APPLIANCE_ROOT_PASSWORD");
        pb.environment().putAll(env);
        s3Endpoint = null;
        consoleUri = null;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        }
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private void awaitReady() {
        long started = System.nanoTime();
        long deadline = started + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            String out = stdout();
            Matcher s3 = S3_LINE.matcher(out);
            Matcher console = CONSOLE_LINE.matcher(out);
            if (s3.find() && console.find() && credentialsKnown(out)) {
                URI endpoint = URI.create(s3.group(1));
                if (accepts(endpoint)) {
                    s3Endpoint = endpoint;
                    consoleUri = URI.create(console.group(1));
                    // one line per start: the suite's time budget is mostly starts (docs/testing.md)
                    System.out.printf(
                            "[it] appliance ready in %d ms (pid %d)%n",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), process.pid());
                    return;
                }
            }
            if (!process.isAlive()) {
                throw new AssertionError(
                        "the appliance exited with status " + process.exitValue() + " before it was ready\n" + logs());
            }
            pause();
        }
        String logs = logs();
        stop();
        throw new AssertionError("the appliance was not ready within " + READY_TIMEOUT + "\n" + logs);
    }

    /** Reads the credentials from the output of this run; true once they are known. */
    private boolean credentialsKnown(String out) {
        Matcher user = ROOT_USER_LINE.matcher(out);
        Matcher password = ROOT_PASSWORD_LINE.matcher(out);
        if (user.find() && password.find()) {
            accessKey = user.group(1);
            secretKey = password.group(1);
            return true;
        }
        Matcher stored = STORED_USER_LINE.matcher(out);
        if (stored.find()) {
            accessKey = stored.group(1);
            return true; // the secret is the one given in the environment or printed by an earlier run
        }
        return false;
    }

    private static boolean accepts(URI endpoint) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public URI s3Endpoint() {
        return s3Endpoint;
    }

    public URI consoleUri() {
        return consoleUri;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public Path workDir() {
        return workDir;
    }

    public Path configDir() {
        return configDir;
    }

    public List<Path> drives() {
        return List.copyOf(drives);
    }

    /** Stdout of the current (or last) run. */
    public String stdout() {
        return read(stdoutFile);
    }

    /** Stderr of the current (or last) run. */
    public String stderr() {
        return read(stderrFile);
    }

    /** Stdout and stderr of every run so far, for failure messages. */
    public String logs() {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= runs; i++) {
            for (String stream : List.of("stdout", "stderr")) {
                Path f = workDir.resolve("logs").resolve("run" + i + "." + stream + ".log");
                sb.append("----- appliance run ")
                        .append(i)
                        .append(' ')
                        .append(stream)
                        .append(" (")
                        .append(workDir.getFileName())
                        .append(") -----\n")
                        .append(tail(read(f), 300));
            }
        }
        return sb.toString();
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\n", -1);
        if (all.length <= lines) {
            return text.endsWith("\n") || text.isEmpty() ? text : text + "\n";
        }
        return "[... " + (all.length - lines) + " lines ...]\n"
                + String.join("\n", List.of(all).subList(all.length - lines, all.length)) + "\n";
    }

    private static String read(Path f) {
        if (f == null || !Files.exists(f)) {
            return "";
        }
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<cannot read " + f + ": " + e + ">";
        }
    }

    /** An S3 client for this process with its root credentials. */
    public S3Client client() {
        return client(accessKey, secretKey, b -> {});
    }

    /** An S3 client for this process: path-style, us-east-1, static credentials, Apache HTTP client. */
    public S3Client client(String key, String secret, Consumer<S3ClientBuilder> customizer) {
        S3ClientBuilder b = S3Client.builder()
                .endpointOverride(s3Endpoint)
                .region(Region.of(REGION))
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .httpClientBuilder(ApacheHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(120)));
        customizer.accept(b);
        return b.build();
    }
}
