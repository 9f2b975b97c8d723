package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;

/**
 * One deployment through its life: first start with generated credentials through the launcher, a SIGTERM during an
 * upload (the upload finishes, the stop exits 0), restart, a start with the drives in the wrong order (refused), and a
 * start with a drive missing (served from the remaining drives). The steps build on each other and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProcessLifecycleIT {
    private static final String BUCKET = "lifecycle";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static String accessKey;
    private static String secretKey;
    private static String deploymentId;
    private static final Map<String, byte[]> OBJECTS = new LinkedHashMap<>();
    private static final String METRICS_TOKEN = "lifecycle-it-" + java.util.UUID.randomUUID();

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static S3Client client() {
        return appliance.client(
                accessKey,
                secretKey,
                b -> b.requestChecksumCalculation(
                        software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED));
    }

    /** The signed, detailed status: the deployment id and the drive paths are not public. */
    private static JsonNode status() {
        return new AdminApi(appliance, tmp).status();
    }

    private static void assertObjectsIntact(S3Client s3) {
        for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
            byte[] got =
                    s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(e.getKey())).asByteArray();
            assertThat(got).as("content of %s", e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET)).contents())
                .extracting(o -> o.key())
                .containsExactlyInAnyOrderElementsOf(OBJECTS.keySet());
    }

    /**
     * What the operator sees of a running server (docs/operations.md#logging): every line a log line starting with its
     * UTC time, no terminal escape code, and no JVM notice (the incubator module the codec uses is announced by the JVM
     * at every start; the launcher drops exactly that line).
     */
    private static void assertOperatorView(String output) {
        // the launcher's own notice when it builds first (sources newer than the jar) comes before the server runs
        assertThat(output.lines()
                        .filter(l -> !l.startsWith("appliance: building"))
                        .toList())
                .as("the server's output:%n%s", output)
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line)
                        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (INFO |WARN |ERROR) \\S+: .*"));
        assertThat(output)
                .doesNotContain("\u001b")
                .doesNotContain("WARNING: Using incubator modules")
                .doesNotContain("sun.misc.Unsafe");
    }

    private static int occurrences(String text, String needle) {
        return text.split(Pattern.quote(needle), -1).length - 1;
    }

    @Test
    @Order(1)
    void firstStartGeneratesCredentialsPrintsThemOnceAndTheyWork() throws Exception {
        // through the repository's launcher, as an operator starts it: ./appliance server
        Path launcher = Path.of(System.getProperty("appliance.jar"))
                .getParent()
                .getParent()
                .getParent()
                .resolve("appliance");
        appliance = LOGS.watch(ApplianceProcess.withGeneratedCredentials(tmp.resolve("appliance"))
                        .withEnv("APPLIANCE_METRICS_TOKEN", METRICS_TOKEN))
                .withLauncher(launcher)
                .start();
        String out = appliance.stdout();
        accessKey = appliance.accessKey();
        secretKey = appliance.secretKey();
        assertThat(accessKey).matches("[A-Z0-9]{20}");
        assertThat(secretKey).hasSize(40);
        assertThat(occurrences(out, "RootUser:")).as("stdout:%n%s", out).isEqualTo(1);
        assertThat(occurrences(out, "RootPassword:")).isEqualTo(1);
        assertThat(occurrences(out, secretKey))
                .as("the secret is printed exactly once")
                .isEqualTo(1);
        assertThat(appliance.stderr()).doesNotContain(secretKey);

        JsonNode status = status();
        deploymentId = status.path("deploymentId").asText();
        assertThat(deploymentId).isNotBlank();
        // The retention clock's health: trusted time agrees with the system clock on a fresh start; the kernel's NTP
        // state is read (this process is on Linux).
        JsonNode clock = status.path("retentionClock");
        assertThat(clock.path("systemClockBelieved").asBoolean())
                .as("%s", clock)
                .isTrue();
        assertThat(clock.path("ntp").asText()).isIn("SYNCHRONIZED", "UNSYNCHRONIZED");
        assertThat(java.time.Duration.between(
                                java.time.Instant.parse(
                                        clock.path("trustedTime").asText()),
                                java.time.Instant.now())
                        .abs())
                .isLessThan(java.time.Duration.ofMinutes(1));
        assertThat(clock.path("forwardJumpNotBelievedAtStartSeconds").asLong()).isZero();

        OBJECTS.put("small.bin", TestData.bytes(1, 1000));
        OBJECTS.put("dir/medium.bin", TestData.bytes(2, 2 * 1024 * 1024 + 5));
        OBJECTS.put("dir/empty", new byte[0]);
        try (S3Client s3 = client()) {
            s3.createBucket(b -> b.bucket(BUCKET));
            for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
                s3.putObject(b -> b.bucket(BUCKET).key(e.getKey()), RequestBody.fromBytes(e.getValue()));
            }
            assertThat(s3.listBuckets().buckets()).extracting(Bucket::name).contains(BUCKET);
            assertObjectsIntact(s3);
        }
        // after the start and the first writes and reads (a library's JVM warning would show at first use)
        assertOperatorView(appliance.stdout() + appliance.stderr());
    }

    @Test
    @Order(2)
    void storedCredentialsAreEncryptedOnEveryDriveWithTheKeyOutsideTheDrives() throws IOException {
        assertThat(secretKey).as("set by the first step").isNotNull();
        List<String> forbidden = List.of(
                secretKey,
                Base64.getEncoder().encodeToString(secretKey.getBytes(StandardCharsets.UTF_8)),
                Base64.getEncoder().encodeToString((accessKey + "\n" + secretKey).getBytes(StandardCharsets.UTF_8)));
        for (Path drive : appliance.drives()) {
            Path enc = drive.resolve(".appliance.sys/config/root-credentials.enc");
            assertThat(enc).as("credentials blob on %s", drive).isRegularFile();
            String content = Files.readString(enc, StandardCharsets.ISO_8859_1);
            for (String f : forbidden) {
                assertThat(content)
                        .as("%s must not contain the secret in plain text", enc)
                        .doesNotContain(f);
            }
            try (Stream<Path> files = Files.walk(drive)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                            .as("no file on the drives holds the secret in plain text: %s", f)
                            .doesNotContain(secretKey);
                }
            }
        }
        Path key = appliance.configDir().resolve("keys").resolve(deploymentId + ".key");
        assertThat(key).as("the encryption key lives in APPLIANCE_CONFIG_DIR").isRegularFile();
        assertThat(Files.getPosixFilePermissions(key))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }

    /**
     * An upload body: the first {@code gateAt} bytes at once, then nothing until {@link #open} is counted down, then
     * the rest at no more than {@code bytesPerSecond}: an upload that is still streaming in while the server stops.
     */
    private static final class GatedBody extends java.io.InputStream {
        final java.util.concurrent.CountDownLatch reachedGate = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        private final byte[] data;
        private final int gateAt;
        private final long bytesPerSecond;
        private int pos;
        private long openedNanos = -1;

        GatedBody(byte[] data, int gateAt, long bytesPerSecond) {
            this.data = data;
            this.gateAt = gateAt;
            this.bytesPerSecond = bytesPerSecond;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos >= data.length) {
                return -1;
            }
            int n = Math.min(len, data.length - pos);
            try {
                if (pos < gateAt) {
                    n = Math.min(n, gateAt - pos);
                } else {
                    if (openedNanos < 0) {
                        reachedGate.countDown();
                        if (!open.await(5, java.util.concurrent.TimeUnit.MINUTES)) {
                            throw new IOException("the test never opened the gate");
                        }
                        openedNanos = System.nanoTime();
                    }
                    long allowed;
                    while ((allowed = gateAt + (System.nanoTime() - openedNanos) * bytesPerSecond / 1_000_000_000L)
                            <= pos) {
                        Thread.sleep(10); // the client's sending rate, not the server's clock
                    }
                    n = (int) Math.min(n, allowed - pos);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /** The appliance's {@code appliance_s3_requests_in_flight} gauge, from its Prometheus scrape. */
    private static double requestsInFlight(java.net.http.HttpClient http) throws Exception {
        var response = http.send(
                java.net.http.HttpRequest.newBuilder(appliance.consoleUri().resolve("/actuator/prometheus"))
                        .header("Authorization", "Bearer " + METRICS_TOKEN)
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        java.util.regex.Matcher m =
                Pattern.compile("(?m)^appliance_s3_requests_in_flight (\\S+)$").matcher(response.body());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** The response head read from {@code socket} (up to the blank line). */
    private static String responseHead(java.net.Socket socket) throws IOException {
        var in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        int c;
        while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
            head.append((char) c);
        }
        return head.toString();
    }

    /**
     * SIGTERM while an upload streams in: the server stops accepting connections and refuses requests on open ones
     * (503, Connection: close) at once, lets the upload run to its end (longer than the old fixed 5 s), answers it
     * 200, and exits 0; the next step's restart reads the object back whole. The process is the launcher's (the first
     * step's), as an operator's service manager signals it.
     */
    @Test
    @Order(3)
    void sigterm_letsAnUploadInFlightFinish_refusesNewRequests_exitsZero_andTheObjectIsKept() throws Exception {
        String key = "uploaded-while-stopping.bin";
        byte[] data = TestData.bytes(4, 40 << 20);
        // 8 MiB at once, then 32 MiB at 5 MiB/s once the gate opens: more than 6 s of upload after the stop began
        GatedBody body = new GatedBody(data, 8 << 20, 5L << 20);
        int port = appliance.s3Endpoint().getPort();
        var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (S3Client uploader = appliance.client(
                        accessKey,
                        secretKey,
                        b -> b.overrideConfiguration(o ->
                                o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry())));
                var http = java.net.http.HttpClient.newHttpClient();
                var idle = new java.net.Socket("127.0.0.1", port)) {
            var put = pool.submit(() -> uploader.putObject(
                    b -> b.bucket(BUCKET).key(key).contentLength((long) data.length),
                    RequestBody.fromInputStream(body, data.length)));
            assertThat(body.reachedGate.await(60, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the upload sent its first part")
                    .isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (requestsInFlight(http) < 1) {
                assertThat(System.nanoTime()).as("the upload is in flight").isLessThan(deadline);
                Thread.sleep(50);
            }

            long stopAsked = System.nanoTime();
            appliance.terminate();
            // The listening socket closes: a new connection is refused at once, not left waiting.
            deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                try (var probe = new java.net.Socket()) {
                    probe.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5_000);
                } catch (java.net.ConnectException refused) {
                    break;
                }
                assertThat(System.nanoTime())
                        .as("the S3 port stops accepting connections after SIGTERM")
                        .isLessThan(deadline);
                Thread.sleep(50);
            }
            // A request on a connection opened before the stop is refused with 503 and the connection closed.
            idle.setSoTimeout(10_000);
            idle.getOutputStream()
                    .write(("GET /" + BUCKET + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String head = responseHead(idle);
            assertThat(head).startsWith("HTTP/1.1 503").containsIgnoringCase("connection: close");
            assertThat(appliance.isAlive()).as("still finishing the upload").isTrue();

            body.open.countDown();
            var response = put.get(2, java.util.concurrent.TimeUnit.MINUTES);
            assertThat(Duration.ofNanos(System.nanoTime() - stopAsked))
                    .as("the upload ran on after the stop for longer than the old fixed 5 s")
                    .isGreaterThan(Duration.ofSeconds(5));
            assertThat(TestData.unquote(response.eTag())).isEqualTo(TestData.md5Hex(data));
        } finally {
            body.open.countDown();
            pool.shutdownNow();
        }
        assertThat(appliance.awaitExit(Duration.ofSeconds(60)))
                .as("exit status after SIGTERM; stderr:%n%s", appliance.stderr())
                .isZero();
        OBJECTS.put(key, data); // read back whole by the restart step
    }

    /**
     * The restart after that stop, with the jar the other tests run ({@link ApplianceProcess#jarCommand}'s JVM options
     * and AOT cache) rather than the launcher again: what is checked is what the server reads back from its drives and
     * config directory, and a start through the launcher costs three times the CPU of one with the cache.
     */
    @Test
    @Order(4)
    void restartLoadsTheStoredCredentialsWithoutPrintingTheSecret() throws Exception {
        assertThat(appliance.isAlive()).as("stopped by the SIGTERM step").isFalse();
        appliance.withLauncher(null).start();
        String out = appliance.stdout();
        assertThat(out).as("stdout of the restart").doesNotContain(secretKey).doesNotContain("RootPassword");
        assertThat(appliance.stderr()).doesNotContain(secretKey);
        assertThat(out).contains("Root user: " + accessKey + " (credentials stored (encrypted) on the drives)");
        assertThat(status().path("deploymentId").asText()).isEqualTo(deploymentId);
        try (S3Client s3 = client()) {
            assertObjectsIntact(s3); // the upload the stop let finish among them
        }
    }

    @Test
    @Order(5)
    void drivesInAnotherOrderAreRefused() {
        assertThat(appliance.stop())
                .as("the appliance stops within 10 s of SIGTERM")
                .isTrue();
        List<Path> drives = appliance.drives();
        List<String> swapped = new ArrayList<>(List.of(
                drives.get(1).toString(),
                drives.get(0).toString(),
                drives.get(2).toString(),
                drives.get(3).toString()));
        ApplianceProcess.Exit exit = appliance.runUntilExit(swapped, Duration.ofSeconds(90));
        assertThat(exit.status()).as("exit status; stderr:%n%s", exit.stderr()).isEqualTo(1);
        assertThat(exit.stderr())
                .contains("appliance: cannot start:")
                .contains("original order")
                .containsAnyOf(drives.get(0).toString(), drives.get(1).toString());
        assertThat(exit.stdout()).doesNotContain("S3 API:");
    }

    @Test
    @Order(6)
    void missingDriveStillStartsAndServesReads() throws Exception {
        assertThat(appliance.isAlive()).isFalse();
        Path removed = appliance.drives().get(2);
        try (Stream<Path> files = Files.walk(removed)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        appliance.start();

        JsonNode status = status();
        assertThat(status.path("deploymentId").asText()).isEqualTo(deploymentId);
        JsonNode drives = status.path("drives");
        assertThat(drives.size()).isEqualTo(ApplianceProcess.DRIVES);
        for (JsonNode d : drives) {
            Path path = Path.of(d.path("path").asText());
            boolean expectOnline = !path.endsWith(removed.getFileName());
            assertThat(d.path("online").asBoolean())
                    .as("online flag of %s in %s", path, status)
                    .isEqualTo(expectOnline);
        }
        try (S3Client s3 = client()) {
            assertObjectsIntact(s3);
        }
    }

    // First start, tried as a new user would: whatever refuses the start does so before anything is written.

    /** A fresh place for a refused start: drive and config directories that do not exist yet. */
    private record Scratch(Path work, List<Path> drives, Path config) {
        static Scratch of(String name) throws IOException {
            Path work = Files.createDirectories(tmp.resolve(name));
            List<Path> drives = new ArrayList<>();
            for (int i = 1; i <= ApplianceProcess.DRIVES; i++) {
                drives.add(work.resolve("disk" + i));
            }
            return new Scratch(work, drives, work.resolve("config"));
        }

        String driveArg() {
            return work.resolve("disk{1..." + ApplianceProcess.DRIVES + "}").toString();
        }

        /** {@code server} on OS-chosen ports with these drives (on the root filesystem, allowed). */
        List<String> serverArgs() {
            return List.of(
                    "server",
                    "--address",
                    "127.0.0.1:0",
                    "--console-address",
                    "127.0.0.1:0",
                    "--allow-root-drives",
                    driveArg());
        }

        /** Nothing was created: no drive directory, no config directory (no key, no credentials). */
        void assertUntouched() {
            for (Path d : drives) {
                assertThat(d).as("drive directory of a refused start").doesNotExist();
            }
            assertThat(config).as("config directory of a refused start").doesNotExist();
        }
    }

    /** {@link ApplianceProcess#jarCommand} with {@code jvmOptions} and APPLIANCE_CONFIG_DIR set, to its end. */
    private static Commands.Result runJar(Scratch s, Map<String, String> env, List<String> jvmOptions, String... args) {
        List<String> cmd = new ArrayList<>(ApplianceProcess.jarCommand(args));
        cmd.addAll(1, jvmOptions);
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put("APPLIANCE_CONFIG_DIR", s.config().toString());
        return runWithout(s.work(), cmd, all);
    }

    /** As {@link Commands#run}; a null value removes the variable (the test runner's own must not leak in). */
    private static Commands.Result runWithout(Path workDir, List<String> cmd, Map<String, String> env) {
        Map<String, String> set = new LinkedHashMap<>();
        List<String> unset = new ArrayList<>(List.of("APPLIANCE_ROOT_USER", "APPLIANCE_ROOT_PASSWORD"));
        env.forEach((k, v) -> {
            if (v != null) {
                set.put(k, v);
                unset.remove(k);
            }
        });
        List<String> withEnv = new ArrayList<>(List.of("env"));
        for (String u : unset) {
            withEnv.add("-u");
            withEnv.add(u);
        }
        withEnv.addAll(cmd);
        return Commands.run(workDir, withEnv, set, 120);
    }

    @Test
    @Order(10)
    void busyConsolePort_refusesTheStartNamingTheAddress_beforeAnythingIsWritten() throws IOException {
        Scratch s = Scratch.of("busy-port");
        try (java.net.ServerSocket taken = new java.net.ServerSocket()) {
            taken.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            Commands.Result r = runJar(
                    s,
                    Map.of(),
                    List.of(),
                    "server",
                    "--address",
                    "127.0.0.1:0",
                    "--console-address",
                    "127.0.0.1:" + port,
                    "--allow-root-drives",
                    s.driveArg());
            assertThat(r.status()).as("exit status; stderr:%n%s", r.stderr()).isEqualTo(1);
            assertThat(r.stderr())
                    .contains("cannot listen on 127.0.0.1:" + port + " (--console-address): address already in use");
            assertThat(r.stdout()).doesNotContain("RootPassword").doesNotContain("S3 API:");
        }
        s.assertUntouched();
    }

    @Test
    @Order(11)
    void badRootCredentials_areRefusedBeforeAnythingIsWritten() throws IOException {
        Scratch s = Scratch.of("bad-credentials");
        List<String> args = s.serverArgs();
        Commands.Result shortPassword = runJar(
                s,
                Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "short"),
                List.of(),
                args.toArray(String[]::new));
        assertThat(shortPassword.status())
                .as("stderr:%n%s", shortPassword.stderr())
                .isEqualTo(1);
        assertThat(shortPassword.stderr()).contains("root password").contains("8 to 128");
        s.assertUntouched();

        Map<String, String> halfSet = new LinkedHashMap<>();
        halfSet.put("APPLIANCE_ROOT_USER", "admin");
        Commands.Result half = runJar(s, halfSet, List.of(), args.toArray(String[]::new));
        assertThat(half.status()).as("stderr:%n%s", half.stderr()).isEqualTo(1);
        assertThat(half.stderr()).contains("APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD");
        s.assertUntouched();
    }

    @Test
    @Order(12)
    void rootFilesystemDrives_areRefusedNamingTheFlag_withoutCreatingThem() throws IOException {
        Scratch s = Scratch.of("root-drives");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.getFileStore(s.work()).equals(Files.getFileStore(Path.of("/"))),
                "the temporary directory is on the root filesystem (it is on this machine's builds)");
        Commands.Result r = runJar(
                s,
                Map.of(),
                List.of(),
                "server",
                "--address",
                "127.0.0.1:0",
                "--console-address",
                "127.0.0.1:0",
                s.driveArg());
        assertThat(r.status()).as("stderr:%n%s", r.stderr()).isEqualTo(1);
        assertThat(r.stderr()).contains("is on the root filesystem").contains("--allow-root-drives");
        s.assertUntouched();
    }

    @Test
    @Order(13)
    void help_printsTheUsageWithStatusZero() throws IOException {
        Scratch s = Scratch.of("help");
        for (String flag : List.of("--help", "-h")) {
            Commands.Result server = runJar(s, Map.of(), List.of(), "server", flag);
            assertThat(server.status())
                    .as("server %s; stderr:%n%s", flag, server.stderr())
                    .isZero();
            assertThat(server.stdout()).contains("usage: appliance server").contains("--allow-root-drives");
            assertThat(server.stderr()).doesNotContain("unknown option");
        }
        Commands.Result certs = runJar(s, Map.of(), List.of(), "certs", "--help");
        assertThat(certs.status()).as(certs.stderr()).isZero();
        assertThat(certs.stdout()).contains("usage: appliance certs generate");
        s.assertUntouched();
    }

    @Test
    @Order(15)
    void aBadSettingFromTheEnvironmentOrTheConfigFile_isRefusedNamingIt_beforeAnythingIsWritten() throws IOException {
        Scratch s = Scratch.of("bad-settings");
        List<String> args = s.serverArgs();
        Commands.Result fromEnv =
                runJar(s, Map.of("APPLIANCE_SCANNER_RATE", "-1"), List.of(), args.toArray(String[]::new));
        assertThat(fromEnv.status()).as("stderr:%n%s", fromEnv.stderr()).isEqualTo(2);
        assertThat(fromEnv.stderr()).contains("APPLIANCE_SCANNER_RATE '-1': expected 0 or a positive number");
        s.assertUntouched();

        Path file = Files.writeString(
                s.work().resolve("appliance.yml"), "appliance:\n  s3:\n    timeouts:\n      idle: 0s\n");
        List<String> withFile = new ArrayList<>(args);
        withFile.addAll(List.of("--config", file.toString()));
        Commands.Result fromFile = runJar(s, Map.of(), List.of(), withFile.toArray(String[]::new));
        assertThat(fromFile.status()).as("stderr:%n%s", fromFile.stderr()).isEqualTo(2);
        assertThat(fromFile.stderr())
                .contains("appliance.s3.timeouts.idle '0s'")
                .contains(file.toString())
                .contains("expected a positive duration");
        assertThat(fromFile.stdout()).doesNotContain("S3 API:");
        s.assertUntouched();
    }

    @Test
    @Order(14)
    void killBeforeTheBanner_thenRestart_stillGivesTheOperatorWorkingCredentials() throws Exception {
        Scratch s = Scratch.of("kill-before-banner");
        // The worst moment: drives formatted, credentials generated and stored, the process gone before its banner.
        Commands.Result killed = runJar(
                s,
                Map.of(),
                List.of("-Dappliance.faultInjection=true", "-Dappliance.faultInjection.haltBeforeBanner=true"),
                "server",
                "--address",
                "127.0.0.1:0",
                "--console-address",
                "127.0.0.1:0",
                "--allow-root-drives",
                s.driveArg());
        assertThat(killed.status()).as("stderr:%n%s", killed.stderr()).isEqualTo(137);
        assertThat(killed.stdout()).doesNotContain("S3 API:");
        assertThat(s.drives().getFirst().resolve(".appliance.sys/config/root-credentials.enc"))
                .as("the credentials were stored before the kill")
                .isRegularFile();
        java.util.regex.Matcher printed =
                Pattern.compile("(?m):   RootPassword:\\s+(\\S+)\\s*$").matcher(killed.stdout());
        assertThat(printed.find())
                .as("the generated password was printed before it was stored:%n%s", killed.stdout())
                .isTrue();
        String printedSecret = printed.group(1);

        ApplianceProcess again = LOGS.watch(ApplianceProcess.withGeneratedCredentials(s.work()));
        try {
            again.start();
            assertThat(again.stdout())
                    .as("the restart shows the stored credentials again")
                    .contains("generated by an earlier start that did not finish")
                    .contains("RootPassword:");
            assertThat(again.secretKey()).isEqualTo(printedSecret);
            try (S3Client s3 = again.client(again.accessKey(), again.secretKey(), b -> {})) {
                s3.createBucket(b -> b.bucket("after-kill"));
                assertThat(s3.listBuckets().buckets()).extracting(Bucket::name).contains("after-kill");
            }
            // That start finished: the next one names the user only, and the same credentials still work.
            again.restart();
            assertThat(again.stdout()).doesNotContain("RootPassword").doesNotContain(printedSecret);
            try (S3Client s3 = again.client(again.accessKey(), printedSecret, b -> {})) {
                assertThat(s3.listBuckets().buckets()).extracting(Bucket::name).contains("after-kill");
            }
        } finally {
            again.stop();
        }
    }
}
