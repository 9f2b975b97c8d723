package dev.appliance.jmh;

import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.meta.VersionType;
import dev.appliance.core.meta.XlMeta;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of {@code xl.meta} operations on a key with 1 and 10,000 typical single-part versions (8-drive set, 4+4,
 * content-type only). Results and machine: {@code docs/benchmarks.md}.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar XlMetaBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules=jdk.incubator.vector"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class XlMetaBenchmark {
    private static final long T0 = 1_767_225_600_000_000_000L;

    @Param({"1", "10000"})
    public int versions;

    private byte[] file;
    private XlMeta parsed;
    private UUID oldest;
    private ObjectVersion newVersion;

    @Setup
    public void setup() {
        XlMeta meta = XlMeta.empty();
        for (int i = 0; i < versions; i++) {
            meta = meta.withVersion(version(i), null);
        }
        file = meta.toBytes();
        parsed = meta;
        oldest = version(0).versionId();
        newVersion = version(versions);
        System.out.printf(
                "%n%d versions: %d bytes (%.1f per version)%n", versions, file.length, file.length / (double) versions);
    }

    /** HEAD of the latest version: parse the file, read the newest header, decode its body. */
    @Benchmark
    public ObjectVersion headLatest() throws CorruptMetaException {
        XlMeta meta = XlMeta.parse(file);
        meta.header(0);
        return meta.version(0);
    }

    /** PUT of a new version: parse, add the version at the front, serialize the new file. */
    @Benchmark
    public byte[] addVersion() throws CorruptMetaException {
        return XlMeta.parse(file).withVersion(newVersion, null).toBytes();
    }

    /** Baseline for addVersion: one plain copy of the file's bytes (what "costs a memcpy of the file" means here). */
    @Benchmark
    public byte[] copyFileBaseline() {
        return file.clone();
    }

    /** Find the oldest version by id in an already parsed file (a scan of the fixed-width table). */
    @Benchmark
    public int indexOfOldest() {
        return parsed.indexOf(oldest);
    }

    /** GET of an old version by id: parse, find it, decode its body. */
    @Benchmark
    public ObjectVersion getOldVersion() throws CorruptMetaException {
        XlMeta meta = XlMeta.parse(file);
        return meta.version(meta.indexOf(oldest));
    }

    private static ObjectVersion version(int n) {
        long size = 18_000 + n;
        return new ObjectVersion(
                new UUID(0x0193_0000_0000_7000L | n, 0x8000_0000_0000_0000L | n),
                VersionType.OBJECT,
                T0 + n * 1_000_000L,
                new UUID(0x0D17_0000_0000_4000L | n, 0xA000_0000_0000_0000L | n),
                size,
                4,
                4,
                1 << 20,
                new int[] {3, 4, 5, 6, 7, 8, 1, 2},
                1,
                List.of(new PartInfo(1, size, null)),
                String.format("%032x", n * 0x9E3779B97F4A7C15L & Long.MAX_VALUE),
                new TreeMap<>(Map.of("content-type", "application/octet-stream")),
                false);
    }
}
