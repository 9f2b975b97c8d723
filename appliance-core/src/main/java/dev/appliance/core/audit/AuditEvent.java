package dev.appliance.core.audit;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One audited call.
 *
 * @param id unique per event (a random UUID when null): copies of it on several drives are one event
 * @param time when the call was answered (a write's event kept with its commit: when the commit began)
 * @param principal who: the access key id and the user name ({@code AKIA... (alice)}), {@code anonymous}, or the console
 *     user; never a secret
 * @param source where from: the client's address
 * @param action what: {@code s3:DeleteObject}, {@code iam:CreateUser}, {@code admin:PUT /api/v1/...}
 * @param resource on what: {@code bucket}, {@code bucket/key}, {@code bucket/key?versionId=...}, a user name; empty
 *     when none
 * @param outcome {@code allowed}, {@code denied}, or the error code of a failed call
 * @param status the HTTP status answered
 * @param requestId the request id answered to the client (empty when none)
 * @param details a few more facts (retention mode and date, versioning state...); values under a key that names a
 *     secret ({@code secret}, {@code password}, {@code token}, {@code signature}, {@code authorization}, {@code
 *     credential}) are replaced by {@code [redacted]}
 */
public record AuditEvent(
        String id,
        Instant time,
        String principal,
        String source,
        String action,
        String resource,
        String outcome,
        int status,
        String requestId,
        Map<String, String> details) {

    /** The outcome of a call that was done. */
    public static final String ALLOWED = "allowed";
    /** The outcome of a call refused for want of permission. */
    public static final String DENIED = "denied";

    static final String REDACTED = "[redacted]";
    private static final int MAX_FIELD = 2048;

    public AuditEvent {
        id = id == null || id.isEmpty() ? UUID.randomUUID().toString() : id;
        requireNonNull(time, "time");
        principal = bounded("principal", principal == null ? "" : principal);
        source = bounded("source", source == null ? "" : source);
        action = bounded("action", requireNonNull(action, "action"));
        if (action.isEmpty()) {
            throw new IllegalArgumentException("action: empty (expected e.g. s3:DeleteObject)");
        }
        resource = bounded("resource", resource == null ? "" : resource);
        outcome = bounded("outcome", requireNonNull(outcome, "outcome"));
        if (status < 0 || status > 999) {
            throw new IllegalArgumentException("status: " + status + " (expected an HTTP status)");
        }
        requestId = bounded("requestId", requestId == null ? "" : requestId);
        Map<String, String> safe = new TreeMap<>();
        if (details != null) {
            details.forEach((k, v) -> safe.put(
                    requireNonNull(k, "details key"), namesSecret(k) ? REDACTED : bounded(k, v == null ? "" : v)));
        }
        details = java.util.Collections.unmodifiableMap(safe);
    }

    /** An event with a fresh id and no details. */
    public static AuditEvent of(
            Instant time,
            String principal,
            String source,
            String action,
            String resource,
            String outcome,
            int status,
            String requestId) {
        return new AuditEvent(null, time, principal, source, action, resource, outcome, status, requestId, Map.of());
    }

    /** This event (the same id) stamped at {@code when}: a write's, at its commit. */
    public AuditEvent at(Instant when) {
        return new AuditEvent(id, when, principal, source, action, resource, outcome, status, requestId, details);
    }

    /** This event with {@code details} instead of its own. */
    public AuditEvent withDetails(Map<String, String> more) {
        return new AuditEvent(id, time, principal, source, action, resource, outcome, status, requestId, more);
    }

    /** The bucket the resource names (the part before the first slash), or empty. */
    public String bucket() {
        int slash = resource.indexOf('/');
        String b = slash < 0 ? resource : resource.substring(0, slash);
        int query = b.indexOf('?');
        return query < 0 ? b : b.substring(0, query);
    }

    static boolean namesSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("secret")
                || k.contains("password")
                || k.contains("token")
                || k.contains("signature")
                || k.contains("authorization")
                || k.contains("credential");
    }

    private static String bounded(String what, String value) {
        if (value.length() > MAX_FIELD) {
            return value.substring(0, MAX_FIELD) + "...";
        }
        return value;
    }
}
