package dev.appliance.app.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates {@code Authorization: Bearer apt_...}, an admin token (docs/admin-api.md): it acts for its owner,
 * within its scope, until it expires or is revoked. A bearer token that is unknown, expired or revoked is refused with
 * 401 and a challenge; the token is never logged or echoed.
 */
final class AdminTokenAuthenticationFilter extends OncePerRequestFilter {
    private final Function<String, Optional<AdminPrincipal>> tokens;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    /** @param tokens the principal a presented token stands for, if it is live */
    AdminTokenAuthenticationFilter(Function<String, Optional<AdminPrincipal>> tokens) {
        this.tokens = tokens;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String authorization = request.getHeader("Authorization");
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            chain.doFilter(request, response);
            return;
        }
        Optional<AdminPrincipal> principal =
                tokens.apply(authorization.substring(7).strip());
        if (principal.isEmpty()) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"appliance\", error=\"invalid_token\"");
            ConsoleRefusal.write(response, 401, "InvalidToken", "The bearer token is unknown, expired or revoked.");
            return;
        }
        SecurityContext context = contexts.createEmptyContext();
        context.setAuthentication(new AdminAuthentication(principal.get()));
        contexts.setContext(context);
        chain.doFilter(request, response);
    }
}
