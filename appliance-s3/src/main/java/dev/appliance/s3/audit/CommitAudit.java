package dev.appliance.s3.audit;

import dev.appliance.core.PutRequest;
import dev.appliance.core.audit.AuditEvent;

/**
 * The audit event of a PutObject that sets retention or a legal hold, offered to the engine to keep with the write's
 * commit ({@link PutRequest#auditEvent}): the event of the call done, written before the flush that makes the write
 * durable instead of forced after it. The dispatcher records the call itself, as any other, when the handler did not
 * take the event (the write never reached the engine) or when the call failed.
 */
public final class CommitAudit {
    private final AuditEvent event;
    private volatile boolean taken;

    /** {@code event}: the call's event should it succeed, or null when the sink keeps none with commits. */
    public CommitAudit(AuditEvent event) {
        this.event = event;
    }

    /** {@code request} carrying the event, now counted as kept by the engine should the write succeed. */
    public PutRequest attachTo(PutRequest request) {
        if (event == null) {
            return request;
        }
        taken = true;
        return request.withAuditEvent(event);
    }

    /** Whether a write took the event: once it succeeded, the engine has kept it. */
    public boolean taken() {
        return taken;
    }
}
