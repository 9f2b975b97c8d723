package dev.appliance.app.console;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.web.firewall.FirewalledRequest;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Spring Security's firewall for the console: first {@link ConsolePaths} (a path that can be read more than one way
 * is refused, signed or not), then that the container routed the request on that same reading, then Spring's strict
 * checks of methods, headers and parameters. Rejections answer 400 ({@link ConsoleSecurity}).
 */
final class ConsoleFirewall implements HttpFirewall {
    private final StrictHttpFirewall strict = new StrictHttpFirewall();

    @Override
    public FirewalledRequest getFirewalledRequest(HttpServletRequest request) throws RequestRejectedException {
        String path;
        try {
            path = ConsolePaths.canonical(request.getRequestURI());
        } catch (ConsolePaths.Ambiguous e) {
            throw new RequestRejectedException(e.getMessage());
        }
        // what the container mapped the request with must be what is decided on
        String routed = request.getContextPath()
                + request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if (!routed.equals(path)) {
            throw new RequestRejectedException("the path reads differently once normalised");
        }
        return strict.getFirewalledRequest(request);
    }

    @Override
    public HttpServletResponse getFirewalledResponse(HttpServletResponse response) {
        return strict.getFirewalledResponse(response);
    }
}
