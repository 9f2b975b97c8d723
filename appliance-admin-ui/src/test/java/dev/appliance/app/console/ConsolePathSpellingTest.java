package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.policy.S3Action;
import dev.appliance.s3.auth.Authorizer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * The console port against every route it serves (read from the handler mappings, so a route added later is covered
 * too) spelled every way a path can be spelled: unsigned, nothing but the public status and health answers 2xx and no
 * controller runs; ambiguous spellings are refused with 400 even when signed; signed plain paths work, and the
 * authorizer is asked about the path the controller is dispatched on. A real store on temp drives, the real console
 * on a random port, a real HTTP client.
 */
class ConsolePathSpellingTest {
    private static final String SECRET = "root-secret-for-the-console-test";
    private static final String BUCKET = "bkt";
    private static final String OBJECT_KEY = "private-object-key-visible-to-admins-only";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** One body for every PUT/POST: sets a quota and SOSAPI, and marks a drive gone, if it ever reaches a handler. */
    private static final String BODY =
            "{\"quotaBytes\":1,\"sosapi\":true,\"versionAlertThreshold\":7,\"gone\":true,\"readErrors\":true}";
    /** A body every IAM route takes as valid input. */
    private static final String IAM_BODY = "{\"name\":\"x\",\"enabled\":true,\"s3Enabled\":true,\"status\":\"Active\","
            + "\"policyArn\":\"arn:aws:iam::aws:policy/readonly\",\"buckets\":[\"bkt\"],"
            + "\"document\":\"{\\\"Version\\\":\\\"2012-10-17\\\",\\\"Statement\\\":[{\\\"Effect\\\":\\\"Allow\\\","
            + "\\\"Action\\\":\\\"s3:GetObject\\\",\\\"Resource\\\":\\\"*\\\"}]}\"}";
    /** A body the token route takes as valid input: a day-long read-only token of the caller. */
    private static final String TOKEN_BODY =
            "{\"name\":\"x\",\"policyArns\":[\"arn:aws:iam::aws:policy/readonly\"],\"expiresInDays\":1}";

    /** Valid input for the routes whose body BODY is not (BucketsController, the access log's switch). */
    private static final Map<String, String> BUCKET_BODIES = Map.of(
            "POST /api/v1/admin/buckets", "{\"name\":\"made-by-the-spelling-test\"}",
            "PUT /api/v1/admin/buckets/bkt/versioning", "{\"status\":\"Enabled\"}",
            "PUT /api/v1/admin/buckets/bkt/object-lock", "{}",
            "POST /api/v1/admin/heal/buckets", "{\"bucket\":\"bkt\"}",
            "PUT /api/v1/admin/logging/access-log", "{\"enabled\":false}",
            "PUT /api/v1/admin/buckets/bkt/lifecycle",
                    "{\"rules\":[{\"id\":\"r\",\"status\":\"Enabled\",\"expiration\":{\"days\":1}}]}",
            "POST /api/v1/admin/buckets/bkt/lifecycle/preview",
                    "{\"rules\":[{\"id\":\"r\",\"status\":\"Enabled\",\"expiration\":{\"days\":1}}]}",
            "PUT /api/v1/admin/buckets/bkt/policy",
                    "{\"document\":\"{\\\"Statement\\\":[{\\\"Effect\\\":\\\"Allow\\\","
                            + "\\\"Principal\\\":{\\\"AWS\\\":\\\"arn:aws:iam::000000000000:root\\\"},"
                            + "\\\"Action\\\":\\\"s3:GetObject\\\",\\\"Resource\\\":\\\"arn:aws:s3:::bkt/*\\\"}]}\"}");

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;
    private static ConsoleApplication.Running console;
    /** Handlers a request (not an error dispatch) reached: "METHOD uri -> handler". */
    private static final List<String> reached = new CopyOnWriteArrayList<>();
    /** What the authorizer was asked. */
    private static final List<String> asked = new CopyOnWriteArrayList<>();
    /** Actions the authorizer refuses. */
    private static final Set<String> refused = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void start() throws Exception {
        store = ConsoleTestAppliance.openStore(tmp, BUCKET, OBJECT_KEY);
        Authorizer authorizer = Authorizer.byAction((key, action, bucket, objectKey) -> {
            asked.add(action);
            return !refused.contains(action);
        });
        HandlerInterceptor recorder = new HandlerInterceptor() {
            @Override
            public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
                if (request.getDispatcherType() == DispatcherType.REQUEST) {
                    reached.add(request.getMethod() + " " + request.getRequestURI() + " -> " + handler);
                }
                return true;
            }
        };
        WebMvcConfigurer recording = new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(recorder);
            }
        };
        app = ConsoleTestAppliance.start(
                store, SECRET, authorizer, c -> c.getBeanFactory().registerSingleton("handlerRecorder", recording));
        console = app.console;
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        } else if (store != null) {
            store.close();
        }
    }

    @BeforeEach
    void resetState() {
        store.setBucketSettings(BUCKET, new BucketSettings(null, null, null));
        store.drives().forEach(d -> d.injectFaults(null));
        reached.clear();
        asked.clear();
        refused.clear();
    }

    /** A route: method and a concrete plain path (path variables filled in). */
    /**
     * @param actions what the authorizer must be asked for this route: the actions its controller names
     *     ({@link AdminOperation}), else {@code admin:Route:<METHOD> <path>} with the path as dispatched
     */
    record Route(String method, String path, boolean mvcHandler, List<String> actions) {}

    /** Every route of every request-mapping handler mapping (controllers, the error page, actuator endpoints). */
    private static List<Route> routes() {
        Set<Route> out = new LinkedHashSet<>();
        Map<String, RequestMappingInfoHandlerMapping> mappings =
                console.context().getBeansOfType(RequestMappingInfoHandlerMapping.class);
        for (RequestMappingInfoHandlerMapping mapping : mappings.values()) {
            // actuator endpoints have their own mapping, which our recording interceptor is not part of
            boolean mvc = mapping.getClass()
                    .equals(org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping.class);
            for (var entry : mapping.getHandlerMethods().entrySet()) {
                RequestMappingInfo info = entry.getKey();
                AdminOperation operation = entry.getValue().getMethodAnnotation(AdminOperation.class);
                ObjectAccess data = entry.getValue().getMethodAnnotation(ObjectAccess.class);
                Set<String> methods = new TreeSet<>();
                info.getMethodsCondition().getMethods().forEach(m -> methods.add(m.name()));
                if (methods.isEmpty()) {
                    methods.add("GET");
                }
                for (String pattern : info.getPatternValues()) {
                    for (String method : methods) {
                        String path = fill(pattern);
                        out.add(new Route(
                                method,
                                path,
                                mvc,
                                data != null
                                        ? Arrays.stream(data.value())
                                                .map(S3Action::iamName)
                                                .toList()
                                        : operation == null
                                                ? List.of("admin:Route:" + method + " " + path)
                                                : Arrays.stream(operation.value())
                                                        .map(AdminAction::iamName)
                                                        .toList()));
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private static String fill(String pattern) {
        return pattern.replace("**", "liveness")
                .replaceAll("\\{\\*[^}]+}", "liveness")
                .replace("{bucket}", BUCKET)
                .replace("{drive}", "0")
                .replace("{id}", "NO_SUCH_ALERT_CODE:" + BUCKET)
                .replaceAll("\\{[^}]+}", "x");
    }

    /** A way to spell a path; an ambiguous one is refused as such, the others are merely other paths. */
    record Spelling(String path, boolean ambiguous) {}

    /** The same path spelled every other way a server might still route to it. */
    static List<Spelling> spellings(String path) {
        String[] segments = path.substring(1).split("/", -1);
        Set<String> ambiguous = new LinkedHashSet<>();
        Set<String> otherCase = new LinkedHashSet<>();
        for (int i = 0; i < segments.length; i++) {
            ambiguous.add(join(segments, i, segments[i] + ";x=y"));
            ambiguous.add(join(segments, i, percentEncodeFirst(segments[i])));
            ambiguous.add(join(segments, i, segments[i] + "."));
            ambiguous.add(insertBefore(segments, i, "/"));
            ambiguous.add(insertBefore(segments, i, "./"));
            ambiguous.add(insertBefore(segments, i, "zz/../"));
            ambiguous.add(insertBefore(segments, i, "%2E/"));
            ambiguous.add(insertBefore(segments, i, "zz/%2E%2E/"));
            if (i > 0) {
                ambiguous.add(joinWith(segments, i, "%2F"));
                ambiguous.add(joinWith(segments, i, "%2f"));
                ambiguous.add(joinWith(segments, i, "%5C"));
            }
            otherCase.add(join(segments, i, segments[i].toUpperCase(Locale.ROOT)));
        }
        ambiguous.add(path + "/");
        ambiguous.add(path + "/.");
        ambiguous.add(path + ";");
        ambiguous.add(path + "%00");
        ambiguous.add("/" + path);
        ambiguous.add(path.replace("a", "%2561"));
        otherCase.add(path.toUpperCase(Locale.ROOT));
        List<Spelling> out = new ArrayList<>();
        ambiguous.stream().filter(p -> !p.equals(path)).forEach(p -> out.add(new Spelling(p, true)));
        otherCase.stream()
                .filter(p -> !p.equals(path) && !ambiguous.contains(p))
                .forEach(p -> out.add(new Spelling(p, false)));
        return out;
    }

    private static String join(String[] segments, int at, String replacement) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            sb.append('/').append(i == at ? replacement : segments[i]);
        }
        return sb.toString();
    }

    private static String insertBefore(String[] segments, int at, String inserted) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            sb.append('/');
            if (i == at) {
                sb.append(inserted);
            }
            sb.append(segments[i]);
        }
        return sb.toString();
    }

    private static String joinWith(String[] segments, int at, String separator) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            sb.append(i == at ? separator : "/").append(segments[i]);
        }
        return sb.toString();
    }

    private static String percentEncodeFirst(String segment) {
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (Character.isLetterOrDigit(c)) {
                return segment.substring(0, i)
                        + String.format(Locale.ROOT, "%%%02X", (int) c)
                        + segment.substring(i + 1);
            }
        }
        return segment;
    }

    private static boolean isPublic(Route r) {
        return r.method().equals("GET")
                && (r.path().equals("/api/v1/status")
                        || r.path().equals("/actuator/health")
                        || r.path().equals("/api/v1/session/csrf")); // a CSRF token, for logging in
    }

    /** Logging in, who am I, log out: for any caller, not decided by the policies (SessionCookieTest). */
    private static boolean isSession(Route r) {
        return r.path().equals("/api/v1/session") || r.path().equals("/api/v1/session/csrf");
    }

    @Test
    void everyRouteSpelledAnyWay_unsigned_neverSucceeds_andNeverReachesAController() throws Exception {
        List<Route> routes = routes();
        assertThat(routes)
                .extracting(Route::path)
                .as("the routes read from the handler mappings")
                .contains(
                        "/api/v1/status",
                        "/api/v1/admin/buckets/bkt/settings",
                        "/api/v1/admin/alerts/NO_SUCH_ALERT_CODE:bkt/ack",
                        "/api/v1/admin/heal/retry",
                        "/api/v1/admin/test/faults/0",
                        "/v3/api-docs",
                        "/actuator/health");
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (Route route : routes) {
            List<String> paths = new ArrayList<>(
                    spellings(route.path()).stream().map(Spelling::path).toList());
            if (!isPublic(route)) {
                paths.addFirst(route.path());
            }
            for (String path : paths) {
                int before = reached.size();
                HttpResponse<String> r = send(route.method(), path, BODY, false);
                sent++;
                if (r.statusCode() < 300) {
                    failures.add(route.method() + " " + path + " answered " + r.statusCode() + ": " + r.body());
                }
                if (reached.size() > before) {
                    failures.add(route.method() + " " + path + " reached " + reached.subList(before, reached.size()));
                }
            }
        }
        assertThat(failures)
                .as("unsigned requests that got through (of %d sent)", sent)
                .isEmpty();
        // and nothing changed
        BucketSettings settings = store.bucketSettings(BUCKET);
        assertThat(settings.quotaBytes()).isNull();
        assertThat(settings.sosapi()).isNull();
        assertThat(settings.versionAlertThreshold()).isNull();
        assertThat(store.drives()).allSatisfy(d -> assertThat(d.faults()).isNull());
    }

    @Test
    void ambiguousSpellings_areRefusedWith400_evenWhenSigned() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Route route : routes()) {
            for (Spelling spelling : spellings(route.path())) {
                if (!spelling.ambiguous()) {
                    continue;
                }
                String path = spelling.path();
                int before = reached.size();
                HttpResponse<String> r = send(route.method(), path, BODY, true);
                if (r.statusCode() != 400) {
                    failures.add(route.method() + " " + path + " answered " + r.statusCode() + ": " + r.body());
                }
                if (reached.size() > before) {
                    failures.add(route.method() + " " + path + " reached " + reached.subList(before, reached.size()));
                }
            }
        }
        assertThat(failures).isEmpty();
        assertThat(store.bucketSettings(BUCKET).quotaBytes()).isNull();
        assertThat(store.drives()).allSatisfy(d -> assertThat(d.faults()).isNull());
    }

    @Test
    void signedPlainPaths_work_andTheAuthorizerIsAskedAboutTheDispatchedPath() throws Exception {
        for (Route route : routes()) {
            if (route.path().equals("/error")) {
                continue; // the error page answers the status of an error it was not given: nothing to check
            }
            if (isSession(route)) {
                continue; // logging in and out, not an admin call: SessionCookieTest
            }
            if (route.path().equals("/actuator/prometheus")) {
                continue; // its own credential, the metrics bearer token (ScrapeDeniedByDefaultTest,
                // MetricsEndpointTest)
            }
            int before = reached.size();
            // detaching names the policy in a required query parameter (an ARN's '/' cannot be in the path)
            String query = route.path().matches("/api/v1/admin/iam/(users|groups)/[^/]+/policies")
                    ? "?policyArn=arn:aws:iam::aws:policy/readonly"
                    // the object browser's routes name the object in a query parameter
                    : route.path().contains("/objects") ? "?key=spelling-test-key" : "";
            String body = route.path().startsWith("/api/v1/admin/iam/")
                    ? IAM_BODY
                    : route.path().startsWith("/api/v1/admin/tokens")
                            ? TOKEN_BODY
                            : BUCKET_BODIES.getOrDefault(route.method() + " " + route.path(), BODY);
            HttpResponse<String> r = send(route.method(), route.path() + query, body, true);
            assertThat(r.statusCode())
                    .as("%s %s: %s", route.method(), route.path(), r.body())
                    .isNotIn(400, 401, 403, 405);
            if (route.mvcHandler()) {
                assertThat(reached.size())
                        .as("%s %s reached its controller", route.method(), route.path())
                        .isGreaterThan(before);
            }
            if (!isPublic(route) && !isSession(route)) {
                assertThat(asked).as("%s %s", route.method(), route.path()).containsAll(route.actions());
            }
        }
        assertThat(store.bucketSettings(BUCKET).quotaBytes()).isEqualTo(1L);

        // an encoded colon (as the CLI sends alert ids) is one spelling of a segment: the controller receives it
        // decoded, and a route that names no action is decided on exactly that dispatched path
        asked.clear();
        HttpResponse<String> ack = send("POST", "/api/v1/admin/alerts/VERSIONS_PER_KEY_HIGH%3Abkt/ack", null, true);
        assertThat(ack.statusCode()).as(ack.body()).isEqualTo(404);
        assertThat(ack.body()).contains("VERSIONS_PER_KEY_HIGH:bkt");
        assertThat(asked).containsExactly("admin:AcknowledgeAlert");
        asked.clear();
        HttpResponse<String> fault = send("GET", "/api/v1/admin/test/faults%3A", null, true);
        assertThat(fault.statusCode()).as(fault.body()).isEqualTo(404);
        assertThat(asked).containsExactly("admin:Route:GET /api/v1/admin/test/faults:");

        // the authorizer's no is final
        refused.add("admin:UpdateBucket");
        int before = reached.size();
        HttpResponse<String> put = send("PUT", "/api/v1/admin/buckets/bkt/settings", "{\"quotaBytes\":99}", true);
        assertThat(put.statusCode()).isEqualTo(403);
        assertThat(reached.size()).isEqualTo(before);
        assertThat(store.bucketSettings(BUCKET).quotaBytes()).isEqualTo(1L);

        // a wrong signature is no signature
        HttpResponse<String> forged = send("GET", "/api/v1/admin/status", null, true, "not-the-secret");
        assertThat(forged.statusCode()).isEqualTo(403);
    }

    @Test
    void publicStatus_answersAnonymously_withoutObjectKeysOrDrivePaths() throws Exception {
        HttpResponse<String> r = send("GET", "/api/v1/status", null, false);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).doesNotContain(OBJECT_KEY).doesNotContain(tmp.toString());
        JsonNode status = JSON.readTree(r.body());
        // only these fields, so nothing that can carry a key, a bucket or a path
        assertThat(names(status))
                .containsExactlyInAnyOrder(
                        "sets", "drivesPerSet", "parity", "drives", "heal", "retentionClock", "alerts");
        assertThat(status.path("drives")).hasSize(4);
        for (JsonNode d : status.path("drives")) {
            assertThat(names(d))
                    .containsExactlyInAnyOrder(
                            "set", "slot", "state", "online", "slowCalls", "ioErrors", "faultsInjected");
        }
        assertThat(names(status.path("heal")))
                .containsExactlyInAnyOrder("pending", "retrying", "healed", "failed", "drivesHealing");
        assertThat(names(status.path("alerts"))).containsExactlyInAnyOrder("active", "unacknowledged", "critical");
        assertThat(names(status.path("retentionClock")))
                .containsExactlyInAnyOrder(
                        "trustedTime",
                        "systemTime",
                        "systemClockBelieved",
                        "ntp",
                        "forwardJumpNotBelievedAtStartSeconds",
                        "healthy");

        // the detail is for the root user
        assertThat(send("GET", "/api/v1/admin/status", null, false).statusCode())
                .isEqualTo(401);
        HttpResponse<String> detail = send("GET", "/api/v1/admin/status", null, true);
        assertThat(detail.statusCode()).as(detail.body()).isEqualTo(200);
        JsonNode full = JSON.readTree(detail.body());
        assertThat(full.path("deploymentId").asText())
                .isEqualTo(store.deploymentId().toString());
        List<String> paths = new ArrayList<>();
        full.path("drives").forEach(d -> paths.add(d.path("path").asText()));
        assertThat(paths)
                .containsExactlyElementsOf(store.drives().stream()
                        .map(LocalDrive::root)
                        .map(Path::toString)
                        .toList());
        assertThat(full.path("heal").has("lastFailures")).isTrue();
        assertThat(full.path("alerts").has("ids")).isTrue();

        HttpResponse<String> health = send("GET", "/actuator/health", null, false);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(names(JSON.readTree(health.body()))).containsExactly("status");
    }

    private static List<String> names(JsonNode node) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    private static HttpResponse<String> send(String method, String rawPath, String body, boolean signed)
            throws Exception {
        return send(method, rawPath, body, signed, SECRET);
    }

    /** One request, the path sent byte for byte as given; signed like the CLI signs (SigV4, service s3). */
    private static HttpResponse<String> send(String method, String rawPath, String body, boolean signed, String secret)
            throws Exception {
        return app.send(method, rawPath, body, signed ? secret : null);
    }
}
