package dev.appliance.jmh;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.engine.Stores;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
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
 * The engine's PUT (no HTTP) with the write path's fast paths on and off (issue 17): {@code fastPath=true} is the
 * default, group commit per filesystem and part files by direct I/O; {@code false} is the reference path, each file and
 * directory forced and part files written through the page cache. 16 callers, as the comparison with MinIO; keys are
 * overwritten round robin over 256 per caller so the stored bytes stay bounded. Scores are PUTs per second.
 *
 * <pre>
 * ./appliance mvn -q -o -pl jmh -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar PutPathBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(16)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx768m"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 4, time = 5)
@State(Scope.Benchmark)
public class PutPathBenchmark {
    @Param({"true", "false"})
    public boolean fastPath;

    @Param({"1048576", "4096"})
    public int size;

    private Path dir;
    private ObjectStore store;
    private byte[] body;
    private final AtomicInteger callers = new AtomicInteger();

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("put-bench");
        List<Path> drives = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            drives.add(Files.createDirectories(dir.resolve("disk" + i)));
        }
        DriveSettings settings =
                DriveSettings.DEFAULTS.withGroupCommit(fastPath).withDirectIo(fastPath);
        store = Stores.open(new StoreConfig(drives, 0, -1, true, Clock.systemUTC(), true, settings, null));
        store.makeBucket("bench", false);
        body = new byte[size];
        new Random(17).nextBytes(body);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One caller's key sequence. */
    @State(Scope.Thread)
    public static class Caller {
        int id = -1;
        int next;
    }

    @Benchmark
    public Object put(Caller c) throws IOException {
        if (c.id < 0) {
            c.id = callers.getAndIncrement();
        }
        String key = "Veeam/blocks/" + c.id + "/" + (c.next++ & 255) + ".blk";
        return store.putObject(
                "bench", key, new PutRequest(body.length, null, Map.of(), null), new ByteArrayInputStream(body));
    }
}
