package dev.appliance.s3.api.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.testing.S3TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The health probes on a real S3 server over a real store on four drives (EC 2+2: reads need 2 drives in service,
 * writes 3), requests sent as raw HTTP/1.1 so that nothing is signed and the Host header is the test's to choose.
 * Drives are taken out of service as the drive check does ({@link LocalDrive#markOffline}).
 */
class HealthProbesTest {
    private static final String DOMAIN = "s3.test";

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.configured(
            Authorizer.allowAll(),
            c -> new dev.appliance.s3.S3ServerConfig(
                    c.host(),
                    c.port(),
                    c.region(),
                    c.credentials(),
                    c.authorizer(),
                    c.tls(),
                    DOMAIN,
                    c.limits(),
                    c.timeouts()));

    private static List<LocalDrive> drives() {
        return ((StoreAdmin) SERVER.store()).drives();
    }

    @AfterEach
    void drivesBack() {
        drives().forEach(LocalDrive::markOnline);
    }

    @Test
    void everyProbe_answers200_withoutCredentials_whileAllDrivesServe() throws IOException {
        for (String probe : List.of("live", "ready", "cluster")) {
            Answer get = request("GET /appliance/health/" + probe, "127.0.0.1");
            assertThat(get.status()).as(probe).isEqualTo(200);
            assertThat(get.body()).as(probe).isEqualTo("{\"status\":\"UP\"}\n");
            assertThat(get.header("content-type")).isEqualTo("application/json");
            assertThat(get.header("cache-control")).isEqualTo("no-store");

            Answer head = request("HEAD /appliance/health/" + probe, "127.0.0.1");
            assertThat(head.status()).as(probe).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            assertThat(head.header("content-length"))
                    .isEqualTo(Integer.toString(get.body().length()));
        }
    }

    @Test
    void aSignatureThatWouldFail_doesNotMatter_theProbesAreNotAuthenticated() throws IOException {
        Answer a = request(
                "GET /appliance/health/cluster",
                "127.0.0.1",
                "Authorization: AWS4-HMAC-SHA256 Credential=nobody/20200101/us-east-1/s3/aws4_request,"
                        + " SignedHeaders=host, Signature=00");
        assertThat(a.status()).isEqualTo(200);
    }

    @Test
    void clusterAnd503_whenASetLosesWriteQuorum_readyStaysUpWhileReadsCanBeServed() throws IOException {
        drives().get(0).markOffline("taken away by the test");
        assertThat(request("GET /appliance/health/cluster", "127.0.0.1").status())
                .as("3 of 4 drives: writes still have quorum")
                .isEqualTo(200);

        drives().get(1).markOffline("taken away by the test");
        Answer cluster = request("GET /appliance/health/cluster", "127.0.0.1");
        assertThat(cluster.status()).isEqualTo(503);
        assertThat(cluster.body())
                .isEqualTo("{\"status\":\"DOWN\",\"reason\":\"erasure set 1: 2 of 4 drives in service, writes need"
                        + " 3\"}\n");
        assertThat(request("HEAD /appliance/health/cluster", "127.0.0.1").status())
                .isEqualTo(503);
        assertThat(request("GET /appliance/health/ready", "127.0.0.1").status())
                .as("2 of 4: the data shards are there")
                .isEqualTo(200);
        assertThat(request("GET /appliance/health/live", "127.0.0.1").status()).isEqualTo(200);

        drives().get(2).markFaulty("I/O errors");
        Answer ready = request("GET /appliance/health/ready", "127.0.0.1");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.body()).contains("1 of 4 drives in service, reads need 2");
        assertThat(request("GET /appliance/health/live", "127.0.0.1").status()).isEqualTo(200);

        drives().forEach(LocalDrive::markOnline);
        assertThat(request("GET /appliance/health/cluster", "127.0.0.1").status())
                .isEqualTo(200);
        assertThat(request("GET /appliance/health/ready", "127.0.0.1").status()).isEqualTo(200);
    }

    @Test
    void maintenance_isRefusedWith412_becauseThisNodeHoldsEverySet() throws IOException {
        Answer a = request("GET /appliance/health/cluster?maintenance=true", "127.0.0.1");
        assertThat(a.status()).isEqualTo(412);
        assertThat(a.body()).contains("cannot be taken down");

        drives().get(0).markOffline("taken away by the test");
        drives().get(1).markOffline("taken away by the test");
        assertThat(request("GET /appliance/health/cluster?maintenance=true", "127.0.0.1")
                        .status())
                .as("without quorum it is plainly down")
                .isEqualTo(503);
    }

    @Test
    void otherMethods_get405_otherProbePaths_404_andTheRestOfTheReservedBucket_403() throws IOException {
        for (String method : List.of("PUT", "POST", "DELETE", "OPTIONS")) {
            Answer a = request(method + " /appliance/health/live", "127.0.0.1");
            assertThat(a.status()).as(method).isEqualTo(405);
            assertThat(a.header("allow")).isEqualTo("GET, HEAD");
            assertThat(a.body()).contains("<Code>MethodNotAllowed</Code>");
        }
        for (String path : List.of("/appliance/health/nope", "/appliance/health", "/appliance/health/live/more")) {
            Answer a = request("GET " + path, "127.0.0.1");
            assertThat(a.status()).as(path).isEqualTo(404);
            assertThat(a.body()).contains("<Code>NoSuchKey</Code>").contains("/appliance/health/live");
        }
        for (String line :
                List.of("GET /appliance", "PUT /appliance", "GET /appliance/key", "GET /appliance?versions")) {
            Answer a = request(line, "127.0.0.1");
            assertThat(a.status()).as(line).isEqualTo(403);
            assertThat(a.body())
                    .contains("<Code>AllAccessDisabled</Code>")
                    .contains("the bucket name appliance is reserved for the health probes");
        }
    }

    @Test
    void virtualHostedRequestsToTheReservedBucket_areRefusedToo() throws IOException {
        Answer create = request("PUT /", "appliance." + DOMAIN);
        assertThat(create.status()).isEqualTo(403);
        assertThat(create.body()).contains("<Code>AllAccessDisabled</Code>");
        // a probe path in another bucket is that bucket's key (and needs a signature like any other)
        Answer key = request("GET /appliance/health/live", "other." + DOMAIN);
        assertThat(key.status()).isEqualTo(403);
        assertThat(key.body()).contains("<Code>AccessDenied</Code>");
    }

    @Test
    void createBucket_appliance_isRefusedWithAClearError() {
        assertThatThrownBy(() -> SERVER.s3().createBucket(b -> b.bucket("appliance")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AllAccessDisabled");
                    assertThat(e.awsErrorDetails().errorMessage()).contains("reserved");
                });
        assertThat(SERVER.s3().listBuckets().buckets()).noneMatch(b -> b.name().equals("appliance"));
    }

    // ---- raw HTTP ------------------------------------------------------------------------------------------------

    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name);
        }
    }

    /** Sends {@code "METHOD target"} with {@code Host: host}, unsigned, and reads the answer to the connection's end. */
    private static Answer request(String requestLine, String host, String... extraHeaders) throws IOException {
        try (Socket s = new Socket("127.0.0.1", SERVER.port())) {
            s.setSoTimeout(10_000);
            StringBuilder req = new StringBuilder(requestLine).append(" HTTP/1.1\r\n");
            req.append("Host: ").append(host).append("\r\nConnection: close\r\n");
            for (String h : extraHeaders) {
                req.append(h).append("\r\n");
            }
            req.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String raw = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = raw.indexOf("\r\n\r\n");
            String[] lines = raw.substring(0, end).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(
                        lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).strip());
            }
            return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers, raw.substring(end + 4));
        }
    }
}
