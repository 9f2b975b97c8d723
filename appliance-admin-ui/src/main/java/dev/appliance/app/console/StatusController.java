package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.s3.S3Server;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two views of the appliance's state as JSON.
 *
 * <p>{@code GET /api/v1/status}, public (for monitoring; see {@link AdminAuthorization}): topology, each drive's set,
 * slot and state ({@code online}, {@code offline}, {@code healing}), the heal queue's counts, the retention clock
 * (trusted time, system time, whether they agree, the host's NTP state) and the alert counts. Nothing that names an
 * object, a bucket, a drive path or the deployment: an anonymous caller learns whether the appliance is healthy, not
 * what it holds or where.
 *
 * <p>{@code GET /api/v1/admin/status}, signed: the same plus the deployment id, the S3 port, each drive's path and
 * why it is out of service, the last heal failures by name, the drive heals (progress of replaced drives being
 * filled) and the active alerts' ids.
 */
@RestController
class StatusController {
    private final ApplianceStore store;
    private final S3Server s3;

    StatusController(ApplianceStore store, S3Server s3) {
        this.store = store;
        this.s3 = s3;
    }

    /** The public view: nothing that names an object, a bucket, a drive path or the deployment. */
    record PublicStatus(
            int sets,
            int drivesPerSet,
            int parity,
            List<PublicDrive> drives,
            PublicHeal heal,
            RetentionClockView retentionClock,
            AlertCounts alerts) {}

    /** A drive's fields that say nothing about where the drive is or what failed on it. */
    record PublicDrive(
            int set, int slot, String state, boolean online, long slowCalls, long ioErrors, boolean faultsInjected) {
        static PublicDrive of(HealController.DriveView d) {
            return new PublicDrive(
                    d.set(), d.slot(), d.state(), d.online(), d.slowCalls(), d.ioErrors(), d.faultsInjected());
        }
    }

    record PublicHeal(int pending, int retrying, long healed, long failed, long drivesHealing) {}

    record AlertCounts(int active, int unacknowledged, int critical) {}

    /**
     * The retention clock; times ISO-8601.
     *
     * @param ntp the host's NTP state
     * @param healthy the system clock is believed and the host is not known to be unsynchronized
     */
    record RetentionClockView(
            String trustedTime,
            String systemTime,
            boolean systemClockBelieved,
            String ntp,
            long forwardJumpNotBelievedAtStartSeconds,
            boolean healthy) {}

    /** The signed view: the public one plus where things are and what failed. */
    record AdminStatus(
            String deploymentId,
            RetentionClockView retentionClock,
            int s3Port,
            int sets,
            int drivesPerSet,
            int parity,
            List<HealController.DriveView> drives,
            AdminHeal heal,
            AlertSummary alerts) {}

    /** The heal queue, its last failures by name, and the drive heals. */
    record AdminHeal(
            int pending,
            long spilled,
            int retrying,
            long healed,
            long failed,
            List<HealFailure> lastFailures,
            List<HealController.DriveHealView> drives) {}

    record HealFailure(String item, String reason, String time) {}

    /** Active alerts in brief; the details are at GET /api/v1/admin/alerts (signed). */
    record AlertSummary(int active, int unacknowledged, int critical, List<String> ids) {}

    @GetMapping("/api/v1/status")
    PublicStatus publicStatus() {
        var h = store.healStatus();
        var a = store.versionAlerts().summary();
        return new PublicStatus(
                store.setCount(),
                store.drivesPerSet(),
                store.parity(),
                HealController.driveStates(store).stream().map(PublicDrive::of).toList(),
                new PublicHeal(
                        h.pending(),
                        h.retrying(),
                        h.healed(),
                        h.failed(),
                        store.driveHeals().stream()
                                .filter(d -> d.finished() == null)
                                .count()),
                clock(),
                new AlertCounts(a.active(), a.unacknowledged(), a.critical()));
    }

    @AdminOperation(AdminAction.GET_SERVER_INFO)
    @GetMapping("/api/v1/admin/status")
    AdminStatus status() {
        var s = store.versionAlerts().summary();
        return new AdminStatus(
                store.deploymentId().toString(),
                clock(),
                s3.port(),
                store.setCount(),
                store.drivesPerSet(),
                store.parity(),
                HealController.driveStates(store),
                heal(),
                new AlertSummary(s.active(), s.unacknowledged(), s.critical(), s.ids()));
    }

    private RetentionClockView clock() {
        var time = store.retentionClock().status();
        return new RetentionClockView(
                time.trusted().toString(),
                time.wall().toString(),
                time.wallClockBelieved(),
                time.hostSync().name(),
                time.forwardJumpNotBelievedAtStart().toSeconds(),
                time.wallClockBelieved() && time.hostSync() != HostTimeSync.State.UNSYNCHRONIZED);
    }

    private static final int FAILURES_SHOWN = 5;

    private AdminHeal heal() {
        var h = store.healStatus();
        return new AdminHeal(
                h.pending(),
                h.spilled(),
                h.retrying(),
                h.healed(),
                h.failed(),
                h.lastFailures().stream()
                        .limit(FAILURES_SHOWN)
                        .map(f -> new HealFailure(f.item(), f.reason(), f.time().toString()))
                        .toList(),
                HealController.driveHeals(store));
    }
}
