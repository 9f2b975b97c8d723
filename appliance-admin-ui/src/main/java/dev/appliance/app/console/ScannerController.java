package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.scanner.ScanReport;
import java.util.LinkedHashMap;
import java.util.Map;
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

    @GetMapping("/api/v1/admin/scanner")
    Map<String, Object> scanner() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lifecycleDaySeconds", store.lifecycleDayLength().toMillis() / 1000.0);
        out.put("maxVersionsPerKey", store.maxVersionsPerKey());
        out.put("healChecks", store.scannerHealFigures());
        ScanReport last = store.lastScan();
        out.put("lastCycle", last == null ? null : cycle(last));
        return out;
    }

    private static Map<String, Object> cycle(ScanReport r) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("cycle", r.cycle());
        c.put("started", r.started().toString());
        c.put("finished", r.finished().toString());
        c.put("buckets", new java.util.TreeMap<>(r.buckets()));
        c.put("drives", r.drives());
        return c;
    }
}
