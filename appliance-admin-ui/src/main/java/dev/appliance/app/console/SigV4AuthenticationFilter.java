package dev.appliance.app.console;

import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.SigV4Verifier;
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
import java.util.TreeMap;
import java.util.function.Function;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates a request SigV4-signed by an access key the S3 endpoint knows (service {@code s3}, the S3 region),
 * as the CLI and {@code curl --aws-sigv4} sign: the header form, or a presigned query. Bodies are small JSON documents,
 * read whole (at most 64 KiB) and checked against the signed payload hash, then handed on for the controller to read.
 * A request that carries a signature that does not verify is refused here with the S3 error code; one without a
 * signature passes on unauthenticated.
 */
final class SigV4AuthenticationFilter extends OncePerRequestFilter {
    private static final int MAX_BODY = 64 * 1024;

    private final SigV4Verifier verifier;
    /** The caller's name for an access key: the IAM user's, or {@link AdminPrincipal#ROOT}. */
    private final Function<String, String> nameOf;

    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    SigV4AuthenticationFilter(SigV4Verifier verifier, Function<String, String> nameOf) {
        this.verifier = verifier;
        this.nameOf = nameOf;
    }

    static boolean signed(HttpServletRequest request) {
        String authorization = request.getHeader("Authorization");
        if (authorization != null) {
            return authorization.startsWith("AWS4-");
        }
        String query = request.getQueryString();
        return query != null && query.contains("X-Amz-Signature=");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!signed(request)) {
            chain.doFilter(request, response);
            return;
        }
        byte[] body = request.getInputStream().readNBytes(MAX_BODY + 1);
        if (body.length > MAX_BODY) {
            ConsoleRefusal.write(response, 413, "EntityTooLarge", "Admin request bodies are limited to 64 KiB.");
            return;
        }
        Map<String, List<String>> headers = new TreeMap<>();
        for (String name : Collections.list(request.getHeaderNames())) {
            headers.put(name.toLowerCase(Locale.ROOT), new ArrayList<>(Collections.list(request.getHeaders(name))));
        }
        AuthResult auth;
        try {
            // the signature covers the path as sent; the decision is about the path as routed (AdminAuthorization)
            auth = verifier.verifyWholeBody(
                    request.getMethod(), request.getRequestURI(), request.getQueryString(), headers, body);
        } catch (S3Exception e) {
            ConsoleRefusal.write(response, e.code().status(), e.code().code(), String.valueOf(e.getMessage()));
            return;
        }
        SecurityContext context = contexts.createEmptyContext();
        context.setAuthentication(
                new AdminAuthentication(AdminPrincipal.signature(nameOf.apply(auth.accessKey()), auth.accessKey())));
        contexts.setContext(context);
        chain.doFilter(new CachedBody(request, body), response);
    }

    /** The request with its body already read, for the controller to read again. */
    private static final class CachedBody extends HttpServletRequestWrapper {
        private final byte[] body;

        CachedBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
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
