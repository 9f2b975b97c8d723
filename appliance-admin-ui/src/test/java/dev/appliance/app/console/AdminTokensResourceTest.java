package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.AdminToken;
import dev.appliance.core.testing.TestStore;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin tokens ({@code /api/v1/admin/tokens}) and the root credential's S3 switch ({@code /api/v1/admin/iam/root})
 * through a real console and S3 port over a real store with its identity state: the secret shown once and never
 * listed, revocation, owners, errors as problems naming the field; root turned off for S3 only once another admin can
 * sign in, refused on the S3 port meanwhile and still accepted by the console, which turns it back on.
 */
class AdminTokensResourceTest {
    private static final String SECRET = "root-secret-for-the-token-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKENS = "/api/v1/admin/tokens";
    private static final String ROOT = "/api/v1/admin/iam/root";
    private static final String IAM = "/api/v1/admin/iam";

    @TempDir
    Path tmp;

    private ConsoleTestAppliance app;

    @BeforeEach
    void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 5);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket("backups");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void aTokenIsCreatedWithItsSecretOnce_listedWithoutIt_resolvesUntilRevoked() throws Exception {
        JsonNode created = ok(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"nightly\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],"
                                + "\"expiresInDays\":7}"),
                201);
        String id = created.get("id").asText();
        String secret = created.get("secret").asText();
        assertThat(secret).matches("apt_[A-Za-z0-9_-]{43}");
        assertThat(created.get("owner").asText()).isEqualTo("root"); // the caller signed with the root key
        assertThat(created.get("name").asText()).isEqualTo("nightly");
        Instant expires = Instant.parse(created.get("expiresAt").asText());
        assertThat(expires)
                .isBetween(Instant.now().plus(Duration.ofDays(6)), Instant.now().plus(Duration.ofDays(8)));
        assertThat(app.store.identity().resolveAdminToken(secret))
                .map(AdminToken::id)
                .contains(id);

        HttpResponse<String> listed = app.signed("GET", TOKENS, null);
        JsonNode tokens = ok(listed, 200);
        assertThat(tokens).hasSize(1);
        assertThat(tokens.get(0).get("id").asText()).isEqualTo(id);
        assertThat(tokens.get(0).get("expired").asBoolean()).isFalse();
        assertThat(tokens.get(0).has("secret")).isFalse();
        assertThat(listed.body()).doesNotContain(secret).doesNotContain(secret.substring(4, 20));

        ok(app.signed("DELETE", TOKENS + "/" + id, null), 204);
        assertThat(app.store.identity().resolveAdminToken(secret)).isEmpty();
        assertThat(ok(app.signed("GET", TOKENS, null), 200)).isEmpty();
        problem(app.signed("DELETE", TOKENS + "/" + id, null), 404, "NoSuchEntity", null);
    }

    @Test
    void badTokenRequests_areProblemsNamingTheField() throws Exception {
        problem(app.signed("POST", TOKENS, "{\"name\":\"t\",\"expiresInDays\":1}"), 400, "InvalidInput", "policyArns");
        problem(
                app.signed(
                        "POST", TOKENS, "{\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],\"expiresInDays\":1}"),
                400,
                "InvalidInput",
                "name");
        problem(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"t\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],\"expiresInDays\":366}"),
                400,
                "InvalidInput",
                "expiresInDays");
        problem(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"t\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],\"expiresAt\":\"soon\"}"),
                400,
                "InvalidInput",
                "expiresAt");
        problem(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"t\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],"
                                + "\"expiresAt\":\"2000-01-01T00:00:00Z\"}"),
                400,
                "InvalidInput",
                "expiresAt");
        JsonNode p = problem(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"t\",\"policyArns\":[\"arn:aws:iam::aws:policy/superuser\"],\"expiresInDays\":1}"),
                404,
                "NoSuchEntity",
                "policyArns");
        assertThat(p.get("detail").asText()).contains("arn:aws:iam::aws:policy/superuser");
        problem(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"t\",\"owner\":\"ghost\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"]}"),
                404,
                "NoSuchEntity",
                "owner");
        assertThat(app.store.identity().adminTokens()).isEmpty();
    }

    @Test
    void anIamUsersTokenIsItsOwn_andItCannotMintOneForRoot() throws Exception {
        var identity = app.store.identity();
        identity.createUser("ops");
        var key = identity.createAccessKey("ops");
        identity.attachUserPolicy("ops", "arn:aws:iam::aws:policy/admin");
        String body = "{\"name\":\"ci\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],\"expiresInDays\":1}";
        JsonNode own = ok(app.sendAs("POST", TOKENS, body, key.key().accessKeyId(), key.secretAccessKey()), 201);
        assertThat(own.get("owner").asText()).isEqualTo("ops");

        String forRoot = "{\"name\":\"x\",\"owner\":\"root\",\"policyArns\":[\"arn:aws:iam::aws:policy/admin\"]}";
        problem(
                app.sendAs("POST", TOKENS, forRoot, key.key().accessKeyId(), key.secretAccessKey()),
                403,
                "AccessDenied",
                "owner");
        // root may create one for the user
        JsonNode byRoot = ok(
                app.signed(
                        "POST",
                        TOKENS,
                        "{\"name\":\"deploy\",\"owner\":\"ops\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"]}"),
                201);
        assertThat(byRoot.get("owner").asText()).isEqualTo("ops");
        assertThat(identity.adminTokens()).extracting(AdminToken::name).containsExactly("ci", "deploy");
    }

    @Test
    void rootIsTurnedOffForS3_onlyOnceAnotherAdminCanSignIn_andTheConsoleTurnsItBackOn() throws Exception {
        JsonNode before = ok(app.signed("GET", ROOT, null), 200);
        assertThat(before.get("s3Enabled").asBoolean()).isTrue();
        assertThat(before.get("adminUserReady").asBoolean()).isFalse();
        JsonNode refused =
                problem(app.signed("PUT", ROOT, "{\"s3Enabled\":false}"), 409, "DeleteConflict", "s3Enabled");
        assertThat(refused.get("detail").asText()).contains("arn:aws:iam::aws:policy/admin");
        problem(app.signed("PUT", ROOT, "{}"), 400, "InvalidInput", "s3Enabled");
        assertThat(app.s3As("GET", "/", null, ConsoleTestAppliance.ACCESS_KEY, SECRET)
                        .statusCode())
                .isEqualTo(200);

        // an admin user with a key, made through the console
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"ops\"}"), 201);
        ok(app.signed("POST", IAM + "/users/ops/policies", "{\"policyArn\":\"arn:aws:iam::aws:policy/admin\"}"), 200);
        JsonNode key = ok(app.signed("POST", IAM + "/users/ops/keys", null), 201);
        String opsKey = key.get("accessKeyId").asText();
        String opsSecret = key.get("secretAccessKey").asText();
        assertThat(ok(app.signed("GET", ROOT, null), 200).get("adminUserReady").asBoolean())
                .isTrue();

        assertThat(ok(app.signed("PUT", ROOT, "{\"s3Enabled\":false}"), 200)
                        .get("s3Enabled")
                        .asBoolean())
                .isFalse();
        HttpResponse<String> rootOnS3 = app.s3As("GET", "/", null, ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(rootOnS3.statusCode()).isEqualTo(403);
        assertThat(rootOnS3.body()).contains("InvalidAccessKeyId");
        HttpResponse<String> opsOnS3 = app.s3As("GET", "/", null, opsKey, opsSecret);
        assertThat(opsOnS3.statusCode()).as(opsOnS3.body()).isEqualTo(200);
        assertThat(opsOnS3.body()).contains("backups");

        // the console still takes the root key: the recovery path
        assertThat(ok(app.signed("GET", ROOT, null), 200).get("s3Enabled").asBoolean())
                .isFalse();
        assertThat(ok(app.signed("PUT", ROOT, "{\"s3Enabled\":true}"), 200)
                        .get("s3Enabled")
                        .asBoolean())
                .isTrue();
        assertThat(app.s3As("GET", "/", null, ConsoleTestAppliance.ACCESS_KEY, SECRET)
                        .statusCode())
                .isEqualTo(200);
    }
}
