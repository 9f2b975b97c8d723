package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Thousands of short-lived connections (one request each, then close), signed by hundreds of access keys, more than
 * the signing-key cache holds, with wrong secrets and unknown keys mixed in: every request gets exactly the answer its
 * credentials deserve, and no connection is left counted afterwards. Requests are signed by the AWS SDK's own SigV4
 * signer and sent over raw sockets, so each one is a new TCP connection.
 */
class ShortLivedConnectionsTest {
    private static final int KEYS = 300; // more than SigV4Verifier's 256-entry signing-key cache
    private static final int CONNECTIONS = 3_000;
    private static final int THREADS = 16;

    private enum Kind {
        RIGHT,
        WRONG_SECRET,
        UNKNOWN_KEY
    }

    @TempDir
    Path drives;

    @Test
    void everyConnectionIsAuthenticatedByItsOwnKey() throws Exception {
        Map<String, String> secrets = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            secrets.put("AKSHORT" + String.format("%05d", i), "secret-" + i + "-" + Long.toHexString(i * 7919L));
        }
        AtomicLong lookups = new AtomicLong();
        try (ObjectStore store = TestStore.on(drives).open();
                S3Server server = S3Server.start(
                        store,
                        new S3ServerConfig(
                                "127.0.0.1",
                                0,
                                null,
                                ak -> {
                                    lookups.incrementAndGet();
                                    return Optional.ofNullable(secrets.get(ak));
                                },
                                Authorizer.allowAll()))) {
            store.makeBucket("conns");
            byte[] body = "short and sweet".getBytes(StandardCharsets.UTF_8);
            store.putObject(
                    "conns",
                    "obj",
                    new PutRequest(body.length, "text/plain", Map.of(), null),
                    new ByteArrayInputStream(body));
            List<String> keys = new ArrayList<>(secrets.keySet());
            AwsV4HttpSigner signer = AwsV4HttpSigner.create();
            Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
            Map<Kind, AtomicLong> sent = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int n = 0; n < CONNECTIONS / THREADS; n++) {
                        Kind kind = random.nextInt(10) < 7 ? Kind.RIGHT : Kind.values()[1 + random.nextInt(2)];
                        String accessKey = kind == Kind.UNKNOWN_KEY
                                ? "AKUNKNOWN" + random.nextInt(1_000_000)
                                : keys.get(random.nextInt(keys.size()));
                        String secret = kind == Kind.RIGHT ? secrets.get(accessKey) : "not-" + accessKey;
                        RawHttp resp = getOverNewConnection(signer, server.port(), accessKey, secret, clientPorts);
                        sent.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                        switch (kind) {
                            case RIGHT -> {
                                assertThat(resp.status())
                                        .as("%s with its secret", accessKey)
                                        .isEqualTo(200);
                                assertThat(resp.body()).isEqualTo("short and sweet");
                            }
                            case WRONG_SECRET -> {
                                assertThat(resp.status()).isEqualTo(403);
                                assertThat(resp.body()).contains("<Code>SignatureDoesNotMatch</Code>");
                            }
                            case UNKNOWN_KEY -> {
                                assertThat(resp.status()).isEqualTo(403);
                                assertThat(resp.body()).contains("<Code>InvalidAccessKeyId</Code>");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            long total = sent.values().stream().mapToLong(AtomicLong::get).sum();
            assertThat(total).isEqualTo(CONNECTIONS / THREADS * THREADS);
            assertThat(sent.get(Kind.RIGHT).get()).isGreaterThan(total / 2);
            assertThat(sent.get(Kind.WRONG_SECRET).get()).isPositive();
            assertThat(sent.get(Kind.UNKNOWN_KEY).get()).isPositive();
            // every request was a connection of its own, and each was looked up
            assertThat(lookups.get()).isGreaterThanOrEqualTo(total);
            assertThat(clientPorts.size()).isGreaterThan((int) (total * 9 / 10));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (server.stats().connections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(server.stats().connections()).isZero();
            assertThat(server.stats().inFlight()).isZero();
        }
    }

    private static RawHttp getOverNewConnection(
            AwsV4HttpSigner signer, int port, String accessKey, String secret, Set<Integer> clientPorts)
            throws Exception {
        SdkHttpRequest unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://127.0.0.1:" + port + "/conns/obj"))
                .putHeader("x-amz-content-sha256", "UNSIGNED-PAYLOAD")
                .build();
        SdkHttpRequest signed = signer.sign(r -> r.identity(AwsCredentialsIdentity.create(accessKey, secret))
                        .request(unsigned)
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false))
                .request();
        StringBuilder head = new StringBuilder("GET /conns/obj HTTP/1.1\r\n");
        signed.forEachHeader((name, values) ->
                head.append(name).append(": ").append(String.join(",", values)).append("\r\n"));
        if (signed.firstMatchingHeader("Host").isEmpty()) {
            head.append("Host: 127.0.0.1:").append(port).append("\r\n");
        }
        head.append("Connection: close\r\n\r\n");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            clientPorts.add(socket.getLocalPort());
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            RawHttp resp = RawHttp.read(in, false);
            // the server closes a Connection: close exchange after its response
            assertThat(in.read()).isEqualTo(-1);
            return resp;
        }
    }
}
