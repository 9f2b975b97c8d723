package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

/**
 * A policy document that is refused, with a message naming the bad element and value. The IAM API maps {@link
 * Reason#MALFORMED} to {@code MalformedPolicyDocument} and {@link Reason#TOO_LARGE} to {@code LimitExceeded}; the S3
 * bucket-policy calls map both to {@code MalformedPolicy} (S3 has no separate code for size).
 */
public final class MalformedPolicyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Why a document was refused. */
    public enum Reason {
        MALFORMED,
        TOO_LARGE
    }

    private final Reason reason;
    private final String element;

    MalformedPolicyException(Reason reason, String element, String message) {
        super(message);
        this.reason = requireNonNull(reason, "reason");
        this.element = requireNonNull(element, "element");
    }

    static MalformedPolicyException malformed(String element, String message) {
        return new MalformedPolicyException(Reason.MALFORMED, element, element + ": " + message);
    }

    public Reason reason() {
        return reason;
    }

    /** The element at fault, e.g. {@code Statement[2].Effect} or {@code Statement[0].Condition.StringEquals}. */
    public String element() {
        return element;
    }
}
