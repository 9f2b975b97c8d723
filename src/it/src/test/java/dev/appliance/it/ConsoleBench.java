package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The console's two measured targets (issue 15), not part of the test suite: run with {@code -Pconsole-bench}
 * ({@code bench/console.sh}; figures and commands in docs/benchmarks.md).
 *
 * <ol>
 *   <li>Render times with {@code bench.buckets} buckets (10,000): a real appliance process, the buckets made through
 *       S3 by parallel SDK callers, then headless Chromium logged in to the console goes round the dashboard, the
 *       buckets list (first page), one bucket's page and the users page; each navigation's time from the route change
 *       to the page's render promise resolved is the {@code console:rendered} measure the router records
 *       ({@code app.js}). Warm-up rounds first, then median and p95 per page.
 *   <li>The console's cost to S3 traffic: a fixed workload (threads PUTting and GETting 1 MiB objects for a fixed
 *       time, the SDK v2) in rounds alternating the console idle and a console session polling what the open
 *       dashboard asks for, once a second; throughput and p99 latency per round and condition.
 * </ol>
 *
 * Results are printed as {@code [bench] ...} lines and written to {@code target/console-bench/results.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBench {
    private static final String ROOT = "bench-admin";
    private static final String SECRET = "bench-secret-" + UUID.randomUUID();
    private static final int BUCKETS = Integer.getInteger("bench.buckets", 10_000);
    private static final int WARMUP = Integer.getInteger("bench.warmup", 3);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 20);
    private static final int LOAD_THREADS = Integer.getInteger("bench.threads", 8);
    private static final int LOAD_SECONDS = Integer.getInteger("bench.seconds", 30);
    private static final int LOAD_PAIRS = Integer.getInteger("bench.pairs", 3);
    private static final int OBJECT_SIZE = 1024 * 1024;
    /** {@code -Dbench.pagingPoll=true}: poll as the dashboard did before the usage totals route (for comparison). */
    private static final boolean PAGING_POLL = Boolean.getBoolean("bench.pagingPoll");
    /**
     * {@code -Dbench.poll=open}: poll as an open, untouched dashboard does by itself (its traffic history every 10 s);
     * default {@code refresh}: the whole dashboard every second, as an operator pressing Refresh every second.
     */
    private static final boolean OPEN_DASHBOARD_POLL = "open".equals(System.getProperty("bench.poll", "refresh"));

    private static final Path RESULTS = Path.of("target", "console-bench", "results.txt");

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET))
                .start();
        s3 = appliance.client(
                ROOT,
                SECRET,
                b -> b.httpClientBuilder(ApacheHttpClient.builder().maxConnections(64)));
        Files.createDirectories(RESULTS.getParent());
        Files.writeString(RESULTS, "");
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(32)) {
            List<Future<?>> made = new ArrayList<>();
            for (int i = 0; i < BUCKETS; i++) {
                String name = bucket(i);
                made.add(pool.submit(() -> s3.createBucket(b -> b.bucket(name))));
            }
            for (Future<?> f : made) {
                f.get();
            }
        }
        report(
                "setup: %d buckets made through S3 in %.1f s (32 parallel SDK callers)",
                BUCKETS, (System.nanoTime() - t0) / 1e9);
        report("load average at start: %s", loadAverage());
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    static String bucket(int i) {
        return String.format(Locale.ROOT, "bench-%05d", i);
    }

    static void report(String format, Object... args) throws IOException {
        String line = String.format(Locale.ROOT, format, args);
        System.out.println("[bench] " + line);
        Files.writeString(RESULTS, line + "\n", java.nio.file.StandardOpenOption.APPEND);
    }

    static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).strip();
    }

    /** CPU seconds (user + system) the appliance process has used so far, from /proc/PID/stat (clock ticks of 10 ms). */
    static double applianceCpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(appliance.pid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // fields after the name: state is index 0, utime 11, stime 12 (proc(5) numbers them 14 and 15)
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    static double percentile(double[] sorted, double p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    // ------------------------------------------------------------------------------------------------------ render

    @Test
    @Order(1)
    void renderTimes_withTenThousandBuckets() throws Exception {
        record Page(String name, String hash, String route) {}
        List<Page> pages = List.of(
                new Page("dashboard", "#/dashboard", "dashboard"),
                new Page("buckets list, first page", "#/buckets", "buckets"),
                new Page("bucket page", "#/buckets/" + bucket(BUCKETS / 2), "buckets"),
                new Page("users", "#/users", "users"));
        ConsoleBrowser chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
        try {
            chromium.driver.get(appliance.consoleUri() + "/");
            chromium.logIn(ROOT, SECRET);
            chromium.visible(By.id("contents-buckets"));
            JavascriptExecutor js = (JavascriptExecutor) chromium.driver;
            // off the dashboard first: a route change to the page already shown would fire no hashchange
            js.executeScript("location.hash = '#/drives';");
            new WebDriverWait(chromium.driver, Duration.ofSeconds(120))
                    .until(d -> js.executeScript("const e = performance.getEntriesByName('console:rendered');"
                            + " return e.length && e[0].detail === 'drives';"));
            double[][] times = new double[pages.size()][ROUNDS];
            for (int round = -WARMUP; round < ROUNDS; round++) {
                for (int p = 0; p < pages.size(); p++) {
                    Page page = pages.get(p);
                    // from the route change (hashchange) to the page's render resolved, as the router measures it
                    js.executeScript(
                            "performance.clearMeasures('console:rendered'); location.hash = arguments[0];",
                            page.hash());
                    Object ms = new WebDriverWait(chromium.driver, Duration.ofSeconds(120))
                            .until(d -> js.executeScript(
                                    "const e = performance.getEntriesByName('console:rendered');"
                                            + " return e.length && e[0].detail === arguments[0] ? e[0].duration : null;",
                                    page.route()));
                    if (round >= 0) {
                        times[p][round] = ((Number) ms).doubleValue();
                    }
                }
            }
            assertThat(chromium.scriptErrors()).isEmpty();
            chromium.screenshot("bench-dashboard-" + BUCKETS);
            assertThat(chromium.driver.findElement(By.tagName("body")).getText())
                    .doesNotContain("Not available");
            report(
                    "render (%d buckets; %d warm-up rounds, %d measured; load average %s):",
                    BUCKETS, WARMUP, ROUNDS, loadAverage());
            for (int p = 0; p < pages.size(); p++) {
                double[] t = times[p].clone();
                Arrays.sort(t);
                report(
                        "  %-26s median %7.1f ms  p95 %7.1f ms  min %7.1f ms  max %7.1f ms",
                        pages.get(p).name(), percentile(t, 50), percentile(t, 95), t[0], t[t.length - 1]);
            }
        } finally {
            chromium.close();
        }
    }

    // ------------------------------------------------------------------------------------------------- S3 cost

    /** One fixed-duration S3 run: operations, seconds, and every operation's latency. */
    record LoadRun(long ops, double seconds, double[] latenciesMs, long failures) {
        double opsPerSecond() {
            return ops / seconds;
        }

        double p99() {
            double[] t = latenciesMs.clone();
            Arrays.sort(t);
            return percentile(t, 99);
        }

        double p50() {
            double[] t = latenciesMs.clone();
            Arrays.sort(t);
            return percentile(t, 50);
        }
    }

    static LoadRun s3Load(int seconds) throws Exception {
        byte[] body = new byte[OBJECT_SIZE];
        new Random(15).nextBytes(body);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<List<Double>> latencies = new ArrayList<>();
        AtomicLong failures = new AtomicLong();
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(LOAD_THREADS)) {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < LOAD_THREADS; t++) {
                List<Double> mine = new ArrayList<>();
                latencies.add(mine);
                int thread = t;
                workers.add(pool.submit(() -> {
                    int i = 0;
                    while (System.nanoTime() < deadline) {
                        String key = "w" + thread + "/k" + (i++ % 20);
                        long a = System.nanoTime();
                        s3.putObject(b -> b.bucket("load").key(key), RequestBody.fromBytes(body));
                        long b = System.nanoTime();
                        byte[] got = s3.getObjectAsBytes(r -> r.bucket("load").key(key))
                                .asByteArrayUnsafe();
                        long c = System.nanoTime();
                        if (!Arrays.equals(got, body)) {
                            failures.incrementAndGet();
                        }
                        mine.add((b - a) / 1e6);
                        mine.add((c - b) / 1e6);
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        double[] all = latencies.stream()
                .flatMap(List::stream)
                .mapToDouble(Double::doubleValue)
                .toArray();
        return new LoadRun(all.length, elapsed, all, failures.get());
    }

    /**
     * An open console's dashboard, once a second, as its page asks: status, sets, drives, alerts and the usage totals
     * (with {@code bench.pagingPoll}, every page of the bucket list instead, as the page did before). A thread with
     * its own session cookie, like a browser; no browser, so that its rendering does not take the server's CPU.
     */
    static final class ConsolePoller implements AutoCloseable {
        private static final Pattern COOKIE = Pattern.compile("^([^=;]+)=([^;]*)");
        private final HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        private final java.util.Map<String, String> cookies = new java.util.concurrent.ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        final AtomicLong polls = new AtomicLong();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final AtomicLong pollNanos = new AtomicLong();
        /** Time spent per path, to see which request of a poll costs what. */
        final java.util.Map<String, AtomicLong> nanosByPath = new java.util.concurrent.ConcurrentSkipListMap<>();

        ConsolePoller() throws Exception {
            send("GET", "/api/v1/session/csrf", null);
            HttpResponse<String> login = send(
                    "POST", "/api/v1/session", "{\"accessKey\":\"" + ROOT + "\",\"secretKey\":\"" + SECRET + "\"}");
            assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
            thread = Thread.ofPlatform().name("console-poller").start(this::poll);
        }

        private HttpResponse<String> send(String method, String path, String body) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(appliance.consoleUri() + path))
                    .timeout(Duration.ofSeconds(60))
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            if (body != null) {
                b.header("Content-Type", "application/json");
            }
            if (!cookies.isEmpty()) {
                b.header(
                        "Cookie",
                        String.join(
                                "; ",
                                cookies.entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue())
                                        .toList()));
            }
            if (cookies.containsKey("XSRF-TOKEN")) {
                b.header("X-XSRF-TOKEN", cookies.get("XSRF-TOKEN"));
            }
            long sent = System.nanoTime();
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            nanosByPath
                    .computeIfAbsent(path.replaceAll("[?].*", ""), k -> new AtomicLong())
                    .addAndGet(System.nanoTime() - sent);
            for (String set : r.headers().allValues("Set-Cookie")) {
                Matcher m = COOKIE.matcher(set);
                if (m.find()) {
                    cookies.put(m.group(1), m.group(2));
                }
            }
            requests.incrementAndGet();
            if (r.statusCode() != 200) {
                failures.incrementAndGet();
            }
            return r;
        }

        private void poll() {
            Pattern next = Pattern.compile("\"next\":\"([^\"]+)\"");
            while (running.get()) {
                long start = System.nanoTime();
                try {
                    if (OPEN_DASHBOARD_POLL) {
                        send("GET", "/api/v1/admin/metrics/history", null);
                        polls.incrementAndGet();
                        pollNanos.addAndGet(System.nanoTime() - start);
                        // the traffic card's own cadence (once per 10 s sample interval), ended early when the run is
                        long until = start + 10_000_000_000L;
                        while (running.get() && System.nanoTime() < until) {
                            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
                        }
                        continue;
                    }
                    send("GET", "/api/v1/admin/metrics/history", null);
                    for (String path : List.of(
                            "/api/v1/admin/status",
                            "/api/v1/admin/sets",
                            "/api/v1/admin/drives",
                            "/api/v1/admin/alerts")) {
                        send("GET", path, null);
                    }
                    if (PAGING_POLL) {
                        // what the dashboard asked before /api/v1/admin/usage: every page of the bucket list
                        String after = null;
                        do {
                            String body = send(
                                            "GET",
                                            "/api/v1/admin/buckets?limit=1000"
                                                    + (after == null ? "" : "&after=" + after),
                                            null)
                                    .body();
                            Matcher m = next.matcher(body);
                            after = m.find() ? m.group(1) : null;
                        } while (after != null && running.get());
                    } else {
                        send("GET", "/api/v1/admin/usage", null);
                    }
                    polls.incrementAndGet();
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
                long took = System.nanoTime() - start;
                pollNanos.addAndGet(took);
                long rest = 1_000_000_000L - took;
                if (rest > 0) {
                    // the console's own cadence (once a second), not a wait for something to happen
                    java.util.concurrent.locks.LockSupport.parkNanos(rest);
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join();
            http.close();
        }
    }

    @Test
    @Order(2)
    void s3Traffic_consoleIdle_vsConsolePolling() throws Exception {
        s3.createBucket(b -> b.bucket("load"));
        s3Load(10); // warm-up: JIT, connections, the objects in place
        report(
                "S3 cost (%d threads, 1 MiB PUT then GET, %d s per run, %d buckets; load average %s):",
                LOAD_THREADS, LOAD_SECONDS, BUCKETS, loadAverage());
        List<Double> idle = new ArrayList<>();
        List<Double> polled = new ArrayList<>();
        List<Double> idleCpu = new ArrayList<>();
        List<Double> polledCpu = new ArrayList<>();
        for (int pair = 0; pair < LOAD_PAIRS; pair++) {
            // alternate which condition goes first, so a drift in the machine's load does not favour one
            boolean pollFirst = pair % 2 == 1;
            for (int k = 0; k < 2; k++) {
                boolean polling = (k == 0) == pollFirst;
                LoadRun run;
                String extra = "";
                double cpuBefore = applianceCpuSeconds();
                if (polling) {
                    try (ConsolePoller poller = new ConsolePoller()) {
                        run = s3Load(LOAD_SECONDS);
                        poller.close();
                        extra = String.format(
                                        Locale.ROOT,
                                        "; console: %d polls, %d requests, %d failed, %.0f ms per poll",
                                        poller.polls.get(),
                                        poller.requests.get(),
                                        poller.failures.get(),
                                        poller.pollNanos.get() / 1e6 / Math.max(1, poller.polls.get()))
                                + poller.nanosByPath.entrySet().stream()
                                        .map(e -> String.format(
                                                Locale.ROOT,
                                                " %s %.0f ms",
                                                e.getKey().replace("/api/v1/admin", ""),
                                                e.getValue().get() / 1e6 / Math.max(1, poller.polls.get())))
                                        .collect(java.util.stream.Collectors.joining(",", " (per poll:", ")"));
                        assertThat(poller.failures.get()).isZero();
                        assertThat(poller.polls.get()).isPositive();
                    }
                    polled.add(run.opsPerSecond());
                } else {
                    run = s3Load(LOAD_SECONDS);
                    idle.add(run.opsPerSecond());
                }
                double cpu = applianceCpuSeconds() - cpuBefore;
                assertThat(run.failures()).isZero();
                (polling ? polledCpu : idleCpu).add(cpu * 1000 / run.ops());
                report(
                        "  pair %d %-16s %7.1f ops/s  p50 %7.1f ms  p99 %7.1f ms  appliance CPU %.2f ms/op"
                                + " (%d ops; load %s)%s",
                        pair + 1,
                        polling ? "console polling" : "console idle",
                        run.opsPerSecond(),
                        run.p50(),
                        run.p99(),
                        cpu * 1000 / run.ops(),
                        run.ops(),
                        loadAverage(),
                        extra);
            }
        }
        double idleMean = idle.stream().mapToDouble(d -> d).average().orElseThrow();
        double polledMean = polled.stream().mapToDouble(d -> d).average().orElseThrow();
        double idleSpread = idle.stream().mapToDouble(d -> d).max().orElseThrow()
                - idle.stream().mapToDouble(d -> d).min().orElseThrow();
        report(
                "  mean: idle %.1f ops/s, polling %.1f ops/s, change %+.1f %%; spread of the idle runs %.1f ops/s (%.1f %%)",
                idleMean,
                polledMean,
                (polledMean - idleMean) / idleMean * 100,
                idleSpread,
                idleSpread / idleMean * 100);
        double idleCpuMean = idleCpu.stream().mapToDouble(d -> d).average().orElseThrow();
        double polledCpuMean = polledCpu.stream().mapToDouble(d -> d).average().orElseThrow();
        report(
                "  appliance CPU per S3 operation: idle %.2f ms, polling %.2f ms (%+.1f %%)",
                idleCpuMean, polledCpuMean, (polledCpuMean - idleCpuMean) / idleCpuMean * 100);
    }
}
