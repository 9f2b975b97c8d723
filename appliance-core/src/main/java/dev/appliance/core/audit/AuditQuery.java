package dev.appliance.core.audit;

import java.time.Instant;

/**
 * Which events a query or an export returns: those in {@code [from, to)} (null: unbounded) whose principal contains
 * {@code principal}, whose action starts with {@code actionPrefix}, whose bucket is {@code bucket} and whose outcome is
 * {@code outcome} (each null or empty: any), oldest first, at most {@code limit}.
 */
public record AuditQuery(
        Instant from, Instant to, String principal, String actionPrefix, String bucket, String outcome, int limit) {

    /** The most events one query answers. */
    public static final int MAX_LIMIT = 10_000;

    public AuditQuery {
        if (limit < 1) {
            throw new IllegalArgumentException("limit: " + limit + " (expected 1.." + MAX_LIMIT + ")");
        }
        if (from != null && to != null && to.isBefore(from)) {
            throw new IllegalArgumentException("to: " + to + " is before from: " + from);
        }
        principal = blankToNull(principal);
        actionPrefix = blankToNull(actionPrefix);
        bucket = blankToNull(bucket);
        outcome = blankToNull(outcome);
    }

    /** Every event, up to {@code limit}. */
    public static AuditQuery all(int limit) {
        return new AuditQuery(null, null, null, null, null, null, limit);
    }

    boolean matches(AuditEvent e) {
        return (from == null || !e.time().isBefore(from))
                && (to == null || e.time().isBefore(to))
                && (principal == null || e.principal().contains(principal))
                && (actionPrefix == null || e.action().startsWith(actionPrefix))
                && (bucket == null || e.bucket().equals(bucket))
                && (outcome == null || e.outcome().equals(outcome));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
