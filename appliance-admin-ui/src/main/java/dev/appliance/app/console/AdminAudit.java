package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.audit.AuditEvent;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Audits every admin mutation (POST, PUT, PATCH, DELETE on the console port) into the engine's audit log, refusals
 * included, as {@code admin:<METHOD> <path>} by the signing key (docs/audit.md). Reads are not audited.
 */
final class AdminAudit {
    private static final Logger LOG = Logger.getLogger(AdminAudit.class.getName());
    static final Set<String> MUTATIONS = Set.of("POST", "PUT", "PATCH", "DELETE");

    /** Audits nothing (tests of the filter alone). */
    static final AdminAudit NONE = new AdminAudit(null, Clock.systemUTC());

    private final ApplianceStore store;
    private final Clock clock;

    AdminAudit(ApplianceStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    static boolean audited(String method) {
        return MUTATIONS.contains(method);
    }

    /**
     * Records one admin call. {@code outcome}: {@code allowed}, {@code denied}, or the error code answered; {@code
     * accessKey} null when the request was refused before its signer was known.
     */
    void record(String accessKey, String source, String method, String path, String query, String outcome, int status) {
        if (store == null) {
            return;
        }
        try {
            store.auditLog()
                    .record(new AuditEvent(
                            null,
                            clock.instant(),
                            principal(accessKey),
                            source,
                            "admin:" + method + " " + path,
                            resourceOf(path),
                            outcome,
                            status,
                            "",
                            query == null || query.isEmpty() ? Map.of() : Map.of("query", query)));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.SEVERE,
                    "audit event not recorded: admin:" + method + " " + path + " (" + outcome + "): " + e.getMessage());
        }
    }

    /** The bucket an admin path names ({@code /api/v1/admin/buckets/<bucket>/...}), else the path. */
    static String resourceOf(String path) {
        String prefix = "/api/v1/admin/buckets/";
        if (path.startsWith(prefix)) {
            String rest = path.substring(prefix.length());
            int slash = rest.indexOf('/');
            return slash < 0 ? rest : rest.substring(0, slash);
        }
        return path;
    }

    private String principal(String accessKey) {
        if (accessKey == null || accessKey.isEmpty()) {
            return "unauthenticated";
        }
        try {
            return store.identity()
                    .credential(accessKey)
                    .map(c -> accessKey + " (" + c.userName() + ")")
                    .orElse(accessKey);
        } catch (RuntimeException e) {
            return accessKey;
        }
    }
}
