package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.DriveHealStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/heal/drives} (SigV4-signed, as the rest of the admin API): every drive's state ({@code
 * online}, {@code offline} with the reason, or {@code healing} while a replaced drive is being filled) and the progress
 * of each drive heal since start: objects and bytes, rate, ETA, failures by name. {@code appliance heal status} reads
 * it; {@code GET /api/v1/status} carries the same figures in its {@code heal} object. Sets and slots count from 1.
 *
 * <p>{@code POST /api/v1/admin/heal/retry}: every heal waiting for its retry backoff (up to 10 minutes after a long
 * outage) is tried now, as after reattaching a drive. Answers {@code {"pending": n}}.
 */
@RestController
class HealController {
    private final ApplianceStore store;

    HealController(ApplianceStore store) {
        this.store = store;
    }

    @PostMapping("/api/v1/admin/heal/retry")
    Map<String, Object> retry() {
        return Map.of("pending", store.retryHealsNow());
    }

    @GetMapping("/api/v1/admin/heal/drives")
    Map<String, Object> drives() {
        return Map.of("drives", driveStates(store), "heals", driveHeals(store));
    }

    /** Every drive in topology order with its set, slot, state and (when out of service) why. */
    static List<Map<String, Object>> driveStates(ApplianceStore store) {
        List<Map<String, Object>> out = new ArrayList<>();
        List<LocalDrive> drives = store.drives();
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", d.root().toString());
            m.put("set", i / store.drivesPerSet() + 1);
            m.put("slot", i % store.drivesPerSet() + 1);
            m.put("state", store.driveState(d));
            m.put("online", d.isOnline());
            m.put("problem", d.offlineReason());
            m.put("slowCalls", d.slowCalls());
            m.put("ioErrors", d.ioErrors());
            m.put("faultsInjected", d.faults() != null);
            out.add(m);
        }
        return out;
    }

    static List<Map<String, Object>> driveHeals(ApplianceStore store) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (DriveHealStatus h : store.driveHeals()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("drive", h.drive());
            m.put("set", h.set() + 1);
            m.put("slot", h.slot() + 1);
            m.put("state", h.state());
            m.put("started", h.started().toString());
            m.put("updated", h.updated().toString());
            m.put("finished", h.finished() == null ? null : h.finished().toString());
            m.put("bucketsDone", h.bucketsDone());
            m.put("bucketsTotal", h.bucketsTotal());
            m.put("bucket", h.bucket());
            m.put("lastKey", h.lastKey());
            m.put("objectsScanned", h.objectsScanned());
            m.put("objectsHealed", h.objectsHealed());
            m.put("objectsSkipped", h.objectsSkipped());
            m.put("objectsFailed", h.objectsFailed());
            m.put("bytesHealed", h.bytesHealed());
            m.put("objectsEstimated", h.objectsEstimated());
            m.put("objectsPerSecond", Math.round(h.objectsPerSecond() * 10) / 10.0);
            m.put("bytesPerSecond", Math.round(h.bytesPerSecond()));
            m.put("etaSeconds", h.etaSeconds());
            m.put("resumes", h.resumes());
            m.put(
                    "failures",
                    h.failures().stream()
                            .map(f -> Map.of(
                                    "name",
                                    f.name(),
                                    "reason",
                                    f.reason(),
                                    "time",
                                    f.time().toString()))
                            .toList());
            out.add(m);
        }
        return out;
    }
}
