package dev.appliance.it.veeam;

import dev.appliance.it.veeam.Metrics.Count;
import dev.appliance.it.veeam.Metrics.Op;
import dev.appliance.it.veeam.Model.KeyState;
import dev.appliance.it.veeam.Model.Kind;
import dev.appliance.it.veeam.Model.Version;
import dev.appliance.it.veeam.VeeamWire.DeleteEntry;
import dev.appliance.it.veeam.VeeamWire.DeleteOutcome;
import dev.appliance.it.veeam.VeeamWire.Response;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.w3c.dom.Element;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectLockConfiguration;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A Veeam Backup &amp; Replication workload against an S3 endpoint with Object Lock, verified as it runs. It follows
 * what {@code docs/veeam.md} and the Veeam requirements describe, scaled from days to seconds:
 *
 * <ol>
 *   <li><b>Repository creation</b>: ListBuckets, HeadBucket, GetBucketLocation, GetBucketVersioning,
 *       GetObjectLockConfiguration (lock on, no default retention), the SOSAPI {@code system.xml} and
 *       {@code capacity.xml} (GET and HEAD), a folder browse, zero-byte directory markers ({@code Veeam/},
 *       {@code Veeam/Backup/<repo>/}, ...), and the repository's {@code Owner}, rewritten as a takeover would.
 *   <li><b>Backup sessions</b>, one after the other until the duration is over, 64 operations in parallel: each chain
 *       writes blocks of 256 KiB to 4 MiB (most about 512 KiB) with COMPLIANCE retention, as VBR sends them (SHA-256
 *       payload hash, {@code Content-MD5}) and now and then as an SDK-based agent would (aws-chunked with a CRC32
 *       trailer); blocks of the current block generation get the generation's date, blocks of restore points that
 *       retention will retire a short one. Then the checkpoint objects are rewritten under the same key (new
 *       versions), the checkpoint folder is listed as {@code Cloud.FindLastCheckpointId} lists it, and the older
 *       checkpoint versions are read back by version id (rollback). Some retired blocks are deleted without a version
 *       id: the delete marker is checked (404 with {@code x-amz-delete-marker}, 405 on its version id), the locked
 *       version stays readable.
 *   <li><b>Block-generation rollover</b> every few sessions: PutObjectRetention by version id with a namespace-less
 *       {@code <Retention>} body moves every live chain block to the new generation's date; shortening and a mode
 *       change are refused with {@code AccessDenied}.
 *   <li><b>Retention cleanup</b>: expired versions (and their delete markers) are deleted with DeleteObjects batches
 *       of up to 1000 {key, versionId}; each batch also names a few still-locked chain blocks, which must be refused
 *       per key with {@code AccessDenied}, and a few versions deleted before, which must be reported deleted again.
 *   <li><b>Final check</b>: every version is read back (bytes and lock state: a health check); once the last retired
 *       versions have expired and are deleted (the last batch filled to 1000 if none was yet), the whole repository's
 *       version listing and object listing are compared with the model, and SOSAPI's {@code Used} must equal the
 *       bytes the model holds.
 * </ol>
 *
 * <p>Every response is checked: each GET against content regenerated from the version's seed, each HEAD,
 * GetObjectRetention and GET against the lock state the model holds, each listing against the model. Failures are
 * collected (the run goes on) and make the result fail. A few operations run concurrently on one bucket, but never two
 * on one key, so the model's order of versions is the appliance's.
 *
 * <p>Standalone: {@link #main} with {@code -Dveeam.endpoint=... -Dveeam.accessKey=... -Dveeam.secretKey=...} (see
 * {@code docs/veeam.md}); exit status 1 when any check failed.
 */
public final class VeeamSimulator implements AutoCloseable {
    static final String SOSAPI_FOLDER = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/";
    /** Checkpoint versions kept for rollback (and extended); older ones are left to expire and are deleted. */
    private static final int ROLLBACK_WINDOW = 3;
    /** Locked chain blocks named in every DeleteObjects batch, each to be refused. */
    private static final int LOCKED_PROBES_PER_BATCH = 3;
    /** Versions deleted by an earlier batch and named again (a retried cleanup), each to be reported deleted. */
    private static final int REPEATS_PER_BATCH = 3;

    private static final DateTimeFormatter WITH_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter WITHOUT_FRACTION =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private final SimConfig cfg;
    private final PrintStream log;
    private final S3Client s3;
    private final VeeamWire wire;
    private final ExecutorService pool;
    private final Model model = new Model();
    private final Metrics metrics = new Metrics();
    private final Checks checks;
    /**
     * Plans the workload (sizes, seeds, samples); used by the orchestrating thread only, so a seed repeats a run's
     * sizes, contents and choices (what is due for deletion still depends on timing).
     */
    private final Random plan;

    private final AtomicLong seeds;
    private final Set<String> versionIds = ConcurrentHashMap.newKeySet();
    private final List<Chain> chains = new ArrayList<>();
    private final Deque<DeleteEntry> deletedBefore = new ArrayDeque<>();
    private final String repoFolder;

    private boolean bucketCreated;
    private Instant lastCleanup = now();

    private Instant generationDate;
    private int sessions;

    /** One backup chain: a client machine's backup with its own folder, blocks and checkpoint objects. */
    private static final class Chain {
        final String folder;
        final String storage;
        final String backup;
        int blockNo;
        /** Keys of blocks this chain still references: extended at every rollover, never deleted. */
        final List<String> liveBlocks = new ArrayList<>();
        /** Transient blocks of the latest session, not yet given a delete marker. */
        final List<String> retiring = new ArrayList<>();

        Chain(String folder, String storage, String backup) {
            this.folder = folder;
            this.storage = storage;
            this.backup = backup;
        }

        String checkpointKey() {
            return folder + "Metadata/Checkpoint";
        }

        String historyKey() {
            return folder + "CloudStg/Meta/Blocks/History/CheckpointHistory.{" + backup + "}";
        }
    }

    /** The outcome of a run. */
    public record Result(
            String summary, long failureCount, List<String> failures, Map<Count, Long> counts, Map<Op, Long> ops) {
        public boolean passed() {
            return failureCount == 0;
        }

        public long count(Count c) {
            return counts.getOrDefault(c, 0L);
        }

        public long ops(Op op) {
            return ops.getOrDefault(op, 0L);
        }
    }

    public VeeamSimulator(SimConfig cfg, PrintStream log) {
        this.cfg = cfg;
        this.log = log;
        this.plan = new Random(cfg.seed());
        this.seeds = new AtomicLong(cfg.seed() * 1_000_003L);
        this.repoFolder = "Veeam/Backup/" + cfg.repo() + "/";
        this.s3 = S3Client.builder()
                .endpointOverride(cfg.endpoint())
                .region(Region.of(cfg.region()))
                .forcePathStyle(true)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(cfg.accessKey(), cfg.secretKey())))
                .httpClientBuilder(ApacheHttpClient.builder()
                        .maxConnections(cfg.concurrency() + 8)
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(120)))
                // every failed request must show: no silent retries
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .putAdvancedOption(SdkAdvancedClientOption.USER_AGENT_SUFFIX, VeeamWire.USER_AGENT))
                .build();
        this.checks = new Checks(s3, cfg.bucket(), model, metrics, log);
        this.wire =
                new VeeamWire(cfg.endpoint(), cfg.region(), cfg.accessKey(), cfg.secretKey(), cfg.concurrency() + 8);
        AtomicInteger threads = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(cfg.concurrency(), r -> {
            Thread t = new Thread(r, "veeam-sim-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Standalone load tool: {@code -Dveeam.endpoint=... -Dveeam.accessKey=... -Dveeam.secretKey=...}. */
    public static void main(String[] args) {
        SimConfig cfg;
        try {
            cfg = SimConfig.from(System.getProperties());
        } catch (IllegalArgumentException e) {
            System.err.println("veeam-sim: " + e.getMessage());
            System.exit(2);
            return;
        }
        Result result;
        try (VeeamSimulator sim = new VeeamSimulator(cfg, System.out)) {
            result = sim.run();
        }
        System.out.print(result.summary());
        result.failures().forEach(f -> System.out.println("FAILED: " + f));
        System.exit(result.passed() ? 0 : 1);
    }

    /** Runs the whole workload and returns its summary; never throws for a failed check (they are in the result). */
    public Result run() {
        long start = System.nanoTime();
        log.printf(
                Locale.ROOT,
                "veeam-sim: endpoint %s bucket %s folder %s, %d s, concurrency %d, %d chains x %d blocks/session,"
                        + " seed %d%n",
                cfg.endpoint(),
                cfg.bucket(),
                repoFolder,
                cfg.duration().toSeconds(),
                cfg.concurrency(),
                cfg.chains(),
                cfg.blocksPerSession(),
                cfg.seed());
        try {
            createRepository();
            long deadline = System.nanoTime() + cfg.duration().toNanos();
            long hardDeadline = System.nanoTime() + 8 * cfg.duration().toNanos();
            // at least one block generation; past the duration only while too few blocks were written, or (a short
            // run's minimum) too few versions to name in the final cleanup's full DeleteObjects batch
            while (sessions < cfg.sessionsPerGeneration()
                    || System.nanoTime() < deadline
                    || ((metrics.count(Count.BLOCKS_WRITTEN) < cfg.minBlocks() || !fullBatchNameable())
                            && System.nanoTime() < hardDeadline)) {
                session();
            }
            finish();
        } catch (RuntimeException e) {
            // a check cannot go on (e.g. the bucket is missing): report it like any other failure
            checks.fail(null, "run aborted: " + e);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Map<Count, Long> counts = new HashMap<>();
        for (Count c : Count.values()) {
            counts.put(c, metrics.count(c));
        }
        Map<Op, Long> ops = new HashMap<>();
        for (Op op : Op.values()) {
            ops.put(op, metrics.ops(op));
        }
        return new Result(
                metrics.summary(elapsed, checks.failureCount()), checks.failureCount(), checks.failures(), counts, ops);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // repository creation

    private void createRepository() {
        String bucket = cfg.bucket();
        boolean listed = checks.timed(Op.LIST_BUCKETS, 0, () -> s3.listBuckets()).buckets().stream()
                .anyMatch(b -> b.name().equals(bucket));
        if (!listed) {
            // the administrator's step (docs/veeam.md): a bucket with Object Lock and no default retention
            checks.timed(
                    Op.CREATE_BUCKET,
                    0,
                    () -> s3.createBucket(b -> b.bucket(bucket).objectLockEnabledForBucket(true)));
            bucketCreated = true;
        }
        checks.timed(Op.HEAD_BUCKET, 0, () -> s3.headBucket(b -> b.bucket(bucket)));
        checks.timed(Op.GET_BUCKET_LOCATION, 0, () -> s3.getBucketLocation(b -> b.bucket(bucket)));
        BucketVersioningStatus versioning = checks.timed(
                        Op.GET_BUCKET_VERSIONING, 0, () -> s3.getBucketVersioning(b -> b.bucket(bucket)))
                .status();
        checks.check(
                Op.GET_BUCKET_VERSIONING,
                versioning == BucketVersioningStatus.ENABLED,
                "GetBucketVersioning: " + versioning + " (expected Enabled)");
        ObjectLockConfiguration lock = checks.timed(
                        Op.GET_OBJECT_LOCK_CONFIGURATION, 0, () -> s3.getObjectLockConfiguration(b -> b.bucket(bucket)))
                .objectLockConfiguration();
        checks.check(
                Op.GET_OBJECT_LOCK_CONFIGURATION,
                "Enabled".equals(lock.objectLockEnabledAsString()),
                "GetObjectLockConfiguration: ObjectLockEnabled " + lock.objectLockEnabledAsString());
        checks.check(
                Op.GET_OBJECT_LOCK_CONFIGURATION,
                lock.rule() == null,
                "GetObjectLockConfiguration: a default retention is set (" + lock.rule() + "); Veeam needs none");
        if (cfg.sosapi()) {
            checkSosapi();
        }

        // folder browse, then "New Folder": directory markers, created when absent (shared ones may exist)
        checks.compareCurrent(bucketCreated, "", "/");
        for (String folder : List.of("Veeam/", "Veeam/Backup/")) {
            if (!exists(folder)) {
                putObject(folder, Kind.FOLDER, 0, null, false, Op.PUT_FOLDER);
            }
        }
        putObject(repoFolder, Kind.FOLDER, 0, null, false, Op.PUT_FOLDER);
        putObject(repoFolder + "Clients/", Kind.FOLDER, 0, null, false, Op.PUT_FOLDER);
        Instant configLock = now().plus(cfg.chainRetention()).truncatedTo(ChronoUnit.SECONDS);
        generationDate = configLock;
        putObject(repoFolder + "Repository", Kind.CONFIG, 1024 + plan.nextInt(2048), configLock, true, Op.PUT_METADATA);
        // a takeover by another VBR rewrites Owner: a locked version must never block a new one (rustfs#3174)
        putObject(repoFolder + "Owner", Kind.CONFIG, 64 + plan.nextInt(64), configLock, true, Op.PUT_METADATA);
        putObject(repoFolder + "Owner", Kind.CONFIG, 64 + plan.nextInt(64), configLock, false, Op.PUT_METADATA);
        for (int i = 0; i < cfg.chains(); i++) {
            String client = "{" + uuid() + "}";
            String backup = uuid().toString();
            String clientFolder = repoFolder + "Clients/" + client + "/";
            Chain c = new Chain(clientFolder + backup + "/", uuid().toString(), backup);
            putObject(clientFolder, Kind.FOLDER, 0, null, false, Op.PUT_FOLDER);
            putObject(c.folder, Kind.FOLDER, 0, null, false, Op.PUT_FOLDER);
            chains.add(c);
        }
        for (String marker : List.of(repoFolder, repoFolder + "Clients/")) {
            checks.verifyHead(marker, model.key(marker).latest(), true);
        }
        checks.verifyGet(
                repoFolder + "Owner", model.key(repoFolder + "Owner").versions().getFirst(), true, Op.GET_ROLLBACK);
        checks.compareVersions(repoFolder + "Owner", null, 1000);
        checks.compareCurrent(true, repoFolder + "Clients/", "/");
        checks.compareVersions(repoFolder, "/", 1000);
        if (bucketCreated) {
            checks.compareCurrent(true, "Veeam/", "/");
        }
        log.printf(Locale.ROOT, "veeam-sim: repository created: %d chains under %s%n", chains.size(), repoFolder);
    }

    private void checkSosapi() {
        String systemKey = SOSAPI_FOLDER + "system.xml";
        ResponseBytes<GetObjectResponse> system = checks.timed(
                Op.SOSAPI_GET,
                0,
                () -> s3.getObjectAsBytes(b -> b.bucket(cfg.bucket()).key(systemKey)));
        String type = system.response().contentType();
        checks.check(
                Op.SOSAPI_GET,
                type != null && (type.startsWith("application/xml") || type.startsWith("text/xml")),
                "system.xml Content-Type " + type);
        Element info = VeeamWire.parse(system.asByteArray()).getDocumentElement();
        checks.check(Op.SOSAPI_GET, "SystemInfo".equals(info.getTagName()), "system.xml root: " + info.getTagName());
        String version = VeeamWire.childText(info, "ProtocolVersion");
        checks.check(
                Op.SOSAPI_GET,
                "\"1.0\"".equals(version),
                "system.xml ProtocolVersion " + version + " (Veeam needs \"1.0\" with the quotes)");
        String modelName = VeeamWire.childText(info, "ModelName");
        checks.check(
                Op.SOSAPI_GET,
                modelName != null && modelName.length() > 2 && modelName.startsWith("\"") && modelName.endsWith("\""),
                "system.xml ModelName " + modelName + " (a quoted string)");
        Element caps = childElement(info, "ProtocolCapabilities");
        checks.check(
                Op.SOSAPI_GET,
                caps != null && "true".equals(VeeamWire.childText(caps, "CapacityInfo")),
                "system.xml ProtocolCapabilities/CapacityInfo is not true");
        HeadObjectResponse head = checks.timed(
                Op.SOSAPI_HEAD,
                0,
                () -> s3.headObject(b -> b.bucket(cfg.bucket()).key(systemKey)));
        checks.check(
                Op.SOSAPI_HEAD,
                head.contentLength() == system.asByteArray().length
                        && Payload.md5Hex(system.asByteArray()).equals(Checks.unquote(head.eTag())),
                "HEAD system.xml: length " + head.contentLength() + " ETag " + head.eTag() + " do not match the GET");
        long[] capacity = readCapacity();
        checks.check(
                Op.SOSAPI_GET,
                capacity[0] > 0 && capacity[1] >= 0 && capacity[1] <= capacity[0] && capacity[2] >= 0,
                "capacity.xml: Capacity " + capacity[0] + " Available " + capacity[1] + " Used " + capacity[2]);
        checks.timed(
                Op.SOSAPI_HEAD,
                0,
                () -> s3.headObject(b -> b.bucket(cfg.bucket()).key(SOSAPI_FOLDER + "capacity.xml")));
    }

    /** Capacity, Available, Used of {@code capacity.xml}. */
    private long[] readCapacity() {
        byte[] xml = checks.timed(
                        Op.SOSAPI_GET,
                        0,
                        () -> s3.getObjectAsBytes(b -> b.bucket(cfg.bucket()).key(SOSAPI_FOLDER + "capacity.xml")))
                .asByteArray();
        Element root = VeeamWire.parse(xml).getDocumentElement();
        if (!"CapacityInfo".equals(root.getTagName())) {
            throw new IllegalStateException("capacity.xml root: " + root.getTagName());
        }
        return new long[] {
            Long.parseLong(VeeamWire.childText(root, "Capacity").strip()),
            Long.parseLong(VeeamWire.childText(root, "Available").strip()),
            Long.parseLong(VeeamWire.childText(root, "Used").strip())
        };
    }

    // ---------------------------------------------------------------------------------------------------------------
    // one backup session

    private void session() {
        sessions++;
        long t0 = System.nanoTime();
        Instant generation = generationDate;

        // 1. data blocks, all chains at once
        // until: the generation's date, or null for a retiring block: a short period from the moment it is sent
        record Block(Chain chain, String key, Kind kind, long seed, int size, Instant until, boolean agent) {}
        List<Block> blocks = new ArrayList<>();
        long bytes = 0;
        for (Chain c : chains) {
            for (int i = 0; i < cfg.blocksPerSession(); i++) {
                long seed = seeds.incrementAndGet();
                boolean retiring = plan.nextDouble() < cfg.transientShare();
                String key = c.folder + "CloudStg/Data/{" + c.storage + "}/" + (c.blockNo++) + "." + hex32(seed) + "."
                        + hex32(c.storage.hashCode()) + ".blk";
                int size = blockSize();
                bytes += size;
                blocks.add(new Block(
                        c,
                        key,
                        retiring ? Kind.TRANSIENT_BLOCK : Kind.CHAIN_BLOCK,
                        seed,
                        size,
                        retiring ? null : generation,
                        plan.nextInt(8) == 0));
            }
        }
        List<Callable<Block>> writes = new ArrayList<>();
        for (Block b : blocks) {
            // Veeam may extend a block's retention right after writing it (kopia#5590: refused too early elsewhere)
            boolean extendAtOnce = b.kind == Kind.CHAIN_BLOCK && plan.nextInt(16) == 0;
            writes.add(() -> {
                Instant until = b.until != null ? b.until : shortUntil();
                Version v = putBlock(b.key, b.kind, b.seed, b.size, until, b.agent);
                if (v != null && extendAtOnce) {
                    putRetention(b.key, v, v.retainUntil().plusSeconds(1));
                }
                return v == null ? null : b;
            });
        }
        List<Block> written = parallel(writes);
        for (Block b : written) {
            if (b != null) {
                (b.kind == Kind.CHAIN_BLOCK ? b.chain.liveBlocks : b.chain.retiring).add(b.key);
            }
        }

        // 2. spot checks of what was just written: HEAD, GET, GetObjectRetention, exact-key version listing
        List<Callable<Void>> followUps = new ArrayList<>();
        for (Block b : written) {
            if (b == null) {
                continue;
            }
            Version v = model.key(b.key).latest();
            int pick = plan.nextInt(16);
            if (pick < 4) {
                followUps.add(run(() -> checks.verifyHead(b.key, v, pick % 2 == 0)));
            } else if (pick < 6) {
                followUps.add(run(() -> checks.verifyGet(b.key, v, pick == 4, Op.GET_OBJECT)));
            } else if (pick < 8) {
                followUps.add(run(() -> checks.verifyRetention(b.key, v)));
            } else if (pick == 8) {
                followUps.add(run(() -> checks.compareVersions(b.key, null, 1000)));
            }
        }
        parallel(followUps);

        // 3. checkpoint rewrites (new versions under the same keys) and a session record per chain
        List<Callable<Void>> metadata = new ArrayList<>();
        for (Chain c : chains) {
            int checkpointSize = 4096 + plan.nextInt(60 * 1024);
            int historySize = 1024 + plan.nextInt(15 * 1024);
            int sessionSize = 512 + plan.nextInt(3 * 1024);
            String sessionKey = c.folder + "Metadata/Sessions/" + uuid() + ".xml";
            boolean millis = plan.nextBoolean();
            metadata.add(run(() -> {
                Instant until = shortUntil();
                putObject(c.checkpointKey(), Kind.CHECKPOINT, checkpointSize, until, millis, Op.PUT_METADATA);
                putObject(c.historyKey(), Kind.CHECKPOINT, historySize, until, !millis, Op.PUT_METADATA);
                putObject(sessionKey, Kind.CONFIG, sessionSize, generation, millis, Op.PUT_METADATA);
            }));
        }
        parallel(metadata);

        // 4. what Cloud.FindLastCheckpointId lists, and rollback reads of the older checkpoint versions
        List<Callable<Void>> rollback = new ArrayList<>();
        for (Chain c : chains) {
            rollback.add(run(() -> checks.compareVersions(c.folder + "Metadata/", "/", 1000)));
            if (sessions % 4 == 1) {
                rollback.add(run(() -> checks.compareVersions(c.folder, "/", 1000)));
            }
            for (String key : List.of(c.checkpointKey(), c.historyKey())) {
                List<Version> vs = model.key(key).versions();
                if (vs.isEmpty() || model.key(key).tainted()) {
                    continue;
                }
                rollback.add(run(() -> {
                    for (int i = vs.size() - 2; i >= Math.max(0, vs.size() - ROLLBACK_WINDOW); i--) {
                        if (checks.verifyGet(key, vs.get(i), true, Op.GET_ROLLBACK)) {
                            metrics.add(Count.ROLLBACK_READS, 1);
                        }
                    }
                    checks.verifyGet(key, vs.getLast(), false, Op.GET_OBJECT);
                }));
            }
        }
        parallel(rollback);

        // 5. "delete from disk" of retired blocks without a version id: delete markers over locked versions
        deleteWithoutVersionId();

        // 6. block generation rollover
        if (sessions % cfg.sessionsPerGeneration() == 0) {
            rollover();
        }

        // 7. retention cleanup, in full batches
        cleanup(false);

        log.printf(
                Locale.ROOT,
                "veeam-sim: session %d: %d blocks (%.1f MiB) in %.1f s; %d operations so far, %d failures%n",
                sessions,
                blocks.size(),
                bytes / 1048576.0,
                (System.nanoTime() - t0) / 1e9,
                metrics.totalOps(),
                checks.failureCount());
    }

    /** Mostly about 512 KiB (a 1 MiB block after compression), some smaller and larger, from 256 KiB to 4 MiB. */
    private int blockSize() {
        int kib = 1024;
        double u = plan.nextDouble();
        if (u < 0.80) {
            return 448 * kib + plan.nextInt(128 * kib);
        }
        if (u < 0.95) {
            return 256 * kib + plan.nextInt(768 * kib);
        }
        return 1024 * kib + plan.nextInt(3 * 1024 * kib + 1);
    }

    private void deleteWithoutVersionId() {
        List<String> single = new ArrayList<>();
        List<String> batch = new ArrayList<>();
        for (Chain c : chains) {
            List<String> candidates = new ArrayList<>(c.retiring);
            c.retiring.clear();
            Collections.shuffle(candidates, plan);
            for (int i = 0; i < Math.min(2, candidates.size()); i++) {
                (i == 0 ? single : batch).add(candidates.get(i));
            }
        }
        List<Callable<Void>> tasks = new ArrayList<>();
        for (String key : single) {
            tasks.add(run(() -> {
                Version locked = model.key(key).latest();
                DeleteObjectResponse r = checks.attempt(
                        Op.DELETE_OBJECT,
                        "DeleteObject " + key,
                        () -> checks.timed(
                                Op.DELETE_OBJECT,
                                0,
                                () -> s3.deleteObject(
                                        b -> b.bucket(cfg.bucket()).key(key))));
                if (r == null) {
                    model.key(key).taint("DeleteObject failed");
                    return;
                }
                if (!Boolean.TRUE.equals(r.deleteMarker()) || !realVersionId(r.versionId())) {
                    checks.fail(
                            Op.DELETE_OBJECT,
                            "DeleteObject " + key + " without versionId: deleteMarker=" + r.deleteMarker()
                                    + " versionId=" + r.versionId() + " (expected a delete marker)");
                    model.key(key).taint("unexpected DeleteObject answer");
                    return;
                }
                markerAdded(key, r.versionId());
                verifyDeleteMarker(key, r.versionId(), locked);
            }));
        }
        parallel(tasks);
        if (batch.isEmpty()) {
            return;
        }
        List<DeleteEntry> entries =
                batch.stream().map(k -> new DeleteEntry(k, null)).toList();
        Response r = checks.timed(Op.DELETE_OBJECTS, 0, () -> wire.deleteObjects(cfg.bucket(), entries, false));
        if (r.status() != 200) {
            checks.fail(Op.DELETE_OBJECTS, "DeleteObjects without version ids: " + r);
            batch.forEach(k -> model.key(k).taint("DeleteObjects failed"));
            return;
        }
        Map<String, DeleteOutcome> byKey = new HashMap<>();
        for (DeleteOutcome o : VeeamWire.deleteOutcomes(r.body())) {
            byKey.put(o.key(), o);
        }
        List<Callable<Void>> followUps = new ArrayList<>();
        for (String key : batch) {
            DeleteOutcome o = byKey.get(key);
            if (o == null || !o.deleted() || !o.deleteMarker() || !realVersionId(o.deleteMarkerVersionId())) {
                checks.fail(
                        Op.DELETE_OBJECTS,
                        "DeleteObjects without versionId, " + key + ": " + o + " (expected a marker)");
                model.key(key).taint("unexpected DeleteObjects answer");
                continue;
            }
            Version locked = model.key(key).latest();
            markerAdded(key, o.deleteMarkerVersionId());
            followUps.add(run(() -> verifyDeleteMarker(key, o.deleteMarkerVersionId(), locked)));
        }
        parallel(followUps);
    }

    private void markerAdded(String key, String markerVersionId) {
        if (!versionIds.add(markerVersionId)) {
            checks.fail(
                    Op.DELETE_OBJECT, "version id " + markerVersionId + " of the delete marker of " + key + " reused");
        }
        model.key(key).add(Version.deleteMarker(markerVersionId));
        metrics.add(Count.DELETE_MARKERS_ADDED, 1);
    }

    /** A key whose latest version is a delete marker: 404 with the marker header, 405 for its id, old data intact. */
    private void verifyDeleteMarker(String key, String markerId, Version locked) {
        S3Exception e = checks.expectError(
                Op.GET_OBJECT,
                "GET " + key + " (latest is a delete marker)",
                404,
                "NoSuchKey",
                () -> s3.getObjectAsBytes(b -> b.bucket(cfg.bucket()).key(key)));
        if (e != null) {
            String header = e.awsErrorDetails()
                    .sdkHttpResponse()
                    .firstMatchingHeader("x-amz-delete-marker")
                    .orElse(null);
            checks.check(Op.GET_OBJECT, "true".equals(header), "GET " + key + ": x-amz-delete-marker " + header);
        }
        checks.expectError(
                Op.HEAD_OBJECT,
                "HEAD " + key + "?versionId=<delete marker>",
                405,
                null,
                () -> s3.headObject(b -> b.bucket(cfg.bucket()).key(key).versionId(markerId)));
        checks.verifyGet(key, locked, true, Op.GET_OBJECT);
        checks.compareVersions(key, null, 1000);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // block generation rollover

    private void rollover() {
        generationDate = generationDate.plus(cfg.generationExtension());
        Instant target = generationDate;
        Instant checkpointDate = shortUntil().truncatedTo(ChronoUnit.MILLIS);
        List<Callable<Void>> tasks = new ArrayList<>();
        List<String> extended = new ArrayList<>();
        for (Chain c : chains) {
            for (String key : c.liveBlocks) {
                KeyState k = model.key(key);
                Version v = k.latest();
                if (k.tainted() || v == null || v.isDeleteMarker()) {
                    continue;
                }
                extended.add(key);
                tasks.add(run(() -> putRetention(key, v, target)));
            }
            // checkpoints inside the rollback window stay immutable; older ones are left to expire
            for (String key : List.of(c.checkpointKey(), c.historyKey())) {
                List<Version> vs = model.key(key).versions();
                for (int i = Math.max(0, vs.size() - ROLLBACK_WINDOW); i < vs.size(); i++) {
                    Version v = vs.get(i);
                    if (!v.isDeleteMarker() && v.retainUntil().isBefore(checkpointDate)) {
                        tasks.add(run(() -> putRetention(key, v, checkpointDate)));
                    }
                }
            }
        }
        long t0 = System.nanoTime();
        parallel(tasks);
        metrics.add(Count.GENERATION_ROLLOVERS, 1);
        log.printf(
                Locale.ROOT,
                "veeam-sim: generation rollover: %d retention updates in %.1f s%n",
                tasks.size(),
                (System.nanoTime() - t0) / 1e9);

        List<Callable<Void>> followUps = new ArrayList<>();
        for (String key : extended) {
            int pick = plan.nextInt(16);
            Version v = model.key(key).latest();
            if (pick < 2) {
                followUps.add(run(() -> checks.verifyRetention(key, v)));
            } else if (pick == 2) {
                followUps.add(run(() -> checks.verifyHead(key, v, true)));
            }
        }
        // COMPLIANCE can be extended only: shortening and a mode change are refused for everyone
        for (int i = 0; i < Math.min(2, extended.size()); i++) {
            String key = extended.get(plan.nextInt(extended.size()));
            Version v = model.key(key).latest();
            boolean shorten = i == 0;
            followUps.add(run(() -> {
                Instant current = v.retainUntil();
                Response r = shorten
                        ? checks.timed(
                                Op.PUT_RETENTION,
                                0,
                                () -> wire.putRetention(
                                        cfg.bucket(),
                                        key,
                                        v.versionId,
                                        "COMPLIANCE",
                                        format(current.minusSeconds(60), true)))
                        : checks.timed(
                                Op.PUT_RETENTION,
                                0,
                                () -> wire.putRetention(
                                        cfg.bucket(),
                                        key,
                                        v.versionId,
                                        "GOVERNANCE",
                                        format(current.plusSeconds(60), true)));
                String what = "PutObjectRetention " + (shorten ? "shortening" : "COMPLIANCE->GOVERNANCE") + " of " + key
                        + "@" + v.versionId;
                if (r.status() == 403 && "AccessDenied".equals(r.errorCode())) {
                    metrics.add(Count.SHORTENINGS_REFUSED, 1);
                } else {
                    checks.fail(Op.PUT_RETENTION, what + ": " + r + " (expected 403 AccessDenied)");
                    if (r.status() == 200) {
                        model.key(key).taint("retention shortened");
                    }
                }
                checks.verifyRetention(key, v);
            }));
        }
        parallel(followUps);
    }

    private void putRetention(String key, Version v, Instant date) {
        Instant until = date.truncatedTo(ChronoUnit.MILLIS);
        Response r = checks.timed(
                Op.PUT_RETENTION,
                0,
                () -> wire.putRetention(cfg.bucket(), key, v.versionId, "COMPLIANCE", format(until, true)));
        if (r.status() != 200 && lateRefusal(v.kind, r.status(), r.errorCode(), until)) {
            // a checkpoint extension that came too late changes nothing: the version keeps its (expired) date
            metrics.add(Count.LATE_WRITES_RETRIED, 1);
            return;
        }
        if (r.status() != 200) {
            checks.fail(
                    Op.PUT_RETENTION, "PutObjectRetention " + key + "@" + v.versionId + " until " + until + ": " + r);
            if (r.status() >= 500) {
                model.key(key).taint("PutObjectRetention " + r.status());
            }
            return;
        }
        v.retention("COMPLIANCE", until);
        metrics.add(Count.RETENTION_EXTENSIONS, 1);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // retention cleanup

    private enum Expect {
        DELETED,
        MARKER_REMOVED,
        REFUSED,
        REPEAT
    }

    private record Planned(DeleteEntry entry, Expect expect) {}

    /**
     * Deletes what retention has released, in DeleteObjects batches of {@code deleteBatch} entries as Veeam fills them
     * ({@code S3MultiObjectDeleteLimit}); a remainder waits for the next cleanup, except in the {@code last} one.
     */
    private void cleanup(boolean last) {
        Instant releasedBefore = now().minus(cfg.clockSkew());
        List<Planned> eligible = new ArrayList<>();
        for (KeyState k : repositoryKeys()) {
            List<Version> vs = k.versions();
            int dataVersions = 0;
            int released = 0;
            List<Planned> forKey = new ArrayList<>();
            for (int i = 0; i < vs.size(); i++) {
                Version v = vs.get(i);
                if (v.isDeleteMarker()) {
                    continue;
                }
                dataVersions++;
                boolean expired = v.retainUntil() != null && v.retainUntil().isBefore(releasedBefore);
                boolean outOfWindow = i < vs.size() - ROLLBACK_WINDOW;
                if (expired && (v.kind == Kind.TRANSIENT_BLOCK || (v.kind == Kind.CHECKPOINT && outOfWindow))) {
                    forKey.add(new Planned(new DeleteEntry(k.key, v.versionId), Expect.DELETED));
                    released++;
                }
            }
            if (released == dataVersions) {
                // nothing (else) left under the markers: they go as well (markers carry no lock)
                for (Version v : vs) {
                    if (v.isDeleteMarker()) {
                        forKey.add(new Planned(new DeleteEntry(k.key, v.versionId), Expect.MARKER_REMOVED));
                    }
                }
            }
            eligible.addAll(forKey);
        }
        int room = cfg.deleteBatch() - LOCKED_PROBES_PER_BATCH - REPEATS_PER_BATCH;
        if (cfg.deleteBatch() < 10) {
            room = cfg.deleteBatch();
        }
        // full batches as soon as they are due, the rest once the last cleanup is cleanupInterval ago
        boolean all = last || !now().isBefore(lastCleanup.plus(cfg.cleanupInterval()));
        int send = all ? eligible.size() : eligible.size() / room * room;
        boolean fill = last && cfg.deleteBatch() >= 10 && metrics.count(Count.FULL_DELETE_BATCHES) == 0;
        if (send == 0 && !fill) {
            return;
        }
        List<Callable<Void>> batches = new ArrayList<>();
        for (int from = 0; from < Math.max(send, 1); from += room) {
            List<Planned> batch = new ArrayList<>(eligible.subList(from, Math.min(send, from + room)));
            boolean filledLast = fill && from + room >= send;
            Set<DeleteEntry> named = new HashSet<>();
            batch.forEach(p -> named.add(p.entry));
            if (cfg.deleteBatch() >= 10) {
                batch.addAll(lockedProbes(LOCKED_PROBES_PER_BATCH, named));
                for (int i = 0; i < REPEATS_PER_BATCH; i++) {
                    DeleteEntry e = deletedBefore();
                    if (e != null) {
                        batch.add(new Planned(e, Expect.REPEAT));
                    }
                }
                if (filledLast) {
                    // a short run released fewer versions than one batch holds: fill the last batch as a cleanup
                    // retried over everything it ever queued would: still-locked blocks, each of which must be
                    // refused, and versions deleted before, each of which must be reported deleted again
                    batch.addAll(lockedProbes(cfg.deleteBatch() - batch.size(), named));
                    // a slow run (a loaded machine) may hold fewer live blocks than that: older versions still
                    // locked (blocks of earlier generations, checkpoints in the rollback window) are as good
                    batch.addAll(lockedVersions(cfg.deleteBatch() - batch.size(), named));
                    while (batch.size() < cfg.deleteBatch()) {
                        DeleteEntry e = deletedBefore();
                        if (e == null) {
                            break;
                        }
                        batch.add(new Planned(e, Expect.REPEAT));
                    }
                }
            }
            if (filledLast && batch.size() < cfg.deleteBatch()) {
                log.println("[veeam] the final cleanup's batch holds " + batch.size() + " of " + cfg.deleteBatch()
                        + " versions: the run left too few to name");
            }
            boolean quiet = plan.nextBoolean();
            batches.add(run(() -> deleteBatch(batch, quiet)));
        }
        parallel(batches);
        lastCleanup = now();
        sampleDeletedKeys(eligible.subList(0, send));
    }

    /**
     * Whether a short run ({@code minBlocks}) has enough to fill the final cleanup's DeleteObjects batch: versions
     * locked past the final cleanup's margin (with a minute to spare) and versions deleted before, which the fill names.
     */
    private boolean fullBatchNameable() {
        if (cfg.minBlocks() == 0 || cfg.deleteBatch() < 10 || metrics.count(Count.FULL_DELETE_BATCHES) > 0) {
            return true;
        }
        long nameable;
        synchronized (deletedBefore) {
            nameable = deletedBefore.size();
        }
        Instant safe = now().plus(Duration.ofMinutes(6));
        for (KeyState k : repositoryKeys()) {
            for (Version v : k.versions()) {
                if (lockedPast(v, safe)) {
                    nameable++;
                }
            }
            if (nameable >= cfg.deleteBatch()) {
                return true;
            }
        }
        return false;
    }

    /** The oldest version deleted before and not yet named again, or null. */
    private DeleteEntry deletedBefore() {
        synchronized (deletedBefore) {
            return deletedBefore.pollFirst();
        }
    }

    /** Up to {@code n} live chain blocks locked well beyond this request, not in {@code named}: to be refused. */
    private List<Planned> lockedProbes(int n, Set<DeleteEntry> named) {
        List<String> candidates = new ArrayList<>();
        for (Chain c : chains) {
            candidates.addAll(c.liveBlocks);
        }
        Collections.shuffle(candidates, plan);
        List<Planned> probes = new ArrayList<>();
        Instant safe = now().plus(Duration.ofMinutes(5));
        for (String key : candidates) {
            if (probes.size() >= n) {
                break;
            }
            KeyState k = model.key(key);
            if (!k.tainted()) {
                probeIfLocked(probes, k.key, k.latest(), safe, named);
            }
        }
        return probes;
    }

    /** Up to {@code n} versions of any key, locked well beyond this request, not in {@code named}: to be refused. */
    private List<Planned> lockedVersions(int n, Set<DeleteEntry> named) {
        List<Planned> probes = new ArrayList<>();
        Instant safe = now().plus(Duration.ofMinutes(5));
        for (KeyState k : repositoryKeys()) {
            for (Version v : k.versions()) {
                if (probes.size() >= n) {
                    return probes;
                }
                probeIfLocked(probes, k.key, v, safe, named);
            }
        }
        return probes;
    }

    /** Whether {@code v} holds data whose lock runs past {@code time} (a delete of it must be refused until then). */
    private static boolean lockedPast(Version v, Instant time) {
        return v != null
                && !v.isDeleteMarker()
                && v.retainUntil() != null
                && v.retainUntil().isAfter(time);
    }

    /** The keys under this run's repository folder that no error made unreliable. */
    private List<KeyState> repositoryKeys() {
        List<KeyState> keys = new ArrayList<>();
        for (KeyState k : model.keys()) {
            if (k.key.startsWith(repoFolder) && !k.tainted()) {
                keys.add(k);
            }
        }
        return keys;
    }

    /** Adds a delete of {@code v} that must be refused, if it holds data locked past {@code safe} and is not named. */
    private static void probeIfLocked(
            List<Planned> probes, String key, Version v, Instant safe, Set<DeleteEntry> named) {
        if (!lockedPast(v, safe)) {
            return;
        }
        DeleteEntry e = new DeleteEntry(key, v.versionId);
        if (named.add(e)) {
            probes.add(new Planned(e, Expect.REFUSED));
        }
    }

    private void deleteBatch(List<Planned> batch, boolean quiet) {
        List<DeleteEntry> entries = batch.stream().map(Planned::entry).toList();
        Response r = checks.timed(Op.DELETE_OBJECTS, 0, () -> wire.deleteObjects(cfg.bucket(), entries, quiet));
        if (r.status() != 200) {
            checks.fail(Op.DELETE_OBJECTS, "DeleteObjects of " + entries.size() + " versions: " + r);
            for (Planned p : batch) {
                model.key(p.entry.key()).taint("DeleteObjects failed");
            }
            return;
        }
        if (entries.size() == 1000) {
            metrics.add(Count.FULL_DELETE_BATCHES, 1);
        }
        Map<DeleteEntry, DeleteOutcome> outcomes = new HashMap<>();
        for (DeleteOutcome o : VeeamWire.deleteOutcomes(r.body())) {
            if (outcomes.put(new DeleteEntry(o.key(), o.versionId()), o) != null) {
                checks.fail(Op.DELETE_OBJECTS, "DeleteObjects answered twice for " + o.key() + "@" + o.versionId());
            }
        }
        Set<DeleteEntry> asked = new HashSet<>(entries);
        for (DeleteEntry answered : outcomes.keySet()) {
            if (!asked.contains(answered)) {
                checks.fail(
                        Op.DELETE_OBJECTS, "DeleteObjects answered for " + answered + ", which was not in the request");
            }
        }
        String mode = quiet ? "quiet " : "";
        for (Planned p : batch) {
            DeleteOutcome o = outcomes.get(p.entry);
            String what = "DeleteObjects (" + mode + entries.size() + " entries) " + p.entry.key() + "@"
                    + p.entry.versionId() + " [" + p.expect + "]";
            KeyState k = model.key(p.entry.key());
            switch (p.expect) {
                case REFUSED -> {
                    if (o != null && "AccessDenied".equals(o.code())) {
                        metrics.add(Count.LOCKED_DELETES_REFUSED, 1);
                    } else {
                        checks.fail(Op.DELETE_OBJECTS, what + ": " + o + " (a locked version: expected AccessDenied)");
                        if (o == null || o.deleted()) {
                            k.taint("locked version deleted");
                        }
                    }
                }
                case DELETED, MARKER_REMOVED, REPEAT -> {
                    boolean deleted = quiet ? o == null : o != null && o.deleted();
                    if (!deleted) {
                        checks.fail(
                                Op.DELETE_OBJECTS, what + ": " + (o == null ? "no entry" : o) + " (expected Deleted)");
                        continue;
                    }
                    if (!quiet && p.expect == Expect.MARKER_REMOVED) {
                        checks.check(
                                Op.DELETE_OBJECTS,
                                o.deleteMarker() && p.entry.versionId().equals(o.deleteMarkerVersionId()),
                                what + ": " + o + " (expected DeleteMarker true with its version id)");
                    } else if (!quiet) {
                        checks.check(Op.DELETE_OBJECTS, !o.deleteMarker(), what + ": " + o + " (no marker expected)");
                    }
                    if (p.expect == Expect.REPEAT) {
                        metrics.add(Count.REPEATED_DELETES, 1);
                        continue;
                    }
                    if (!k.remove(p.entry.versionId())) {
                        checks.fail(Op.DELETE_OBJECTS, what + ": the model had no such version");
                    }
                    metrics.add(
                            p.expect == Expect.MARKER_REMOVED ? Count.DELETE_MARKERS_REMOVED : Count.VERSIONS_DELETED,
                            1);
                    synchronized (deletedBefore) {
                        deletedBefore.addLast(p.entry);
                        if (deletedBefore.size() > 1000) {
                            deletedBefore.pollFirst();
                        }
                    }
                }
            }
        }
    }

    /** After a cleanup, a few of its keys are listed by exact key and their deleted versions asked for (404). */
    private void sampleDeletedKeys(List<Planned> deleted) {
        List<Callable<Void>> followUps = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        List<Planned> gone = new ArrayList<>();
        for (int i = 0; i < 8 && !deleted.isEmpty(); i++) {
            Planned p = deleted.get(plan.nextInt(deleted.size()));
            String key = p.entry.key();
            String versionId = p.entry.versionId();
            if (p.expect != Expect.DELETED || !keys.add(key) || model.key(key).tainted()) {
                continue;
            }
            boolean removed = model.key(key).version(versionId) == null;
            if (removed) {
                gone.add(new Planned(p.entry, Expect.REPEAT));
            }
            followUps.add(run(() -> {
                checks.compareVersions(key, null, 1000);
                if (removed) {
                    checks.expectError(
                            Op.HEAD_OBJECT,
                            "HEAD " + key + "?versionId=" + versionId + " (deleted)",
                            404,
                            null,
                            () -> s3.headObject(
                                    b -> b.bucket(cfg.bucket()).key(key).versionId(versionId)));
                }
            }));
        }
        parallel(followUps);
        if (!gone.isEmpty()) {
            // a cleanup retried (say after a timeout): versions already gone must be reported deleted again
            deleteBatch(gone.subList(0, Math.min(3, gone.size())), false);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the end: health check, last cleanup, listings, capacity

    private void finish() {
        // health check: every version read back (the retired ones expire meanwhile)
        List<Callable<Void>> reads = new ArrayList<>();
        for (KeyState k : model.keys()) {
            if (k.tainted()) {
                continue;
            }
            for (Version v : k.versions()) {
                if (v.isDeleteMarker()) {
                    reads.add(run(() -> checks.expectError(
                            Op.HEAD_OBJECT,
                            "HEAD " + k.key + "?versionId=<delete marker>",
                            405,
                            null,
                            () -> s3.headObject(
                                    b -> b.bucket(cfg.bucket()).key(k.key).versionId(v.versionId)))));
                } else if (cfg.healthCheckAll() || plan.nextInt(10) == 0) {
                    reads.add(run(() -> {
                        if (checks.verifyGet(k.key, v, true, Op.GET_HEALTH_CHECK)) {
                            metrics.add(Count.VERSIONS_HEALTH_CHECKED, 1);
                        }
                    }));
                }
            }
        }
        long t0 = System.nanoTime();
        parallel(reads);
        log.printf(
                Locale.ROOT,
                "veeam-sim: health check: %d versions read back in %.1f s%n",
                metrics.count(Count.VERSIONS_HEALTH_CHECKED),
                (System.nanoTime() - t0) / 1e9);

        // give the last retired versions time to expire (at most one short retention: on a slow endpoint their
        // dates moved out, and what is still locked then simply stays, as it would for Veeam), then delete them
        Instant latest = Instant.EPOCH;
        for (KeyState k : model.keys()) {
            for (Version v : k.versions()) {
                if (v.kind == Kind.TRANSIENT_BLOCK && v.retainUntil().isAfter(latest)) {
                    latest = v.retainUntil();
                }
            }
        }
        long waitMillis = Math.min(
                Duration.between(now(), latest.plus(cfg.clockSkew())).toMillis() + 200,
                cfg.shortRetention().plus(cfg.clockSkew()).toMillis() + 1000);
        if (waitMillis > 0) {
            log.printf(
                    Locale.ROOT, "veeam-sim: waiting %.1f s for the last retired blocks to expire%n", waitMillis / 1e3);
            sleep(waitMillis);
        }
        cleanup(true);

        // the repository as a whole, as a rescan lists it
        checks.compareVersions(repoFolder, null, 1000);
        checks.compareCurrent(true, repoFolder, null);
        if (bucketCreated) {
            checks.compareCurrent(true, "", "/");
            checks.compareVersions("Veeam/", "/", 1000);
        }

        if (cfg.sosapi() && bucketCreated) {
            // Used counts every version's bytes; it is recounted in the background, so give it a few seconds
            long expected = model.bytesUnder("");
            long[] capacity = readCapacity();
            for (int i = 0; i < 60 && capacity[2] != expected; i++) {
                sleep(500);
                capacity = readCapacity();
            }
            checks.check(
                    Op.SOSAPI_GET,
                    capacity[2] == expected,
                    "capacity.xml Used " + capacity[2] + " (expected " + expected + ", the bytes of every version)");
            checks.check(
                    Op.SOSAPI_GET,
                    capacity[1] >= 0 && capacity[1] <= Math.max(0, capacity[0] - capacity[2]),
                    "capacity.xml Available " + capacity[1] + " (expected at most Capacity " + capacity[0] + " - Used "
                            + capacity[2] + ")");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // single operations, each checked against the model

    private Version putBlock(String key, Kind kind, long seed, int size, Instant until, boolean agent) {
        if (!agent) {
            return put(key, kind, seed, size, until, (seed & 1) == 0, Op.PUT_BLOCK);
        }
        byte[] body = Payload.bytes(seed, size);
        Instant date = until.truncatedTo(ChronoUnit.MILLIS);
        for (int attempt = 1; ; attempt++) {
            Instant d = date;
            PutObjectResponse r;
            try {
                r = checks.timed(
                        Op.PUT_BLOCK_AGENT,
                        size,
                        () -> s3.putObject(
                                b -> b.bucket(cfg.bucket())
                                        .key(key)
                                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                                        .objectLockRetainUntilDate(d),
                                RequestBody.fromBytes(body)));
            } catch (S3Exception e) {
                String code =
                        e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
                if (retryLate(kind, e.statusCode(), code, d, attempt)) {
                    date = shortUntil().truncatedTo(ChronoUnit.MILLIS);
                    continue;
                }
                checks.fail(Op.PUT_BLOCK_AGENT, "PUT " + key + " (SDK, lock COMPLIANCE " + d + "): " + e);
                if (e.statusCode() >= 500) {
                    model.key(key).taint("PUT " + e.statusCode());
                }
                return null;
            } catch (SdkException e) {
                checks.fail(Op.PUT_BLOCK_AGENT, "PUT " + key + " (SDK): " + e);
                model.key(key).taint("PUT failed");
                return null;
            }
            return written(key, kind, seed, size, Payload.md5Hex(body), r.eTag(), r.versionId(), d, Op.PUT_BLOCK_AGENT);
        }
    }

    private void putObject(String key, Kind kind, int size, Instant until, boolean millis, Op op) {
        put(key, kind, seeds.incrementAndGet(), size, until, millis, op);
    }

    private Version put(String key, Kind kind, long seed, int size, Instant until, boolean millis, Op op) {
        byte[] body = Payload.bytes(seed, size);
        String mode = until == null ? null : "COMPLIANCE";
        ChronoUnit precision = millis ? ChronoUnit.MILLIS : ChronoUnit.SECONDS;
        Instant date = until == null ? null : until.truncatedTo(precision);
        for (int attempt = 1; ; attempt++) {
            Instant d = date;
            Response r;
            try {
                r = checks.timed(
                        op,
                        size,
                        () -> wire.putObject(cfg.bucket(), key, body, mode, d == null ? null : format(d, millis)));
            } catch (RuntimeException e) {
                checks.fail(op, "PUT " + key + ": " + e);
                model.key(key).taint("PUT failed");
                return null;
            }
            if (r.status() != 200 && d != null && retryLate(kind, r.status(), r.errorCode(), d, attempt)) {
                date = shortUntil().truncatedTo(precision);
                continue;
            }
            if (r.status() != 200) {
                checks.fail(op, "PUT " + key + " (" + size + " bytes, lock " + mode + " " + d + "): " + r);
                if (r.status() >= 500) {
                    model.key(key).taint("PUT " + r.status());
                }
                return null;
            }
            return written(
                    key, kind, seed, size, Payload.md5Hex(body), r.header("ETag"), r.header("x-amz-version-id"), d, op);
        }
    }

    /**
     * Whether a refused write with a short retain-until date is to be sent again with a later one: a loaded endpoint
     * may get to a request only after its few seconds have passed, and then refuses it rightly ({@code InvalidArgument},
     * the date must be in the future). A refusal while the date was still ahead of the endpoint's clock (allowing for
     * skew) stays a failure.
     */
    private boolean retryLate(Kind kind, int status, String code, Instant date, int attempt) {
        if (attempt < 3 && lateRefusal(kind, status, code, date)) {
            metrics.add(Count.LATE_WRITES_RETRIED, 1);
            return true;
        }
        return false;
    }

    /** A short-lived date refused because it had passed by the time the endpoint got to the request. */
    private boolean lateRefusal(Kind kind, int status, String code, Instant date) {
        boolean shortLived = kind == Kind.TRANSIENT_BLOCK || kind == Kind.CHECKPOINT;
        boolean late = !date.isAfter(now().plus(cfg.clockSkew()));
        return shortLived && late && status == 400 && "InvalidArgument".equals(code);
    }

    private Version written(
            String key,
            Kind kind,
            long seed,
            int size,
            String md5,
            String etag,
            String versionId,
            Instant date,
            Op op) {
        KeyState k = model.key(key);
        if (!realVersionId(versionId)) {
            checks.fail(
                    op, "PUT " + key + ": version id " + versionId + " (a versioned bucket gives every version an id)");
            k.taint("no version id");
            return null;
        }
        if (!versionIds.add(versionId)) {
            checks.fail(op, "PUT " + key + ": version id " + versionId + " was given before");
        }
        if (!md5.equals(Checks.unquote(etag))) {
            checks.fail(op, "PUT " + key + ": ETag " + etag + " (expected the MD5 " + md5 + ")");
            k.taint("wrong ETag");
        }
        boolean rewrite = k.latest() != null;
        Version v = new Version(versionId, kind, seed, size, md5, date == null ? null : "COMPLIANCE", date);
        k.add(v);
        switch (kind) {
            case FOLDER -> metrics.add(Count.FOLDERS_CREATED, 1);
            case CHAIN_BLOCK, TRANSIENT_BLOCK -> metrics.add(Count.BLOCKS_WRITTEN, 1);
            case CHECKPOINT -> metrics.add(Count.CHECKPOINT_REWRITES, rewrite ? 1 : 0);
            default -> {}
        }
        return v;
    }

    private boolean exists(String key) {
        try {
            checks.timed(
                    Op.HEAD_OBJECT,
                    0,
                    () -> s3.headObject(b -> b.bucket(cfg.bucket()).key(key)));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    private static Callable<Void> run(Runnable r) {
        return () -> {
            r.run();
            return null;
        };
    }

    /** Runs the tasks on the pool (at most {@code concurrency} at a time) and waits for all; null for a failed one. */
    private <T> List<T> parallel(List<Callable<T>> tasks) {
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> t : tasks) {
            futures.add(pool.submit(() -> {
                try {
                    return t.call();
                } catch (Exception | AssertionError e) {
                    checks.fail(null, "unexpected error: " + e);
                    return null;
                }
            }));
        }
        List<T> out = new ArrayList<>(futures.size());
        for (Future<T> f : futures) {
            try {
                out.add(f.get());
            } catch (ExecutionException e) {
                checks.fail(null, "unexpected error: " + e.getCause());
                out.add(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return out;
    }

    private UUID uuid() {
        return new UUID(plan.nextLong(), plan.nextLong());
    }

    private static String hex32(long v) {
        return String.format(Locale.ROOT, "%016x%016x", v, Long.rotateLeft(v * 0x9E3779B97F4A7C15L, 17));
    }

    private static String format(Instant t, boolean millis) {
        return (millis ? WITH_MILLIS : WITHOUT_FRACTION).format(t);
    }

    private static boolean realVersionId(String id) {
        return id != null && !id.isEmpty() && !"null".equals(id);
    }

    private static Element childElement(Element parent, String name) {
        for (org.w3c.dom.Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * A short retain-until date: {@code shortRetention} from now, or more when requests are slow (a loaded endpoint
     * may take seconds to get to a request, and a date already past is refused).
     */
    private Instant shortUntil() {
        return now().plus(cfg.shortRetention()).plusNanos(2 * checks.slowestWriteNanos());
    }

    private static Instant now() {
        return Instant.now();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
        s3.close();
        wire.close();
    }
}
