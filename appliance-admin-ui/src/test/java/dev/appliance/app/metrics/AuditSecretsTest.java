package dev.appliance.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.app.console.ConsoleApplication;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.SigV4;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After traffic that creates IAM users and access keys and uses them (allowed and refused S3 deletes, IAM changes, an
 * admin mutation), no secret (the root secret, the users' secrets, the metrics token) appears in the drives' audit
 * files, in what the process logged, in the Prometheus scrape or in the audit export, while the audit holds the calls.
 */
class AuditSecretsTest {
    private static final String ROOT_KEY = "AUDITROOTKEY";
    private static final String ROOT_SECRET = "audit-root-secret-AbCdEf0123456789";
    private static final String TOKEN = "audit-scrape-token-zyxwvutsrq9876";

    @TempDir
    Path tmp;

    private HttpClient http;

    @Test
    void noSecretInTheAuditFilesLogsScrapeOrExport() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = System.out;
        PrintStream err = System.err;
        Handler logs = new Handler() {
            @Override
            public void publish(LogRecord r) {
                synchronized (captured) {
                    captured.writeBytes((r.getLoggerName() + " " + r.getMessage() + " " + r.getThrown() + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        // at the levels the process logs at (INFO and up); FINE wire dumps of a debugging container are not its logs
        Logger root = Logger.getLogger("");
        root.addHandler(logs);
        System.setOut(new PrintStream(new Tee(out, captured), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, captured), true, StandardCharsets.UTF_8));
        String userSecret;
        String userKey;
        String secondSecret;
        String scrape;
        String export;
        ApplianceStore store = null;
        S3Server s3 = null;
        ConsoleApplication.Running console = null;
        try {
            byte[] identityKey = new byte[32];
            Arrays.fill(identityKey, (byte) 5);
            store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
            IdentityStore identity = store.identity();
            identity.reserveAccessKeyId(ROOT_KEY);
            var credentials = new AccountCredentials(ROOT_KEY, ROOT_SECRET, identity);
            var authorizer = new PolicyAuthorizer(
                    ROOT_KEY, identity, new UserPolicies(identity, new PolicySetCache(100)), b -> null);
            ApplianceMetrics metrics = ApplianceMetrics.of(store);
            s3 = S3Server.start(store, new S3ServerConfig("127.0.0.1", 0, null, credentials, authorizer), metrics.s3());
            metrics.watch(s3);
            var properties = ServerOptions.parse(
                            List.of("--console-address", "127.0.0.1:0"),
                            Map.of("APPLIANCE_METRICS_TOKEN", TOKEN),
                            Map.of())
                    .properties();
            console = ConsoleApplication.start(properties, store, s3, credentials, authorizer, metrics);
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            int s3Port = s3.port();

            assertThat(send(s3Port, "s3", "PUT", "/repo", "", null, "", ROOT_KEY, ROOT_SECRET)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(send(s3Port, "s3", "PUT", "/repo/a", "", null, "data", ROOT_KEY, ROOT_SECRET)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(iam(s3Port, "Action=CreateUser&UserName=alice").statusCode())
                    .isEqualTo(200);
            HttpResponse<String> created = iam(s3Port, "Action=CreateAccessKey&UserName=alice");
            assertThat(created.statusCode()).isEqualTo(200);
            userKey = xml(created.body(), "AccessKeyId");
            userSecret = xml(created.body(), "SecretAccessKey");
            secondSecret =
                    xml(iam(s3Port, "Action=CreateAccessKey&UserName=alice").body(), "SecretAccessKey");
            // alice uses her key: refused (no policy), with a wrong signature too
            assertThat(send(s3Port, "s3", "DELETE", "/repo/a", "", null, "", userKey, userSecret)
                            .statusCode())
                    .isEqualTo(403);
            assertThat(send(s3Port, "s3", "DELETE", "/repo/a", "", null, "", userKey, userSecret + "x")
                            .statusCode())
                    .isEqualTo(403);
            assertThat(send(s3Port, "s3", "DELETE", "/repo/a", "", null, "", ROOT_KEY, ROOT_SECRET)
                            .statusCode())
                    .isEqualTo(204);
            assertThat(send(
                                    console.port(),
                                    "s3",
                                    "PUT",
                                    "/api/v1/admin/buckets/repo/settings",
                                    "",
                                    "application/json",
                                    "{\"sosapi\":true}",
                                    ROOT_KEY,
                                    ROOT_SECRET)
                            .statusCode())
                    .isEqualTo(200);

            scrape = http.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + console.port() + "/actuator/prometheus"))
                                    .header("Authorization", "Bearer " + TOKEN)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            HttpResponse<String> exported = send(
                    console.port(), "s3", "GET", "/api/v1/admin/audit/export", "", null, "", ROOT_KEY, ROOT_SECRET);
            assertThat(exported.statusCode()).isEqualTo(200);
            export = exported.body();
        } finally {
            if (console != null) {
                console.close();
            }
            if (s3 != null) {
                s3.close();
            }
            if (store != null) {
                store.close();
            }
            System.setOut(out);
            System.setErr(err);
            root.removeHandler(logs);
        }
        StringBuilder auditFiles = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            Path dir = TestStore.on(tmp).drive(i).resolve(LocalDrive.SYS_DIR).resolve("audit");
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    auditFiles.append(Files.readString(f));
                }
            }
        }
        // the audit holds the traffic: not vacuous
        assertThat(auditFiles.toString())
                .contains("iam:CreateUser", "iam:CreateAccessKey", userKey + " (alice)", "\"outcome\":\"denied\"")
                .contains("admin:PUT /api/v1/admin/buckets/repo/settings");
        assertThat(export).contains("iam:CreateAccessKey").contains("s3:DeleteObject");
        assertThat(scrape).contains("appliance_s3_requests_total");
        String logged = captured.toString(StandardCharsets.UTF_8);
        for (String secret : List.of(ROOT_SECRET, userSecret, secondSecret, TOKEN)) {
            assertThat(auditFiles.toString()).as("audit files").doesNotContain(secret);
            assertThat(export).as("export").doesNotContain(secret);
            assertThat(scrape).as("scrape").doesNotContain(secret);
            assertThat(logged).as("logs").doesNotContain(secret);
        }
        assertThat(auditFiles.toString()).doesNotContain("Signature=").doesNotContain(SigV4.ALGORITHM);
    }

    private HttpResponse<String> iam(int port, String form) throws Exception {
        return send(
                port,
                "iam",
                "POST",
                "/",
                "",
                "application/x-www-form-urlencoded",
                form + "&Version=2010-05-08",
                ROOT_KEY,
                ROOT_SECRET);
    }

    private static String xml(String body, String element) {
        Matcher m =
                Pattern.compile("<" + element + ">([^<]+)</" + element + ">").matcher(body);
        assertThat(m.find()).as(body).isTrue();
        return m.group(1);
    }

    /** One request SigV4-signed for {@code service}, the content type (when given) signed too. */
    private HttpResponse<String> send(
            int port,
            String service,
            String method,
            String path,
            String query,
            String contentType,
            String body,
            String key,
            String secret)
            throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        String payload = SigV4.sha256Hex(bytes);
        TreeMap<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of("127.0.0.1:" + port));
        headers.put("x-amz-content-sha256", List.of(payload));
        headers.put("x-amz-date", List.of(amzDate));
        if (contentType != null) {
            headers.put("content-type", List.of(contentType));
        }
        List<String> signed = List.copyOf(headers.keySet());
        String scope = SigV4.scope(date, S3ServerConfig.DEFAULT_REGION, service);
        String signature = SigV4.signature(
                SigV4.signingKey(secret, date, S3ServerConfig.DEFAULT_REGION, service),
                SigV4.stringToSign(
                        amzDate, scope, SigV4.canonicalRequest(method, path, query, signed, headers, payload)));
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + path + (query.isEmpty() ? "" : "?" + query)))
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes))
                .header("x-amz-content-sha256", payload)
                .header("x-amz-date", amzDate)
                .header(
                        "Authorization",
                        SigV4.ALGORITHM + " Credential=" + key + "/" + scope + ", SignedHeaders="
                                + String.join(";", signed) + ", Signature=" + signature);
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Writes to the original stream and to the capture. */
    private static final class Tee extends OutputStream {
        private final OutputStream original;
        private final ByteArrayOutputStream capture;

        Tee(OutputStream original, ByteArrayOutputStream capture) {
            this.original = original;
            this.capture = capture;
        }

        @Override
        public void write(int b) {
            synchronized (capture) {
                capture.write(b);
            }
            try {
                original.write(b);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (capture) {
                capture.write(b, off, len);
            }
            try {
                original.write(b, off, len);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
