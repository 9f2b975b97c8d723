package dev.appliance.app.console.health;

import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.alerts.AlertCode;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.Preflight;
import dev.appliance.installer.check.Result;
import dev.appliance.installer.system.SystemView;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The appliance's health checks: the installer's preflight rules ({@link Preflight#run}) against this host and the
 * appliance's own drive directories, and the {@link RuntimeChecks} only the running appliance can make (each drive's
 * state in the engine, each set's quorum, the retention clock), in one list of {@link Check}s.
 *
 * <p>They run on one daemon thread of their own, never on a request thread: the runtime checks (in memory, cheap)
 * every {@code appliance.health.drive-checks-interval} (default 30 seconds), the preflight rules (they read /proc and
 * /sys and run smartctl per disk) at start and every {@code appliance.health.checks-interval} (default 5 minutes),
 * each time with the runtime checks. The report always holds the latest run of both. A request that asks for a run now
 * ({@link #runNow}) runs both and waits for them on that same thread, so two runs never overlap. Each run
 *
 * <ul>
 *   <li>replaces the report {@code GET /api/v1/health/checks} answers ({@link #latest});
 *   <li>sets the gauge {@code appliance_health_check{check,source}} of every check: 0 pass, 1 warn, 2 fail
 *       (docs/metrics.md);
 *   <li>raises an alert for every check that warns or fails and clears those whose check passes again ({@link
 *       VersionAlerts#reportHealth}; codes in docs/alerts.md).
 * </ul>
 */
@Component
public final class HealthChecks implements SmartLifecycle {
    private static final Logger LOG = Logger.getLogger(HealthChecks.class.getName());

    public static final String PREFLIGHT = "preflight";
    public static final String RUNTIME = "runtime";
    static final String GAUGE = "appliance.health.check";
    /** How long a request waits for a run it asked for. */
    static final Duration RUN_WAIT = Duration.ofMinutes(2);

    /** One check and where it comes from: {@link #PREFLIGHT} (the installer's rules) or {@link #RUNTIME}. */
    public record Entry(Check check, String source) {}

    /**
     * The latest results: when the runtime checks last ran ({@code checkedAt}, the time of the run that made this
     * report) and when the preflight rules last ran, the worst result, every check in report order (preflight first).
     */
    public record Report(Instant checkedAt, Instant preflightCheckedAt, Result result, List<Entry> checks) {}

    /** The preflight rules' last results and when they ran; touched on the runner thread only. */
    private record PreflightRun(Instant at, List<Entry> entries) {}

    private final ApplianceStore store;
    private final Duration interval;
    private final Duration driveInterval;
    private final Clock clock;
    private final SystemView view;
    private final MeterRegistry registry;
    private final RuntimeChecks runtime = new RuntimeChecks();
    private final Map<String, AtomicInteger> gauges = new HashMap<>();
    private final Map<String, Gauge> meters = new HashMap<>();
    private volatile Report latest;
    private PreflightRun preflight;
    private volatile ScheduledExecutorService runner;

    HealthChecks(
            ApplianceStore store,
            ApplianceProperties properties,
            ObjectProvider<MeterRegistry> registry,
            ObjectProvider<Clock> clock,
            ObjectProvider<SystemView> view) {
        this.store = store;
        this.interval = properties.health() == null
                ? Duration.ofMinutes(5)
                : properties.health().checksInterval();
        this.driveInterval = properties.health() == null
                ? Duration.ofSeconds(30)
                : properties.health().driveChecksInterval();
        this.clock = clock.getIfUnique(Clock::systemUTC);
        this.view = view.getIfUnique(SystemView::real);
        this.registry = registry.getIfUnique(() -> null);
    }

    /** The last complete run's report, or null before the first ended. */
    public Report latest() {
        return latest;
    }

    /** The last report, or when none exists yet, a run now (waited for). */
    public Report latestOrRun() throws InterruptedException {
        Report r = latest;
        return r != null ? r : runNow(false);
    }

    /**
     * Runs every check (the preflight rules and the runtime checks) now on their thread and waits for the report. With
     * {@code checkDrives}, the engine's drive check runs first (as it does every few seconds on its own), so a drive
     * pulled a moment ago is reported as it is now.
     */
    public Report runNow(boolean checkDrives) throws InterruptedException {
        ScheduledExecutorService r = runner;
        if (r == null) {
            throw new IllegalStateException("the health checks are not running (the console is stopping)");
        }
        try {
            return r.submit(() -> run(true, checkDrives)).get(RUN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the health checks failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the health checks did not finish within " + RUN_WAIT.toSeconds() + " s");
        }
    }

    /**
     * One run on the caller's thread (the runner's): the preflight rules when {@code withPreflight} (or when they never
     * ran: a report without them would clear their alerts), the runtime checks always; then the report from the latest
     * of both, the gauges and the alerts.
     */
    private Report run(boolean withPreflight, boolean checkDrives) {
        if (checkDrives) {
            store.checkDrivesNow();
        }
        if (withPreflight || preflight == null) {
            preflight = new PreflightRun(clock.instant(), preflightRules());
        }
        List<Entry> entries = new ArrayList<>(preflight.entries());
        for (Check c : runtime.drives(store)) {
            entries.add(new Entry(c, RUNTIME));
        }
        for (Check c : RuntimeChecks.quorum(store.setQuorums())) {
            entries.add(new Entry(c, RUNTIME));
        }
        entries.add(new Entry(RuntimeChecks.clock(store.retentionClock().status()), RUNTIME));
        Report report = new Report(
                clock.instant(),
                preflight.at(),
                Result.worst(entries.stream().map(Entry::check).toList()),
                List.copyOf(entries));
        latest = report;
        publish(report);
        store.versionAlerts().reportHealth(findings(report));
        return report;
    }

    private List<Entry> preflightRules() {
        List<Entry> entries = new ArrayList<>();
        List<Path> drives = store.drives().stream().map(LocalDrive::root).toList();
        try {
            for (Check c : Preflight.run(view, Preflight.Options.forDrives(drives))) {
                entries.add(new Entry(c, PREFLIGHT));
            }
        } catch (RuntimeException e) {
            // one broken rule must not hide the others' verdicts nor the runtime checks
            LOG.log(Level.WARNING, "health checks: the preflight rules failed", e);
            entries.add(new Entry(
                    new Check(
                            "preflight",
                            Result.WARN,
                            "the preflight rules did not run: " + e,
                            "every preflight rule runs",
                            "run appliance-installer check on this host to see which rule fails, and report it"),
                    PREFLIGHT));
        }
        return entries;
    }

    private void runQuietly(boolean withPreflight) {
        try {
            run(withPreflight, false);
        } catch (RuntimeException e) {
            // the runtime checks run again within driveInterval, the preflight rules within interval
            LOG.log(
                    Level.WARNING,
                    "health checks: the " + (withPreflight ? "full" : "runtime") + " run failed; the next runs on time",
                    e);
        }
    }

    /** One gauge per check (0 pass, 1 warn, 2 fail); a check no longer reported loses its series. */
    private void publish(Report report) {
        if (registry == null) {
            return;
        }
        Set<String> now = new HashSet<>();
        for (Entry e : report.checks()) {
            String id = e.check().id();
            now.add(id);
            AtomicInteger value = gauges.computeIfAbsent(id, k -> new AtomicInteger());
            value.set(e.check().result().exitCode());
            meters.computeIfAbsent(id, k -> Gauge.builder(GAUGE, value, AtomicInteger::get)
                    .description("The appliance's health check's last result: 0 pass, 1 warn, 2 fail")
                    .tag("check", id)
                    .tag("source", e.source())
                    .register(registry));
        }
        for (String gone : List.copyOf(meters.keySet())) {
            if (!now.contains(gone)) {
                registry.remove(meters.remove(gone));
                gauges.remove(gone);
            }
        }
    }

    /** The alerts a report holds: one per check that warns or fails. */
    static List<VersionAlerts.HealthFinding> findings(Report report) {
        List<VersionAlerts.HealthFinding> out = new ArrayList<>();
        for (Entry e : report.checks()) {
            Check c = e.check();
            if (c.result() == Result.PASS) {
                continue;
            }
            AlertCode code = code(c);
            out.add(new VersionAlerts.HealthFinding(
                    code,
                    c.id(),
                    "health check " + c.id() + " " + c.result().label() + ": " + c.measured(),
                    "the " + e.source() + " check " + c.id() + " measured " + c.measured() + "; expected "
                            + c.expected(),
                    c.remediation() + ". The alert clears by itself once the check passes (System checks page;"
                            + " docs/alerts.md#" + code.name().toLowerCase(java.util.Locale.ROOT) + ")"));
        }
        return out;
    }

    static AlertCode code(Check c) {
        if (c.result() == Result.FAIL) {
            return c.id().startsWith("drive.") ? AlertCode.DRIVE_OUT_OF_SERVICE : AlertCode.HEALTH_CHECK_FAILED;
        }
        return AlertCode.HEALTH_CHECK_WARNING;
    }

    @Override
    public void start() {
        ScheduledExecutorService r = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("health-checks").daemon().factory());
        // both on this one thread, so they never overlap; the first run (at start) is a full one
        r.scheduleWithFixedDelay(() -> runQuietly(true), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        r.scheduleWithFixedDelay(
                () -> runQuietly(false), driveInterval.toMillis(), driveInterval.toMillis(), TimeUnit.MILLISECONDS);
        runner = r;
    }

    @Override
    public void stop() {
        ScheduledExecutorService r = runner;
        runner = null;
        if (r != null) {
            r.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return runner != null;
    }
}
