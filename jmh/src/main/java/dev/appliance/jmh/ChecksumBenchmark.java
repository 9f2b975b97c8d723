package dev.appliance.jmh;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The flexible checksums an upload is verified with ({@code x-amz-checksum-*}), over 1 MiB fed in 64 KiB pieces as the
 * network delivers it. Scores are GB/s (1 MiB per operation, ops/ns). CRC64NVME is also what every multipart part of
 * an upload that declared no checksum is hashed with, for the object's default checksum.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     ChecksumBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class ChecksumBenchmark extends BenchmarkBase {
    private static final int PIECE = 64 << 10;

    @Param({"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"})
    public ChecksumAlgorithm algorithm;

    private byte[] data;

    @Setup
    public void setUp() {
        data = new byte[MIB];
        new Random(42).nextBytes(data);
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[] checksum() {
        ChecksumAlgorithm.Running running = algorithm.newRunning();
        for (int off = 0; off < MIB; off += PIECE) {
            running.update(data, off, PIECE);
        }
        return running.value();
    }
}
