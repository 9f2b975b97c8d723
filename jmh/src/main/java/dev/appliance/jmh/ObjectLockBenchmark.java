package dev.appliance.jmh;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.VersioningState;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Object Lock on the engine (four drive directories on this machine's disk, EC 2+2, every write forced to stable
 * storage), with 32 concurrent callers as a loaded S3 front end would make:
 *
 * <ul>
 *   <li>{@code extendRetention}: PutObjectRetention (COMPLIANCE, extension) round-robin over {@code objects} versions
 *       written in the setup, the Veeam block-generation rollover. Metadata only: {@code xl.meta} is rewritten, no data.
 *   <li>{@code putLockedCompliance} vs {@code putVersioned} vs {@code putPlain}: PUTs of new keys of {@code size} bytes
 *       into a lock bucket with per-object COMPLIANCE retention, a versioned bucket, and an unversioned bucket.
 * </ul>
 *
 * Results: {@code docs/benchmarks.md}.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar ObjectLockBenchmark -p objects=100000
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(32)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g"
        })
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 10)
public class ObjectLockBenchmark {
    /** A store with four drive directories under a temporary directory, removed at the end of the trial. */
    abstract static class StoreState {
        Path dir;
        ObjectStore store;

        void open() throws IOException {
            open(true);
        }

        void open(boolean metadataJournal) throws IOException {
            dir = Files.createTempDirectory("lock-bench");
            List<Path> drives = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                drives.add(Files.createDirectories(dir.resolve("disk" + i)));
            }
            store = Stores.open(StoreConfig.of(drives).withMetadataJournal(metadataJournal));
        }

        dev.appliance.core.ObjectInfo put(String bucket, String key, byte[] data, Map<String, String> lock) {
            try {
                return store.putObject(
                        bucket, key, new PutRequest(data.length, null, lock, null), new ByteArrayInputStream(data));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            store.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static Map<String, String> retention(Instant until) {
        return ObjectLock.withRetention(Map.of(), new Retention(RetentionMode.COMPLIANCE, until));
    }

    /** {@code objects} versions under COMPLIANCE retention, written once per trial. */
    @State(Scope.Benchmark)
    public static class Retained extends StoreState {
        /** Versions whose retention is extended, round-robin. */
        @Param("100000")
        int objects;

        /** Metadata rewrites go through the drives' metadata journals (true, the default) or force each file (false). */
        @Param("true")
        boolean metadataJournal;

        String[] keys;
        String[] versions;
        Instant base;
        final AtomicLong next = new AtomicLong();

        @Setup(Level.Trial)
        public void setup() throws Exception {
            open(metadataJournal);
            store.makeBucket("lock", true);
            base = Instant.now().plus(Duration.ofDays(30)).truncatedTo(ChronoUnit.SECONDS);
            keys = new String[objects];
            versions = new String[objects];
            // small blocks: the metadata cost is what is measured, and xl.meta is about the same size either way
            byte[] small = new byte[1024];
            long start = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                int lanes = 64;
                for (int lane = 0; lane < lanes; lane++) {
                    int l = lane;
                    done.add(pool.submit(() -> {
                        for (int i = l; i < objects; i += lanes) {
                            String key = "Veeam/Backup/repo/Clients/c/b/CloudStg/Data/" + (i % 1000) + "/" + i + ".blk";
                            keys[i] = key;
                            versions[i] =
                                    put("lock", key, small, retention(base)).versionId();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            System.out.printf(
                    "%nsetup: %d locked versions written in %.1f s%n", objects, (System.nanoTime() - start) / 1e9);
        }
    }

    /** Three buckets: lock-enabled, versioned, unversioned; new keys of {@code size} bytes. */
    @State(Scope.Benchmark)
    public static class Buckets extends StoreState {
        /** Body size of the measured PUTs (Veeam's blocks are mostly ~512 KiB). */
        @Param("524288")
        int size;

        byte[] body;
        Instant until;
        final AtomicLong next = new AtomicLong();

        @Setup(Level.Trial)
        public void setup() throws IOException {
            open();
            store.makeBucket("lock", true);
            store.makeBucket("versioned");
            store.setVersioning("versioned", VersioningState.ENABLED);
            store.makeBucket("plain");
            body = new byte[size];
            new Random(1).nextBytes(body);
            until = Instant.now().plus(Duration.ofDays(30));
        }
    }

    @Benchmark
    public Object extendRetention(Retained s) {
        long n = s.next.getAndIncrement();
        int i = (int) (n % s.objects);
        // every pass over the objects moves retain-until one more second: always an extension
        Instant until = s.base.plusSeconds(n / s.objects + 1);
        return s.store.putObjectRetention(
                "lock", s.keys[i], s.versions[i], new Retention(RetentionMode.COMPLIANCE, until), false);
    }

    @Benchmark
    public Object putLockedCompliance(Buckets s) {
        return s.put("lock", "new/" + s.next.getAndIncrement(), s.body, retention(s.until));
    }

    @Benchmark
    public Object putVersioned(Buckets s) {
        return s.put("versioned", "new/" + s.next.getAndIncrement(), s.body, Map.of());
    }

    /**
     * Time spent in PUTs of each kind by one thread, for {@link #putInterleaved}: JMH sums the counters over threads
     * and reports them per iteration.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Latency {
        public long lockedMicros;
        public long lockedPuts;
        public long versionedMicros;
        public long versionedPuts;
        public long plainMicros;
        public long plainPuts;

        @Setup(Level.Iteration)
        public void reset() {
            lockedMicros = lockedPuts = versionedMicros = versionedPuts = plainMicros = plainPuts = 0;
        }
    }

    /**
     * The three kinds of PUT in turn, in the same time window, so that the machine's varying load and disk writeback
     * weigh on each alike: mean latency of a kind = its micros / its puts.
     */
    @Benchmark
    public void putInterleaved(Buckets s, Latency l) {
        long n = s.next.getAndIncrement();
        String key = "new/" + n;
        long start = System.nanoTime();
        switch ((int) (n % 3)) {
            case 0 -> {
                s.put("lock", key, s.body, retention(s.until));
                l.lockedMicros += (System.nanoTime() - start) / 1000;
                l.lockedPuts++;
            }
            case 1 -> {
                s.put("versioned", key, s.body, Map.of());
                l.versionedMicros += (System.nanoTime() - start) / 1000;
                l.versionedPuts++;
            }
            default -> {
                s.put("plain", key, s.body, Map.of());
                l.plainMicros += (System.nanoTime() - start) / 1000;
                l.plainPuts++;
            }
        }
    }

    @Benchmark
    public Object putPlain(Buckets s) {
        return s.put("plain", "new/" + s.next.getAndIncrement(), s.body, Map.of());
    }
}
