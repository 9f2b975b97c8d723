package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.policy.AdminAction;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * The audit log (SigV4-signed like the rest of the admin API; docs/audit.md): {@code GET /api/v1/admin/audit} answers
 * the events selected by {@code from}, {@code to} (ISO-8601 instants, to exclusive), {@code principal} (a substring),
 * {@code action} (a prefix), {@code bucket}, {@code outcome} and {@code limit} (default 1000, at most 10,000), oldest
 * first; {@code GET /api/v1/admin/audit/export} streams every selected event as JSON lines.
 */
@RestController
class AuditController {
    static final int DEFAULT_LIMIT = 1000;

    private final ApplianceStore store;

    AuditController(ApplianceStore store) {
        this.store = store;
    }

    /** One audited call. */
    record AuditEntry(
            String id,
            String time,
            String principal,
            String source,
            String action,
            String resource,
            String outcome,
            int status,
            String requestId,
            Map<String, String> details) {
        static AuditEntry of(AuditEvent e) {
            return new AuditEntry(
                    e.id(),
                    e.time().toString(),
                    e.principal(),
                    e.source(),
                    e.action(),
                    e.resource(),
                    e.outcome(),
                    e.status(),
                    e.requestId(),
                    e.details());
        }
    }

    /** The events found (at most the limit, oldest first); {@code truncated} when more matched. */
    record AuditPage(int count, boolean truncated, List<AuditEntry> events) {}

    @AdminOperation(AdminAction.GET_AUDIT_LOG)
    @GetMapping("/api/v1/admin/audit")
    AuditPage query(
            @RequestParam(name = "from", required = false) String from,
            @RequestParam(name = "to", required = false) String to,
            @RequestParam(name = "principal", required = false) String principal,
            @RequestParam(name = "action", required = false) String action,
            @RequestParam(name = "bucket", required = false) String bucket,
            @RequestParam(name = "outcome", required = false) String outcome,
            @RequestParam(name = "limit", defaultValue = "" + DEFAULT_LIMIT) int limit) {
        if (limit < 1 || limit > AuditQuery.MAX_LIMIT) {
            throw new IllegalArgumentException("limit: " + limit + " (expected 1.." + AuditQuery.MAX_LIMIT + ")");
        }
        // one more than asked tells whether the page is the whole answer
        List<AuditEvent> found = store.auditLog()
                .query(new AuditQuery(instant(from), instant(to), principal, action, bucket, outcome, limit + 1));
        boolean truncated = found.size() > limit;
        List<AuditEntry> events =
                found.stream().limit(limit).map(AuditEntry::of).toList();
        return new AuditPage(events.size(), truncated, events);
    }

    @AdminOperation(AdminAction.GET_AUDIT_LOG)
    @GetMapping("/api/v1/admin/audit/export")
    ResponseEntity<StreamingResponseBody> export(
            @RequestParam(name = "from", required = false) String from,
            @RequestParam(name = "to", required = false) String to,
            @RequestParam(name = "principal", required = false) String principal,
            @RequestParam(name = "action", required = false) String action,
            @RequestParam(name = "bucket", required = false) String bucket,
            @RequestParam(name = "outcome", required = false) String outcome) {
        AuditQuery q =
                new AuditQuery(instant(from), instant(to), principal, action, bucket, outcome, Integer.MAX_VALUE);
        StreamingResponseBody body = out -> store.auditLog().export(q, out);
        return ResponseEntity.ok()
                .contentType(MediaType.parseMediaType("application/x-ndjson"))
                .body(body);
    }

    private static Instant instant(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + s + "' is not an ISO-8601 instant (e.g. 2026-11-26T16:00:00Z)");
        }
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Problem> badQuery(IllegalArgumentException e) {
        return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(new Problem("INVALID_QUERY", e.getMessage()));
    }
}
