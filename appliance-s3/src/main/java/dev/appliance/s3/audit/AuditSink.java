package dev.appliance.s3.audit;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditLog;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the S3 endpoint tells of the calls it audits. Called on a worker thread once the call's outcome is known and
 * before its answer is sent; an implementation that keeps events durably returns once the event is kept. It must not
 * throw: the call was already done.
 */
public interface AuditSink {
    /** Records nothing (tests, embedded use without an audit log). */
    AuditSink NONE = call -> {};

    void record(AuditedCall call);

    /**
     * {@code call} as the engine's audit event, for a write to keep with its commit ({@link CommitAudit}); null when
     * this sink keeps no such log (the call is then recorded after it is done, as any other).
     */
    default AuditEvent event(AuditedCall call) {
        return null;
    }

    /**
     * One audited call. Never a secret: no secret key, signature, Authorization header or session token.
     *
     * @param accessKey the access key id that signed the request, empty for an anonymous one
     * @param source the client's address, empty when unknown
     * @param action {@code s3:DeleteObject}, {@code iam:CreateUser}...
     * @param resource {@code bucket}, {@code bucket/key}, {@code bucket/key?versionId=...}, an IAM name; empty when none
     * @param outcome {@code allowed}, {@code denied} (AccessDenied), or the error code answered
     * @param status the HTTP status answered
     */
    record AuditedCall(
            Instant time,
            String accessKey,
            String source,
            String action,
            String resource,
            String outcome,
            int status,
            String requestId,
            Map<String, String> details) {
        public AuditedCall {
            requireNonNull(time, "time");
            accessKey = accessKey == null ? "" : accessKey;
            source = source == null ? "" : source;
            requireNonNull(action, "action");
            resource = resource == null ? "" : resource;
            requireNonNull(outcome, "outcome");
            details = details == null ? Map.of() : Map.copyOf(details);
        }
    }

    /**
     * Why a request failed authentication, in the words of the metrics ({@code appliance_s3_auth_failures_total}'s
     * reasons): the {@code authentication} detail of an event that records such a refusal.
     */
    static String authenticationFailure(dev.appliance.s3.error.S3Exception e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return switch (e.code()) {
            case SignatureDoesNotMatch -> "signature_mismatch";
            case InvalidAccessKeyId -> "unknown_key";
            case RequestTimeTooSkewed -> "clock_skew";
            case AccessDenied ->
                message.startsWith("Request has expired") || message.startsWith("Request is not valid yet")
                        ? "expired"
                        : message.startsWith("Anonymous access is not allowed") ? "anonymous" : "malformed";
            default -> "malformed";
        };
    }

    /**
     * The engine's audit log of {@code store} when it keeps one ({@link StoreAdmin#auditLog}), else {@link #NONE}. The
     * principal is written as the access key id and the user it belongs to; an event the log cannot force on a write
     * quorum is reported as a severe log line (the call it audits is done by then).
     */
    static AuditSink of(ObjectStore store) {
        if (!(store instanceof StoreAdmin admin)) {
            return NONE;
        }
        AuditLog log = admin.auditLog();
        Logger logger = Logger.getLogger(AuditSink.class.getName());
        return new AuditSink() {
            @Override
            public void record(AuditedCall call) {
                try {
                    log.record(event(call));
                } catch (RuntimeException e) {
                    logger.log(
                            Level.SEVERE,
                            "audit event not recorded: " + call.action() + " " + call.resource() + " by "
                                    + call.accessKey() + " (" + call.outcome() + "): " + e.getMessage());
                }
            }

            @Override
            public AuditEvent event(AuditedCall call) {
                return new AuditEvent(
                        null,
                        call.time(),
                        principal(admin, call.accessKey()),
                        call.source(),
                        call.action(),
                        call.resource(),
                        call.outcome(),
                        call.status(),
                        call.requestId(),
                        call.details());
            }
        };
    }

    private static String principal(StoreAdmin admin, String accessKey) {
        if (accessKey.isEmpty()) {
            return "anonymous";
        }
        try {
            return admin.identity()
                    .credential(accessKey)
                    .map(c -> accessKey + " (" + c.userName() + ")")
                    .orElse(accessKey); // a key of the configuration (the root key), not an IAM user's
        } catch (RuntimeException e) { // identity state unavailable: the key still says who
            return accessKey;
        }
    }
}
