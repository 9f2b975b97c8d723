package dev.appliance.jmh;

import dev.appliance.core.bitrot.BitrotAlgorithm;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Bitrot checksums over 1 MiB of shard data cut into {@code chunkSize} chunks (one checksum per chunk, as on disk).
 * Scores are GB/s of data hashed (1 MiB per operation via {@code @OperationsPerInvocation(1 MiB)} and ops/ns).
 * {@code crc32cPair} is the production {@link BitrotAlgorithm#CRC32C_PAIR}; {@code crc32c} (one plain
 * {@link CRC32C} pass per chunk) and {@code sha256} ({@link MessageDigest} SHA-256 per chunk) are reference points.
 *
 * <p>Run:
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     BitrotBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class BitrotBenchmark extends BenchmarkBase {
    @Param({"524288", "262144", "8192"})
    public int chunkSize;

    private byte[] data;
    private final byte[] checksum = new byte[32];
    private MessageDigest sha256;

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
        data = new byte[MIB];
        new Random(42).nextBytes(data);
        sha256 = MessageDigest.getInstance("SHA-256");
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[] crc32cPair() {
        for (int off = 0; off < MIB; off += chunkSize) {
            BitrotAlgorithm.CRC32C_PAIR.checksum(data, off, chunkSize, checksum, 0);
        }
        return checksum;
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public long crc32c() {
        long sum = 0;
        CRC32C crc = new CRC32C();
        for (int off = 0; off < MIB; off += chunkSize) {
            crc.reset();
            crc.update(data, off, chunkSize);
            sum += crc.getValue();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[] sha256() throws Exception {
        for (int off = 0; off < MIB; off += chunkSize) {
            sha256.update(data, off, chunkSize);
            sha256.digest(checksum, 0, 32);
        }
        return checksum;
    }
}
