package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.scanner.ScannerHealFigures;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/scanner}: the background scanner's last completed cycle as JSON (per bucket: usage,
 * lifecycle actions, the keys with the most versions; per drive: versions, shard bytes, space), plus its settings.
 * Admin-only: it names buckets and keys.
 */
@RestController
class ScannerController {
    private final ApplianceStore store;

    ScannerController(ApplianceStore store) {
        this.store = store;
    }

    /**
     * The scanner's settings and its last completed cycle.
     *
     * @param lastCycle null until a cycle completed
     */
    record ScannerView(
            double lifecycleDaySeconds, int maxVersionsPerKey, ScannerHealFigures healChecks, CycleView lastCycle) {}

    /** One completed cycle; times ISO-8601, buckets by name. */
    record CycleView(
            long cycle,
            String started,
            String finished,
            SortedMap<String, ScanReport.BucketScan> buckets,
            List<ScanReport.DriveScan> drives) {
        static CycleView of(ScanReport r) {
            return new CycleView(
                    r.cycle(), r.started().toString(), r.finished().toString(), new TreeMap<>(r.buckets()), r.drives());
        }
    }

    @AdminOperation(AdminAction.GET_SCANNER_STATUS)
    @GetMapping("/api/v1/admin/scanner")
    ScannerView scanner() {
        ScanReport last = store.lastScan();
        return new ScannerView(
                store.lifecycleDayLength().toMillis() / 1000.0,
                store.maxVersionsPerKey(),
                store.scannerHealFigures(),
                last == null ? null : CycleView.of(last));
    }
}
