package dev.appliance.jmh;

import dev.appliance.core.md5.Md5Lanes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * What the server's multi-buffer MD5 ({@link Md5Lanes}: one message per vector lane, the technique of the
 * {@code md5-simd} Go library) costs per byte, beside the JDK's scalar MD5 ({@link DigestBenchmark}): messages of 1 MiB
 * hashed side by side ({@code lanesN}: N of them, the other lanes idle, as when fewer writes than lanes are waiting for
 * their digest). The score is GB/s of messages hashed (the padding block hashed too, not counted); setup checks every
 * lane's digest against the JDK's.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     'Md5LanesBenchmark|DigestBenchmark.digest' -p algorithm=MD5 -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class Md5LanesBenchmark extends BenchmarkBase {
    private byte[][] messages;

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
        int lanes = Md5Lanes.lanes();
        if (!Md5Lanes.usable()) {
            throw new IllegalStateException("the MD5 lanes are not usable here (start with the Vector API module)");
        }
        messages = new byte[lanes][MIB];
        Random random = new Random(42);
        for (byte[] m : messages) {
            random.nextBytes(m);
        }
        byte[][] got = Md5Lanes.digestSideBySide(messages);
        for (int lane = 0; lane < lanes; lane++) {
            byte[] want = MessageDigest.getInstance("MD5").digest(messages[lane]);
            if (!Arrays.equals(got[lane], want)) {
                throw new IllegalStateException("lane " + lane + " disagrees with the JDK's MD5");
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public byte[][] lanes1() {
        return hash(1);
    }

    @Benchmark
    @OperationsPerInvocation(4 * MIB)
    public byte[][] lanes4() {
        return hash(4);
    }

    @Benchmark
    @OperationsPerInvocation(8 * MIB)
    public byte[][] lanes8() {
        return hash(8);
    }

    /** Only where the vectors hold 16 ints (AVX-512); elsewhere it fails at its first call. */
    @Benchmark
    @OperationsPerInvocation(16 * MIB)
    public byte[][] lanes16() {
        return hash(16);
    }

    private byte[][] hash(int filled) {
        if (filled > messages.length) {
            throw new IllegalArgumentException(filled + " lanes, but this CPU's vectors hold " + messages.length);
        }
        return Md5Lanes.digestSideBySide(Arrays.copyOf(messages, filled));
    }
}
