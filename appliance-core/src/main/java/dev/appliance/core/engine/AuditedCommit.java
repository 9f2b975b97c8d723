package dev.appliance.core.engine;

import dev.appliance.core.PutRequest;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditLog;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureSet;
import java.io.IOException;
import java.time.Clock;
import java.util.logging.Logger;

/**
 * The audit event a PutObject carries ({@link PutRequest#auditEvent}: one that sets retention or a legal hold), kept
 * with the write's commit (docs/decisions/audit-log.md). It is stamped when the commit begins and appended on each
 * drive between the rename that commits the version there and the flush that makes that rename durable ({@link
 * ErasureSet.CommitRecord}), so it costs no force of its own. Where that does not make it durable on the log's write
 * quorum, it is forced once the write succeeded, before the store returns: recorded as any event (a set with fewer
 * drives than that quorum, as in a deployment of several sets), or its line forced on every drive (appends that
 * failed).
 */
final class AuditedCommit {
    private static final Logger LOG = Logger.getLogger(AuditedCommit.class.getName());

    private final AuditLog log;
    private final AuditEvent event;
    private final Clock clock;
    private final boolean keptWithCommit;
    private AuditLog.Prepared prepared; // guarded by this
    private volatile boolean durable;

    /** {@code setDrives}: the drives of the set the write goes to, all of them the log's. */
    AuditedCommit(AuditLog log, AuditEvent event, Clock clock, int setDrives) {
        this.log = log;
        this.event = event;
        this.clock = clock;
        this.keptWithCommit = setDrives >= log.writeQuorum();
    }

    /** Refuses a request with an audit event on a write that does not keep one: it would be lost. */
    static void refuse(PutRequest request) {
        if (request != null && request.auditEvent() != null) {
            throw new IllegalArgumentException("auditEvent: only putObject keeps one with its commit");
        }
    }

    /** What the set keeps beside its commit, or null when the event is to be forced after the write. */
    ErasureSet.CommitRecord withCommit() {
        if (!keptWithCommit) {
            return null;
        }
        return new ErasureSet.CommitRecord() {
            @Override
            public void append(LocalDrive drive) throws IOException {
                log.appendPrepared(drive, prepared());
            }

            @Override
            public void committed(int drives) {
                durable = drives >= log.writeQuorum();
            }
        };
    }

    /** After the write succeeded: forces the event unless its commit made it durable on a write quorum already. */
    void afterWrite() {
        if (durable) {
            return;
        }
        try {
            AuditLog.Prepared appended = appendedSoFar();
            if (appended == null) {
                log.record(event.at(clock.instant())); // never appended: a force shared with concurrent events
            } else {
                log.force(appended); // on too few drives: the same line, in the same segment, forced on every drive
            }
        } catch (RuntimeException e) {
            // the write is done and stands, as for any audited call whose event the log cannot keep
            LOG.severe("audit event not recorded: " + event.action() + " " + event.resource() + " by "
                    + event.principal() + " (" + event.outcome() + "): " + e.getMessage());
        }
    }

    private synchronized AuditLog.Prepared appendedSoFar() {
        return prepared;
    }

    /** The event stamped at its first use (the commit's start), prepared once for every drive. */
    private synchronized AuditLog.Prepared prepared() {
        if (prepared == null) {
            prepared = log.prepare(event.at(clock.instant()));
        }
        return prepared;
    }
}
