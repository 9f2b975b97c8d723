package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An admin bearer token as listed (never with its secret; the store keeps only the secret's SHA-256): its id ({@code
 * ATOK...}), a name unique among its owner's tokens, its owner (an IAM user's name, or {@code root} for the root
 * credential), its scope (the managed policies, built-in or customer, whose grants the token carries: at most those,
 * and never more than its owner has), when it was created and when it stops resolving.
 */
public record AdminToken(
        String id, String name, String owner, List<String> policyArns, Instant createdAt, Instant expiresAt) {
    /** The owner that stands for the root credential. */
    public static final String ROOT_OWNER = "root";

    private static final Pattern NAME = Pattern.compile("[\\w+=,.@-]{1,64}");
    private static final Pattern POLICY_ARN = Pattern.compile("arn:aws:iam::(aws|[0-9]{12}):policy/[\\w+=,.@-]{1,128}");

    public AdminToken {
        requireNonNull(id, "id");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IdentityException(
                    IdentityException.Kind.VALIDATION_ERROR,
                    "name: " + name + " (expected 1 to 64 characters of letters, digits and +=,.@_-)");
        }
        if (owner == null || owner.isEmpty()) {
            throw new IdentityException(
                    IdentityException.Kind.VALIDATION_ERROR, "owner: " + owner + " (expected a user name or root)");
        }
        if (policyArns == null || policyArns.isEmpty()) {
            throw new IdentityException(
                    IdentityException.Kind.VALIDATION_ERROR,
                    "policyArns: " + policyArns + " (expected at least one managed policy ARN)");
        }
        for (String arn : policyArns) {
            if (arn == null || !POLICY_ARN.matcher(arn).matches()) {
                throw new IdentityException(
                        IdentityException.Kind.INVALID_INPUT,
                        "policyArns: " + arn + " (expected arn:aws:iam::aws:policy/<name> or"
                                + " arn:aws:iam::<account>:policy/<name>)");
            }
        }
        policyArns = List.copyOf(policyArns);
        requireNonNull(createdAt, "createdAt");
        requireNonNull(expiresAt, "expiresAt");
        if (!expiresAt.isAfter(createdAt)) {
            throw new IdentityException(
                    IdentityException.Kind.VALIDATION_ERROR,
                    "expiresAt: " + expiresAt + " (expected after the creation time " + createdAt + ")");
        }
    }

    /** Whether the token has expired at {@code now} (it resolves strictly before {@link #expiresAt}). */
    public boolean expiredAt(Instant now) {
        return !now.isBefore(expiresAt);
    }
}
