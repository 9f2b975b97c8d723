package dev.appliance.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The socket transport against the JDK's (the reference), both talking to one HTTP server: the server must see the
 * same requests from each, and each must read the same answers (fixed-length, chunked, empty, errors).
 */
class LoadTransportTest {
    /** What the server saw of one request. */
    record Seen(String method, String uri, String signedHeader, String contentLength, byte[] body, int remotePort) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Seen s
                    && method.equals(s.method)
                    && uri.equals(s.uri)
                    && signedHeader.equals(s.signedHeader)
                    && String.valueOf(contentLength).equals(String.valueOf(s.contentLength))
                    && Arrays.equals(body, s.body);
        }

        @Override
        public int hashCode() {
            return method.hashCode();
        }
    }

    /** What a client read of one answer. */
    record Read(int status, String versionId, byte[] body) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Read r
                    && status == r.status
                    && String.valueOf(versionId).equals(String.valueOf(r.versionId))
                    && Arrays.equals(body, r.body);
        }

        @Override
        public int hashCode() {
            return status;
        }
    }

    private static final byte[] LARGE = new byte[(3 << 20) + 17];

    static {
        new SplittableRandom(7).nextBytes(LARGE);
    }

    private HttpServer server;
    private ExecutorService serverThreads;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private URI base;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        serverThreads = Executors.newFixedThreadPool(4);
        server.setExecutor(serverThreads);
        server.createContext("/", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            String path = exchange.getRequestURI().getRawPath();
            seen.add(new Seen(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().toString(),
                    exchange.getRequestHeaders().getFirst("x-amz-test"),
                    exchange.getRequestHeaders().getFirst("Content-Length"),
                    body,
                    exchange.getRemoteAddress().getPort()));
            switch (path) {
                case "/fixed" -> {
                    exchange.getResponseHeaders().add("x-amz-version-id", "v-" + body.length);
                    exchange.sendResponseHeaders(200, LARGE.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(LARGE);
                    }
                }
                case "/chunked" -> {
                    exchange.sendResponseHeaders(200, 0); // no length: the JDK's server sends it chunked
                    try (OutputStream out = exchange.getResponseBody()) {
                        for (int at = 0; at < LARGE.length; at += 100_000) {
                            out.write(LARGE, at, Math.min(100_000, LARGE.length - at));
                            out.flush();
                        }
                    }
                }
                case "/missing" -> {
                    byte[] xml = "<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>"
                            .getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(404, xml.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(xml);
                    }
                }
                default -> {
                    exchange.getResponseHeaders().add("x-amz-version-id", "echo");
                    exchange.sendResponseHeaders(200, -1); // no body at all
                    exchange.close();
                }
            }
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
        serverThreads.shutdownNow();
    }

    private List<Read> exchanges(LoadTransport t) throws Exception {
        byte[] head = "the body's first part ".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "and its tail".getBytes(StandardCharsets.UTF_8);
        List<Read> reads = new ArrayList<>();
        List<String[]> headers = List.<String[]>of(new String[] {"x-amz-test", "signed value"});
        reads.add(read(t.send(
                "PUT",
                base.resolve("/empty?retention&versionId=a%2Fb"),
                headers,
                new LoadTransport.Body(head, head.length - 1, tail))));
        reads.add(read(t.send("GET", base.resolve("/fixed"), headers, LoadTransport.Body.EMPTY)));
        reads.add(read(t.send("GET", base.resolve("/chunked"), headers, LoadTransport.Body.EMPTY)));
        reads.add(read(t.send("GET", base.resolve("/missing"), headers, LoadTransport.Body.EMPTY)));
        reads.add(read(t.send("PUT", base.resolve("/fixed"), headers, LoadTransport.Body.of(LARGE))));
        return reads;
    }

    private static Read read(LoadTransport.Response r) throws IOException {
        try (InputStream in = r.body()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[7000]; // not a divisor of any length above: reads end inside chunks
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
            }
            return new Read(r.status(), r.versionId(), out.toByteArray());
        }
    }

    @Test
    void theSocketTransportSendsAndReadsWhatTheJdkDoes() throws Exception {
        List<Read> jdk;
        try (LoadTransport t = LoadTransport.jdk(4)) {
            jdk = exchanges(t);
        }
        List<Seen> seenFromJdk = List.copyOf(seen);
        seen.clear();
        List<Read> socket;
        try (LoadTransport t = LoadTransport.socket()) {
            socket = exchanges(t);
        }

        assertThat(socket).isEqualTo(jdk);
        assertThat(seen).isEqualTo(seenFromJdk);
        // What the answers were, so that two transports agreeing on nothing cannot pass.
        assertThat(socket.get(0).status()).isEqualTo(200);
        assertThat(socket.get(0).versionId()).isEqualTo("echo");
        assertThat(socket.get(0).body()).isEmpty();
        assertThat(seen.get(0).uri()).isEqualTo("/empty?retention&versionId=a%2Fb");
        assertThat(seen.get(0).signedHeader()).isEqualTo("signed value");
        assertThat(new String(seen.get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo("the body's first partand its tail");
        assertThat(socket.get(1).body()).isEqualTo(LARGE);
        assertThat(socket.get(1).versionId()).isEqualTo("v-0");
        assertThat(socket.get(2).body()).isEqualTo(LARGE);
        assertThat(socket.get(3).status()).isEqualTo(404);
        assertThat(new String(socket.get(3).body(), StandardCharsets.UTF_8)).contains("<Code>NoSuchKey</Code>");
        assertThat(seen.get(4).body()).isEqualTo(LARGE);
        assertThat(socket.get(4).versionId()).isEqualTo("v-" + LARGE.length);
        // One thread, one kept-alive connection: every request came from the same client port.
        assertThat(seen.stream().map(Seen::remotePort).distinct()).hasSize(1);
    }

    @Test
    void aConnectionTheServerClosedWhileIdleIsOpenedAgainAndTheRequestSentOnce() throws Exception {
        Set<Integer> ports = ConcurrentHashMap.newKeySet();
        List<String> requests = new CopyOnWriteArrayList<>();
        CountDownLatch firstClosed = new CountDownLatch(1);
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            Thread serverThread = Thread.ofPlatform().start(() -> {
                // Each connection answers one request, keep-alive and all, then is closed without a word.
                for (int i = 0; i < 2; i++) {
                    try (Socket s = listener.accept()) {
                        ports.add(s.getPort());
                        InputStream in = s.getInputStream();
                        StringBuilder head = new StringBuilder();
                        while (!head.toString().endsWith("\r\n\r\n")) {
                            head.append((char) in.read());
                        }
                        requests.add(head.toString().lines().findFirst().orElseThrow());
                        s.getOutputStream()
                                .write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                                        .getBytes(StandardCharsets.US_ASCII));
                    } catch (IOException e) {
                        return;
                    }
                    firstClosed.countDown();
                }
            });
            URI at = URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/k");
            try (LoadTransport t = LoadTransport.socket()) {
                Read first = read(t.send("GET", at, List.of(), LoadTransport.Body.EMPTY));
                assertThat(firstClosed.await(30, TimeUnit.SECONDS)).isTrue();
                Read second = read(t.send("GET", at, List.of(), LoadTransport.Body.EMPTY));
                assertThat(first.body()).isEqualTo("ok".getBytes(StandardCharsets.US_ASCII));
                assertThat(second).isEqualTo(first);
            }
            serverThread.join();
        }
        assertThat(requests).containsExactly("GET /k HTTP/1.1", "GET /k HTTP/1.1");
        assertThat(ports).hasSize(2);
    }

    @Test
    void anAnswerToHeadHasNoBodyWhateverItsContentLengthSays() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (ServerSocket listener = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            Thread serverThread = Thread.ofPlatform().start(() -> {
                try (Socket s = listener.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (String answer : List.of(
                            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nx-amz-version-id: v1\r\n\r\n",
                            "HTTP/1.1 204 No Content\r\n\r\n",
                            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")) {
                        StringBuilder head = new StringBuilder();
                        while (!head.toString().endsWith("\r\n\r\n")) {
                            head.append((char) in.read());
                        }
                        requests.add(head.toString().lines().findFirst().orElseThrow());
                        out.write(answer.getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                } catch (IOException e) {
                    // the test's assertions tell what went missing
                }
            });
            URI at = URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/k");
            try (LoadTransport t = LoadTransport.socket()) {
                Read head = read(t.send("HEAD", at, List.of(), LoadTransport.Body.EMPTY));
                Read noContent = read(t.send("DELETE", at, List.of(), LoadTransport.Body.EMPTY));
                Read get = read(t.send("GET", at, List.of(), LoadTransport.Body.EMPTY));
                assertThat(head).isEqualTo(new Read(200, "v1", new byte[0]));
                assertThat(noContent).isEqualTo(new Read(204, null, new byte[0]));
                assertThat(get).isEqualTo(new Read(200, null, "ok".getBytes(StandardCharsets.US_ASCII)));
            }
            serverThread.join();
        }
        // All three on the one connection the server accepted.
        assertThat(requests).containsExactly("HEAD /k HTTP/1.1", "DELETE /k HTTP/1.1", "GET /k HTTP/1.1");
    }
}
