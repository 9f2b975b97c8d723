package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.alerts.Alert;
import dev.appliance.core.alerts.VersionAlerts;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    @GetMapping("/api/v1/admin/alerts")
    Map<String, Object> list(@RequestParam(name = "all", defaultValue = "false") boolean all) {
        VersionAlerts alerts = store.versionAlerts();
        List<Alert> shown = alerts.alerts(all);
        VersionAlerts.Summary s = alerts.summary();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("active", s.active());
        out.put("unacknowledged", s.unacknowledged());
        out.put("critical", s.critical());
        out.put("alerts", shown);
        return out;
    }

    @PostMapping("/api/v1/admin/alerts/{id}/ack")
    Alert acknowledge(@PathVariable("id") String id) throws IOException {
        return store.versionAlerts().acknowledge(id);
    }

    @ExceptionHandler(NoSuchElementException.class)
    ResponseEntity<Map<String, String>> unknown(NoSuchElementException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND)
                .body(Map.of("code", "NO_SUCH_ALERT", "message", e.getMessage()));
    }

    @ExceptionHandler(IOException.class)
    ResponseEntity<Map<String, String>> notSaved(IOException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(Map.of(
                        "code",
                        "WRITE_QUORUM",
                        "message",
                        "the acknowledgement could not be saved on a majority of drives: " + e.getMessage()));
    }
}
