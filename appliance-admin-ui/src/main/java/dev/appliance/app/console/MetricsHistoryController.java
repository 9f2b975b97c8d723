package dev.appliance.app.console;

import dev.appliance.app.metrics.TrafficHistory;
import dev.appliance.core.policy.AdminAction;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/metrics/history}: the dashboard's graphs and days-to-full forecast, from the short history
 * the appliance keeps in memory ({@link TrafficHistory}; docs/metrics.md), so no Prometheus server is needed for them.
 * A read of metrics: {@code admin:GetMetrics}, which the built-in auditor policy grants.
 */
@RestController
class MetricsHistoryController {
    private final ObjectProvider<TrafficHistory> history;

    /** The history is the appliance's metrics' ({@code ApplianceMetrics#beans}); a console started without has none. */
    MetricsHistoryController(ObjectProvider<TrafficHistory> history) {
        this.history = history;
    }

    @Operation(
            summary = "Recent S3 traffic (rates per interval) and the days-to-full forecast",
            description = "Kept in memory: the history starts empty at every start of the appliance.")
    @AdminOperation(AdminAction.GET_METRICS)
    @GetMapping("/api/v1/admin/metrics/history")
    TrafficHistory.Snapshot history() {
        TrafficHistory h = history.getIfAvailable();
        if (h == null) {
            throw new NoHistory();
        }
        return h.snapshot();
    }

    /** This console runs without the appliance's metrics (embedded in a test): there is no history to give. */
    static final class NoHistory extends RuntimeException {
        NoHistory() {
            super("this console keeps no metrics history", null, false, false);
        }
    }

    @ExceptionHandler(NoHistory.class)
    ResponseEntity<Problem> noHistory(NoHistory e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(new Problem("NO_METRICS_HISTORY", e.getMessage()));
    }
}
