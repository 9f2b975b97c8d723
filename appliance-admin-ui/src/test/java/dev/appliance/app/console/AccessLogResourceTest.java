package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.appliance.app.logging.ServiceLogging;
import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.SigV4;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 access log's switch ({@code GET|PUT /api/v1/admin/logging/access-log}) through a real console over real
 * drives, with the process's own logging writing {@code access.log} into a log directory: deny by default, one line
 * per S3 request while on (its fields, and no secret even for a presigned URL), none while off.
 */
class AccessLogResourceTest {
    private static final String SECRET = "root-secret-for-the-access-log-test";
    private static final String PATH = "/api/v1/admin/logging/access-log";
    private static final String CONTENT = "hello access log";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static Path accessLog;
    private static String auditorKey;
    private static String auditorSecret;

    @BeforeAll
    static void start() throws Exception {
        Path logs = tmp.resolve("logs");
        ServiceLogging.configure(new ServiceLogging.Settings(logs, 1 << 20, 2, Duration.ZERO));
        accessLog = logs.resolve("access.log");
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        ApplianceStore store =
                Stores.open(TestStore.on(tmp.resolve("drives")).config().withIdentityKey(identityKey));
        store.makeBucket("bkt");
        byte[] data = CONTENT.getBytes(StandardCharsets.UTF_8);
        store.putObject("bkt", "dir/k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
        var identity = app.store.identity();
        identity.createUser("watcher");
        var key = identity.createAccessKey("watcher");
        identity.attachUserPolicy("watcher", "arn:aws:iam::aws:policy/auditor"); // reads, no UpdateLogging
        auditorKey = key.key().accessKeyId();
        auditorSecret = key.secretAccessKey();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        ServiceLogging.stop();
        // the next test classes' consoles set their logging up as Spring Boot does
        System.clearProperty("org.springframework.boot.logging.LoggingSystem");
    }

    @Test
    void theSwitchIsRefusedToAnonymousCallers_andToAUserWithoutTheAction() throws Exception {
        assertThat(app.send("GET", PATH, null, null).statusCode()).isEqualTo(401);
        assertThat(app.send("PUT", PATH, "{\"enabled\":true}", null).statusCode())
                .isEqualTo(401);
        assertThat(app.sendAs("PUT", PATH, "{\"enabled\":true}", auditorKey, auditorSecret)
                        .statusCode())
                .isEqualTo(403);
        // the auditor may see it (admin:GetLogging is a read); it stayed off
        JsonNode seen = ok(app.sendAs("GET", PATH, null, auditorKey, auditorSecret), 200);
        assertThat(seen.get("enabled").asBoolean()).isFalse();
        assertThat(app.s3.accessLog().enabled()).isFalse();
        problem(app.signed("PUT", PATH, "{}"), 400, "InvalidInput", "enabled");
    }

    @Test
    void switchedOn_eachS3RequestIsOneLineWithoutSecrets_switchedOff_noLine() throws Exception {
        assertThat(ok(app.signed("GET", PATH, null), 200).get("enabled").asBoolean())
                .as("off by default")
                .isFalse();
        JsonNode on = ok(app.signed("PUT", PATH, "{\"enabled\":true}"), 200);
        assertThat(on.get("enabled").asBoolean()).isTrue();

        // a presigned GET: its signature and credential scope are in the query, and must stay out of the log
        String presigned = presign("GET", "/bkt/dir/k", 300);
        String signature = presigned.substring(presigned.indexOf("X-Amz-Signature=") + "X-Amz-Signature=".length());
        HttpResponse<String> got = app.http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.s3.port() + presigned))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(got.statusCode()).as(got.body()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(CONTENT);
        String getId = requestId(got);

        HttpResponse<String> missing =
                app.s3As("GET", "/bkt/no-such-key", null, ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(missing.statusCode()).isEqualTo(404);
        String missingId = requestId(missing);

        List<String> getLines = awaitLines(getId);
        assertThat(getLines).hasSize(1);
        String line = getLines.getFirst();
        assertThat(line)
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z remote=127\\.0\\.0\\.1 .*")
                .contains(" user=" + ConsoleTestAppliance.ACCESS_KEY + " ")
                .contains(" method=GET bucket=bkt key=dir/k status=200 in=0 out=" + CONTENT.length() + " ms=")
                .contains(" id=" + getId + " error=-")
                .doesNotContain(signature)
                .doesNotContain("X-Amz")
                .doesNotContain("Signature")
                .doesNotContain("aws4_request")
                .doesNotContain(SECRET)
                .doesNotContain(CONTENT);
        assertThat(awaitLines(missingId))
                .singleElement()
                .asString()
                .contains(" method=GET bucket=bkt key=no-such-key status=404 ")
                .endsWith(" id=" + missingId + " error=NoSuchKey");

        // refused signatures: the key a wrong secret signed with is named; a key id this server does not know (perhaps
        // a secret sent in its place) is cut short, as the audit log names it
        HttpResponse<String> wrongSecret =
                app.s3As("GET", "/bkt/dir/k", null, ConsoleTestAppliance.ACCESS_KEY, "not-the-secret");
        assertThat(wrongSecret.statusCode()).isEqualTo(403);
        assertThat(awaitLines(requestId(wrongSecret)))
                .singleElement()
                .asString()
                .contains(" user=" + ConsoleTestAppliance.ACCESS_KEY + " method=GET bucket=bkt key=dir/k status=403 ")
                .endsWith(" error=SignatureDoesNotMatch")
                .doesNotContain("not-the-secret");
        String secretLike = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY";
        HttpResponse<String> unknownKey = app.s3As("GET", "/bkt/dir/k", null, secretLike, "whatever");
        assertThat(unknownKey.statusCode()).isEqualTo(403);
        assertThat(awaitLines(requestId(unknownKey)))
                .singleElement()
                .asString()
                .contains(" user=\"wJal*** (unknown key)\" ")
                .endsWith(" error=InvalidAccessKeyId")
                .doesNotContain(secretLike);

        JsonNode off = ok(app.signed("PUT", PATH, "{\"enabled\":false}"), 200);
        assertThat(off.get("enabled").asBoolean()).isFalse();
        assertThat(off.get("written").asLong()).isGreaterThanOrEqualTo(4);
        assertThat(off.get("dropped").asLong()).isZero();
        HttpResponse<String> whileOff = app.s3As("GET", "/bkt/dir/k", null, ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(whileOff.statusCode()).isEqualTo(200);
        String offId = requestId(whileOff);
        // on again: the log is one queue, so once a later request's line is written an earlier one would be too
        ok(app.signed("PUT", PATH, "{\"enabled\":true}"), 200);
        HttpResponse<String> after = app.s3As("GET", "/bkt/dir/k", null, ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(awaitLines(requestId(after))).hasSize(1);
        assertThat(Files.readString(accessLog)).doesNotContain(offId);
        ok(app.signed("PUT", PATH, "{\"enabled\":false}"), 200);

        // each switch is an audited admin mutation
        String since =
                "?from=" + URLEncoder.encode(Instant.now().minusSeconds(600).toString(), StandardCharsets.UTF_8);
        JsonNode audit = ok(app.signed("GET", "/api/v1/admin/audit" + since + "&action=admin:", null), 200);
        List<String> actions = new java.util.ArrayList<>();
        audit.get("events").forEach(e -> actions.add(e.get("action").asText()));
        assertThat(actions).contains("admin:PUT " + PATH);
    }

    private static String requestId(HttpResponse<?> r) {
        return r.headers().firstValue("x-amz-request-id").orElseThrow();
    }

    /** The access log's lines naming {@code requestId}, once there is one (the log is written by its own thread). */
    private static List<String> awaitLines(String requestId) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            List<String> lines = Files.exists(accessLog)
                    ? Files.readAllLines(accessLog).stream()
                            .filter(l -> l.contains(" id=" + requestId + " "))
                            .toList()
                    : List.of();
            if (!lines.isEmpty() || System.nanoTime() > deadline) {
                return lines;
            }
            Thread.sleep(20); // waits for the writer thread; no clock is moved
        }
    }

    /** A presigned URL (path and query) for the root key, as SDKs make them: the signature last in the query. */
    private static String presign(String method, String path, int expiresSeconds) {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        String region = S3ServerConfig.DEFAULT_REGION;
        String query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + ConsoleTestAppliance.ACCESS_KEY + "%2F"
                + date + "%2F" + region + "%2Fs3%2Faws4_request&X-Amz-Date=" + amzDate + "&X-Amz-Expires="
                + expiresSeconds + "&X-Amz-SignedHeaders=host";
        TreeMap<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of("127.0.0.1:" + app.s3.port()));
        String signature =
                SigV4.sign(SECRET, date, region, amzDate, method, path, query, headers, SigV4.UNSIGNED_PAYLOAD);
        return path + "?" + query + "&X-Amz-Signature=" + signature;
    }
}
