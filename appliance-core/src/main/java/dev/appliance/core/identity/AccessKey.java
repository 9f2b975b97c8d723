package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * An access key as listed (never with its secret): its id, the user it belongs to, status and creation time. When it
 * was last used is not tracked yet.
 */
public record AccessKey(String accessKeyId, String userName, Status status, Instant created) {
    public AccessKey {
        requireNonNull(accessKeyId, "accessKeyId");
        requireNonNull(userName, "userName");
        requireNonNull(status, "status");
        requireNonNull(created, "created");
    }

    /** IAM's two key states: an inactive key is kept but does not authenticate. */
    public enum Status {
        Active,
        Inactive;

        /** The status named {@code text} exactly as IAM spells it ({@code Active}, {@code Inactive}). */
        public static Status parse(String text) {
            for (Status s : values()) {
                if (s.name().equals(text)) {
                    return s;
                }
            }
            throw new IdentityException(
                    IdentityException.Kind.VALIDATION_ERROR, "status: " + text + " (expected Active or Inactive)");
        }
    }
}
