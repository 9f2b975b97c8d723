package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.s3.S3Server;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two views of the appliance's state as JSON.
 *
 * <p>{@code GET /api/v1/status}, public (for monitoring; see {@link ConsoleAccessFilter}): topology, each drive's set,
 * slot and state ({@code online}, {@code offline}, {@code faulty},
 * {@code healing}), the heal queue's counts, the retention clock
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

    /** Drive fields that say nothing about where the drive is or what failed on it. */
    private static final List<String> PUBLIC_DRIVE_FIELDS =
            List.of("set", "slot", "state", "online", "slowCalls", "ioErrors", "faultsInjected");

    @GetMapping("/api/v1/status")
    Map<String, Object> publicStatus() {
        List<Map<String, Object>> drives = HealController.driveStates(store).stream()
                .map(d -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    PUBLIC_DRIVE_FIELDS.forEach(f -> m.put(f, d.get(f)));
                    return m;
                })
                .toList();
        var h = store.healStatus();
        var a = store.versionAlerts().summary();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sets", store.setCount());
        out.put("drivesPerSet", store.drivesPerSet());
        out.put("parity", store.parity());
        out.put("drives", drives);
        out.put(
                "heal",
                Map.of(
                        "pending", h.pending(),
                        "retrying", h.retrying(),
                        "healed", h.healed(),
                        "failed", h.failed(),
                        "drivesHealing",
                                store.driveHeals().stream()
                                        .filter(d -> d.finished() == null)
                                        .count()));
        out.put("retentionClock", clock());
        out.put("alerts", Map.of("active", a.active(), "unacknowledged", a.unacknowledged(), "critical", a.critical()));
        return out;
    }

    @GetMapping("/api/v1/admin/status")
    Map<String, Object> status() {
        List<Map<String, Object>> drives = HealController.driveStates(store);
        return Map.of(
                "deploymentId", store.deploymentId().toString(),
                "retentionClock", clock(),
                "s3Port", s3.port(),
                "sets", store.setCount(),
                "drivesPerSet", store.drivesPerSet(),
                "parity", store.parity(),
                "drives", drives,
                "heal", heal(),
                "alerts", alerts());
    }

    private Map<String, Object> clock() {
        var time = store.retentionClock().status();
        return Map.of(
                "trustedTime", time.trusted().toString(),
                "systemTime", time.wall().toString(),
                "systemClockBelieved", time.wallClockBelieved(),
                "ntp", time.hostSync().name(),
                "forwardJumpNotBelievedAtStartSeconds",
                        time.forwardJumpNotBelievedAtStart().toSeconds(),
                "healthy", time.wallClockBelieved() && time.hostSync() != HostTimeSync.State.UNSYNCHRONIZED);
    }

    /** Active alerts in brief; the details are at GET /api/v1/admin/alerts (signed). */
    private Map<String, Object> alerts() {
        var s = store.versionAlerts().summary();
        return Map.of(
                "active", s.active(),
                "unacknowledged", s.unacknowledged(),
                "critical", s.critical(),
                "ids", s.ids());
    }

    private static final int FAILURES_SHOWN = 5;

    private Map<String, Object> heal() {
        var h = store.healStatus();
        List<Map<String, Object>> failures = h.lastFailures().stream()
                .limit(FAILURES_SHOWN)
                .map(f -> Map.<String, Object>of(
                        "item", f.item(), "reason", f.reason(), "time", f.time().toString()))
                .toList();
        return Map.of(
                "pending", h.pending(),
                "spilled", h.spilled(),
                "retrying", h.retrying(),
                "healed", h.healed(),
                "failed", h.failed(),
                "lastFailures", failures,
                "drives", HealController.driveHeals(store));
    }
}
