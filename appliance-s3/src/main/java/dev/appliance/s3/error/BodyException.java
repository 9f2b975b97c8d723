package dev.appliance.s3.error;

import static java.util.Objects.requireNonNull;

import java.io.IOException;

/**
 * A request body that failed verification or framing (bad chunk signature, payload hash mismatch, truncated body).
 * It is an {@link IOException} so that it travels through the engine's {@code putObject} as the body's own failure
 * (the engine then commits nothing) and comes out the other side still knowing its S3 error.
 */
public class BodyException extends IOException {
    private static final long serialVersionUID = 1L;

    private final S3ErrorCode code;

    public BodyException(S3ErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code");
    }

    public S3ErrorCode code() {
        return code;
    }
}
