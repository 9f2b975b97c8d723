package dev.appliance.app.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Audits every console mutation (POST, PUT, PATCH, DELETE) that passed the firewall, refused or not: who (the
 * authenticated caller, else the access key a login claimed, else nobody), what, from where, and the outcome by the
 * status answered. It sits just inside the security context, so it sees the caller whichever filter authenticated it.
 */
final class AdminAuditFilter extends OncePerRequestFilter {
    /** Set by the login endpoint: the access key a login attempt claimed (never its secret). */
    static final String CLAIMED_KEY = "appliance.console.claimedAccessKey";

    private final AdminAudit audit;

    AdminAuditFilter(AdminAudit audit) {
        this.audit = audit;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!AdminAudit.audited(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        try {
            chain.doFilter(request, response);
        } catch (IOException | ServletException | RuntimeException e) {
            record(request, "InternalError", 500);
            throw e;
        }
        int status = response.getStatus();
        record(
                request,
                status < 400 ? "allowed" : status == 401 || status == 403 ? "denied" : "status-" + status,
                status);
    }

    private void record(HttpServletRequest request, String outcome, int status) {
        Authentication a =
                SecurityContextHolder.getContextHolderStrategy().getContext().getAuthentication();
        String who = a instanceof AdminAuthentication admin
                ? admin.getPrincipal().auditName()
                : (String) request.getAttribute(CLAIMED_KEY);
        audit.record(
                who,
                request.getRemoteAddr(),
                request.getMethod(),
                AdminAuthorization.routed(request),
                request.getQueryString(),
                outcome,
                status);
    }
}
