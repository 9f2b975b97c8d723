package dev.appliance.app.console;

import dev.appliance.core.policy.AdminAction;
import dev.appliance.s3.auth.CredentialsProvider;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRepository;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Console sessions: {@code POST /api/v1/session} logs in with an access key and its secret (the root credential or an
 * IAM user's key), {@code GET} says who the session is, {@code DELETE} logs out; {@code GET /api/v1/session/csrf}
 * hands out the CSRF token every state-changing request of a session must echo in {@code X-XSRF-TOKEN} (the login
 * included, so that another site cannot log a browser in). Repeated failures lock the key and the address out
 * ({@link LoginThrottle}). A session acts with its key: disabling the key or its user ends what the session may do.
 */
@RestController
class SessionController {
    static final String PATH = "/api/v1/session";
    static final String CSRF_PATH = "/api/v1/session/csrf";

    private final CredentialsProvider credentials;
    private final Function<String, String> nameOf;
    private final LoginThrottle throttle;
    private final SecurityContextRepository contexts;
    private final CsrfTokenRepository csrfTokens;
    private final AdminAuthorization authorization;
    private final SecurityContextHolderStrategy holder = SecurityContextHolder.getContextHolderStrategy();

    SessionController(
            CredentialsProvider credentials,
            CallerNames names,
            LoginThrottle throttle,
            SecurityContextRepository contexts,
            CsrfTokenRepository csrfTokens,
            AdminAuthorization authorization) {
        this.credentials = credentials;
        this.nameOf = names::of;
        this.throttle = throttle;
        this.contexts = contexts;
        this.csrfTokens = csrfTokens;
        this.authorization = authorization;
    }

    /** The login body: an access key and its secret. */
    record Login(String accessKey, String secretKey) {}

    /**
     * Who a session (or any authenticated caller) is, and the appliance actions its policies allow it now ({@code
     * admin:CreateBucket}, ...): the console shows only the controls the caller can use. Names of actions, never a
     * secret; every request is still decided on its own ({@link AdminAuthorization}).
     */
    record SessionView(String name, String accessKey, String via, List<String> allowed) {}

    /** The CSRF token to send back in {@code headerName} with every POST, PUT, PATCH and DELETE of a session. */
    record CsrfView(String headerName, String token) {}

    @GetMapping(CSRF_PATH)
    CsrfView csrf(CsrfToken token) {
        return new CsrfView(token.getHeaderName(), token.getToken());
    }

    @PostMapping(PATH)
    ResponseEntity<?> login(@RequestBody Login login, HttpServletRequest request, HttpServletResponse response) {
        if (login == null || blank(login.accessKey())) {
            return problem(400, "InvalidInput", "accessKey", "accessKey is required");
        }
        if (blank(login.secretKey())) {
            return problem(400, "InvalidInput", "secretKey", "secretKey is required");
        }
        request.setAttribute(AdminAuditFilter.CLAIMED_KEY, login.accessKey());
        String source = request.getRemoteAddr();
        Optional<Instant> locked = throttle.lockedUntil(login.accessKey(), source);
        if (locked.isPresent()) {
            long seconds =
                    Math.max(1, Duration.between(throttle.now(), locked.get()).toSeconds());
            return ResponseEntity.status(429)
                    .header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
                    .body(Problem.of(
                            429,
                            "LockedOut",
                            null,
                            "Too many failed logins: this access key or address is locked out until " + locked.get()
                                    + "."));
        }
        Optional<String> secret = credentials.secretKey(login.accessKey());
        // compare digests in constant time whether or not the key exists, so timing tells neither
        boolean match = MessageDigest.isEqual(
                        ScrapeToken.sha256(secret.orElse("\u0000no-such-key")), ScrapeToken.sha256(login.secretKey()))
                && secret.isPresent();
        if (!match) {
            throttle.failed(login.accessKey(), source);
            return problem(401, "InvalidCredentials", null, "The access key or the secret key is wrong.");
        }
        throttle.succeeded(login.accessKey());
        // a fresh session id (no fixation) and a fresh CSRF token for the logged-in session
        HttpSession old = request.getSession(false);
        if (old != null) {
            old.invalidate();
        }
        request.getSession(true);
        renewCsrfToken(request, response);
        AdminPrincipal principal = AdminPrincipal.session(nameOf.apply(login.accessKey()), login.accessKey());
        SecurityContext context = holder.createEmptyContext();
        context.setAuthentication(new AdminAuthentication(principal));
        holder.setContext(context);
        contexts.saveContext(context, request, response);
        return ResponseEntity.ok(view(principal));
    }

    @GetMapping(PATH)
    SessionView whoAmI(@AuthenticationPrincipal AdminPrincipal caller) {
        return view(caller);
    }

    @DeleteMapping(PATH)
    ResponseEntity<Void> logout(
            @AuthenticationPrincipal AdminPrincipal caller, HttpServletRequest request, HttpServletResponse response) {
        request.setAttribute(AdminAuditFilter.CLAIMED_KEY, caller.auditName());
        HttpSession session = request.getSession(false);
        if (session != null) {
            session.invalidate();
        }
        holder.clearContext();
        renewCsrfToken(request, response);
        return ResponseEntity.noContent().build();
    }

    /**
     * A new CSRF token at every change of who the browser is, set as the cookie right away: the page reads it from
     * there for its next change, and a token an attacker saw before the login is worthless after it.
     */
    private void renewCsrfToken(HttpServletRequest request, HttpServletResponse response) {
        csrfTokens.saveToken(null, request, response);
        csrfTokens.saveToken(csrfTokens.generateToken(request), request, response);
    }

    private SessionView view(AdminPrincipal p) {
        List<String> allowed = Arrays.stream(AdminAction.values())
                .map(AdminAction::iamName)
                .filter(action -> authorization.allowed(p, action))
                .toList();
        return new SessionView(p.name(), p.accessKey(), p.via().name().toLowerCase(java.util.Locale.ROOT), allowed);
    }

    private static ResponseEntity<Problem> problem(int status, String code, String field, String detail) {
        return ResponseEntity.status(status).body(Problem.of(status, code, field, detail));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
