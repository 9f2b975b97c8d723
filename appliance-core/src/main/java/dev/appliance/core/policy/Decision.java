package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of evaluating a request, and which statement decided it, for the audit log: the first matching Deny
 * (explicit deny), else the first matching Allow, in the order the policies were given (identity policies, then the
 * bucket policy) and the statements stand; an implicit deny names no statement.
 *
 * @param policyName the deciding policy's name, null for {@link Outcome#IMPLICIT_DENY}
 * @param sid the deciding statement's Sid ("" when it has none), null for an implicit deny
 * @param statementIndex the deciding statement's position in its policy, from 0; -1 for an implicit deny
 */
public record Decision(Outcome outcome, String policyName, String sid, int statementIndex) {
    /** Nothing allowed the request: denied by default. */
    public static final Decision IMPLICIT_DENY = new Decision(Outcome.IMPLICIT_DENY, null, null, -1);

    public enum Outcome {
        ALLOW,
        EXPLICIT_DENY,
        IMPLICIT_DENY
    }

    public Decision {
        requireNonNull(outcome, "outcome");
        boolean implicit = outcome == Outcome.IMPLICIT_DENY;
        if (implicit != (policyName == null) || implicit != (sid == null) || implicit != (statementIndex < 0)) {
            throw new IllegalArgumentException("decision " + outcome + ": policy '" + policyName + "', sid '" + sid
                    + "', statement " + statementIndex + " (a statement decides exactly when the outcome is not"
                    + " an implicit deny)");
        }
    }

    public boolean allowed() {
        return outcome == Outcome.ALLOW;
    }

    /** For logs: {@code ALLOW by readwrite[0]} or {@code EXPLICIT_DENY by user-inline[2] (Sid DenyDelete)}. */
    @Override
    public String toString() {
        if (outcome == Outcome.IMPLICIT_DENY) {
            return "IMPLICIT_DENY";
        }
        return outcome + " by " + policyName + "[" + statementIndex + "]" + (sid.isEmpty() ? "" : " (Sid " + sid + ")");
    }
}
