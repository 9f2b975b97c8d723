package dev.appliance.app.console;

import dev.appliance.s3.auth.Authorizer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;

/**
 * The console's one authorization decision, for every request the console chain admits (deny by default):
 *
 * <ul>
 *   <li>{@link #PUBLIC}: anyone unauthenticated (load balancers, monitoring). An authenticated caller is decided as
 *       below, so Actuator's health details show to admins only.
 *   <li>{@link #OPEN}: the session endpoints a browser needs before and around logging in.
 *   <li>{@link #SELF}: any authenticated caller (who am I, log out).
 *   <li>everything else: the authorization seam's yes for {@code admin:<METHOD> <path>}, the path as routed. A
 *       signature or a session is decided for its access key (so a disabled key or user is refused at once); a token
 *       for its owner and, on top, its scope: both must allow.
 * </ul>
 */
final class AdminAuthorization implements AuthorizationManager<RequestAuthorizationContext> {
    /** {@code METHOD path} of the endpoints anyone may call, exactly as routed (routing is case-sensitive). */
    static final Set<String> PUBLIC =
            Set.of("GET /api/v1/status", "HEAD /api/v1/status", "GET /actuator/health", "HEAD /actuator/health");
    /** Logging in and fetching the CSRF token to do it with. */
    static final Set<String> OPEN = Set.of("POST " + SessionController.PATH, "GET " + SessionController.CSRF_PATH);
    /** Who am I, and log out. */
    static final Set<String> SELF = Set.of("GET " + SessionController.PATH, "DELETE " + SessionController.PATH);

    private final Authorizer authorizer;

    AdminAuthorization(Authorizer authorizer) {
        this.authorizer = authorizer;
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
        String route = request.getMethod() + " " + routed(request);
        if (OPEN.contains(route)) {
            return true;
        }
        AdminPrincipal caller = authentication instanceof AdminAuthentication a ? a.getPrincipal() : null;
        if (caller == null) {
            return PUBLIC.contains(route);
        }
        if (SELF.contains(route)) {
            return caller.via() != AdminPrincipal.Via.SCRAPE;
        }
        String action = "admin:" + route;
        return switch (caller.via()) {
            case SIGNATURE, SESSION -> authorizer.allowed(caller.accessKey(), action, null, null);
            case TOKEN ->
                (AdminPrincipal.ROOT.equals(caller.name()) || authorizer.allowedAsUser(caller.name(), action))
                        && authorizer.allowedByScope(caller.scope(), action);
            case SCRAPE -> false;
        };
    }

    /** The path as the container routed it; {@link ConsoleFirewall} refused any request where that differs. */
    static String routed(HttpServletRequest request) {
        return request.getContextPath()
                + request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo());
    }
}
