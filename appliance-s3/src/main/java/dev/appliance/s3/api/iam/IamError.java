package dev.appliance.s3.api.iam;

import static java.util.Objects.requireNonNull;

/** A refused IAM call, rendered as IAM's {@code <ErrorResponse>} with {@code code} and {@code status}. */
final class IamError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;
    private final int status;

    IamError(String code, int status, String message) {
        super(message);
        this.code = requireNonNull(code, "code");
        this.status = status;
    }

    String code() {
        return code;
    }

    int status() {
        return status;
    }

    static IamError validation(String message) {
        return new IamError("ValidationError", 400, message);
    }

    static IamError invalidInput(String message) {
        return new IamError("InvalidInput", 400, message);
    }

    static IamError noSuchEntity(String message) {
        return new IamError("NoSuchEntity", 404, message);
    }
}
