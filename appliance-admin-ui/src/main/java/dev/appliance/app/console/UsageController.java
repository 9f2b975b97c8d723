package dev.appliance.app.console;

import dev.appliance.core.UsageTotals;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.policy.AdminAction;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/usage}: what all buckets hold together, for the dashboard's contents card. Summed in memory
 * from each bucket's last count, so it costs the same for ten buckets or ten thousand and starts no walk of any
 * bucket (a summing client that paged through every bucket instead made each page's buckets recount when stale).
 * Reading it is listing buckets: the same permission ({@code admin:ListBuckets}).
 */
@RestController
class UsageController {
    private final ApplianceStore store;

    UsageController(ApplianceStore store) {
        this.store = store;
    }

    /**
     * @param uncounted buckets not counted yet, left out of the sums (the scanner's next cycle counts them)
     * @param oldestCount ISO-8601 time of the oldest count summed; null when none is
     */
    record Totals(
            long buckets,
            long uncounted,
            long objects,
            long versions,
            long deleteMarkers,
            long bytes,
            String oldestCount) {}

    @AdminOperation(AdminAction.LIST_BUCKETS)
    @GetMapping("/api/v1/admin/usage")
    Totals totals() {
        UsageTotals t = store.usageTotals();
        return new Totals(
                t.buckets(),
                t.uncounted(),
                t.objects(),
                t.versions(),
                t.deleteMarkers(),
                t.bytes(),
                t.oldestCount() == null ? null : t.oldestCount().toString());
    }
}
