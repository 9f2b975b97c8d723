package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.testing.S3TestServer;
import dev.appliance.s3.tls.SelfSignedCertificate;
import dev.appliance.s3.tls.ServerTls;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The transport features on two real servers over the engine: one with TLS (self-signed pair) and a virtual-hosted
 * domain, one plain with tiny admission limits. TLS is exercised with the SDK v2 client trusting the generated
 * certificate; the rest with raw sockets and SDK-presigned URLs.
 */
class FrontEndTest {
    private static final String AK = S3TestServer.ACCESS_KEY;
    private static final String SK = S3TestServer.SECRET_KEY;
    private static final String DOMAIN = "s3.example.lab";

    @TempDir
    static Path tmp;

    private static ObjectStore store;
    private static S3Server tlsServer;
    private static S3Server plainServer;
    /** Only raw sockets of the admission test talk to this one, so its connection count is the test's own. */
    private static S3Server limitedServer;

    private static S3Client tlsClient;
    private static S3Client plainClient;

    @BeforeAll
    static void start() throws Exception {
        store = TestStore.on(tmp).open();
        Path certs = tmp.resolve("certs");
        SelfSignedCertificate.generate(certs, List.of(DOMAIN), Clock.systemUTC(), false);
        tlsServer = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        S3TestServer.CREDENTIALS,
                        Authorizer.allowAll(),
                        ServerTls.load(certs),
                        DOMAIN,
                        null));
        plainServer = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1", 0, null, S3TestServer.CREDENTIALS, Authorizer.allowAll(), null, DOMAIN, null));
        limitedServer = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        S3TestServer.CREDENTIALS,
                        Authorizer.allowAll(),
                        null,
                        null,
                        new S3ServerConfig.Limits(4, 1, 1)));

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("appliance", ServerTls.load(certs).certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        tlsClient = client(
                URI.create("https://127.0.0.1:" + tlsServer.port()),
                UrlConnectionHttpClient.builder()
                        .tlsTrustManagersProvider(tmf::getTrustManagers)
                        .build());
        plainClient = client(URI.create("http://127.0.0.1:" + plainServer.port()), UrlConnectionHttpClient.create());
    }

    private static S3Client client(URI endpoint, software.amazon.awssdk.http.SdkHttpClient http) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(AK, SK)))
                .forcePathStyle(true)
                .httpClient(http)
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        tlsClient.close();
        plainClient.close();
        tlsServer.close();
        plainServer.close();
        limitedServer.close();
        store.close();
    }

    private static S3Presigner presigner(int port, boolean pathStyle) {
        return S3Presigner.builder()
                .endpointOverride(URI.create("http://" + (pathStyle ? "127.0.0.1" : DOMAIN) + ":" + port))
                .region(Region.US_EAST_1)
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(pathStyle)
                        .build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(AK, SK)))
                .build();
    }

    /** The request head for a presigned URL, sent to 127.0.0.1 whatever its host says. */
    private static String head(String method, URL url, Map<String, String> headers) {
        StringBuilder sb = new StringBuilder()
                .append(method)
                .append(' ')
                .append(url.getFile())
                .append(" HTTP/1.1\r\nHost: ")
                .append(url.getHost())
                .append(':')
                .append(url.getPort())
                .append("\r\n");
        headers.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
        return sb.append("\r\n").toString();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.onSpinWait();
            Thread.sleep(5);
        }
    }

    @Test
    void sdkClientOverTls_putGetList_withTheGeneratedCertificate() {
        tlsClient.createBucket(b -> b.bucket("tls-bucket"));
        byte[] data = "over TLS, kept alive".repeat(5000).getBytes(StandardCharsets.UTF_8);
        tlsClient.putObject(b -> b.bucket("tls-bucket").key("a/b"), RequestBody.fromBytes(data));
        for (int i = 0; i < 3; i++) {
            assertThat(tlsClient
                            .getObjectAsBytes(b -> b.bucket("tls-bucket").key("a/b"))
                            .asByteArray())
                    .isEqualTo(data);
        }
        assertThat(tlsClient.listObjectsV2(b -> b.bucket("tls-bucket")).contents())
                .singleElement()
                .satisfies(o -> assertThat(o.storageClassAsString()).isEqualTo("STANDARD"));
    }

    @Test
    void virtualHostedStyle_presignedPutAndGet_overRawSockets() throws Exception {
        plainClient.createBucket(b -> b.bucket("vhost-bucket"));
        try (S3Presigner p = presigner(plainServer.port(), false)) {
            URL put = p.presignPutObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                            .putObjectRequest(r -> r.bucket("vhost-bucket").key("dir/file.txt")))
                    .url();
            assertThat(put.getHost()).isEqualTo("vhost-bucket." + DOMAIN);
            URL get = p.presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                            .getObjectRequest(r -> r.bucket("vhost-bucket").key("dir/file.txt")))
                    .url();
            try (Socket s = new Socket("127.0.0.1", plainServer.port())) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                out.write((head("PUT", put, Map.of("Content-Length", "5")) + "hello").getBytes(StandardCharsets.UTF_8));
                RawHttp r = RawHttp.read(in, false);
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                out.write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
                RawHttp g = RawHttp.read(in, false);
                assertThat(g.status()).isEqualTo(200);
                assertThat(g.body()).isEqualTo("hello");
            }
        }
        // the same object by path style
        assertThat(plainClient
                        .getObjectAsBytes(b -> b.bucket("vhost-bucket").key("dir/file.txt"))
                        .asUtf8String())
                .isEqualTo("hello");
    }

    @Test
    void limits_metadataTooLarge_entityTooLarge_headerSectionTooLarge_allWithRequestIds() throws Exception {
        plainClient.createBucket(b -> b.bucket("limits"));
        try (S3Presigner p = presigner(plainServer.port(), true)) {
            String bigValue = "x".repeat(2100);
            URL withMeta = p.presignPutObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                            .putObjectRequest(
                                    r -> r.bucket("limits").key("meta").metadata(Map.of("big", bigValue))))
                    .url();
            try (Socket s = new Socket("127.0.0.1", plainServer.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream()
                        .write((head("PUT", withMeta, Map.of("Content-Length", "4", "x-amz-meta-big", bigValue))
                                        + "data")
                                .getBytes(StandardCharsets.UTF_8));
                RawHttp r = RawHttp.read(s.getInputStream(), false);
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.body()).contains("<Code>MetadataTooLarge</Code>");
                assertThat(r.headers()).containsKey("x-amz-request-id");
            }
            assertThatThrownBy(
                            () -> plainClient.headObject(b -> b.bucket("limits").key("meta")))
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
            URL put = p.presignPutObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                            .putObjectRequest(r -> r.bucket("limits").key("huge")))
                    .url();
            try (Socket s = new Socket("127.0.0.1", plainServer.port())) {
                s.setSoTimeout(10_000);
                // no body byte is sent: the refusal comes from the head alone
                s.getOutputStream()
                        .write(head("PUT", put, Map.of("Content-Length", Long.toString((5L << 30) + 1)))
                                .getBytes(StandardCharsets.UTF_8));
                RawHttp r = RawHttp.read(s.getInputStream(), false);
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.body()).contains("<Code>EntityTooLarge</Code>");
                assertThat(r.headers()).containsKey("x-amz-request-id");
            }
            // 100-continue asked for a refused upload: the final answer carries the request id
            try (Socket s = new Socket("127.0.0.1", plainServer.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream()
                        .write(head(
                                        "PUT",
                                        put,
                                        Map.of(
                                                "Content-Length",
                                                "10",
                                                "Expect",
                                                "100-continue",
                                                "x-amz-meta-unsigned",
                                                "1"))
                                .getBytes(StandardCharsets.UTF_8));
                RawHttp r = RawHttp.read(s.getInputStream(), false);
                assertThat(r.status()).isEqualTo(403);
                assertThat(r.body()).contains("<Code>AccessDenied</Code>").contains("x-amz-meta-unsigned");
                assertThat(r.headers()).containsKey("x-amz-request-id");
            }
        }
        try (Socket s = new Socket("127.0.0.1", plainServer.port())) {
            s.setSoTimeout(10_000);
            String big = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + "a".repeat(9000) + "\r\n\r\n";
            s.getOutputStream().write(big.getBytes(StandardCharsets.UTF_8));
            RawHttp r = RawHttp.read(s.getInputStream(), false);
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.body()).contains("<Code>RequestHeaderSectionTooLarge</Code>");
            assertThat(r.headers()).containsKey("x-amz-request-id");
        }
    }

    @Test
    void listBuckets_pagesWithMaxBucketsAndContinuationToken_andFiltersByPrefix() {
        for (String b : List.of("page-a", "page-b", "page-c", "page-d", "page-e")) {
            plainClient.createBucket(r -> r.bucket(b));
        }
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String t = token;
            ListBucketsResponse page =
                    plainClient.listBuckets(r -> r.maxBuckets(2).prefix("page-").continuationToken(t));
            assertThat(page.buckets()).hasSizeLessThanOrEqualTo(2);
            assertThat(page.prefix()).isEqualTo("page-");
            page.buckets().stream().map(Bucket::name).forEach(seen::add);
            token = page.continuationToken();
            pages++;
        } while (token != null);
        assertThat(seen).containsExactly("page-a", "page-b", "page-c", "page-d", "page-e");
        assertThat(pages).isEqualTo(3);
        assertThatThrownBy(() -> plainClient.listBuckets(r -> r.maxBuckets(10_001)))
                .isInstanceOfSatisfying(
                        S3Exception.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument"));
    }

    /**
     * Stopping (limits 4 connections, 1 in flight, 1 waiting): a PUT half sent holds the only slot and a GET waits
     * for admission when the stop begins. The listener closes (a new connection is refused), the waiting GET and a
     * request on an open idle connection are answered 503 ServiceUnavailable with Connection: close, the PUT's body
     * keeps being read and it is answered 200 (Connection: close), and the stop returns with no request cut short.
     */
    @Test
    void close_refusesNewAndWaitingRequests_letsTheUploadInFlightFinish() throws Exception {
        tlsClient.createBucket(b -> b.bucket("stopping"));
        S3Server server = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        S3TestServer.CREDENTIALS,
                        Authorizer.allowAll(),
                        null,
                        null,
                        new S3ServerConfig.Limits(4, 1, 1)));
        int port = server.port();
        var stopping = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (S3Presigner p = presigner(port, true);
                Socket a = new Socket("127.0.0.1", port);
                Socket b = new Socket("127.0.0.1", port);
                Socket idle = new Socket("127.0.0.1", port)) {
            for (Socket s : List.of(a, b, idle)) {
                s.setSoTimeout(10_000);
            }
            URL put = p.presignPutObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .putObjectRequest(o -> o.bucket("stopping").key("k")))
                    .url();
            URL get = p.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .getObjectRequest(o -> o.bucket("stopping").key("k")))
                    .url();
            a.getOutputStream()
                    .write((head("PUT", put, Map.of("Content-Length", "10")) + "01234")
                            .getBytes(StandardCharsets.UTF_8));
            await(() -> server.stats().inFlight() == 1, "the PUT in flight");
            b.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
            await(() -> server.stats().waiting() == 1, "the GET waiting");
            await(() -> server.stats().connections() == 3, "three connections");

            var closed = stopping.submit(() -> server.close(Duration.ofSeconds(30)));

            RawHttp waited = RawHttp.read(b.getInputStream(), false);
            assertThat(waited.status()).isEqualTo(503);
            assertThat(waited.body()).contains("<Code>ServiceUnavailable</Code>", "shutting down");
            assertThat(waited.headers()).containsEntry("connection", "close").containsKey("retry-after");
            await(
                    () -> {
                        try (Socket s = new Socket("127.0.0.1", port)) {
                            return false;
                        } catch (java.io.IOException refused) {
                            return true;
                        }
                    },
                    "the listener closed");
            idle.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
            RawHttp late = RawHttp.read(idle.getInputStream(), false);
            assertThat(late.status()).isEqualTo(503);
            assertThat(late.headers()).containsEntry("connection", "close");
            assertThat(closed.isDone()).as("the stop waits for the PUT").isFalse();

            a.getOutputStream().write("56789".getBytes(StandardCharsets.UTF_8));
            RawHttp stored = RawHttp.read(a.getInputStream(), false);
            assertThat(stored.status()).isEqualTo(200);
            assertThat(stored.headers()).containsEntry("connection", "close");
            assertThat(closed.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("requests cut short")
                    .isZero();
        } finally {
            stopping.shutdownNow();
            server.close();
        }
        assertThat(tlsClient
                        .getObjectAsBytes(b -> b.bucket("stopping").key("k"))
                        .asUtf8String())
                .isEqualTo("0123456789");
    }

    /**
     * Stopping while a response is still being written: a GET whose body is 128 KiB more than the kernel holds for a
     * client that reads nothing yet leaves its worker done and the rest of the body queued on the event loop. The
     * event loops close their channels when they shut down, so the stop must wait for that response: the client then
     * reads the whole body and the stop returns with nothing cut short.
     */
    @Test
    void close_waitsForAResponseStillBeingWrittenOut() throws Exception {
        int receiveBuffer = 16 * 1024;
        int size = Math.toIntExact(loopbackSendCapacity(receiveBuffer) + 128 * 1024);
        String data = "0123456789abcdef".repeat(size / 16);
        tlsClient.createBucket(b -> b.bucket("stopping-write"));
        tlsClient.putObject(b -> b.bucket("stopping-write").key("k"), RequestBody.fromString(data));
        S3Server server = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        S3TestServer.CREDENTIALS,
                        Authorizer.allowAll(),
                        null,
                        null,
                        new S3ServerConfig.Limits(4, 1, 1)));
        int port = server.port();
        var stopping = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (S3Presigner p = presigner(port, true);
                Socket s = new Socket()) {
            s.setReceiveBufferSize(receiveBuffer);
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(10_000);
            URL get = p.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .getObjectRequest(o -> o.bucket("stopping-write").key("k")))
                    .url();
            s.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
            await(() -> available(s) > 0, "the response begins");
            await(() -> server.stats().inFlight() == 0, "the GET's worker done");

            var closed = stopping.submit(() -> server.close(Duration.ofSeconds(30)));

            await(
                    () -> {
                        try (Socket probe = new Socket("127.0.0.1", port)) {
                            return false;
                        } catch (java.io.IOException refused) {
                            return true;
                        }
                    },
                    "the listener closed");
            RawHttp got = RawHttp.read(s.getInputStream(), false);
            assertThat(got.status()).isEqualTo(200);
            assertThat(got.body().length()).as("body bytes received").isEqualTo(data.length());
            assertThat(got.body().equals(data)).as("the body as stored").isTrue();
            assertThat(closed.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("requests cut short")
                    .isZero();
        } finally {
            stopping.shutdownNow();
            server.close();
        }
    }

    private static int available(Socket s) {
        try {
            return s.getInputStream().available();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /**
     * How many bytes this machine's kernel accepts on a loopback connection whose peer, with a receive buffer of
     * {@code receiveBuffer}, reads nothing (the send buffer grows up to net.ipv4.tcp_wmem's maximum).
     */
    private static long loopbackSendCapacity(int receiveBuffer) throws java.io.IOException {
        try (var listener = java.nio.channels.ServerSocketChannel.open()
                        .bind(new java.net.InetSocketAddress("127.0.0.1", 0));
                Socket peer = new Socket();
                var selector = java.nio.channels.Selector.open()) {
            peer.setReceiveBufferSize(receiveBuffer);
            peer.connect(listener.getLocalAddress());
            try (var sender = listener.accept()) {
                sender.configureBlocking(false);
                sender.register(selector, java.nio.channels.SelectionKey.OP_WRITE);
                java.nio.ByteBuffer chunk = java.nio.ByteBuffer.allocate(64 * 1024);
                long taken = 0;
                // full once the send buffer stays full for a while (it grows as the connection goes on)
                while (selector.select(200) > 0) {
                    selector.selectedKeys().clear();
                    int n;
                    do {
                        chunk.clear();
                        n = sender.write(chunk);
                        taken += n;
                    } while (n > 0);
                }
                return taken;
            }
        }
    }

    /**
     * Limits (4 connections, 1 in flight, 1 waiting): a PUT whose body is half sent holds the only slot; a GET on a
     * second connection waits (its socket is not read), a third request is refused 503 SlowDown with Retry-After;
     * once the PUT completes the waiting GET is served and sees the object.
     */
    @Test
    void admission_waitsBeyondInFlightCap_refusesBeyondWaitingCap_capsConnections() throws Exception {
        tlsClient.createBucket(b -> b.bucket("admission"));
        try (S3Presigner p = presigner(limitedServer.port(), true);
                Socket a = new Socket("127.0.0.1", limitedServer.port());
                Socket b = new Socket("127.0.0.1", limitedServer.port());
                Socket c = new Socket("127.0.0.1", limitedServer.port())) {
            for (Socket s : List.of(a, b, c)) {
                s.setSoTimeout(10_000);
            }
            URL put = p.presignPutObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .putObjectRequest(o -> o.bucket("admission").key("k")))
                    .url();
            URL get = p.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .getObjectRequest(o -> o.bucket("admission").key("k")))
                    .url();
            a.getOutputStream()
                    .write((head("PUT", put, Map.of("Content-Length", "10")) + "01234")
                            .getBytes(StandardCharsets.UTF_8));
            await(() -> limitedServer.stats().inFlight() == 1, "the PUT in flight");

            b.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
            await(() -> limitedServer.stats().waiting() == 1, "the GET waiting");

            c.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
            RawHttp refused = RawHttp.read(c.getInputStream(), false);
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.body()).contains("<Code>SlowDown</Code>");
            assertThat(refused.headers()).containsEntry("retry-after", "1").containsKey("x-amz-request-id");

            a.getOutputStream().write("56789".getBytes(StandardCharsets.UTF_8));
            assertThat(RawHttp.read(a.getInputStream(), false).status()).isEqualTo(200);
            RawHttp served = RawHttp.read(b.getInputStream(), false);
            assertThat(served.status()).isEqualTo(200);
            assertThat(served.body()).isEqualTo("0123456789");
            await(() -> limitedServer.stats().inFlight() == 0, "no request in flight");
            assertThat(limitedServer.stats().waiting()).isZero();

            // connections: a, b and (until the server closed it) c are open; fill up to the cap of 4, then one more
            await(() -> limitedServer.stats().connections() == 2, "c closed");
            try (Socket d = new Socket("127.0.0.1", limitedServer.port());
                    Socket e = new Socket("127.0.0.1", limitedServer.port())) {
                await(() -> limitedServer.stats().connections() == 4, "4 connections");
                Socket f = new Socket("127.0.0.1", limitedServer.port());
                await(() -> limitedServer.stats().connections() == 5, "5 connections");
                f.setSoTimeout(10_000);
                f.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
                RawHttp over = RawHttp.read(f.getInputStream(), false);
                assertThat(over.status()).isEqualTo(503);
                assertThat(over.body()).contains("Too many open connections");
                d.setSoTimeout(10_000);
                d.getOutputStream().write(head("GET", get, Map.of()).getBytes(StandardCharsets.UTF_8));
                assertThat(RawHttp.read(d.getInputStream(), false).status()).isEqualTo(200);
                assertThat(e.isConnected()).isTrue();
                f.close();
            }
        }
    }
}
