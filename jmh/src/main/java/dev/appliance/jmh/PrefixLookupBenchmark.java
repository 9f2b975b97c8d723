package dev.appliance.jmh;

import dev.appliance.core.listing.DriveWalker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Veeam's point lookup: ListObjectVersions with an exact block key as the prefix, in a folder of {@code siblings}
 * objects (one drive's walk, which every listing runs per drive). The drive layout is built directly on disk: one
 * directory per key holding an {@code xl.meta}, as the engine writes it. Score: microseconds per lookup.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     PrefixLookupBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PrefixLookupBenchmark extends BenchmarkBase {
    @Param({"100000"})
    public int siblings;

    private Path bucket;
    private String blockKey;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        bucket = Files.createTempDirectory("prefix-lookup");
        Path folder = Files.createDirectories(bucket.resolve("Veeam/Backup/Job/Blocks"));
        for (int i = 0; i < siblings; i++) {
            Path object =
                    Files.createDirectory(folder.resolve(String.format("%08x.blk", i * 2654435761L & 0xffffffffL)));
            Files.createFile(object.resolve("xl.meta"));
        }
        blockKey = String.format("Veeam/Backup/Job/Blocks/%08x.blk", (siblings / 2) * 2654435761L & 0xffffffffL);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try (Stream<Path> all = Files.walk(bucket)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public int exactKeyAsPrefix() {
        DriveWalker walker = new DriveWalker(bucket, blockKey, "", true);
        int n = 0;
        while (walker.hasNext()) {
            // with a delimiter the walker also offers "<key>/", which the listing drops unless something is below it
            if (!walker.next().commonPrefix()) {
                n++;
            }
        }
        if (n != 1) {
            throw new IllegalStateException("expected exactly the block key, found " + n);
        }
        return n;
    }
}
