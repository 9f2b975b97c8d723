package dev.appliance.jmh;

import dev.appliance.core.codec.ReedSolomon;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Reed-Solomon encode and reconstruct of one 1 MiB erasure block: each of the {@code d} data shards holds
 * {@code ceil(1 MiB / d)} bytes. Scores are GB/s of data in (1 MiB counted per operation, via
 * {@code @OperationsPerInvocation(1 MiB)} and ops/ns; for 12+4 the padded block is 1,048,584 bytes, 0.0008% more).
 *
 * <p>{@code reconstructData} rebuilds {@code parity} missing data shards (the worst degraded read) from the remaining
 * data shards and all parity shards.
 *
 * <p>Run:
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     ReedSolomonBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class ReedSolomonBenchmark extends BenchmarkBase {
    @Param({"2+2", "4+2", "8+4", "12+4"})
    public String config;

    @Param({"scalar", "vectorised"})
    public String impl;

    private ReedSolomon codec;
    private byte[][] shards;
    private boolean[] present;
    private int shardSize;

    @Setup
    public void setUp() {
        String[] parts = config.split("\\+");
        int d = Integer.parseInt(parts[0]);
        int p = Integer.parseInt(parts[1]);
        codec = impl.equals("scalar") ? ReedSolomon.scalar(d, p) : ReedSolomon.vectorised(d, p);
        shardSize = (MIB + d - 1) / d;
        shards = new byte[d + p][shardSize];
        Random random = new Random(42);
        for (int i = 0; i < d; i++) {
            random.nextBytes(shards[i]);
        }
        codec.encodeParity(shards, 0, shardSize);
        present = new boolean[d + p];
        for (int i = p; i < d + p; i++) {
            present[i] = true; // data shards 0..p-1 are missing
        }
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[][] encode() {
        codec.encodeParity(shards, 0, shardSize);
        return shards;
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[][] reconstructData() {
        codec.reconstructData(shards, present, 0, shardSize);
        return shards;
    }
}
