package dev.appliance.jmh;

import dev.appliance.s3.auth.SigV4;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP load client for the Veeam-shaped workloads of issue 17, against any S3 server (this appliance, MinIO) over
 * plain HTTP: path-style URLs, region us-east-1, SigV4 with {@code x-amz-content-sha256: UNSIGNED-PAYLOAD} so the
 * client spends no CPU hashing payloads, HTTP/1.1 with one kept-alive connection per worker thread ({@link
 * LoadTransport}: a blocking socket each, or with {@code --client jdk} java.net.http).
 *
 * <p>Not a JMH benchmark (it measures whole requests through the network stack); it is packed into benchmarks.jar:
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.appliance.jmh.S3Load --endpoint http://127.0.0.1:9000 \
 *     --access-key KEY --secret-key SECRET --workload veeam-write|restore|retention|mixed \
 *     [--size 512KiB] [--concurrency 16] [--duration 30s] [--warmup 2s] [--bucket NAME] [--objects N] [--seed 1] \
 *     [--lock] [--json] [--prefill-only | --no-prefill] [--overwrite] [--client socket|jdk]
 * </pre>
 *
 * <ul>
 *   <li>{@code veeam-write}: PUTs of {@code --size} with Content-MD5 under distinct Veeam-shaped keys
 *       ({@code Veeam/Archive/<repo>/<guid>/blocks/<hex>/<n>.000…000.blk}). The bucket is created if absent and
 *       versioned (Veeam's are); with {@code --lock} it is created with object lock and every PUT carries COMPLIANCE
 *       retention until now + 1 day.
 *   <li>{@code restore}: writes {@code --objects} (default 200) objects untimed, then times GETs of them in seeded
 *       uniform random order, reading each body fully and checking its length, first and last bytes.
 *   <li>{@code retention}: writes {@code --objects} (default 2000) 4 KiB objects with COMPLIANCE retention into an
 *       object-lock bucket untimed, then times {@code PUT ?retention&versionId=} that extend each object's
 *       retain-until, round robin (keep {@code --objects} well above {@code --concurrency}, so that no two requests
 *       extend one object at once). {@code --size} does not apply.
 *   <li>{@code mixed}: writes {@code --objects} (default 200) objects untimed, then 70 % GETs of a random one of them
 *       and 30 % PUTs of new ones.
 * </ul>
 *
 * <p>{@code --overwrite} (mixed): the bucket stays unversioned and the PUTs replace prefilled objects, so a long run
 * (bench/soak.sh) keeps the stored bytes bounded.
 *
 * <p>{@code --prefill-only} writes the objects and stops; {@code --no-prefill} measures objects an earlier run with the
 * same {@code --seed}, {@code --objects} and {@code --bucket} wrote (restore and mixed), so a server can be changed
 * between the two, e.g. a drive taken away.
 *
 * <p>The first {@code --warmup} (default 2 s) of the timed phase is excluded from the figures; then {@code --duration}
 * is measured: the successful answers that arrive in it are the ops, their latencies the percentiles, and MiB/s counts
 * object bytes (none for retention). Output is one line ({@code workload=… size=… concurrency=… ops=… seconds=…
 * ops_per_s=… MiB_per_s=… p50_ms=… p90_ms=… p99_ms=… errors=…}) or, with {@code --json}, one JSON object with the
 * same fields (size in bytes) and {@code first_error}. Any non-2xx answer, I/O failure or GET body that differs from
 * what was written is an error (setup and prefill included); the count per status and the first one's status and S3
 * code go to stderr, and a run with errors exits 1. A failed setup (wrong key, no such bucket permission) still prints
 * the result line, with nothing measured. Bad flags exit 2, naming the flag and value. Buckets default to
 * {@code s3load-<workload>} and are not deleted.
 *
 * <p>Object bodies: one shared random prefix of {@code size - 16} bytes (from {@code --seed}) and a 16-byte tail
 * derived from the key, so memory stays one object's size whatever the concurrency, each PUT's Content-MD5 is the
 * prefix's saved digest state plus 16 bytes, and a GET can check what it read without keeping anything per object.
 */
public final class S3Load {
    private static final String REGION = "us-east-1";
    private static final String UNSIGNED = SigV4.UNSIGNED_PAYLOAD;
    private static final int TAIL = 16;
    private static final int RETENTION_OBJECT_SIZE = 4096;
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final Pattern S3_CODE = Pattern.compile("<Code>([^<]*)</Code>");

    private S3Load() {}

    /** A bad command line: the message names the flag and value; exit status 2. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    enum Workload {
        VEEAM_WRITE("veeam-write", 0),
        RESTORE("restore", 200),
        RETENTION("retention", 2000),
        MIXED("mixed", 200);

        final String flag;
        final int defaultObjects;

        Workload(String flag, int defaultObjects) {
            this.flag = flag;
            this.defaultObjects = defaultObjects;
        }
    }

    record Options(
            URI endpoint,
            String accessKey,
            String secretKey,
            Workload workload,
            int size,
            int concurrency,
            long durationNanos,
            long warmupNanos,
            String bucket,
            int objects,
            long seed,
            boolean lock,
            boolean json,
            Prefill prefill,
            boolean overwrite,
            String client) {}

    /** Whether the untimed writes run: both (the default), alone, or not (objects written by an earlier run). */
    enum Prefill {
        THEN_MEASURE,
        ONLY,
        NONE
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = parse(args);
        } catch (UsageException e) {
            System.err.println("s3load: " + e.getMessage());
            System.err.println("usage: S3Load --endpoint http://HOST:PORT --access-key K --secret-key S"
                    + " --workload veeam-write|restore|retention|mixed [--size 512KiB] [--concurrency 16]"
                    + " [--duration 30s] [--warmup 2s] [--bucket NAME] [--objects N] [--seed 1] [--lock] [--json]"
                    + " [--prefill-only | --no-prefill] [--overwrite] [--client socket|jdk]");
            System.exit(2);
            return;
        }
        int status;
        try {
            status = new Run(options).execute();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = 1;
        }
        System.exit(status);
    }

    static Options parse(String[] args) throws UsageException {
        Map<String, String> values = new TreeMap<>();
        boolean lock = false;
        boolean json = false;
        Prefill prefill = Prefill.THEN_MEASURE;
        boolean overwrite = false;
        List<String> valued = List.of(
                "--endpoint",
                "--access-key",
                "--secret-key",
                "--workload",
                "--size",
                "--concurrency",
                "--duration",
                "--warmup",
                "--bucket",
                "--objects",
                "--seed",
                "--client");
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (name) {
                case "--lock" -> lock = true;
                case "--json" -> json = true;
                case "--prefill-only" -> prefill = Prefill.ONLY;
                case "--no-prefill" -> prefill = Prefill.NONE;
                case "--overwrite" -> overwrite = true;
                default -> {
                    if (!valued.contains(name)) {
                        throw new UsageException("unknown argument '" + arg + "'");
                    }
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException(name + " needs a value");
                        }
                        value = args[++i];
                    }
                    values.put(name, value);
                }
            }
        }
        for (String required : List.of("--endpoint", "--access-key", "--secret-key", "--workload")) {
            if (!values.containsKey(required)) {
                throw new UsageException("missing " + required);
            }
        }
        URI endpoint = parseEndpoint(values.get("--endpoint"));
        Workload workload = null;
        for (Workload w : Workload.values()) {
            if (w.flag.equals(values.get("--workload"))) {
                workload = w;
            }
        }
        if (workload == null) {
            throw new UsageException("bad --workload '" + values.get("--workload")
                    + "': expected veeam-write, restore, retention or mixed");
        }
        int size = workload == Workload.RETENTION
                ? RETENTION_OBJECT_SIZE
                : parseSize(values.getOrDefault("--size", "512KiB"));
        int concurrency = parseInt("--concurrency", values.getOrDefault("--concurrency", "16"), 1, 4096);
        long duration = parseDuration("--duration", values.getOrDefault("--duration", "30s"), false);
        long warmup = parseDuration("--warmup", values.getOrDefault("--warmup", "2s"), true);
        int objects = workload == Workload.VEEAM_WRITE
                ? 0
                : parseInt("--objects", values.getOrDefault("--objects", "" + workload.defaultObjects), 1, 10_000_000);
        long seed;
        try {
            seed = Long.parseLong(values.getOrDefault("--seed", "1"));
        } catch (NumberFormatException e) {
            throw new UsageException("bad --seed '" + values.get("--seed") + "': expected an integer");
        }
        String bucket = values.getOrDefault("--bucket", "s3load-" + workload.flag);
        if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            throw new UsageException("bad --bucket '" + bucket + "': expected an S3 bucket name (3-63 of a-z 0-9 . -)");
        }
        boolean lockBucket = lock || workload == Workload.RETENTION;
        String client = values.getOrDefault("--client", LoadTransport.NAMES.getFirst());
        if (!LoadTransport.NAMES.contains(client)) {
            throw new UsageException("bad --client '" + client + "': expected one of " + LoadTransport.NAMES);
        }
        if (prefill == Prefill.NONE && workload == Workload.RETENTION) {
            throw new UsageException("--no-prefill does not apply to retention (it needs the version ids it writes)");
        }
        return new Options(
                endpoint,
                values.get("--access-key"),
                values.get("--secret-key"),
                workload,
                size,
                concurrency,
                duration,
                warmup,
                bucket,
                objects,
                seed,
                lockBucket,
                json,
                prefill,
                overwrite,
                client);
    }

    private static URI parseEndpoint(String text) throws UsageException {
        URI uri;
        try {
            uri = new URI(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        } catch (Exception e) {
            throw new UsageException("bad --endpoint '" + text + "': " + e.getMessage());
        }
        if (!"http".equals(uri.getScheme())
                || uri.getHost() == null
                || (uri.getRawPath() != null && !uri.getRawPath().isEmpty())
                || uri.getRawQuery() != null) {
            throw new UsageException(
                    "bad --endpoint '" + text + "': expected http://HOST[:PORT] (plain HTTP, no path)");
        }
        return uri;
    }

    /** Bytes: a plain number, or with B, KiB/K/KB, MiB/M/MB, GiB/G/GB (all powers of 1024). */
    static int parseSize(String text) throws UsageException {
        Matcher m = Pattern.compile("(\\d+)\\s*([A-Za-z]*)").matcher(text.trim());
        if (!m.matches()) {
            throw new UsageException("bad --size '" + text + "': expected e.g. 4096, 512KiB or 4MiB");
        }
        long shift =
                switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "", "b" -> 0;
                    case "k", "kb", "kib" -> 10;
                    case "m", "mb", "mib" -> 20;
                    case "g", "gb", "gib" -> 30;
                    default -> -1;
                };
        if (shift < 0) {
            throw new UsageException("bad --size '" + text + "': unknown unit '" + m.group(2) + "'");
        }
        long bytes;
        try {
            bytes = Long.parseLong(m.group(1)) << shift;
        } catch (NumberFormatException e) {
            bytes = Long.MAX_VALUE;
        }
        if (bytes < TAIL || bytes > (1L << 30) || Long.parseLong(m.group(1)) > (1L << 30)) {
            throw new UsageException("bad --size '" + text + "': must be from 16 B to 1 GiB");
        }
        return (int) bytes;
    }

    /** Nanoseconds: a number with ms, s, m (a plain number is seconds). */
    static long parseDuration(String flag, String text, boolean zeroAllowed) throws UsageException {
        Matcher m = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|min)?").matcher(text.trim());
        if (!m.matches()) {
            throw new UsageException("bad " + flag + " '" + text + "': expected e.g. 30s, 2m or 500ms");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        long nanos =
                switch (unit) {
                    case "ms" -> Duration.ofMillis(n).toNanos();
                    case "s" -> Duration.ofSeconds(n).toNanos();
                    default -> Duration.ofMinutes(n).toNanos();
                };
        if (nanos == 0 && !zeroAllowed) {
            throw new UsageException("bad " + flag + " '" + text + "': must be more than zero");
        }
        return nanos;
    }

    private static int parseInt(String flag, String text, int min, int max) throws UsageException {
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new UsageException("bad " + flag + " '" + text + "': expected an integer from " + min + " to " + max);
    }

    /** The server refused the setup (bucket creation, the untimed prefill): the run cannot start. */
    static final class SetupFailure extends Exception {
        SetupFailure(String message) {
            super(message);
        }
    }

    /** One answer: its status, the version id a PUT created, and the S3 error code of a non-2xx. */
    record Answer(int status, String versionId, String code, String message) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** Status 0 (no answer, or a GET body unlike the one written) has only its message. */
        String describe() {
            return status == 0
                    ? message
                    : "HTTP " + status + (code == null ? "" : " " + code)
                            + (message == null ? "" : " (" + message + ")");
        }
    }

    /**
     * Latencies in microseconds, log-linear buckets (every value below 256 exact, above it 128 buckets per power of
     * two, so under 1 % error); one per worker thread, merged at the end.
     */
    static final class Histogram {
        private final long[] counts = new long[256 + 56 * 128];

        void record(long micros) {
            counts[index(Math.max(0, micros))]++;
        }

        static int index(long v) {
            if (v < 256) {
                return (int) v;
            }
            int shift = 63 - Long.numberOfLeadingZeros(v) - 7;
            return 256 + (shift - 1) * 128 + (int) ((v >>> shift) - 128);
        }

        /** The middle of bucket {@code i}. */
        static double value(int i) {
            if (i < 256) {
                return i;
            }
            int shift = (i - 256) / 128 + 1;
            long low = (long) ((i - 256) % 128 + 128) << shift;
            return low + (1L << shift) / 2.0;
        }

        void add(Histogram other) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += other.counts[i];
            }
        }

        long total() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        double percentileMillis(double p) {
            long n = total();
            if (n == 0) {
                return 0;
            }
            long rank = Math.max(1, (long) Math.ceil(p / 100 * n));
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return value(i) / 1000.0;
                }
            }
            return value(counts.length - 1) / 1000.0;
        }
    }

    /** What one worker measured. */
    static final class Tally {
        final Histogram latency = new Histogram();
        long ops;
        long bytes;
    }

    /** One run: the client, the shared object body, the setup, the timed phase and the report. */
    static final class Run {
        private final Options o;
        private final LoadTransport http;
        private final String host;
        private final byte[] body;
        private final MessageDigest prefixMd5;
        private final String keyBase;
        private final AtomicLong errors = new AtomicLong();
        private final AtomicReference<String> firstError = new AtomicReference<>();
        private final Map<Integer, AtomicLong> errorsByStatus = new ConcurrentSkipListMap<>();
        private final AtomicLong nextKey = new AtomicLong();
        private final String retainUntil = ISO_MILLIS.format(Instant.now().plus(Duration.ofDays(1)));
        /** The signing key of one day: derived once a day, not per request. */
        private record DayKey(String date, byte[] key) {}

        private volatile DayKey dayKey;

        Run(Options o) {
            this.o = o;
            this.http = LoadTransport.named(o.client(), o.concurrency());
            this.host = o.endpoint().getPort() < 0
                    ? o.endpoint().getHost()
                    : o.endpoint().getHost() + ":" + o.endpoint().getPort();
            this.body = new byte[o.size()];
            new SplittableRandom(o.seed()).nextBytes(body);
            this.prefixMd5 = md5();
            prefixMd5.update(body, 0, body.length - TAIL);
            SplittableRandom ids = new SplittableRandom(o.seed() * 31 + 7);
            String guid = new UUID(ids.nextLong(), ids.nextLong()).toString();
            this.keyBase = "Veeam/Archive/s3load-repo-" + Long.toHexString(o.seed()) + "/" + guid + "/blocks/";
        }

        int execute() throws InterruptedException {
            try {
                return setUpAndMeasure();
            } finally {
                http.close();
            }
        }

        private int setUpAndMeasure() throws InterruptedException {
            String[] versions = new String[o.objects()];
            try {
                ensureBucket();
                if (o.objects() > 0 && o.prefill() != Prefill.NONE) {
                    prefill(versions);
                } else {
                    nextKey.set(versions.length); // written by an earlier run with the same seed
                }
                if (o.prefill() == Prefill.ONLY) {
                    System.out.println("prefilled=" + versions.length + " bucket=" + o.bucket());
                    return 0;
                }
            } catch (SetupFailure e) {
                // Still the one result line (or JSON object) a script reads, with nothing measured.
                System.err.println("s3load: setup failed: " + e.getMessage());
                report(new Tally(), 0);
                return 1;
            }
            Tally total = timed(versions);
            report(total, o.durationNanos() / 1e9);
            return errors.get() == 0 ? 0 : 1;
        }

        // ---- keys and bodies

        /** Key number {@code n}: distinct per n, Veeam's shape. */
        String key(long n) {
            long h = mix(o.seed() ^ (n * 0x9E3779B97F4A7C15L));
            return keyBase + String.format("%016x%016x", h, mix(h)) + "/" + n + ".00000000000000000000000000000000.blk";
        }

        /** The 16 bytes that end the body of {@code key}. */
        static byte[] tail(String key) {
            long h = 1125899906842597L;
            for (int i = 0; i < key.length(); i++) {
                h = 31 * h + key.charAt(i);
            }
            byte[] t = new byte[TAIL];
            long a = mix(h);
            long b = mix(a);
            for (int i = 0; i < 8; i++) {
                t[i] = (byte) (a >>> (8 * i));
                t[8 + i] = (byte) (b >>> (8 * i));
            }
            return t;
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        private static MessageDigest md5() {
            try {
                return MessageDigest.getInstance("MD5");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        private String bodyMd5(byte[] tail) {
            try {
                MessageDigest d = (MessageDigest) prefixMd5.clone();
                d.update(tail);
                return Base64.getEncoder().encodeToString(d.digest());
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException(e);
            }
        }

        // ---- setup

        private void ensureBucket() throws SetupFailure, InterruptedException {
            // GET ?location rather than HEAD: a refusal comes with a body that names the S3 error code.
            Answer head = send("GET", "/" + o.bucket(), "location", Map.of(), null, false);
            if (head.status() == 404 && "NoSuchBucket".equals(head.code())) {
                Map<String, String> h = o.lock() ? Map.of("x-amz-bucket-object-lock-enabled", "true") : Map.of();
                Answer made = send("PUT", "/" + o.bucket(), "", h, null, false);
                // 409 BucketAlreadyOwnedByYou: another run made it in between; fine.
                if (!made.ok() && !(made.status() == 409 && "BucketAlreadyOwnedByYou".equals(made.code()))) {
                    throw setupFailed("create bucket " + o.bucket(), made);
                }
            } else if (!head.ok()) {
                throw setupFailed("look up bucket " + o.bucket(), head);
            }
            if (!o.lock() && !o.overwrite()) {
                byte[] xml = ("<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                                + "<Status>Enabled</Status></VersioningConfiguration>")
                        .getBytes(StandardCharsets.UTF_8);
                Answer v =
                        send("PUT", "/" + o.bucket(), "versioning", md5Header(xml), LoadTransport.Body.of(xml), false);
                if (!v.ok()) {
                    throw setupFailed("enable versioning on " + o.bucket(), v);
                }
            }
        }

        private SetupFailure setupFailed(String what, Answer a) {
            countError(a, what);
            return new SetupFailure(what + ": " + a.describe());
        }

        /** Writes objects 0 .. objects-1 with all workers, untimed; keeps each one's version id. */
        private void prefill(String[] versions) throws SetupFailure, InterruptedException {
            AtomicLong next = new AtomicLong();
            runWorkers(w -> {
                for (long n; (n = next.getAndIncrement()) < versions.length; ) {
                    Answer a = put(key(n));
                    if (!a.ok()) {
                        countError(a, "prefill PUT");
                        return;
                    }
                    versions[(int) n] = a.versionId();
                }
            });
            nextKey.set(versions.length);
            if (errors.get() > 0) {
                throw new SetupFailure("prefill of " + versions.length + " objects failed: " + firstError.get());
            }
            if (o.workload() == Workload.RETENTION) {
                for (String v : versions) {
                    if (v == null || v.isEmpty() || v.equals("null")) {
                        throw new SetupFailure("the PUTs into " + o.bucket()
                                + " returned no x-amz-version-id: is object lock (and so versioning) on?");
                    }
                }
            }
        }

        // ---- the timed phase

        private Tally timed(String[] versions) throws InterruptedException {
            long start = System.nanoTime();
            long measureFrom = start + o.warmupNanos();
            long end = measureFrom + o.durationNanos();
            AtomicLong retentionTurn = new AtomicLong();
            Instant retentionBase = Instant.now().plus(Duration.ofDays(2));
            List<Tally> tallies = new ArrayList<>();
            runWorkers(w -> {
                Tally t = new Tally();
                synchronized (tallies) {
                    tallies.add(t);
                }
                SplittableRandom random = new SplittableRandom(o.seed() * 1_000_003L + w);
                byte[] scratch = new byte[64 * 1024];
                while (true) {
                    long before = System.nanoTime();
                    if (before >= end) {
                        return;
                    }
                    Answer a;
                    long moved;
                    String what;
                    switch (o.workload()) {
                        case VEEAM_WRITE -> {
                            a = put(key(nextKey.getAndIncrement()));
                            moved = o.size();
                            what = "PUT";
                        }
                        case RESTORE -> {
                            a = get(key(random.nextInt(versions.length)), scratch);
                            moved = o.size();
                            what = "GET";
                        }
                        case RETENTION -> {
                            long turn = retentionTurn.getAndIncrement();
                            int n = (int) (turn % versions.length);
                            // Each turn's date is a second later than any before it: always an extension.
                            a = extendRetention(key(n), versions[n], retentionBase.plusSeconds(turn));
                            moved = 0;
                            what = "PUT ?retention";
                        }
                        default -> {
                            if (random.nextInt(100) < 70) {
                                a = get(key(random.nextInt(versions.length)), scratch);
                                what = "GET";
                            } else {
                                // --overwrite: a prefilled key again, so the bucket's size stays bounded (soak)
                                a = put(key(
                                        o.overwrite() ? random.nextInt(versions.length) : nextKey.getAndIncrement()));
                                what = "PUT";
                            }
                            moved = o.size();
                        }
                    }
                    long after = System.nanoTime();
                    if (!a.ok()) {
                        countError(a, what);
                    } else if (after >= measureFrom && after <= end) {
                        // Answers that arrive in the window count, whenever they were asked: no bias against
                        // slow requests still under way at either edge.
                        t.ops++;
                        t.bytes += moved;
                        t.latency.record((after - before) / 1000);
                    }
                }
            });
            Tally total = new Tally();
            for (Tally t : tallies) {
                total.ops += t.ops;
                total.bytes += t.bytes;
                total.latency.add(t.latency);
            }
            return total;
        }

        private interface Worker {
            void run(int worker) throws Exception;
        }

        private void runWorkers(Worker worker) throws InterruptedException {
            ExecutorService pool = Executors.newFixedThreadPool(o.concurrency());
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < o.concurrency(); w++) {
                    int id = w;
                    done.add(pool.submit(() -> {
                        worker.run(id);
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("worker failed", e.getCause());
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }

        private void countError(Answer a, String what) {
            errors.incrementAndGet();
            errorsByStatus.computeIfAbsent(a.status(), s -> new AtomicLong()).incrementAndGet();
            firstError.compareAndSet(null, what + ": " + a.describe());
        }

        // ---- requests

        private Answer put(String key) throws InterruptedException {
            byte[] tail = tail(key);
            Map<String, String> h = new TreeMap<>();
            h.put("content-md5", bodyMd5(tail));
            if (o.lock()) {
                h.put("x-amz-object-lock-mode", "COMPLIANCE");
                h.put("x-amz-object-lock-retain-until-date", retainUntil);
            }
            return send(
                    "PUT",
                    "/" + o.bucket() + "/" + key,
                    "",
                    h,
                    new LoadTransport.Body(body, body.length - TAIL, tail),
                    false);
        }

        private Answer get(String key, byte[] scratch) throws InterruptedException {
            return send("GET", "/" + o.bucket() + "/" + key, "", Map.of(), null, true, scratch, key);
        }

        private Answer extendRetention(String key, String versionId, Instant until) throws InterruptedException {
            byte[] xml = ("<Retention xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Mode>COMPLIANCE</Mode>"
                            + "<RetainUntilDate>" + ISO_MILLIS.format(until) + "</RetainUntilDate></Retention>")
                    .getBytes(StandardCharsets.UTF_8);
            return send(
                    "PUT",
                    "/" + o.bucket() + "/" + key,
                    "retention&versionId=" + encode(versionId),
                    md5Header(xml),
                    LoadTransport.Body.of(xml),
                    false);
        }

        private static Map<String, String> md5Header(byte[] content) {
            return Map.of("content-md5", Base64.getEncoder().encodeToString(md5().digest(content)));
        }

        private static String encode(String value) {
            StringBuilder out = new StringBuilder();
            for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
                char c = (char) (b & 0xff);
                if ((c >= 'A' && c <= 'Z')
                        || (c >= 'a' && c <= 'z')
                        || (c >= '0' && c <= '9')
                        || "-_.~".indexOf(c) >= 0) {
                    out.append(c);
                } else {
                    out.append('%').append(String.format("%02X", b & 0xff));
                }
            }
            return out.toString();
        }

        private Answer send(
                String method,
                String path,
                String query,
                Map<String, String> extra,
                LoadTransport.Body content,
                boolean readBody)
                throws InterruptedException {
            return send(method, path, query, extra, content, readBody, null, null);
        }

        /**
         * Signs and sends one request; a GET's body is read through {@code scratch} and checked against the bytes
         * {@code key} was written with (a mismatch is reported as status 0).
         */
        private Answer send(
                String method,
                String path,
                String query,
                Map<String, String> extra,
                LoadTransport.Body content,
                boolean readBody,
                byte[] scratch,
                String key)
                throws InterruptedException {
            URI uri = URI.create(o.endpoint() + path + (query.isEmpty() ? "" : "?" + query));
            String amzDate = AMZ_DATE.format(Instant.now());
            String date = amzDate.substring(0, 8);
            TreeMap<String, List<String>> signed = new TreeMap<>();
            signed.put("host", List.of(host));
            signed.put("x-amz-content-sha256", List.of(UNSIGNED));
            signed.put("x-amz-date", List.of(amzDate));
            extra.forEach((k, v) -> signed.put(k, List.of(v)));
            String canonical = SigV4.canonicalRequest(
                    method, uri.getRawPath(), query, List.copyOf(signed.keySet()), signed, UNSIGNED);
            String signature = SigV4.signature(
                    signingKey(date), SigV4.stringToSign(amzDate, SigV4.scope(date, REGION, "s3"), canonical));
            List<String[]> headers = new ArrayList<>(signed.size() + 1);
            headers.add(new String[] {
                "Authorization",
                SigV4.ALGORITHM + " Credential=" + o.accessKey() + "/" + SigV4.scope(date, REGION, "s3")
                        + ", SignedHeaders=" + String.join(";", signed.keySet()) + ", Signature=" + signature
            });
            signed.forEach((k, v) -> {
                if (!k.equals("host")) {
                    headers.add(new String[] {k, v.getFirst()});
                }
            });
            try {
                LoadTransport.Response r =
                        http.send(method, uri, headers, content == null ? LoadTransport.Body.EMPTY : content);
                try (InputStream in = r.body()) {
                    int status = r.status();
                    if (status < 200 || status >= 300) {
                        byte[] err = in.readNBytes(8192);
                        in.transferTo(OutputStream.nullOutputStream());
                        String text = new String(err, StandardCharsets.UTF_8);
                        Matcher m = S3_CODE.matcher(text);
                        Matcher msg =
                                Pattern.compile("<Message>([^<]*)</Message>").matcher(text);
                        return new Answer(
                                status,
                                null,
                                m.find() ? m.group(1) : null,
                                msg.find() ? method + " " + path + ": " + msg.group(1) : method + " " + path);
                    }
                    String version = r.versionId();
                    if (!readBody) {
                        in.transferTo(OutputStream.nullOutputStream());
                        return new Answer(status, version, null, null);
                    }
                    String problem = readAndCheck(in, scratch, key);
                    return problem == null
                            ? new Answer(status, version, null, null)
                            : new Answer(0, null, null, method + " " + path + ": " + problem);
                }
            } catch (IOException e) {
                return new Answer(0, null, null, method + " " + path + ": " + e);
            }
        }

        /** Reads the whole body; null if it is the object written under {@code key}, else what is wrong. */
        private String readAndCheck(InputStream in, byte[] scratch, String key) throws IOException {
            long length = 0;
            byte[] head = new byte[TAIL];
            int headFill = 0;
            byte[] last = new byte[TAIL];
            for (int got; (got = in.read(scratch)) >= 0; ) {
                if (headFill < TAIL) {
                    int c = Math.min(TAIL - headFill, got);
                    System.arraycopy(scratch, 0, head, headFill, c);
                    headFill += c;
                }
                // Keep the last 16 bytes seen, across read boundaries.
                if (got >= TAIL) {
                    System.arraycopy(scratch, got - TAIL, last, 0, TAIL);
                } else if (got > 0) {
                    System.arraycopy(last, got, last, 0, TAIL - got);
                    System.arraycopy(scratch, 0, last, TAIL - got, got);
                }
                length += got;
            }
            if (length != body.length) {
                return "body of " + length + " bytes, expected " + body.length;
            }
            for (int i = 0; i < TAIL && i < body.length - TAIL; i++) {
                if (head[i] != body[i]) {
                    return "body's first bytes differ from what was written";
                }
            }
            if (!Arrays.equals(last, tail(key))) {
                return "body's last bytes differ from what was written";
            }
            return null;
        }

        private byte[] signingKey(String date) {
            DayKey k = dayKey;
            if (k == null || !k.date().equals(date)) {
                k = new DayKey(date, SigV4.signingKey(o.secretKey(), date, REGION, "s3"));
                dayKey = k;
            }
            return k.key();
        }

        // ---- the report

        private void report(Tally t, double seconds) {
            double opsPerS = seconds == 0 ? 0 : t.ops / seconds;
            double mibPerS = seconds == 0 ? 0 : t.bytes / seconds / (1 << 20);
            double p50 = t.latency.percentileMillis(50);
            double p90 = t.latency.percentileMillis(90);
            double p99 = t.latency.percentileMillis(99);
            // One list of fields for both outputs: JSON numbers and strings, or key=value words.
            String first = firstError.get();
            java.util.LinkedHashMap<String, Object> fields = new java.util.LinkedHashMap<>();
            fields.put("workload", o.workload().flag);
            fields.put("size", o.json() ? o.size() : sizeText(o.size()));
            fields.put("concurrency", o.concurrency());
            fields.put("ops", t.ops);
            fields.put("seconds", String.format(Locale.ROOT, "%.3f", seconds));
            fields.put("ops_per_s", String.format(Locale.ROOT, "%.2f", opsPerS));
            fields.put("MiB_per_s", String.format(Locale.ROOT, "%.2f", mibPerS));
            fields.put("p50_ms", String.format(Locale.ROOT, "%.3f", p50));
            fields.put("p90_ms", String.format(Locale.ROOT, "%.3f", p90));
            fields.put("p99_ms", String.format(Locale.ROOT, "%.3f", p99));
            fields.put("errors", errors.get());
            StringBuilder line = new StringBuilder(o.json() ? "{" : "");
            for (var f : fields.entrySet()) {
                boolean text = f.getKey().equals("workload");
                if (o.json()) {
                    line.append(line.length() > 1 ? "," : "")
                            .append('"')
                            .append(f.getKey())
                            .append("\":");
                    line.append(text ? jsonString(f.getValue().toString()) : f.getValue());
                } else {
                    line.append(line.isEmpty() ? "" : " ")
                            .append(f.getKey())
                            .append('=')
                            .append(f.getValue());
                }
            }
            if (o.json()) {
                line.append(",\"first_error\":")
                        .append(first == null ? "null" : jsonString(first))
                        .append('}');
            }
            System.out.println(line);
            if (errors.get() > 0) {
                System.err.println("s3load: " + errors.get() + " errors " + errorsByStatus + " (status 0: no answer"
                        + " or a wrong body); first: " + firstError.get());
            }
        }

        private static String jsonString(String s) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            return out.append('"').toString();
        }
    }

    static String sizeText(long bytes) {
        if (bytes % (1 << 30) == 0) {
            return bytes / (1 << 30) + "GiB";
        }
        if (bytes % (1 << 20) == 0) {
            return bytes / (1 << 20) + "MiB";
        }
        if (bytes % (1 << 10) == 0) {
            return bytes / (1 << 10) + "KiB";
        }
        return bytes + "B";
    }
}
