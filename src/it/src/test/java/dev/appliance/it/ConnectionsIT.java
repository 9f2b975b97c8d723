package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * 2,000 concurrent keep-alive connections to one appliance process on 127.0.0.1: all are opened first and held open,
 * then each sends two signed (presigned) GETs one after the other on its connection. Every answer must be 200 with the
 * object's content, on the same connection. The default in-flight cap of the process (128 with -Xmx1g) is far below
 * 2,000, so this also exercises admission by back-pressure: nothing may be refused. Bounded to 60 s.
 */
class ConnectionsIT {
    /** Needs about 2 file descriptors per connection in this JVM and 1 in the appliance: well under `ulimit -n`. */
    private static final int CONNECTIONS = 2000;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "conn-it-admin", "conn-it-secret-" + UUID.randomUUID()))
                .start();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void twoThousandConcurrentKeepAliveConnections_twoSignedGetsEach_allSucceed() throws Exception {
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(b -> b.bucket("connections"));
            s3.putObject(b -> b.bucket("connections").key("small"), RequestBody.fromString("kept alive"));
        }
        URL url;
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(appliance.s3Endpoint())
                .region(Region.of(ApplianceProcess.REGION))
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(appliance.accessKey(), appliance.secretKey())))
                .build()) {
            url = presigner
                    .presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(10))
                            .getObjectRequest(r -> r.bucket("connections").key("small")))
                    .url();
        }
        byte[] request = ("GET " + url.getFile() + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                        + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);

        long started = System.nanoTime();
        List<Socket> sockets = new ArrayList<>(CONNECTIONS);
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket s = new Socket(url.getHost(), url.getPort());
                s.setSoTimeout(50_000);
                sockets.add(s);
            }
            AtomicInteger ok = new AtomicInteger();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                for (Socket s : sockets) {
                    threads.execute(() -> {
                        try {
                            OutputStream out = s.getOutputStream();
                            InputStream in = new BufferedInputStream(s.getInputStream());
                            for (int round = 0; round < 2; round++) {
                                out.write(request);
                                out.flush();
                                String response = readResponse(in);
                                if (response.startsWith("HTTP/1.1 200 ") && response.endsWith("\r\n\r\nkept alive")) {
                                    ok.incrementAndGet();
                                } else {
                                    failures.add(response);
                                }
                            }
                        } catch (IOException e) {
                            failures.add(e.toString());
                        }
                    });
                }
                threads.shutdown();
                assertThat(threads.awaitTermination(55, TimeUnit.SECONDS))
                        .as("all requests answered within 55 s")
                        .isTrue();
            }
            assertThat(failures).as("failed requests (first ones)").isEmpty();
            assertThat(ok.get()).isEqualTo(2 * CONNECTIONS);
            assertThat(sockets).allMatch(s -> !s.isClosed() && s.isConnected());
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
    }

    /** Head and Content-Length body of one response, as text. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed mid-response: " + head);
            }
            head.write(c);
            matched = (c == '\r' && (matched == 0 || matched == 2)) || (c == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1
                    : (c == '\r' ? 1 : 0);
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        return h + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }
}
