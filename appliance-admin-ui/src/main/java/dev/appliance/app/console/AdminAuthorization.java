package dev.appliance.app.console;

import dev.appliance.core.naming.BucketNames;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.policy.S3Action;
import dev.appliance.s3.auth.Authorizer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The console's one authorization decision, for every request the console chain admits (deny by default):
 *
 * <ul>
 *   <li>{@link #PUBLIC}: anyone unauthenticated (load balancers, monitoring). An authenticated caller is decided as
 *       below, so Actuator's health details show to admins only.
 *   <li>{@link #OPEN}: the session endpoints a browser needs before and around logging in.
 *   <li>{@link #consoleShell}: the web console's static files (its page and scripts), which hold no data: a browser
 *       must load them to show the login page.
 *   <li>{@link #SELF}: any authenticated caller (who am I, log out).
 *   <li>everything else: the authorization seam's yes for each appliance action the route performs
 *       ({@link AdminOperation}, e.g. {@code admin:ListUsers}), or for {@code admin:Route:<METHOD> <path>} (the path
 *       as routed) on a route that names none, which only {@code admin:*} grants. A signature or a session is decided
 *       for its access key (so a disabled key or user is refused at once); a token for its owner and, on top, its
 *       scope: both must allow.
 *   <li>a data route ({@link ObjectAccess}, the object browser): its S3 actions on the bucket and key it addresses,
 *       for the caller's key, as the S3 front end decides them.
 * </ul>
 *
 * <p>The route is found the way the dispatcher will find it (the controllers' handler mapping), before any
 * controller runs.
 */
final class AdminAuthorization implements AuthorizationManager<RequestAuthorizationContext> {
    /** {@code METHOD path} of the endpoints anyone may call, exactly as routed (routing is case-sensitive). */
    static final Set<String> PUBLIC =
            Set.of("GET /api/v1/status", "HEAD /api/v1/status", "GET /actuator/health", "HEAD /actuator/health");
    /** Logging in and fetching the CSRF token to do it with. */
    static final Set<String> OPEN = Set.of("POST " + SessionController.PATH, "GET " + SessionController.CSRF_PATH);
    /** The web console's page; its scripts and styles are under {@link #CONSOLE_ASSETS}. */
    static final Set<String> CONSOLE_PAGE = Set.of("GET /", "HEAD /", "GET /index.html", "HEAD /index.html");
    /** The folder of the web console's static files (classpath {@code static/console/}). */
    static final String CONSOLE_ASSETS = "/console/";

    /** Who am I, and log out. */
    static final Set<String> SELF = Set.of("GET " + SessionController.PATH, "DELETE " + SessionController.PATH);

    /**
     * How a route that names no action is asked: {@code admin:Route:GET /api/v1/...}. The prefix keeps it out of
     * every built-in grant but {@code admin:*} (an auditor's {@code admin:Get*} must not match a GET by its method).
     */
    static final String ROUTE_ACTION = "admin:Route:";

    private final Authorizer authorizer;
    private final Supplier<RequestMappingHandlerMapping> routes;

    /** @param routes the controllers' handler mapping (looked up late: the chain is built before it) */
    AdminAuthorization(Authorizer authorizer, Supplier<RequestMappingHandlerMapping> routes) {
        this.authorizer = authorizer;
        this.routes = routes;
    }

    @Override
    @SuppressWarnings("deprecation") // check is what the 6.x AuthorizationFilter calls through authorize
    public AuthorizationDecision check(Supplier<Authentication> authentication, RequestAuthorizationContext context) {
        return new AuthorizationDecision(decide(authentication.get(), context.getRequest()));
    }

    private boolean decide(Authentication authentication, HttpServletRequest request) {
        // the request itself was decided on its way in; its error page and async completion are part of that answer
        if (request.getDispatcherType() == DispatcherType.ERROR
                || request.getDispatcherType() == DispatcherType.ASYNC) {
            return true;
        }
        String path = routed(request);
        String route = request.getMethod() + " " + path;
        if (OPEN.contains(route) || consoleShell(request.getMethod(), path)) {
            return true;
        }
        AdminPrincipal caller = authentication instanceof AdminAuthentication a ? a.getPrincipal() : null;
        if (caller == null) {
            return PUBLIC.contains(route);
        }
        if (SELF.contains(route)) {
            return caller.via() != AdminPrincipal.Via.SCRAPE;
        }
        HandlerMethod handler = handler(request);
        if (handler != null && handler.getMethodAnnotation(ObjectAccess.class) instanceof ObjectAccess data) {
            return allowedOnData(caller, data, request);
        }
        AdminAction[] actions =
                handler != null && handler.getMethodAnnotation(AdminOperation.class) instanceof AdminOperation operation
                        ? operation.value()
                        : null;
        if (actions == null) {
            return allowed(caller, ROUTE_ACTION + route);
        }
        for (AdminAction action : actions) {
            if (!allowed(caller, action.iamName())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The console's static files: GET or HEAD of its page or of a file under {@link #CONSOLE_ASSETS}. Only the
     * static resource handler serves those paths (no controller maps them), and the files hold no data: every figure
     * the console shows comes from the API, decided as any other request.
     */
    static boolean consoleShell(String method, String path) {
        return CONSOLE_PAGE.contains(method + " " + path)
                || (("GET".equals(method) || "HEAD".equals(method)) && path.startsWith(CONSOLE_ASSETS));
    }

    /**
     * Whether {@code caller} may perform {@code action}: for a controller that does more than its route says (e.g.
     * a bucket created with a user), beyond what was decided on the way in.
     */
    boolean allowed(AdminPrincipal caller, String action) {
        return switch (caller.via()) {
            case SIGNATURE, SESSION -> authorizer.allowed(caller.accessKey(), action, null, null);
            case TOKEN ->
                (AdminPrincipal.ROOT.equals(caller.name()) || authorizer.allowedAsUser(caller.name(), action))
                        && authorizer.allowedByScope(caller.name(), caller.scope(), action);
            case SCRAPE -> false;
        };
    }

    /**
     * A data route ({@link ObjectAccess}): its S3 actions on the resource the request names, as the S3 front end
     * decides them for the caller's key. The target is validated first ({@link ObjectTarget}); an invalid key (or
     * bucket name) is decided on the bucket (or on no resource), which the controller then refuses as invalid input
     * before touching the store, so nothing is ever done to a target that was not the one decided. A token is refused:
     * its owner's policies can be asked about resource {@code *} only, which would let a Deny on one bucket slip by.
     */
    private boolean allowedOnData(AdminPrincipal caller, ObjectAccess data, HttpServletRequest request) {
        if (caller.via() != AdminPrincipal.Via.SIGNATURE && caller.via() != AdminPrincipal.Via.SESSION) {
            return false;
        }
        String bucket = pathVariables(request).get("bucket");
        ObjectTarget target;
        try {
            target = ObjectTarget.parse(bucket, request.getQueryString());
        } catch (BadField e) {
            target = null;
        }
        String decidedBucket = target != null ? target.bucket() : BucketNames.isValid(bucket) ? bucket : null;
        String key = target == null ? null : target.key();
        S3Action[] actions = target != null && target.versionId() != null && data.withVersionId().length > 0
                ? data.withVersionId()
                : data.value();
        for (S3Action action : actions) {
            String objectKey = action.scope() == S3Action.Scope.OBJECT ? key : null;
            if (!allowedOn(caller, action.iamName(), decidedBucket, objectKey)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code caller} may perform the S3 action {@code action} on {@code bucket} and {@code key} (null: the
     * bucket; both null: no resource): a signature's or session's key decided as the S3 front end decides it; never a
     * token.
     */
    boolean allowedOn(AdminPrincipal caller, String action, String bucket, String key) {
        return switch (caller.via()) {
            case SIGNATURE, SESSION -> authorizer.allowed(caller.accessKey(), action, bucket, key);
            case TOKEN, SCRAPE -> false;
        };
    }

    /** The controller method for {@code request}, or null when none routes. */
    private HandlerMethod handler(HttpServletRequest request) {
        RequestMappingHandlerMapping mapping = routes.get();
        if (mapping == null) {
            return null;
        }
        Object before = request.getAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE);
        try {
            ServletRequestPathUtils.parseAndCache(request);
            HandlerExecutionChain chain = mapping.getHandler(request);
            return chain != null && chain.getHandler() instanceof HandlerMethod method ? method : null;
        } catch (Exception e) { // no such method for the path, a media type it cannot answer: the dispatcher says so
            return null;
        } finally {
            request.setAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE, before);
        }
    }

    /** The path variables the handler mapping matched for the request (set by {@link #handler}), decoded. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> pathVariables(HttpServletRequest request) {
        Object variables = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        return variables instanceof Map<?, ?> map ? (Map<String, String>) map : Map.of();
    }

    /** The path as the container routed it; {@link ConsoleFirewall} refused any request where that differs. */
    static String routed(HttpServletRequest request) {
        return request.getContextPath()
                + request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo());
    }
}
