package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.alerts.Alert;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.policy.AdminAction;
import java.io.IOException;
import java.util.List;
import java.util.NoSuchElementException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Operator alerts (SigV4-signed like the rest of the admin API): {@code GET /api/v1/admin/alerts[?all=true]} lists the
 * active alerts (with {@code all}, the recently cleared ones too) and {@code POST /api/v1/admin/alerts/{id}/ack}
 * acknowledges one, durably. Codes and runbooks: docs/alerts.md.
 */
@RestController
class AlertsController {
    private final ApplianceStore store;

    AlertsController(ApplianceStore store) {
        this.store = store;
    }

    /** The counts of active alerts, and the alerts shown (active, or with {@code all} also recently cleared). */
    record AlertList(int active, int unacknowledged, int critical, List<Alert> alerts) {}

    @AdminOperation(AdminAction.LIST_ALERTS)
    @GetMapping("/api/v1/admin/alerts")
    AlertList list(@RequestParam(name = "all", defaultValue = "false") boolean all) {
        VersionAlerts alerts = store.versionAlerts();
        List<Alert> shown = alerts.alerts(all);
        VersionAlerts.Summary s = alerts.summary();
        return new AlertList(s.active(), s.unacknowledged(), s.critical(), shown);
    }

    @AdminOperation(AdminAction.ACKNOWLEDGE_ALERT)
    @PostMapping("/api/v1/admin/alerts/{id}/ack")
    Alert acknowledge(@PathVariable("id") String id) throws IOException {
        return store.versionAlerts().acknowledge(id);
    }

    @ExceptionHandler(NoSuchElementException.class)
    ResponseEntity<Problem> unknown(NoSuchElementException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new Problem("NO_SUCH_ALERT", e.getMessage()));
    }

    @ExceptionHandler(IOException.class)
    ResponseEntity<Problem> notSaved(IOException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(new Problem(
                        "WRITE_QUORUM",
                        "the acknowledgement could not be saved on a majority of drives: " + e.getMessage()));
    }
}
