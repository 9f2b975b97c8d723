package dev.appliance.s3.metrics;

import dev.appliance.s3.api.S3Dispatcher.Operation;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;

/**
 * What the S3 endpoint tells about its traffic, for the process to turn into metrics (docs/metrics.md). The endpoint
 * holds no metrics library: the appliance process implements this with Micrometer.
 *
 * <p>Called on the request path (worker threads, and the event loop for bytes and early refusals), so implementations
 * must be cheap, lock-free and must not throw: no allocation per call beyond what a counter increment needs.
 */
public interface S3Metrics {
    /** Records nothing (tests, embedded use). */
    S3Metrics NONE = new S3Metrics() {
        @Override
        public void requestCompleted(Operation operation, int status, long nanos) {}

        @Override
        public void bytesReceived(long bytes) {}

        @Override
        public void bytesSent(long bytes) {}

        @Override
        public void authenticationFailed(AuthFailure reason) {}
    };

    /**
     * A request was answered.
     *
     * @param operation the operation it addressed, or null when it was refused before one was known (a malformed
     *     request, a failed signature, an operation this endpoint does not serve)
     * @param status the HTTP status of the answer
     * @param nanos from the request head's arrival to the last byte of the answer handed to the connection
     */
    void requestCompleted(Operation operation, int status, long nanos);

    /** Request body bytes as they arrived (with any aws-chunked framing). */
    void bytesReceived(long bytes);

    /** Response body bytes handed to the connection. */
    void bytesSent(long bytes);

    /** A request failed authentication. */
    void authenticationFailed(AuthFailure reason);

    /** Why a request failed authentication: a small fixed set, so it can label a metric. */
    enum AuthFailure {
        /** The signature (header, presigned query, chunk or POST policy) did not match the secret key. */
        SIGNATURE_MISMATCH,
        /** The access key is unknown. */
        UNKNOWN_KEY,
        /** A presigned URL past its expiry, or not yet valid. */
        EXPIRED,
        /** The request's date is too far from the server's clock. */
        CLOCK_SKEW,
        /** The Authorization header or the presigned query parameters could not be read. */
        MALFORMED,
        /** No credentials at all where they are needed. */
        ANONYMOUS;

        /** The label value: lower case, as Prometheus labels are written. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The authentication failure an error answers, or null when it is not one. */
        public static AuthFailure of(S3Exception e) {
            S3ErrorCode code = e.code();
            String message = e.getMessage() == null ? "" : e.getMessage();
            return switch (code) {
                case SignatureDoesNotMatch -> SIGNATURE_MISMATCH;
                case InvalidAccessKeyId -> UNKNOWN_KEY;
                case RequestTimeTooSkewed -> CLOCK_SKEW;
                case AuthorizationHeaderMalformed, AuthorizationQueryParametersError -> MALFORMED;
                // the verifier's own words; an authorizer's refusal is AccessDenied too but not an authentication one
                case AccessDenied ->
                    message.startsWith("Request has expired") || message.startsWith("Request is not valid yet")
                            ? EXPIRED
                            : message.startsWith("Anonymous access is not allowed") ? ANONYMOUS : null;
                default -> null;
            };
        }
    }
}
