package dev.appliance.app.metrics;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.StorageCapacity;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.alerts.Alert;
import dev.appliance.core.alerts.AlertCode;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.md5.Md5Lanes;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.metrics.S3Metrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The appliance's meters, in one Prometheus registry that the console's {@code /actuator/prometheus} serves
 * (docs/metrics.md lists each). Made before the S3 endpoint starts, so that its first request is counted:
 *
 * <ul>
 *   <li>S3 traffic ({@link #s3()}): recorded by the endpoint as requests are answered;
 *   <li>the engine's figures: gauges and function counters that read the store's own counters when scraped (drive
 *       calls and errors, heal queue, scanner, capacity, alerts, the versions-per-key distribution), so the engine
 *       carries no metrics library and does nothing extra between scrapes;
 *   <li>per-bucket usage from the last scanner cycle, for the {@value #TOP_BUCKETS} largest buckets only (a bounded
 *       set of series however many buckets exist), refreshed every {@link #REFRESH} and by {@link #refresh()};
 *   <li>a short in-memory history of the S3 traffic and of used capacity ({@link #history()}), sampled on the same
 *       thread, for the console's dashboard.
 * </ul>
 */
public final class ApplianceMetrics implements AutoCloseable {
    /** Per-bucket series are kept for this many buckets, the largest by bytes. */
    public static final int TOP_BUCKETS = 20;

    static final Duration REFRESH = Duration.ofSeconds(15);

    private final PrometheusMeterRegistry registry;
    private final ApplianceStore store;
    private final S3RequestMeters s3;
    private final MultiGauge bucketBytes;
    private final MultiGauge bucketObjects;
    private final MultiGauge bucketVersions;
    private final Memo<StorageCapacity> capacity;
    private final TrafficHistory history;
    private volatile ScheduledExecutorService refresher;

    private ApplianceMetrics(ApplianceStore store, TrafficHistory.Settings history, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.s3 = new S3RequestMeters(registry);
        // one statfs per drive for the three capacity gauges of a scrape, not three
        this.capacity = new Memo<>(store::capacity, Duration.ofSeconds(1));
        this.history = new TrafficHistory(registry, capacity::get, clock, history);
        registerCapacity();
        registerDrives();
        registerHealing();
        registerScanner();
        registerAlerts();
        registerMd5();
        this.bucketBytes = MultiGauge.builder("appliance.bucket.usage")
                .description("Logical bytes of all object versions of a bucket, at the last scanner cycle ("
                        + TOP_BUCKETS + " largest buckets)")
                .baseUnit("bytes")
                .register(registry);
        this.bucketObjects = MultiGauge.builder("appliance.bucket.objects")
                .description("Keys whose current version is an object, at the last scanner cycle (" + TOP_BUCKETS
                        + " largest buckets)")
                .register(registry);
        this.bucketVersions = MultiGauge.builder("appliance.bucket.versions")
                .description("Object versions, current and noncurrent, at the last scanner cycle (" + TOP_BUCKETS
                        + " largest buckets)")
                .register(registry);
        refresh();
    }

    /** The meters over {@code store}; {@link #start} begins the periodic refresh of the per-bucket series. */
    public static ApplianceMetrics of(ApplianceStore store) {
        return of(store, TrafficHistory.Settings.DEFAULT, Clock.systemUTC());
    }

    /** As {@link #of(ApplianceStore)}, the traffic and capacity history kept as {@code history} says, on {@code clock}. */
    public static ApplianceMetrics of(ApplianceStore store, TrafficHistory.Settings history, Clock clock) {
        return new ApplianceMetrics(store, requireNonNull(history, "history"), requireNonNull(clock, "clock"));
    }

    /** What the S3 endpoint records into ({@link S3Server#start(dev.appliance.core.ObjectStore, dev.appliance.s3.S3ServerConfig, S3Metrics)}). */
    public S3Metrics s3() {
        return s3;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The in-memory traffic and capacity history the dashboard shows; sampled once {@link #start} ran. */
    public TrafficHistory history() {
        return history;
    }

    /** Adds the S3 endpoint's admission figures: open connections, requests in flight and waiting. */
    public void watch(S3Server server) {
        requireNonNull(server, "server");
        Gauge.builder("appliance.s3.connections", server, s -> s.stats().connections())
                .description("Open S3 connections")
                .register(registry);
        Gauge.builder("appliance.s3.requests.in.flight", server, s -> s.stats().inFlight())
                .description("S3 requests being served")
                .register(registry);
        Gauge.builder("appliance.s3.requests.waiting", server, s -> s.stats().waiting())
                .description("S3 requests waiting for admission (the request queue)")
                .register(registry);
        FunctionCounter.builder("appliance.s3.access.log.lines", server, s -> s.accessLog()
                        .written())
                .description("S3 access log lines written")
                .register(registry);
        FunctionCounter.builder("appliance.s3.access.log.dropped", server, s -> s.accessLog()
                        .dropped())
                .description("S3 access log lines dropped because the writer fell behind")
                .register(registry);
    }

    /**
     * Starts refreshing the per-bucket series every {@link #REFRESH} and sampling the history at its intervals, on one
     * daemon thread (the first traffic sample is the baseline, the first capacity sample is taken now).
     */
    public void start() {
        ScheduledExecutorService r = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("metrics-refresh").daemon().factory());
        r.scheduleWithFixedDelay(this::refreshQuietly, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
        long traffic = history.settings().sampleInterval().toMillis();
        r.scheduleAtFixedRate(() -> quietly(history::sampleTraffic, "traffic"), 0, traffic, TimeUnit.MILLISECONDS);
        long capacity = history.settings().capacityInterval().toMillis();
        r.scheduleAtFixedRate(() -> quietly(history::sampleCapacity, "capacity"), 0, capacity, TimeUnit.MILLISECONDS);
        refresher = r;
    }

    /**
     * The registry and the per-bucket series as beans of the console's context: Spring Boot's Prometheus endpoint then
     * serves this registry (its own is made only when none exists), and adds its JVM and process meters to it. The
     * {@link #history()} too, for the dashboard's route.
     */
    public ApplicationContextInitializer<GenericApplicationContext> beans() {
        return context -> {
            context.registerBean(
                    "prometheusMeterRegistry",
                    PrometheusMeterRegistry.class,
                    () -> registry,
                    bd -> bd.setDestroyMethodName(""));
            context.registerBean(
                    "trafficHistory", TrafficHistory.class, () -> history, bd -> bd.setDestroyMethodName(""));
            context.registerBean(
                    "prometheusRegistry",
                    io.prometheus.metrics.model.registry.PrometheusRegistry.class,
                    registry::getPrometheusRegistry,
                    bd -> bd.setDestroyMethodName(""));
        };
    }

    /** Reads the last scanner cycle into the per-bucket series (the largest {@value #TOP_BUCKETS} buckets). */
    public void refresh() {
        ScanReport report = store.lastScan();
        List<ScanReport.BucketScan> top = report == null
                ? List.of()
                : report.buckets().values().stream()
                        .sorted(Comparator.comparingLong(ScanReport.BucketScan::bytes)
                                .reversed()
                                .thenComparing(ScanReport.BucketScan::bucket))
                        .limit(TOP_BUCKETS)
                        .toList();
        bucketBytes.register(rows(top, ScanReport.BucketScan::bytes), true);
        bucketObjects.register(rows(top, ScanReport.BucketScan::objects), true);
        bucketVersions.register(rows(top, ScanReport.BucketScan::versions), true);
    }

    private static List<MultiGauge.Row<?>> rows(
            List<ScanReport.BucketScan> buckets, ToDoubleFunction<ScanReport.BucketScan> value) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (ScanReport.BucketScan b : buckets) {
            rows.add(MultiGauge.Row.of(Tags.of("bucket", b.bucket()), value.applyAsDouble(b)));
        }
        return rows;
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            System.getLogger(ApplianceMetrics.class.getName())
                    .log(System.Logger.Level.WARNING, "refreshing the per-bucket metrics failed", e);
        }
    }

    /** A failed sample is logged and the next one tried: a scheduled task that throws is never run again. */
    private static void quietly(Runnable sample, String what) {
        try {
            sample.run();
        } catch (RuntimeException e) {
            System.getLogger(ApplianceMetrics.class.getName())
                    .log(System.Logger.Level.WARNING, "sampling the " + what + " history failed", e);
        }
    }

    private void registerCapacity() {
        Gauge.builder("appliance.capacity.usable", capacity, c -> c.get().usableBytes())
                .description("Object bytes the pool holds when full (after erasure overhead)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("appliance.capacity.free", capacity, c -> c.get().freeBytes())
                .description("Object bytes that still fit (after erasure overhead)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("appliance.capacity.used", capacity, c -> {
                    StorageCapacity now = c.get();
                    return now.usableBytes() - now.freeBytes();
                })
                .description("Usable bytes minus free bytes (after erasure overhead)")
                .baseUnit("bytes")
                .register(registry);
    }

    private void registerDrives() {
        List<LocalDrive> drives = store.drives();
        int perSet = store.drivesPerSet();
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            Tags tags = Tags.of("drive", d.root().toString(), "set", Integer.toString(i / perSet + 1));
            FunctionCounter.builder("appliance.drive.calls", d, LocalDrive::calls)
                    .description("Calls to the drive (reads, writes, metadata) that ended")
                    .tags(tags)
                    .register(registry);
            FunctionCounter.builder("appliance.drive.call.duration", d, x -> x.callNanos() / 1e9)
                    .description("Time the drive's calls took, summed (divide by appliance_drive_calls_total for"
                            + " the mean latency)")
                    .baseUnit("seconds")
                    .tags(tags)
                    .register(registry);
            FunctionCounter.builder("appliance.drive.errors", d, LocalDrive::ioErrors)
                    .description(
                            "I/O errors of the drive's calls (full disks, missing files and timeouts not" + " counted)")
                    .tags(tags)
                    .register(registry);
            FunctionCounter.builder("appliance.drive.slow.calls", d, LocalDrive::slowCalls)
                    .description("Calls given up on because the drive answered too slowly")
                    .tags(tags)
                    .register(registry);
            for (String state : List.of("online", "offline", "faulty", "healing")) {
                Gauge.builder("appliance.drive.state", d, x -> state.equals(store.driveState(x)) ? 1 : 0)
                        .description("1 for the drive's current state (online, offline, faulty, healing), 0 for the"
                                + " others")
                        .tags(tags.and("state", state))
                        .register(registry);
            }
        }
        int data = perSet - store.parity();
        int writeQuorum = data == store.parity() ? data + 1 : data;
        for (int s = 0; s < store.setCount(); s++) {
            List<LocalDrive> set = drives.subList(s * perSet, (s + 1) * perSet);
            Tags tags = Tags.of("set", Integer.toString(s + 1));
            Gauge.builder("appliance.set.drives.online", set, l -> l.stream()
                            .filter(LocalDrive::isOnline)
                            .count())
                    .description("Drives of the erasure set in service")
                    .tags(tags)
                    .strongReference(true) // the sub-list is held by nothing else
                    .register(registry);
            Gauge.builder("appliance.set.write.quorum", () -> writeQuorum)
                    .description("Drives of the erasure set a write needs")
                    .tags(tags)
                    .register(registry);
        }
    }

    /** How the writes' MD5s were computed: side by side in vector lanes, or alone (docs/decisions/md5-side-by-side.md). */
    private void registerMd5() {
        Md5Lanes lanes = Md5Lanes.shared();
        FunctionCounter.builder("appliance.md5.bodies", lanes, l -> l.counts().bodiesInLanes())
                .description("Write bodies whose MD5 was computed side by side with others in vector lanes")
                .tag("way", "lanes")
                .register(registry);
        FunctionCounter.builder("appliance.md5.bodies", lanes, l -> l.counts().bodiesAlone())
                .description("Write bodies whose MD5 was computed alone (fewer bodies waiting than a batch)")
                .tag("way", "alone")
                .register(registry);
        FunctionCounter.builder("appliance.md5.batches", lanes, l -> l.counts().batches())
                .description("Batches of write bodies hashed side by side")
                .register(registry);
    }

    private void registerHealing() {
        Gauge.builder("appliance.heal.queue.pending", store, s -> s.healStatus().pending())
                .description("Heal (MRF) queue items waiting, including those retrying and those spilled to the"
                        + " journal")
                .register(registry);
        Gauge.builder("appliance.heal.queue.retrying", store, s -> s.healStatus()
                        .retrying())
                .description("Heal queue items waiting for a retry (drives unreachable at the last try)")
                .register(registry);
        FunctionCounter.builder(
                        "appliance.heal.healed", store, s -> s.healStatus().healed())
                .description("Heal queue items healed since start")
                .register(registry);
        FunctionCounter.builder(
                        "appliance.heal.failed", store, s -> s.healStatus().failed())
                .description("Heals that failed since start")
                .register(registry);
        FunctionCounter.builder("appliance.scanner.heal.checked.keys", store, s -> s.scannerHealFigures()
                        .keysChecked())
                .description("Keys the scanner heal-checked since start")
                .register(registry);
        FunctionCounter.builder("appliance.scanner.heal.repaired.keys", store, s -> s.scannerHealFigures()
                        .keysRepaired())
                .description("Keys the scanner's heal checks repaired since start")
                .register(registry);
        FunctionCounter.builder("appliance.scanner.heal.failed.keys", store, s -> s.scannerHealFigures()
                        .keysFailed())
                .description("Keys the scanner's heal checks could not repair since start")
                .register(registry);
    }

    private void registerScanner() {
        FunctionCounter.builder("appliance.scanner.cycles", store, s -> {
                    ScanReport r = s.lastScan();
                    return r == null ? 0 : r.cycle();
                })
                .description("Scanner cycles completed since start")
                .register(registry);
        Gauge.builder("appliance.scanner.last.cycle.keys", store, s -> lastScan(s, ApplianceMetrics::keys))
                .description("Keys the last completed scanner cycle walked")
                .register(registry);
        Gauge.builder(
                        "appliance.scanner.last.cycle.duration",
                        store,
                        s -> lastScan(
                                s,
                                r -> Duration.between(r.started(), r.finished()).toNanos() / 1e9))
                .description("How long the last completed scanner cycle took")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder(
                        "appliance.scanner.last.cycle.end.timestamp",
                        store,
                        s -> lastScan(s, r -> r.finished().toEpochMilli() / 1e3))
                .description("When the last completed scanner cycle ended, in seconds since the epoch (NaN before"
                        + " the first)")
                .baseUnit("seconds")
                .register(registry);
        List<Long> bounds = ScanReport.VERSION_COUNT_BOUNDS;
        for (int i = 0; i <= bounds.size(); i++) {
            int upTo = i;
            String le = i == bounds.size() ? "+Inf" : Long.toString(bounds.get(i));
            Gauge.builder("appliance.keys.by.versions", store, s -> lastScan(s, r -> keysUpTo(r, upTo)))
                    .description("Keys with at most le versions (delete markers included) at the last scanner cycle,"
                            + " all buckets: a cumulative distribution of versions per key")
                    .tag("le", le)
                    .register(registry);
        }
    }

    private void registerAlerts() {
        for (AlertCode code : AlertCode.values()) {
            Gauge.builder("appliance.alerts.active", store, s -> s.versionAlerts().alerts(false).stream()
                            .filter(a -> a.code() == code)
                            .count())
                    .description("Active alerts, by code (docs/alerts.md)")
                    .tag("code", code.name())
                    .register(registry);
        }
        Gauge.builder("appliance.alerts.unacknowledged", store, s -> s.versionAlerts().alerts(false).stream()
                        .filter(a -> !a.acknowledged())
                        .map(Alert::id)
                        .count())
                .description("Active alerts no operator acknowledged yet")
                .register(registry);
    }

    private static double lastScan(ApplianceStore s, ToDoubleFunction<ScanReport> f) {
        ScanReport r = s.lastScan();
        return r == null ? Double.NaN : f.applyAsDouble(r);
    }

    private static double keys(ScanReport r) {
        return r.buckets().values().stream()
                .mapToLong(ScanReport.BucketScan::keys)
                .sum();
    }

    /** Keys of all buckets in the version classes {@code 0..upTo}. */
    private static double keysUpTo(ScanReport r, int upTo) {
        long n = 0;
        for (ScanReport.BucketScan b : r.buckets().values()) {
            for (int i = 0; i <= upTo; i++) {
                n += b.keysByVersions().get(i);
            }
        }
        return n;
    }

    @Override
    public void close() {
        ScheduledExecutorService r = refresher;
        if (r != null) {
            r.shutdownNow();
        }
        registry.close();
    }

    /** A value read at most once per {@code ttl}: several gauges of one scrape share one read. */
    private static final class Memo<T> {
        private final Supplier<T> source;
        private final long ttlNanos;
        private volatile T value;
        private volatile long readAt;

        Memo(Supplier<T> source, Duration ttl) {
            this.source = source;
            this.ttlNanos = ttl.toNanos();
        }

        T get() {
            T v = value;
            long now = System.nanoTime();
            if (v == null || now - readAt > ttlNanos) {
                v = source.get();
                value = v;
                readAt = now;
            }
            return v;
        }
    }
}
