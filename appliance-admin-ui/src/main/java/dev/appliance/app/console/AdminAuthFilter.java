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
import java.util.TreeMap;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates the admin API ({@code /api/v1/admin/**}) the way the S3 API is authenticated: a SigV4 Authorization
 * header (service {@code s3}, the S3 region) by a key the S3 endpoint knows, then the authorization seam is asked for
 * the {@code admin:} action. So {@code curl --aws-sigv4 "aws:amz:us-east-1:s3" --user KEY:SECRET} works, and so do
 * the AWS SDKs' signers. Bodies are small JSON documents, read whole and checked against the signed payload hash.
 */
final class AdminAuthFilter extends OncePerRequestFilter {
    static final String ACCESS_KEY_ATTRIBUTE = "appliance.admin.accessKey";
    private static final int MAX_BODY = 64 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SigV4Verifier verifier;
    private final Authorizer authorizer;

    AdminAuthFilter(SigV4Verifier verifier, Authorizer authorizer) {
        this.verifier = verifier;
        this.authorizer = authorizer;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/api/v1/admin/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body = request.getInputStream().readNBytes(MAX_BODY + 1);
        try {
            if (body.length > MAX_BODY) {
                throw new S3Exception(S3ErrorCode.EntityTooLarge, "Admin request bodies are limited to 64 KiB.");
            }
            Map<String, List<String>> headers = new TreeMap<>();
            for (String name : Collections.list(request.getHeaderNames())) {
                headers.put(name.toLowerCase(Locale.ROOT), new ArrayList<>(Collections.list(request.getHeaders(name))));
            }
            AuthResult auth = verifier.verifyWholeBody(
                    request.getMethod(), request.getRequestURI(), request.getQueryString(), headers, body);
            String action = "admin:" + request.getMethod() + " " + request.getRequestURI();
            if (!authorizer.allowed(auth.accessKey(), action, null, null)) {
                throw new S3Exception(S3ErrorCode.AccessDenied);
            }
            request.setAttribute(ACCESS_KEY_ATTRIBUTE, auth.accessKey());
        } catch (S3Exception e) {
            response.setStatus(e.code().status());
            response.setContentType("application/json");
            JSON.writeValue(
                    response.getOutputStream(),
                    Map.of("code", e.code().code(), "message", String.valueOf(e.getMessage())));
            return;
        }
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
