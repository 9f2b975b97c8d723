package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The admin API's three ways in, against the packaged appliance with curl, as docs/admin-api.md shows them: a console
 * session (CSRF token, login, cookie, logout, lockout), an admin token made in that session (scoped, used as a
 * bearer, revoked), and the Veeam bucket preset made through the session whose key then writes a locked object with
 * the AWS SDK. Swagger UI opens in the session. Repeated wrong logins lock the address out, even for the right
 * secret.
 */
class AdminSessionIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROOT = "session-it-admin";
    private static final String SECRET = "session-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET))
                .start();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    record Answer(int status, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    /** A browser, played by curl with a cookie jar. */
    private static final class Browser {
        final Path jar;

        Browser(String name) {
            jar = tmp.resolve(name + "-cookies.txt");
        }

        Answer curl(String method, String path, String json, boolean csrf, String... extra) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(
                    "curl", "-sS", "-b", jar.toString(), "-c", jar.toString(), "-o", "-", "-w", "\n%{http_code}"));
            cmd.addAll(List.of("-X", method, appliance.consoleUri() + path));
            if (csrf) {
                cmd.addAll(List.of("-H", "X-XSRF-TOKEN: " + cookie("XSRF-TOKEN")));
            }
            if (json != null) {
                Path body = Files.writeString(tmp.resolve("body-" + UUID.randomUUID() + ".json"), json);
                cmd.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", "@" + body));
            }
            cmd.addAll(List.of(extra));
            Commands.Result r = Commands.run(tmp, cmd, Map.of(), 30);
            assertThat(r.status()).as(r.stderr()).isZero();
            String out = r.stdout();
            int nl = out.lastIndexOf('\n');
            return new Answer(Integer.parseInt(out.substring(nl + 1).strip()), out.substring(0, Math.max(0, nl)));
        }

        /** A cookie's value from curl's jar (Netscape format: the name is the 6th field, the value the 7th). */
        String cookie(String name) throws IOException {
            if (!Files.exists(jar)) {
                return "";
            }
            for (String line : Files.readAllLines(jar)) {
                String[] f = line.split("\t");
                if (f.length == 7 && f[5].equals(name)) {
                    return f[6];
                }
            }
            return "";
        }

        Answer login(String key, String secret) throws IOException {
            curl("GET", "/api/v1/session/csrf", null, false);
            return curl(
                    "POST",
                    "/api/v1/session",
                    "{\"accessKey\":\"" + key + "\",\"secretKey\":\"" + secret + "\"}",
                    true);
        }
    }

    @Test
    void aSessionMakesATokenAndAVeeamBucket_andTheirCredentialsWork() throws Exception {
        Browser browser = new Browser("admin");
        Answer login = browser.login(ROOT, SECRET);
        assertThat(login.status()).as(login.body()).isEqualTo(200);
        assertThat(login.json().get("name").asText()).isEqualTo("root");
        assertThat(Files.readString(browser.jar)).contains("#HttpOnly_").contains("APPLIANCE_SESSION");

        // a change without the CSRF token is refused; with it, it works
        String preset = "{\"name\":\"vbr-session\",\"preset\":\"veeam\",\"user\":{\"name\":\"vbr-session\"}}";
        assertThat(browser.curl("POST", "/api/v1/admin/buckets", preset, false).status())
                .isEqualTo(403);
        Answer made = browser.curl("POST", "/api/v1/admin/buckets", preset, true);
        assertThat(made.status()).as(made.body()).isEqualTo(201);
        JsonNode veeam = made.json();
        String key = veeam.findValue("accessKeyId").asText();
        String secret = veeam.findValue("secretAccessKey").asText();
        try (S3Client s3 = appliance.client(key, secret, b -> {})) {
            s3.putObject(
                    r -> r.bucket("vbr-session")
                            .key("Veeam/Backup/blocks/0001")
                            .objectLockMode(ObjectLockMode.COMPLIANCE)
                            .objectLockRetainUntilDate(Instant.now().plus(1, ChronoUnit.DAYS)),
                    RequestBody.fromString("block"));
            assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(
                                    S3Exception.class, () -> s3.deleteBucket(r -> r.bucket("vbr-session")))
                            .statusCode())
                    .isEqualTo(403);
        }
        Answer delete = browser.curl("DELETE", "/api/v1/admin/buckets/vbr-session", null, true);
        assertThat(delete.status()).isEqualTo(409);
        assertThat(delete.json().get("code").asText()).isEqualTo("BucketHasLockedVersions");

        // an auditor-scoped token made in the session reads, and may not write
        Answer token = browser.curl(
                "POST",
                "/api/v1/admin/tokens",
                "{\"name\":\"ci\",\"policyArns\":[\"arn:aws:iam::aws:policy/auditor\"],\"expiresInDays\":1}",
                true);
        assertThat(token.status()).as(token.body()).isEqualTo(201);
        String bearer = "Authorization: Bearer " + token.json().get("secret").asText();
        Browser script = new Browser("script");
        assertThat(script.curl("GET", "/api/v1/admin/buckets", null, false, "-H", bearer)
                        .status())
                .isEqualTo(200);
        assertThat(script.curl("POST", "/api/v1/admin/iam/users", "{\"name\":\"by-token\"}", false, "-H", bearer)
                        .status())
                .isEqualTo(403);
        assertThat(browser.curl(
                                "DELETE",
                                "/api/v1/admin/tokens/" + token.json().get("id").asText(),
                                null,
                                true)
                        .status())
                .isEqualTo(204);
        assertThat(script.curl("GET", "/api/v1/admin/buckets", null, false, "-H", bearer)
                        .status())
                .isEqualTo(401);

        // Swagger UI and the document open in the session
        assertThat(browser.curl("GET", "/swagger-ui/index.html", null, false).status())
                .isEqualTo(200);
        assertThat(browser.curl("GET", "/v3/api-docs", null, false).body()).contains("/api/v1/admin/buckets");

        assertThat(browser.curl("DELETE", "/api/v1/session", null, true).status())
                .isEqualTo(204);
        assertThat(browser.curl("GET", "/api/v1/admin/buckets", null, false).status())
                .isEqualTo(401);

        // last, since it locks this address out for a quarter of an hour: repeated wrong logins
        Browser guesser = new Browser("guesser");
        for (int i = 0; i < 5; i++) {
            assertThat(guesser.login("nobody-" + i, "wrong").status()).isEqualTo(401);
        }
        Answer locked = guesser.login(ROOT, SECRET);
        assertThat(locked.status()).as(locked.body()).isEqualTo(429);
        assertThat(locked.body()).doesNotContain(SECRET);
    }
}
