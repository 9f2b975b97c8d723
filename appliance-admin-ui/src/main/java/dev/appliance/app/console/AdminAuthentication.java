package dev.appliance.app.console;

import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;

/**
 * An authenticated console caller in Spring Security's context. It carries no authorities: what the caller may do is
 * decided per request by the policies ({@link AdminAuthorization}), so that a policy change, a disabled user or a
 * revoked key takes effect on the next request, sessions included.
 */
final class AdminAuthentication extends AbstractAuthenticationToken {
    private static final long serialVersionUID = 1L;
    private final AdminPrincipal principal;

    AdminAuthentication(AdminPrincipal principal) {
        super(List.of());
        this.principal = principal;
        setAuthenticated(true);
    }

    @Override
    public AdminPrincipal getPrincipal() {
        return principal;
    }

    /** Never kept: the secret that proved the caller was checked and dropped. */
    @Override
    public Object getCredentials() {
        return null;
    }
}
