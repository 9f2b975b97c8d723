package dev.appliance.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What a multi-buffer MD5 (one message per vector lane, the technique of the {@code md5-simd} Go library) would cost
 * per byte here, beside the JDK's scalar MD5 ({@link DigestBenchmark}): messages of 1 MiB hashed side by side in
 * {@link Md5LaneKernel#LANES} lanes ({@code lanesN}: N of them filled, the rest idle, as when fewer PUTs than lanes are
 * hashing at the same moment). Each block's words are first gathered from the lanes' messages into one array (the
 * transposition), which {@code transpose=false} skips to price the kernel alone (its digests are then wrong). The
 * score is GB/s of messages hashed (the padding block hashed too, not counted); setup checks every lane's digest
 * against the JDK's.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     'Md5LanesBenchmark|DigestBenchmark.digest' -p algorithm=MD5 -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class Md5LanesBenchmark extends BenchmarkBase {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int LANES = Md5LaneKernel.LANES;

    @Param({"true", "false"})
    public boolean transpose;

    private byte[][] messages;
    private final int[] state = new int[4 * LANES];
    private final int[] words = new int[16 * LANES];
    private final int[] work = new int[4 * LANES];

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
        messages = new byte[LANES][MIB];
        Random random = new Random(42);
        for (byte[] m : messages) {
            random.nextBytes(m);
        }
        hashAll(LANES, true);
        for (int lane = 0; lane < LANES; lane++) {
            byte[] got = new byte[16];
            for (int w = 0; w < 4; w++) {
                int v = state[w * LANES + lane];
                for (int b = 0; b < 4; b++) {
                    got[4 * w + b] = (byte) (v >>> (8 * b));
                }
            }
            byte[] want = MessageDigest.getInstance("MD5").digest(messages[lane]);
            if (!Arrays.equals(got, want)) {
                throw new IllegalStateException("lane " + lane + " disagrees with the JDK's MD5");
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(MIB)
    public int[] lanes1() {
        return hashAll(1, transpose);
    }

    @Benchmark
    @OperationsPerInvocation(4 * MIB)
    public int[] lanes4() {
        return hashAll(4, transpose);
    }

    @Benchmark
    @OperationsPerInvocation(8 * MIB)
    public int[] lanes8() {
        return hashAll(8, transpose);
    }

    /** Only where the vectors hold 16 ints (AVX-512); elsewhere it fails at its first call. */
    @Benchmark
    @OperationsPerInvocation(16 * MIB)
    public int[] lanes16() {
        return hashAll(16, transpose);
    }

    private int[] hashAll(int filled, boolean transpose) {
        if (filled > LANES) {
            throw new IllegalArgumentException(filled + " lanes, but this CPU's vectors hold " + LANES);
        }
        for (int lane = 0; lane < LANES; lane++) {
            state[lane] = 0x67452301;
            state[LANES + lane] = 0xefcdab89;
            state[2 * LANES + lane] = 0x98badcfe;
            state[3 * LANES + lane] = 0x10325476;
        }
        for (int off = 0; off < MIB; off += 64) {
            if (transpose) {
                for (int lane = 0; lane < filled; lane++) {
                    byte[] m = messages[lane];
                    for (int w = 0; w < 16; w += 2) {
                        long v = (long) LONG_LE.get(m, off + 4 * w);
                        words[w * LANES + lane] = (int) v;
                        words[(w + 1) * LANES + lane] = (int) (v >>> 32);
                    }
                }
            }
            Md5LaneKernel.compress(state, words, work);
        }
        // the padding block of a 1 MiB message: 0x80, zeros, the length in bits
        Arrays.fill(words, 0);
        long bits = (long) MIB * 8;
        for (int lane = 0; lane < LANES; lane++) {
            words[lane] = 0x80;
            words[14 * LANES + lane] = (int) bits;
            words[15 * LANES + lane] = (int) (bits >>> 32);
        }
        Md5LaneKernel.compress(state, words, work);
        return state;
    }
}
