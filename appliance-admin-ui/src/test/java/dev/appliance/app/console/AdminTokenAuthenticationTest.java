package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditLog;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.identity.User;
import dev.appliance.core.testing.TestStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin bearer tokens authenticate through Spring Security and act within both their owner's policies and their
 * scope: what either denies is refused and changes nothing; a revoked or unknown token is 401 with a challenge; a
 * token cannot mint tokens; its calls are audited under the token's id, never its secret.
 */
class AdminTokenAuthenticationTest {
    private static final String SECRET = "root-secret-for-the-token-auth-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AUDITOR = "arn:aws:iam::aws:policy/auditor";
    private static final String ADMIN = "arn:aws:iam::aws:policy/admin";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.identity().createUser("ops");
        store.identity().attachUserPolicy("ops", ADMIN);
        store.identity().createAccessKey("ops");
        store.identity().createUser("reader");
        store.identity().attachUserPolicy("reader", AUDITOR);
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    /** Creates a token through the API, signed by root; returns {id, secret}. */
    private static String[] token(String name, String owner, String scope) throws Exception {
        String body = "{\"name\":\"" + name + "\",\"owner\":\"" + owner + "\",\"policyArns\":[\"" + scope
                + "\"],\"expiresInDays\":1}";
        HttpResponse<String> r = app.signed("POST", "/api/v1/admin/tokens", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode t = JSON.readTree(r.body());
        return new String[] {t.get("id").asText(), t.get("secret").asText()};
    }

    private static HttpResponse<String> bearer(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.console.port() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return app.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> userNames() {
        return app.store.identity().users().stream().map(User::name).toList();
    }

    @Test
    void aTokenMayDoWhatItsScopeAllows_andNothingMore_withoutACsrfToken() throws Exception {
        String[] t = token("read-only-root", "root", AUDITOR);
        assertThat(bearer("GET", "/api/v1/admin/iam/users", null, t[1]).statusCode())
                .isEqualTo(200);
        List<String> before = userNames();
        HttpResponse<String> write = bearer("POST", "/api/v1/admin/iam/users", "{\"name\":\"intruder\"}", t[1]);
        assertThat(write.statusCode()).as(write.body()).isEqualTo(403);
        assertThat(JSON.readTree(write.body()).get("code").asText()).isEqualTo("AccessDenied");
        assertThat(userNames()).isEqualTo(before);

        String[] admin = token("admin-root", "root", ADMIN);
        HttpResponse<String> made = bearer("POST", "/api/v1/admin/iam/users", "{\"name\":\"made-by-token\"}", admin[1]);
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        assertThat(userNames()).contains("made-by-token");
        // audited under the token, never its secret
        String audit = app.store.auditLog().query(AuditQuery.all(AuditQuery.MAX_LIMIT)).stream()
                .map(AuditLog::toJson)
                .filter(l -> l.contains("made-by-token") || l.contains("admin:POST /api/v1/admin/iam/users"))
                .reduce("", String::concat);
        assertThat(audit).contains("token/" + admin[0]).doesNotContain(admin[1]);
    }

    @Test
    void aTokenNeverExceedsItsOwner_norOutlivesAPolicyChange() throws Exception {
        // reader may only read: an admin-scoped token of theirs still may not write
        String[] t = token("reader-admin-scope", "reader", ADMIN);
        assertThat(bearer("GET", "/api/v1/admin/iam/users", null, t[1]).statusCode())
                .isEqualTo(200);
        HttpResponse<String> write = bearer("POST", "/api/v1/admin/iam/users", "{\"name\":\"by-reader\"}", t[1]);
        assertThat(write.statusCode()).as(write.body()).isEqualTo(403);
        assertThat(userNames()).doesNotContain("by-reader");

        // ops may write until their admin policy goes: the token follows at once
        String[] o = token("ops-admin", "ops", ADMIN);
        assertThat(bearer("GET", "/api/v1/admin/iam/users", null, o[1]).statusCode())
                .isEqualTo(200);
        app.store.identity().detachUserPolicy("ops", ADMIN);
        try {
            assertThat(bearer("GET", "/api/v1/admin/iam/users", null, o[1]).statusCode())
                    .isEqualTo(403);
        } finally {
            app.store.identity().attachUserPolicy("ops", ADMIN);
        }
    }

    @Test
    void aRevokedOrUnknownTokenIsUnauthenticated_andATokenCannotMintTokens() throws Exception {
        String[] t = token("short-lived", "root", ADMIN);
        HttpResponse<String> mint = bearer(
                "POST",
                "/api/v1/admin/tokens",
                "{\"name\":\"child\",\"policyArns\":[\"" + ADMIN + "\"],\"expiresInDays\":365}",
                t[1]);
        assertThat(mint.statusCode()).as(mint.body()).isEqualTo(403);
        assertThat(app.store.identity().adminTokens()).noneMatch(x -> x.name().equals("child"));

        assertThat(app.signed("DELETE", "/api/v1/admin/tokens/" + t[0], null).statusCode())
                .isEqualTo(204);
        HttpResponse<String> revoked = bearer("GET", "/api/v1/admin/iam/users", null, t[1]);
        assertThat(revoked.statusCode()).isEqualTo(401);
        assertThat(revoked.headers().firstValue("WWW-Authenticate"))
                .hasValueSatisfying(h -> assertThat(h).startsWith("Bearer").contains("invalid_token"));
        assertThat(JSON.readTree(revoked.body()).get("code").asText()).isEqualTo("InvalidToken");
        assertThat(bearer("GET", "/api/v1/admin/iam/users", null, "apt_" + "A".repeat(43))
                        .statusCode())
                .isEqualTo(401);
        assertThat(bearer("GET", "/api/v1/admin/iam/users", null, "garbage").statusCode())
                .isEqualTo(401);
    }

    @Test
    void noUserMayBeCalledRoot_itWouldActAsTheRootCredential() {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                        () -> app.store.identity().createUser("Root")))
                .isInstanceOf(IdentityException.class)
                .hasMessageContaining("reserved");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                        () -> app.store.identity().renameUser("reader", "ROOT")))
                .isInstanceOf(IdentityException.class);
    }
}
