package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

/** A refused identity operation, classified by {@link Kind}, which names the AWS IAM error code it maps to. */
public final class IdentityException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of refusal, each with the IAM error code and the HTTP status IAM answers it with. */
    public enum Kind {
        NO_SUCH_ENTITY("NoSuchEntity", 404),
        ENTITY_ALREADY_EXISTS("EntityAlreadyExists", 409),
        LIMIT_EXCEEDED("LimitExceeded", 409),
        DELETE_CONFLICT("DeleteConflict", 409),
        INVALID_INPUT("InvalidInput", 400),
        VALIDATION_ERROR("ValidationError", 400),
        /** The identity state cannot be used: no encryption key given, or the drives' state does not open with it. */
        SERVICE_FAILURE("ServiceFailure", 500);

        private final String code;
        private final int httpStatus;

        Kind(String code, int httpStatus) {
            this.code = code;
            this.httpStatus = httpStatus;
        }

        public String code() {
            return code;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    private final Kind kind;

    public IdentityException(Kind kind, String message) {
        this(kind, message, null);
    }

    public IdentityException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }

    static IdentityException noSuch(String what, String name) {
        return new IdentityException(Kind.NO_SUCH_ENTITY, "The " + what + " with name " + name + " cannot be found.");
    }
}
