package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.MovableClock;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditLog;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.AccessKey;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.testing.TestStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Console sessions through Spring Security, as a browser holds them: a CSRF token first, a login with a key and its
 * secret, an HttpOnly SameSite=Strict session cookie under a new id, every state-changing request echoing the token,
 * lockout after repeated failures (on an injected clock), logout; and a session acts with its key, so disabling the
 * key takes its rights away at once.
 */
class SessionCookieTest {
    private static final String SECRET = "root-secret-for-the-session-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MovableClock CLOCK = new MovableClock();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static NewAccessKey adminKey;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 5);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket("bkt");
        store.identity().createUser("ops");
        store.identity().attachUserPolicy("ops", "arn:aws:iam::aws:policy/admin");
        adminKey = store.identity().createAccessKey("ops");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET, c -> ((GenericApplicationContext) c)
                .registerBean("consoleClock", Clock.class, () -> CLOCK));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    /** A browser's cookie jar, kept by hand so that the cookies' attributes can be checked. */
    private static final class Browser {
        final Map<String, String> cookies = new LinkedHashMap<>();
        final Map<String, String> attributes = new LinkedHashMap<>();

        HttpResponse<String> send(String method, String path, String body, boolean echoCsrf) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.console.port() + path))
                    .timeout(Duration.ofSeconds(30))
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            if (body != null) {
                b.header("Content-Type", "application/json");
            }
            if (!cookies.isEmpty()) {
                b.header(
                        "Cookie",
                        String.join(
                                "; ",
                                cookies.entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue())
                                        .toList()));
            }
            if (echoCsrf && cookies.containsKey("XSRF-TOKEN")) {
                b.header("X-XSRF-TOKEN", cookies.get("XSRF-TOKEN"));
            }
            HttpResponse<String> r = app.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            for (String set : r.headers().allValues("Set-Cookie")) {
                String pair = set.split(";", 2)[0];
                String name = pair.substring(0, pair.indexOf('='));
                String value = pair.substring(pair.indexOf('=') + 1);
                if (value.isEmpty() || set.contains("Max-Age=0")) {
                    cookies.remove(name);
                } else {
                    cookies.put(name, value);
                }
                attributes.put(name, set);
            }
            return r;
        }

        HttpResponse<String> login(String accessKey, String secret) throws Exception {
            if (!cookies.containsKey("XSRF-TOKEN")) {
                send("GET", "/api/v1/session/csrf", null, false);
            }
            return send(
                    "POST",
                    "/api/v1/session",
                    "{\"accessKey\":\"" + accessKey + "\",\"secretKey\":\"" + secret + "\"}",
                    true);
        }
    }

    @Test
    void aBrowserLogsInWithTheCsrfTokenUsesTheSessionAndLogsOut() throws Exception {
        Browser browser = new Browser();
        HttpResponse<String> csrf = browser.send("GET", "/api/v1/session/csrf", null, false);
        assertThat(csrf.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(csrf.body()).get("headerName").asText()).isEqualTo("X-XSRF-TOKEN");
        assertThat(browser.cookies).containsKey("XSRF-TOKEN");
        assertThat(browser.attributes.get("XSRF-TOKEN")).contains("SameSite=Strict");

        // the login itself needs the token: another site cannot log a browser in
        HttpResponse<String> forged = browser.send(
                "POST",
                "/api/v1/session",
                "{\"accessKey\":\"" + ConsoleTestAppliance.ACCESS_KEY + "\",\"secretKey\":\"" + SECRET + "\"}",
                false);
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(JSON.readTree(forged.body()).get("code").asText()).isEqualTo("InvalidCsrfToken");
        assertThat(browser.cookies).doesNotContainKey(ConsoleSecurity.SESSION_COOKIE);

        String before = browser.cookies.get("XSRF-TOKEN");
        HttpResponse<String> login = browser.login(ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
        // a new token comes with the login, ready for the page's next change
        assertThat(browser.cookies.get("XSRF-TOKEN")).isNotBlank().isNotEqualTo(before);
        assertThat(JSON.readTree(login.body()).get("name").asText()).isEqualTo(AdminPrincipal.ROOT);
        String session = browser.attributes.get(ConsoleSecurity.SESSION_COOKIE);
        assertThat(session).contains("HttpOnly").contains("SameSite=Strict");
        assertThat(login.body()).doesNotContain(SECRET);

        HttpResponse<String> me = browser.send("GET", "/api/v1/session", null, false);
        assertThat(JSON.readTree(me.body()).get("via").asText()).isEqualTo("session");
        assertThat(browser.send("GET", "/api/v1/admin/iam/users", null, false).statusCode())
                .isEqualTo(200);

        // a state change rides on the cookie only with the token echoed
        String body = "{\"quotaBytes\":4096}";
        HttpResponse<String> withToken = browser.send("PUT", "/api/v1/admin/buckets/bkt/settings", body, true);
        assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(200);
        assertThat(app.store.bucketSettings("bkt").quotaBytes()).isEqualTo(4096L);
        HttpResponse<String> noToken =
                browser.send("PUT", "/api/v1/admin/buckets/bkt/settings", "{\"quotaBytes\":1}", false);
        assertThat(noToken.statusCode()).isEqualTo(403);
        assertThat(app.store.bucketSettings("bkt").quotaBytes()).isEqualTo(4096L);

        assertThat(browser.send("DELETE", "/api/v1/session", null, true).statusCode())
                .isEqualTo(204);
        assertThat(browser.send("GET", "/api/v1/admin/iam/users", null, false).statusCode())
                .isEqualTo(401);
    }

    @Test
    void theSessionIdChangesAtLogin() throws Exception {
        Browser browser = new Browser();
        assertThat(browser.login(ConsoleTestAppliance.ACCESS_KEY, SECRET).statusCode())
                .isEqualTo(200);
        String first = browser.cookies.get(ConsoleSecurity.SESSION_COOKIE);
        assertThat(browser.login(ConsoleTestAppliance.ACCESS_KEY, SECRET).statusCode())
                .isEqualTo(200);
        String second = browser.cookies.get(ConsoleSecurity.SESSION_COOKIE);
        assertThat(second).isNotNull().isNotEqualTo(first);
        // the old id is dead: a fixated or stolen id from before the login gets nothing
        Browser stale = new Browser();
        stale.cookies.put(ConsoleSecurity.SESSION_COOKIE, first);
        assertThat(stale.send("GET", "/api/v1/admin/iam/users", null, false).statusCode())
                .isEqualTo(401);
    }

    @Test
    void aSessionActsWithItsKey_disablingTheKeyTakesItsRightsAwayAtOnce() throws Exception {
        NewAccessKey key = app.store.identity().createAccessKey("ops");
        try {
            Browser browser = new Browser();
            HttpResponse<String> login = browser.login(key.key().accessKeyId(), key.secretAccessKey());
            assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
            assertThat(JSON.readTree(login.body()).get("name").asText()).isEqualTo("ops");
            assertThat(browser.send("GET", "/api/v1/admin/iam/users", null, false)
                            .statusCode())
                    .isEqualTo(200);
            app.store.identity().updateAccessKey("ops", key.key().accessKeyId(), AccessKey.Status.Inactive);
            assertThat(browser.send("GET", "/api/v1/admin/iam/users", null, false)
                            .statusCode())
                    .isEqualTo(403);
        } finally {
            app.store.identity().deleteAccessKey("ops", key.key().accessKeyId());
        }
    }

    @Test
    void repeatedFailuresLockTheKeyOut_evenWithTheRightSecret_untilTheLockoutEnds() throws Exception {
        Browser browser = new Browser();
        String keyId = adminKey.key().accessKeyId();
        for (int i = 0; i < LoginThrottle.MAX_FAILURES; i++) {
            HttpResponse<String> wrong = browser.login(keyId, "wrong-" + i);
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(JSON.readTree(wrong.body()).get("code").asText()).isEqualTo("InvalidCredentials");
        }
        HttpResponse<String> locked = browser.login(keyId, adminKey.secretAccessKey());
        assertThat(locked.statusCode()).as(locked.body()).isEqualTo(429);
        JsonNode problem = JSON.readTree(locked.body());
        assertThat(problem.get("code").asText()).isEqualTo("LockedOut");
        assertThat(locked.headers().firstValue("Retry-After")).isPresent();
        assertThat(browser.cookies).doesNotContainKey(ConsoleSecurity.SESSION_COOKIE);
        // the address is locked too: another key from it waits as well
        assertThat(browser.login(ConsoleTestAppliance.ACCESS_KEY, SECRET).statusCode())
                .isEqualTo(429);

        // the clock only moves forward: the other tests log in later than this lockout too
        CLOCK.offset = CLOCK.offset.plus(LoginThrottle.LOCKOUT).plusSeconds(1);
        HttpResponse<String> after = browser.login(keyId, adminKey.secretAccessKey());
        assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
        // the attempts are in the audit log under the key they claimed, never with a secret
        List<String> lines = app.store.auditLog().query(AuditQuery.all(AuditQuery.MAX_LIMIT)).stream()
                .map(AuditLog::toJson)
                .filter(l -> l.contains("/api/v1/session"))
                .toList();
        assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l).doesNotContain(adminKey.secretAccessKey()));
        assertThat(String.join("\n", lines)).contains(keyId);
    }
}
