package dev.appliance.s3.error;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/** The one exception that carries an S3 error to the client: an entry of the table, a message, extra headers. */
public final class S3Exception extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final S3ErrorCode code;
    private final transient Map<String, String> headers;

    public S3Exception(S3ErrorCode code) {
        this(code, code.defaultMessage(), null);
    }

    public S3Exception(S3ErrorCode code, String message) {
        this(code, message, null);
    }

    public S3Exception(S3ErrorCode code, String message, Throwable cause) {
        super(message == null ? code.defaultMessage() : message, cause);
        this.code = requireNonNull(code, "code");
        this.headers = new LinkedHashMap<>();
    }

    public S3ErrorCode code() {
        return code;
    }

    /** Response headers to send with the error (e.g. {@code x-amz-delete-marker}). */
    public Map<String, String> headers() {
        return headers;
    }

    public S3Exception withHeader(String name, String value) {
        headers.put(name, value);
        return this;
    }
}
