package dev.appliance.app.console;

import dev.appliance.core.erasure.ErasureObjectStore;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.s3.S3Server;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/status}: deployment, topology, drive states ({@code online}, {@code offline}, {@code faulty}, {@code healing}),
 * the heal queue (pending, retrying, healed and failed items, the last failures by name), the drive heals (progress of
 * replaced drives being filled), the retention clock (trusted time, system time, whether they agree, the host's NTP
 * state) and the active alerts in brief (counts and ids) as JSON.
 */
@RestController
class StatusController {
    private final ErasureObjectStore store;
    private final S3Server s3;

    StatusController(ErasureObjectStore store, S3Server s3) {
        this.store = store;
        this.s3 = s3;
    }

    @GetMapping("/api/v1/status")
    Map<String, Object> status() {
        List<Map<String, Object>> drives = HealController.driveStates(store);
        var time = store.retentionClock().status();
        Map<String, Object> clock = Map.of(
                "trustedTime", time.trusted().toString(),
                "systemTime", time.wall().toString(),
                "systemClockBelieved", time.wallClockBelieved(),
                "ntp", time.hostSync().name(),
                "forwardJumpNotBelievedAtStartSeconds",
                        time.forwardJumpNotBelievedAtStart().toSeconds(),
                "healthy", time.wallClockBelieved() && time.hostSync() != HostTimeSync.State.UNSYNCHRONIZED);
        return Map.of(
                "deploymentId", store.deploymentId().toString(),
                "retentionClock", clock,
                "s3Port", s3.port(),
                "sets", store.setCount(),
                "drivesPerSet", store.drivesPerSet(),
                "parity", store.parity(),
                "drives", drives,
                "heal", heal(),
                "alerts", alerts());
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
