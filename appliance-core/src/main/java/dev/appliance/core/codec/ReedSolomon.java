package dev.appliance.core.codec;

import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * A systematic Reed-Solomon erasure codec over GF(2^8) (polynomial 0x11D) for {@code dataShards} data shards and
 * {@code parityShards} parity shards. Any {@code dataShards} of the {@code totalShards} shards suffice to rebuild the
 * others.
 *
 * <p>The encoding matrix is the {@code totalShards x dataShards} Vandermonde matrix {@code V[r][c] = r^c} multiplied
 * by the inverse of its top square, so the data shards are stored unchanged and parity is byte-compatible with
 * Backblaze JavaReedSolomon and klauspost/reedsolomon (the codec MinIO uses) in their default configuration.
 *
 * <p>Instances are immutable apart from an internal cache of inverted decode matrices, and are safe to share between
 * threads. All shards of one call use the same byte range {@code [offset, offset + length)}.
 */
public abstract sealed class ReedSolomon permits ScalarReedSolomon, VectorReedSolomon {
    /** Most erasure patterns kept per codec; past this the cache starts over (patterns change rarely in practice). */
    private static final int MAX_CACHED_PLANS = 256;

    private static final boolean VECTOR_USABLE = detectVectorSupport();
    private static final ConcurrentHashMap<Integer, ReedSolomon> FASTEST = new ConcurrentHashMap<>();

    private final int dataShards;
    private final int parityShards;
    /** {@code totalShards x dataShards}; the top square is the identity. */
    final byte[][] encodingMatrix;

    private final ConcurrentHashMap<BitSet, byte[][]> decodeMatrices = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PlanKey, Plan> plans = new ConcurrentHashMap<>();

    ReedSolomon(int dataShards, int parityShards) {
        checkShardCounts(dataShards, parityShards);
        this.dataShards = dataShards;
        this.parityShards = parityShards;
        this.encodingMatrix = Matrix.systematicEncoding(dataShards, dataShards + parityShards);
    }

    /**
     * The fastest codec available for this configuration: vectorised when the Vector API ({@code jdk.incubator.vector})
     * is usable, otherwise the scalar one. Instances are cached per configuration.
     */
    public static ReedSolomon of(int dataShards, int parityShards) {
        checkShardCounts(dataShards, parityShards);
        return FASTEST.computeIfAbsent(
                dataShards * 257 + parityShards,
                k -> VECTOR_USABLE
                        ? new VectorReedSolomon(dataShards, parityShards)
                        : new ScalarReedSolomon(dataShards, parityShards));
    }

    /** A new plain, table-driven implementation: the readable reference. */
    public static ReedSolomon scalar(int dataShards, int parityShards) {
        return new ScalarReedSolomon(dataShards, parityShards);
    }

    /**
     * A new implementation on the JDK Vector API.
     *
     * @throws UnsupportedOperationException when {@code jdk.incubator.vector} is not available in this JVM (start it
     *     with {@code --add-modules=jdk.incubator.vector})
     */
    public static ReedSolomon vectorised(int dataShards, int parityShards) {
        checkShardCounts(dataShards, parityShards);
        if (!VECTOR_USABLE) {
            throw new UnsupportedOperationException(
                    "the Vector API is not usable in this JVM (start it with --add-modules=jdk.incubator.vector)");
        }
        return new VectorReedSolomon(dataShards, parityShards);
    }

    public final int dataShards() {
        return dataShards;
    }

    public final int parityShards() {
        return parityShards;
    }

    public final int totalShards() {
        return dataShards + parityShards;
    }

    /**
     * Computes the parity shards. {@code shards.length == totalShards}; {@code shards[0..dataShards)} hold data in
     * {@code [offset, offset + length)}; parity is written into {@code shards[dataShards..totalShards)} at the same
     * range (those arrays must be allocated, at least {@code offset + length} long).
     */
    public final void encodeParity(byte[][] shards, int offset, int length) {
        checkEncodeArgs(shards, offset, length);
        parityKernel().apply(dataOf(shards), parityOf(shards), offset, length);
    }

    /** The kernel that multiplies data shards by the parity rows of the encoding matrix (built once per codec). */
    abstract Kernel parityKernel();

    /**
     * Rebuilds every missing shard, data and parity alike. {@code present[i] == false} marks shard {@code i} as
     * missing: it is rebuilt into {@code shards[i]}, which the caller allocates (at least {@code offset + length}
     * long). The first {@code dataShards} present shards are read.
     *
     * @throws IllegalArgumentException when fewer than {@code dataShards} shards are present, or arguments are
     *     malformed
     */
    public void reconstruct(byte[][] shards, boolean[] present, int offset, int length) {
        rebuild(shards, present, offset, length, false);
    }

    /**
     * Like {@link #reconstruct} but rebuilds only missing data shards; parity shards are left untouched (missing
     * parity shards may be {@code null}). This is what degraded reads need.
     */
    public void reconstructData(byte[][] shards, boolean[] present, int offset, int length) {
        rebuild(shards, present, offset, length, true);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + dataShards + "+" + parityShards + "]";
    }

    // ---- implementation hooks ---------------------------------------------------------------------------------

    /** Multiplies a fixed coefficient matrix with input shards, writing one output shard per matrix row. */
    interface Kernel {
        /** {@code outputs[r][i] = sum_k coefficients[r][k] * inputs[k][i]} for i in {@code [offset, offset+length)}. */
        void apply(byte[][] inputs, byte[][] outputs, int offset, int length);
    }

    /** Prepares {@code coefficients} ({@code rows x dataShards}) for repeated multiplication. */
    abstract Kernel kernel(byte[][] coefficients);

    /** The parity rows of the encoding matrix: {@code parityShards x dataShards}. */
    final byte[][] parityMatrix() {
        return Matrix.subMatrix(encodingMatrix, dataShards, totalShards());
    }

    final void checkEncodeArgs(byte[][] shards, int offset, int length) {
        checkShardArray(shards, offset, length);
        for (int i = 0; i < totalShards(); i++) {
            checkShard(shards, i, offset, length);
        }
    }

    /** The data shards (inputs) of {@code shards}. */
    final byte[][] dataOf(byte[][] shards) {
        return Arrays.copyOfRange(shards, 0, dataShards);
    }

    /** The parity shards (outputs) of {@code shards}. */
    final byte[][] parityOf(byte[][] shards) {
        return Arrays.copyOfRange(shards, dataShards, totalShards());
    }

    // ---- reconstruction ----------------------------------------------------------------------------------------

    private record PlanKey(BitSet present, boolean dataOnly) {}

    /** Which shards to read, which to write, and the prepared coefficients mapping one to the other. */
    private record Plan(int[] inputs, int[] targets, Kernel kernel) {}

    private void rebuild(byte[][] shards, boolean[] present, int offset, int length, boolean dataOnly) {
        checkShardArray(shards, offset, length);
        int n = totalShards();
        if (present == null || present.length != n) {
            throw new IllegalArgumentException("present: " + (present == null ? "null" : present.length + " flags")
                    + " (expected totalShards = " + n + ")");
        }
        BitSet mask = new BitSet(n);
        for (int i = 0; i < n; i++) {
            if (present[i]) {
                mask.set(i);
            }
        }
        int count = mask.cardinality();
        if (count < dataShards) {
            throw new IllegalArgumentException("too few shards to reconstruct: " + count + " of " + n
                    + " present (need at least dataShards = " + dataShards + ")");
        }
        int wanted = dataOnly ? dataShards : n;
        if (mask.nextClearBit(0) >= wanted) {
            return; // nothing to rebuild
        }
        Plan plan = plan(mask, dataOnly);
        byte[][] inputs = new byte[dataShards][];
        for (int k = 0; k < dataShards; k++) {
            checkShard(shards, plan.inputs[k], offset, length);
            inputs[k] = shards[plan.inputs[k]];
        }
        byte[][] outputs = new byte[plan.targets.length][];
        for (int j = 0; j < outputs.length; j++) {
            checkShard(shards, plan.targets[j], offset, length);
            outputs[j] = shards[plan.targets[j]];
        }
        plan.kernel.apply(inputs, outputs, offset, length);
    }

    private Plan plan(BitSet present, boolean dataOnly) {
        PlanKey key = new PlanKey(present, dataOnly);
        Plan plan = plans.get(key);
        if (plan == null) {
            if (plans.size() >= MAX_CACHED_PLANS) {
                plans.clear();
                decodeMatrices.clear();
            }
            plan = plans.computeIfAbsent(key, k -> newPlan(k.present(), k.dataOnly()));
        }
        return plan;
    }

    private Plan newPlan(BitSet present, boolean dataOnly) {
        int[] inputs = present.stream().limit(dataShards).toArray();
        int wanted = dataOnly ? dataShards : totalShards();
        int[] targets = IntStream.range(0, wanted).filter(i -> !present.get(i)).toArray();
        // Rows of the encoding matrix for the shards we read form an invertible square; its inverse maps those
        // shards back to the data, and encodingMatrix[t] * inverse maps them to any shard t.
        byte[][] inverse =
                decodeMatrices.computeIfAbsent(present, p -> Matrix.invert(Matrix.selectRows(encodingMatrix, inputs)));
        byte[][] rows = Matrix.multiply(Matrix.selectRows(encodingMatrix, targets), inverse);
        return new Plan(inputs, targets, kernel(rows));
    }

    // ---- validation --------------------------------------------------------------------------------------------

    static void checkShardCounts(int dataShards, int parityShards) {
        if (dataShards < 1 || dataShards > 256) {
            throw new IllegalArgumentException("dataShards: " + dataShards + " (expected 1..256)");
        }
        if (parityShards < 0 || parityShards > 255) {
            throw new IllegalArgumentException("parityShards: " + parityShards + " (expected 0..255)");
        }
        if (dataShards + parityShards > 256) {
            throw new IllegalArgumentException("dataShards + parityShards: " + (dataShards + parityShards)
                    + " (expected at most 256, the size of GF(2^8))");
        }
    }

    private void checkShardArray(byte[][] shards, int offset, int length) {
        if (shards == null || shards.length != totalShards()) {
            throw new IllegalArgumentException("shards: " + (shards == null ? "null" : shards.length + " arrays")
                    + " (expected totalShards = " + totalShards() + ")");
        }
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException(
                    "offset " + offset + ", length " + length + " (expected both non-negative)");
        }
    }

    private static void checkShard(byte[][] shards, int i, int offset, int length) {
        byte[] shard = shards[i];
        if (shard == null) {
            throw new IllegalArgumentException(
                    "shards[" + i + "]: null (expected an array of at least " + ((long) offset + length) + " bytes)");
        }
        if (offset > shard.length - length) {
            throw new IllegalArgumentException("shards[" + i + "]: " + shard.length + " bytes (expected at least "
                    + ((long) offset + length) + " for offset " + offset + " + length " + length + ")");
        }
    }

    private static boolean detectVectorSupport() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return false;
        }
        try {
            return VectorReedSolomon.supported();
        } catch (LinkageError e) {
            return false;
        }
    }
}
