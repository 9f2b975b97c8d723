package dev.appliance.app.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The scrape chain's only authentication ({@link ScrapeToken}): the metrics bearer token, and nothing else, admits
 * {@code /actuator/prometheus}; 401 without it or with another, 403 for everyone while none is configured.
 */
final class ScrapeTokenFilter extends OncePerRequestFilter {
    private final ScrapeToken token;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    ScrapeTokenFilter(ScrapeToken token) {
        this.token = token;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        switch (token.check(request.getHeader("Authorization"))) {
            case ACCEPTED -> {
                SecurityContext context = contexts.createEmptyContext();
                context.setAuthentication(new AdminAuthentication(AdminPrincipal.scraper()));
                contexts.setContext(context);
                chain.doFilter(request, response);
            }
            case UNAUTHENTICATED -> {
                response.setHeader("WWW-Authenticate", "Bearer realm=\"appliance-metrics\"");
                ConsoleRefusal.write(response, 401, "Unauthorized", "A scrape needs the metrics bearer token.");
            }
            case DISABLED ->
                ConsoleRefusal.write(response, 403, "Forbidden", "Metrics are off: no metrics token is configured.");
        }
    }
}
