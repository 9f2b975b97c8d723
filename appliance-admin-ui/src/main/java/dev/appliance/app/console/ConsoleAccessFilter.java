package dev.appliance.app.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Guards every request to the console port, before anything else runs: deny by default.
 *
 * <ol>
 *   <li>A path that can be read more than one way ({@link ConsolePaths}) is refused with 400, signed or not.
 *   <li>The Prometheus scrape ({@code /actuator/prometheus}, any method) answers only the configured bearer token
 *       ({@link ScrapeToken}): 401 without it or with another, 403 for everyone while none is configured.
 *   <li>The few public endpoints ({@link #PUBLIC}) answer anyone: the status summary and the health check that load
 *       balancers and monitoring poll. They reveal no object key, bucket, drive path or credential. Sent signed, they
 *       are checked as below, and the health check then shows its details.
 *   <li>Everything else (the admin API under {@code /api/v1/admin/}, the other actuator endpoints, the error page, any
 *       path that routes nowhere) needs a SigV4 Authorization header (service {@code s3}, the S3 region) by a key the
 *       S3 endpoint knows, and the authorization seam's yes for {@code admin:<METHOD> <path>}, with the decoded path
 *       the controller is dispatched on. So {@code curl --aws-sigv4 "aws:amz:us-east-1:s3" --user KEY:SECRET} works,
 *       and so do the AWS SDKs' signers. Bodies are small JSON documents, read whole and checked against the signed
 *       payload hash.
 * </ol>
 *
 * <p>A new controller is therefore private until it is added to {@link #PUBLIC}; nothing depends on its path prefix.
 */
final class ConsoleAccessFilter extends OncePerRequestFilter {
    static final String ACCESS_KEY_ATTRIBUTE = "appliance.admin.accessKey";
    /** {@code METHOD path} of the endpoints anyone may call, exactly as routed (routing is case-sensitive). */
    static final Set<String> PUBLIC =
            Set.of("GET /api/v1/status", "HEAD /api/v1/status", "GET /actuator/health", "HEAD /actuator/health");

    private static final int MAX_BODY = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SigV4Verifier verifier;
    private final Authorizer authorizer;
    private final ScrapeToken scrapeToken;
    /** Every mutation (POST, PUT, PATCH, DELETE) past the path check, refused or not, goes to the audit log. */
    private final AdminAudit audit;

    ConsoleAccessFilter(SigV4Verifier verifier, Authorizer authorizer) {
        this(verifier, authorizer, new ScrapeToken(null));
    }

    ConsoleAccessFilter(SigV4Verifier verifier, Authorizer authorizer, ScrapeToken scrapeToken) {
        this(verifier, authorizer, scrapeToken, AdminAudit.NONE);
    }

    ConsoleAccessFilter(SigV4Verifier verifier, Authorizer authorizer, ScrapeToken scrapeToken, AdminAudit audit) {
        this.verifier = verifier;
        this.authorizer = authorizer;
        this.scrapeToken = scrapeToken;
        this.audit = audit;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path;
        try {
            path = ConsolePaths.canonical(request.getRequestURI());
        } catch (ConsolePaths.Ambiguous e) {
            refuse(response, S3ErrorCode.InvalidURI, e.getMessage());
            return;
        }
        // What the container mapped the request with must be what we decide on; refuse if its normalisation ever
        // reads the path differently from ours.
        String routed = request.getContextPath()
                + request.getServletPath()
                + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if (!routed.equals(path)) {
            refuse(response, S3ErrorCode.InvalidURI, "the path reads differently once normalised");
            return;
        }
        if (path.equals(ScrapeToken.PATH)) { // every method: HEAD would reach the GET operation too
            switch (scrapeToken.check(request.getHeader("Authorization"))) {
                case ACCEPTED -> chain.doFilter(request, response);
                case UNAUTHENTICATED -> {
                    response.setHeader("WWW-Authenticate", "Bearer realm=\"appliance-metrics\"");
                    refuse(response, 401, "Unauthorized", "A scrape needs the metrics bearer token.");
                }
                case DISABLED -> refuse(response, 403, "Forbidden", "Metrics are off: no metrics token is configured.");
            }
            return;
        }
        // A signed request to a public endpoint is checked as any other: the health details show to admins only.
        if (PUBLIC.contains(request.getMethod() + " " + path) && request.getHeader("Authorization") == null) {
            chain.doFilter(request, response);
            return;
        }
        boolean audited = AdminAudit.audited(request.getMethod());
        byte[] body = request.getInputStream().readNBytes(MAX_BODY + 1);
        AuthResult auth = null;
        try {
            if (body.length > MAX_BODY) {
                throw new S3Exception(S3ErrorCode.EntityTooLarge, "Admin request bodies are limited to 64 KiB.");
            }
            Map<String, List<String>> headers = new TreeMap<>();
            for (String name : Collections.list(request.getHeaderNames())) {
                headers.put(name.toLowerCase(Locale.ROOT), new ArrayList<>(Collections.list(request.getHeaders(name))));
            }
            // the signature covers the path as sent; the decision is about the path as routed
            auth = verifier.verifyWholeBody(
                    request.getMethod(), request.getRequestURI(), request.getQueryString(), headers, body);
            if (!authorizer.allowed(auth.accessKey(), "admin:" + request.getMethod() + " " + path, null, null)) {
                throw new S3Exception(S3ErrorCode.AccessDenied);
            }
            request.setAttribute(ACCESS_KEY_ATTRIBUTE, auth.accessKey());
        } catch (S3Exception e) {
            refuse(response, e.code(), String.valueOf(e.getMessage()));
            if (audited) {
                String outcome = e.code() == S3ErrorCode.AccessDenied
                        ? "denied"
                        : e.code().code();
                audit.record(
                        auth == null ? null : auth.accessKey(),
                        request.getRemoteAddr(),
                        request.getMethod(),
                        path,
                        request.getQueryString(),
                        outcome,
                        e.code().status());
            }
            return;
        }
        String accessKey = (String) request.getAttribute(ACCESS_KEY_ATTRIBUTE);
        if (!audited) {
            chain.doFilter(new CachedBody(request, body, accessKey), response);
            return;
        }
        try {
            chain.doFilter(new CachedBody(request, body, accessKey), response);
        } catch (IOException | ServletException | RuntimeException e) {
            audit.record(
                    accessKey,
                    request.getRemoteAddr(),
                    request.getMethod(),
                    path,
                    request.getQueryString(),
                    "InternalError",
                    500);
            throw e;
        }
        int status = response.getStatus();
        audit.record(
                accessKey,
                request.getRemoteAddr(),
                request.getMethod(),
                path,
                request.getQueryString(),
                status < 400 ? "allowed" : "status-" + status,
                status);
    }

    private static void refuse(HttpServletResponse response, S3ErrorCode code, String message) throws IOException {
        refuse(response, code.status(), code.code(), message);
    }

    private static void refuse(HttpServletResponse response, int status, String code, String message)
            throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        JSON.writeValue(response.getOutputStream(), Map.of("code", code, "message", message));
    }

    /**
     * The request with its body already read, for the controller to read again, and its signer as the principal (what
     * Actuator's {@code show-details: when-authorized} asks for).
     */
    private static final class CachedBody extends HttpServletRequestWrapper {
        private final byte[] body;
        private final java.security.Principal signer;

        CachedBody(HttpServletRequest request, byte[] body, String accessKey) {
            super(request);
            this.body = body;
            this.signer = () -> accessKey;
        }

        @Override
        public java.security.Principal getUserPrincipal() {
            return signer;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("blocking reads only");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }
    }
}
