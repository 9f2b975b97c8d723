package dev.appliance.jmh;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The JDK digests every PUT pays for: MD5 of the body (the ETag, and Content-MD5's check) and SHA-256 of a signed
 * payload, over 1 MiB fed in 64 KiB pieces as the network delivers it. Scores are GB/s (1 MiB per operation, ops/ns):
 * the per-byte price behind the PUT profiles in docs/benchmarks.md.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     DigestBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class DigestBenchmark extends BenchmarkBase {
    private static final int PIECE = 64 << 10;

    @Param({"MD5", "SHA-256"})
    public String algorithm;

    private byte[] data;
    private MessageDigest digest;

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
        data = new byte[MIB];
        new Random(42).nextBytes(data);
        digest = MessageDigest.getInstance(algorithm);
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[] digest() {
        for (int off = 0; off < MIB; off += PIECE) {
            digest.update(data, off, PIECE);
        }
        return digest.digest();
    }
}
