package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.e2e.RawSigner.Request;
import dev.appliance.s3.e2e.RawSigner.Spoil;
import dev.appliance.s3.e2e.RawSigner.Style;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Slow and oversized clients over raw sockets against a server with short timeouts (request head 2 s, silence inside
 * a body 2 s, idle connection 6 s: longer than the other two, so that it cannot stand in for them): slowloris heads,
 * heads and header lines over the limit, bodies that stall, a Content-Length far beyond what is sent, silent
 * connections. Each is cut off within its timeout, ordinary requests are answered meanwhile, and afterwards the
 * server's connection and in-flight counts and the JVM's platform thread count are back where they were.
 */
class SlowClientsTest {
    private static final Duration HEAD = Duration.ofSeconds(2);
    private static final Duration BODY = Duration.ofSeconds(2);
    private static final Duration IDLE = Duration.ofSeconds(6);
    /** Scheduling slack on a busy two-core machine. */
    private static final long SLACK_MS = 2_500;

    private static final String BUCKET = "slow";

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.configured(
            Authorizer.allowAll(),
            c -> new S3ServerConfig(
                    c.host(),
                    c.port(),
                    c.region(),
                    c.credentials(),
                    c.authorizer(),
                    null,
                    null,
                    null,
                    new S3ServerConfig.Timeouts(HEAD, BODY, IDLE)));

    private static S3Server server;
    private static int port;
    private static S3Client s3;
    private static int baselineConnections;
    private static int baselineThreads;

    @BeforeAll
    static void start() throws Exception {
        server = SERVER.server();
        port = SERVER.port();
        s3 = SERVER.s3();
        s3.createBucket(b -> b.bucket(BUCKET));
        s3.putObject(b -> b.bucket(BUCKET).key("existing"), RequestBody.fromString("still here"));
        baselineConnections = server.stats().connections();
        baselineThreads = ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Whatever a test did, the server lets go of it: connections, requests in flight and platform threads. */
    @AfterEach
    void resourcesReturnToBaseline() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline
                && (server.stats().connections() > baselineConnections
                        || server.stats().inFlight() > 0)) {
            Thread.sleep(50);
        }
        assertThat(server.stats().connections()).as("open connections").isLessThanOrEqualTo(baselineConnections);
        assertThat(server.stats().inFlight()).as("requests in flight").isZero();
        assertThat(server.stats().waiting()).as("requests waiting").isZero();
        // a few JVM threads come and go on their own (JIT, GC, the SDK's pool reaper): allow some, never one per
        // connection
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount())
                .as("platform threads")
                .isLessThan(baselineThreads + 8);
    }

    /** The SDK still gets answers, fast: the server is not exhausted by whatever the other clients do. */
    private static void ordinaryRequestsAreAnswered() {
        long t0 = System.nanoTime();
        assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("existing")).asUtf8String())
                .isEqualTo("still here");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void slowlorisHeads_areCutOffWithinTheHeadTimeout() throws Exception {
        int n = 40;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Cut>> cuts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                cuts.add(pool.submit(slowHead()));
            }
            // while they drip, ordinary requests keep being answered
            long until = System.nanoTime() + HEAD.toNanos();
            while (System.nanoTime() < until) {
                ordinaryRequestsAreAnswered();
                Thread.sleep(200);
            }
            for (Future<Cut> f : cuts) {
                Cut c = f.get(30, TimeUnit.SECONDS);
                assertThat(c.millis()).as("time to cut a slowloris head").isLessThan(HEAD.toMillis() + SLACK_MS);
                assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestTimeout</Code>");
            }
        }
        ordinaryRequestsAreAnswered();
    }

    /** A request head sent one header byte every 300 ms, for as long as the server keeps the connection. */
    private static Callable<Cut> slowHead() {
        return () -> {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(300);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                long t0 = System.nanoTime();
                out.write(("GET /" + BUCKET + "/existing HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20)) {
                    try {
                        int r = in.read();
                        if (r < 0) {
                            return new Cut((System.nanoTime() - t0) / 1_000_000, got.toString(StandardCharsets.UTF_8));
                        }
                        got.write(r);
                    } catch (SocketTimeoutException e) {
                        try {
                            out.write('a');
                            out.flush();
                        } catch (IOException closed) {
                            return new Cut((System.nanoTime() - t0) / 1_000_000, got.toString(StandardCharsets.UTF_8));
                        }
                    } catch (IOException reset) {
                        return new Cut((System.nanoTime() - t0) / 1_000_000, got.toString(StandardCharsets.UTF_8));
                    }
                }
                return new Cut(Long.MAX_VALUE, got.toString(StandardCharsets.UTF_8));
            }
        };
    }

    /** How long until the server closed, and what it said first. */
    record Cut(long millis, String response) {}

    @Test
    void headSectionOverTheLimit_isRefusedAndClosed() throws Exception {
        StringBuilder head = new StringBuilder("GET /" + BUCKET + "/existing HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (int i = 0; i < 100; i++) {
            head.append("X-Pad-").append(i).append(": ").append("p".repeat(100)).append("\r\n");
        }
        head.append("\r\n");
        Cut c = exchange(head.toString().getBytes(StandardCharsets.US_ASCII));
        assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestHeaderSectionTooLarge</Code>");
        ordinaryRequestsAreAnswered();
    }

    @Test
    void oneHeaderLineOverTheLimit_isRefusedAndClosed() throws Exception {
        String head = "GET /" + BUCKET + "/existing HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + "l".repeat(9 * 1024)
                + "\r\n\r\n";
        Cut c = exchange(head.getBytes(StandardCharsets.US_ASCII));
        assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestHeaderSectionTooLarge</Code>");
        ordinaryRequestsAreAnswered();
    }

    @Test
    void requestLineOverTheLimit_isRefusedAndClosed() throws Exception {
        String head = "GET /" + BUCKET + "/" + "k".repeat(17 * 1024) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        Cut c = exchange(head.getBytes(StandardCharsets.US_ASCII));
        assertThat(c.response()).startsWith("HTTP/1.1 4");
        ordinaryRequestsAreAnswered();
    }

    @Test
    void bodyOverFiveGiB_isRefusedBeforeAnyBodyByte() throws Exception {
        byte[] wire = withContentLength(put("huge", 10), 6L << 30);
        Cut c = exchange(headOnly(wire));
        assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>EntityTooLarge</Code>");
        assertThat(c.millis()).isLessThan(BODY.toMillis());
        assertNotStored("huge");
    }

    @Test
    void bodiesThatStallMidway_areTimedOutAndStoreNothing() throws Exception {
        int n = 20;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Cut>> cuts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] wire = put("stalled-" + i, 100_000);
                int head = headLength(wire);
                // the head and a tenth of the body, then nothing
                cuts.add(pool.submit(() -> silentAfter(wire, head + 10_000)));
            }
            long until = System.nanoTime() + BODY.toNanos();
            while (System.nanoTime() < until) {
                ordinaryRequestsAreAnswered();
                Thread.sleep(200);
            }
            for (Future<Cut> f : cuts) {
                Cut c = f.get(30, TimeUnit.SECONDS);
                assertThat(c.millis()).as("time to cut a stalled body").isLessThan(BODY.toMillis() + SLACK_MS);
                assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestTimeout</Code>");
            }
        }
        for (int i = 0; i < n; i++) {
            assertNotStored("stalled-" + i);
        }
        ordinaryRequestsAreAnswered();
    }

    @Test
    void contentLengthFarBeyondWhatIsSent_isTimedOut() throws Exception {
        byte[] wire = withContentLength(put("liar", 100), 1L << 30);
        Cut c = silentAfter(wire, wire.length);
        assertThat(c.millis()).isLessThan(BODY.toMillis() + SLACK_MS);
        assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestTimeout</Code>");
        assertNotStored("liar");
    }

    @Test
    void signedStreamingBodyThatStalls_isTimedOut() throws Exception {
        byte[] full = RawSigner.encode(
                port,
                Style.STREAMING_SIGNED,
                new Request("PUT", "/" + BUCKET + "/chunked-stall", "", Map.of(), new byte[30_000]),
                new Spoil());
        Cut c = silentAfter(full, headLength(full) + 12_000);
        assertThat(c.millis()).isLessThan(BODY.toMillis() + SLACK_MS);
        assertThat(c.response()).startsWith("HTTP/1.1 400").contains("<Code>RequestTimeout</Code>");
        assertNotStored("chunked-stall");
    }

    @Test
    void silentConnection_isClosedByTheIdleTimeout() throws Exception {
        Cut c = silentAfter(new byte[0], 0);
        assertThat(c.millis()).isBetween(IDLE.toMillis() - 500, IDLE.toMillis() + SLACK_MS);
        assertThat(c.response()).isEmpty();
    }

    /** The head timer only runs while a head is arriving: a keep-alive connection may rest longer between requests. */
    @Test
    void keepAliveConnection_restingLongerThanTheHeadTimeout_staysUsable() throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            for (int i = 0; i < 2; i++) {
                byte[] wire = RawSigner.encode(
                        port, Style.UNSIGNED_PAYLOAD, new Request("GET", "/" + BUCKET + "/existing", ""), new Spoil());
                String keepAlive =
                        new String(wire, StandardCharsets.ISO_8859_1).replace("Connection: close", "X-Keep: 1");
                s.getOutputStream().write(keepAlive.getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                RawHttp r = RawHttp.read(s.getInputStream(), false);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("still here");
                Thread.sleep(HEAD.toMillis() + 1_000); // past the head timeout, within the idle timeout
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static byte[] put(String key, int size) {
        return RawSigner.encode(
                port,
                Style.UNSIGNED_PAYLOAD,
                new Request("PUT", "/" + BUCKET + "/" + key, "", Map.of(), new byte[size]),
                new Spoil());
    }

    private static int headLength(byte[] wire) {
        String s = new String(wire, StandardCharsets.ISO_8859_1);
        return s.indexOf("\r\n\r\n") + 4;
    }

    private static byte[] headOnly(byte[] wire) {
        return java.util.Arrays.copyOf(wire, headLength(wire));
    }

    /** The request with another Content-Length (not signed in the UNSIGNED-PAYLOAD style). */
    private static byte[] withContentLength(byte[] wire, long length) {
        String s = new String(wire, StandardCharsets.ISO_8859_1);
        return s.replaceFirst("Content-Length: \\d+", "Content-Length: " + length)
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Sends the first {@code n} bytes of {@code wire}, then nothing, and waits for the server to close. */
    private static Cut silentAfter(byte[] wire, int n) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            long t0 = System.nanoTime();
            s.getOutputStream().write(wire, 0, n);
            s.getOutputStream().flush();
            return readUntilClosed(s, t0);
        }
    }

    private static Cut exchange(byte[] wire) throws IOException {
        return silentAfter(wire, wire.length);
    }

    private static Cut readUntilClosed(Socket s, long t0) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[8192];
        try {
            int r;
            while ((r = in.read(buf)) >= 0) {
                got.write(buf, 0, r);
            }
        } catch (SocketTimeoutException e) {
            return new Cut(Long.MAX_VALUE, got.toString(StandardCharsets.UTF_8));
        } catch (IOException reset) {
            // a reset after the answer still ends the connection
        }
        return new Cut((System.nanoTime() - t0) / 1_000_000, got.toString(StandardCharsets.UTF_8));
    }

    private static void assertNotStored(String key) {
        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(
                        NoSuchKeyException.class,
                        () -> s3.headObject(b -> b.bucket(BUCKET).key(key))))
                .as("%s must not exist", key)
                .isNotNull();
    }
}
