package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.testing.TestStore;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * Every route the running console maps, read from Spring's handler mapping rather than listed by hand, refuses an
 * anonymous request and one signed by an IAM user without a policy, and neither changes anything: a new controller
 * cannot be reachable without passing {@link AdminAuthorization}.
 */
class AdminRoutesGuardTest {
    private static final String SECRET = "root-secret-for-the-guard-test";
    /** The routes documented as public (docs/operations.md): anonymous callers get them, signed ones are checked. */
    private static final Set<String> PUBLIC =
            Set.of("GET /api/v1/status", "GET /actuator/health", "GET /api/v1/session/csrf");
    /**
     * Who am I and log out: any authenticated caller, policy or not (SessionCookieTest). Logging in is open to
     * anyone but needs a CSRF token (refused here without one) and a key with its secret (400 here).
     */
    private static final Set<String> SELF = Set.of("GET /api/v1/session", "DELETE /api/v1/session");
    /** Answers its own bearer token only (ScrapeDeniedByDefaultTest): a SigV4 signature is refused with 401 or 403. */
    private static final String SCRAPE = "GET /actuator/prometheus";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static NewAccessKey unprivileged;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 9);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket("bkt");
        store.identity().createUser("nobody");
        unprivileged = store.identity().createAccessKey("nobody");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    /** {@code METHOD path} of every mapped route, path variables filled with a dummy value. */
    private static List<String> routes() {
        Set<String> out = new TreeSet<>();
        // the controllers' mapping and Actuator's endpoint mappings
        for (RequestMappingInfoHandlerMapping mapping : app.console
                .context()
                .getBeansOfType(RequestMappingInfoHandlerMapping.class)
                .values()) {
            for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
                Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
                List<RequestMethod> each = methods.isEmpty()
                        ? List.of(RequestMethod.GET, RequestMethod.POST, RequestMethod.PUT, RequestMethod.DELETE)
                        : new ArrayList<>(methods);
                for (String pattern :
                        info.getDirectPaths().isEmpty() ? info.getPatternValues() : info.getDirectPaths()) {
                    String path = pattern.replaceAll("\\{[^}/]*}", "dummy1");
                    for (RequestMethod m : each) {
                        out.add(m.name() + " " + path);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private static String state() {
        IdentityStore identity = app.store.identity();
        return identity.users() + " " + identity.policies() + " " + identity.accessKeys("nobody") + " "
                + app.store.listBuckets().stream().map(BucketInfo::name).toList() + " "
                + app.store.bucketSettings("bkt");
    }

    private static HttpResponse<String> call(String route, String accessKey, String secret) throws Exception {
        int space = route.indexOf(' ');
        String method = route.substring(0, space);
        String body = method.equals("POST") || method.equals("PUT") ? "{\"name\":\"intruder\",\"enabled\":true}" : null;
        return accessKey == null
                ? app.send(method, route.substring(space + 1), body, null)
                : app.sendAs(method, route.substring(space + 1), body, accessKey, secret);
    }

    @Test
    void everyMappedRouteRefusesAnonymousAndUnprivilegedCallersAndChangesNothing() throws Exception {
        List<String> routes = routes();
        assertThat(routes)
                .contains(
                        "POST /api/v1/admin/iam/users",
                        "DELETE /api/v1/admin/iam/users/dummy1",
                        "PUT /api/v1/admin/buckets/dummy1/settings",
                        "GET /api/v1/status",
                        "GET /actuator/health",
                        // springdoc's document and Swagger UI's config are routes of the same mapping: walked too
                        "GET /v3/api-docs",
                        "GET /v3/api-docs/swagger-config",
                        "GET /api/v1/admin/drives",
                        "GET /api/v1/admin/config",
                        SCRAPE);
        String before = state();
        List<String> leaks = new ArrayList<>();
        for (String route : routes) {
            HttpResponse<String> anonymous = call(route, null, null);
            boolean isPublic = PUBLIC.contains(route);
            if (!isPublic && anonymous.statusCode() != 401 && anonymous.statusCode() != 403) {
                leaks.add("anonymous " + route + " -> " + anonymous.statusCode() + " " + anonymous.body());
            }
            if (SELF.contains(route) && anonymous.statusCode() != 401 && anonymous.statusCode() != 403) {
                leaks.add("anonymous " + route + " -> " + anonymous.statusCode() + " " + anonymous.body());
            }
            HttpResponse<String> user = call(route, unprivileged.key().accessKeyId(), unprivileged.secretAccessKey());
            boolean refused = user.statusCode() == 403
                    || (route.equals(SCRAPE) && user.statusCode() == 401)
                    || (route.equals("POST /api/v1/session") && user.statusCode() == 400)
                    || SELF.contains(route)
                    || route.equals("GET /api/v1/session/csrf");
            if (!refused) {
                leaks.add("no-policy user " + route + " -> " + user.statusCode() + " " + user.body());
            }
        }
        assertThat(leaks).isEmpty();
        assertThat(state()).isEqualTo(before);
        // the root key still gets through: the refusals above are the guard, not a broken route
        assertThat(app.signed("GET", "/api/v1/admin/iam/users", null).statusCode())
                .isEqualTo(200);
    }

    /** Routes that name no appliance action on purpose: public, the session's own, or test-only (admin:* alone). */
    private static final Set<String> UNNAMED = Set.of(
            "GET /api/v1/status",
            "GET /api/v1/session",
            "POST /api/v1/session",
            "DELETE /api/v1/session",
            "GET /api/v1/session/csrf",
            "GET /api/v1/admin/test/faults",
            "PUT /api/v1/admin/test/faults/{drive}",
            "DELETE /api/v1/admin/test/faults/{drive}",
            "DELETE /api/v1/admin/test/faults");

    @Test
    void everyAdminControllerRouteNamesTheActionsPoliciesGrant() {
        List<String> unnamed = new ArrayList<>();
        for (var e : app.console
                .context()
                .getBean("requestMappingHandlerMapping", RequestMappingInfoHandlerMapping.class)
                .getHandlerMethods()
                .entrySet()) {
            if (!e.getValue().getBeanType().getPackageName().equals(AdminRoutesGuardTest.class.getPackageName())
                    || e.getValue().hasMethodAnnotation(AdminOperation.class)
                    // the object browser's routes name the S3 actions they are decided as
                    || e.getValue().hasMethodAnnotation(ObjectAccess.class)) {
                continue;
            }
            for (RequestMethod m : e.getKey().getMethodsCondition().getMethods()) {
                for (String path : e.getKey().getPatternValues()) {
                    if (!UNNAMED.contains(m.name() + " " + path)) {
                        unnamed.add(m.name() + " " + path);
                    }
                }
            }
        }
        assertThat(unnamed).isEmpty();
    }

    @Test
    void anAuditorReadsEveryNamedRoute_andChangesNothing() throws Exception {
        IdentityStore identity = app.store.identity();
        if (identity.findUser("watcher").isEmpty()) {
            identity.createUser("watcher");
            identity.attachUserPolicy("watcher", "arn:aws:iam::aws:policy/auditor");
        }
        NewAccessKey key = identity.createAccessKey("watcher");
        try {
            String before = state();
            for (String route : List.of(
                    "GET /api/v1/admin/iam/users",
                    "GET /api/v1/admin/iam/policies",
                    "GET /api/v1/admin/buckets",
                    "GET /api/v1/admin/drives",
                    "GET /api/v1/admin/audit",
                    "GET /api/v1/admin/config",
                    "GET /api/v1/admin/tokens",
                    "GET /api/v1/health/checks")) {
                assertThat(call(route, key.key().accessKeyId(), key.secretAccessKey())
                                .statusCode())
                        .as(route)
                        .isEqualTo(200);
            }
            for (String route : List.of(
                    "POST /api/v1/admin/iam/users",
                    "POST /api/v1/admin/iam/users/nobody/keys",
                    "POST /api/v1/admin/tokens",
                    "PUT /api/v1/admin/buckets/bkt/settings",
                    "POST /api/v1/health/checks/run",
                    "GET /api/v1/admin/test/faults")) {
                assertThat(call(route, key.key().accessKeyId(), key.secretAccessKey())
                                .statusCode())
                        .as(route)
                        .isEqualTo(403);
            }
            assertThat(state())
                    .isEqualTo(
                            before.replace(" " + identity.accessKeys("nobody"), " " + identity.accessKeys("nobody")));
        } finally {
            identity.deleteAccessKey("watcher", key.key().accessKeyId());
        }
    }
}
