package dev.appliance.app.console;

import dev.appliance.app.console.health.HealthChecks;
import dev.appliance.core.policy.AdminAction;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The appliance's health checks ({@link HealthChecks}; docs/admin-api.md): {@code GET /api/v1/health/checks} answers the
 * last run's results ({@code admin:GetHealthChecks}: they name the host's hardware, kernel settings and drive paths,
 * so no anonymous caller gets them), {@code POST /api/v1/health/checks/run} runs them now and answers the fresh
 * results ({@code admin:RunHealthChecks}).
 */
@RestController
@Tag(name = "health", description = "Hardware, OS, drive and clock health checks")
class HealthChecksController {
    private final HealthChecks checks;

    HealthChecksController(HealthChecks checks) {
        this.checks = checks;
    }

    /**
     * A run of the health checks.
     *
     * @param checkedAt when the runtime checks last ran (every {@code appliance.health.drive-checks-interval}),
     *     ISO-8601
     * @param preflightCheckedAt when the preflight rules last ran (every {@code appliance.health.checks-interval}),
     *     ISO-8601
     * @param result the worst result: {@code pass}, {@code warn} or {@code fail}
     * @param checks every check, preflight rules first, then the runtime checks
     */
    record ChecksView(String checkedAt, String preflightCheckedAt, String result, List<CheckView> checks) {
        static ChecksView of(HealthChecks.Report r) {
            return new ChecksView(
                    r.checkedAt().toString(),
                    r.preflightCheckedAt().toString(),
                    r.result().label(),
                    r.checks().stream().map(CheckView::of).toList());
        }
    }

    /**
     * One check.
     *
     * @param id the rule, stable ({@code drives.filesystem}, {@code drive.set1.slot2}, {@code clock.retention})
     * @param result {@code pass}, {@code warn} or {@code fail}
     * @param measured what this appliance has
     * @param expected what the rule asks for
     * @param remediation what to do about a warn or fail; empty for a pass
     * @param source {@code preflight} (the installer's rules, docs/install.md) or {@code runtime} (the engine's state)
     */
    record CheckView(String id, String result, String measured, String expected, String remediation, String source) {
        static CheckView of(HealthChecks.Entry e) {
            return new CheckView(
                    e.check().id(),
                    e.check().result().label(),
                    e.check().measured(),
                    e.check().expected(),
                    e.check().remediation(),
                    e.source());
        }
    }

    @Operation(
            summary = "The health checks' last results",
            description = "The runtime checks run every appliance.health.drive-checks-interval, the preflight rules at"
                    + " start and every appliance.health.checks-interval; before the first run ended, this request"
                    + " runs them and waits.")
    @AdminOperation(AdminAction.GET_HEALTH_CHECKS)
    @GetMapping("/api/v1/health/checks")
    ChecksView latest() throws InterruptedException {
        return ChecksView.of(checks.latestOrRun());
    }

    @Operation(
            summary = "Run the health checks now",
            description =
                    "Checks the drives first, then runs every check (preflight and runtime); raises and clears the"
                            + " health alerts.")
    @AdminOperation(AdminAction.RUN_HEALTH_CHECKS)
    @PostMapping("/api/v1/health/checks/run")
    ChecksView run() throws InterruptedException {
        return ChecksView.of(checks.runNow(true));
    }

    @ExceptionHandler(IllegalStateException.class)
    ResponseEntity<Problem> notRun(IllegalStateException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .body(new Problem("HEALTH_CHECKS_UNAVAILABLE", e.getMessage()));
    }
}
