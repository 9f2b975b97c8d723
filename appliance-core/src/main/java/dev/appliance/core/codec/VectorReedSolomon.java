package dev.appliance.core.codec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Reed-Solomon on the JDK Vector API with the split-nibble technique: a product {@code c * x} is
 * {@code lo[c][x & 15] ^ hi[c][x >>> 4]} where {@code lo[c][j] = c * j} and {@code hi[c][j] = c * (j << 4)}, and each
 * 16-entry table lookup is one byte shuffle over a whole vector.
 *
 * <p>Up to four output rows are produced per pass over the inputs so each loaded input vector (and its two nibble
 * index vectors) is reused; long shards are processed in {@link #CHUNK}-byte slices so that, when more than four
 * outputs need several passes, the inputs are still in cache. Bytes past the last whole vector go through the scalar
 * kernel.
 */
final class VectorReedSolomon extends ReedSolomon {
    /** System property that forces the vector width in bits (128, 256 or 512), for benchmarks and tests. */
    static final String WIDTH_PROPERTY = "dev.appliance.codec.vectorBits";

    /**
     * The one place the vector shape is chosen (see {@link #chooseSpecies()} and docs/benchmarks.md).
     * It must be a static final constant so C2 can intrinsify the Vector API calls.
     */
    static final VectorSpecies<Byte> SPECIES = chooseSpecies();

    private static final int VLEN = SPECIES.length();
    /** Bytes per shard per slice: d inputs of 16 KiB stay in L2 while up to four outputs at a time are produced. */
    static final int CHUNK = 8 * 1024;

    private final Kernel parity;

    VectorReedSolomon(int dataShards, int parityShards) {
        super(dataShards, parityShards);
        this.parity = kernel(parityMatrix());
    }

    /**
     * 256 bits where the CPU has AVX-512 VBMI: there {@code selectFrom} on 32 bytes is a single VPERMB ymm. On the
     * Ice Lake Xeon we measured (docs/benchmarks.md) 256 bits matched 512 bits on 2+2 encode and was clearly
     * faster on 8+4 (512-bit code lowers the clock and loses a vector port); 128 bits was slowest. Everywhere else
     * 128 bits: {@code selectFrom} on SPECIES_128 is the classic split-nibble PSHUFB (TBL on ARM), while wider byte
     * permutes without VBMI are multi-instruction cross-lane sequences.
     */
    private static VectorSpecies<Byte> chooseSpecies() {
        String forced = System.getProperty(WIDTH_PROPERTY);
        if (forced != null) {
            return switch (forced.trim()) {
                case "128" -> ByteVector.SPECIES_128;
                case "256" -> ByteVector.SPECIES_256;
                case "512" -> ByteVector.SPECIES_512;
                default ->
                    throw new IllegalArgumentException(WIDTH_PROPERTY + ": " + forced + " (expected 128, 256 or 512)");
            };
        }
        if (ByteVector.SPECIES_PREFERRED.vectorBitSize() >= 256 && cpuHasVbmi()) {
            return ByteVector.SPECIES_256;
        }
        return ByteVector.SPECIES_128;
    }

    /** Whether /proc/cpuinfo (Linux) lists AVX-512 VBMI; false when it cannot be read. */
    private static boolean cpuHasVbmi() {
        try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("flags"))
                    .findFirst()
                    .map(l -> Arrays.asList(l.split("\\s+")).contains("avx512vbmi"))
                    .orElse(false);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** True when the chosen shape is natively supported (not wider than the CPU's preferred vectors). */
    static boolean supported() {
        return SPECIES.vectorBitSize() <= ByteVector.SPECIES_PREFERRED.vectorBitSize();
    }

    @Override
    Kernel parityKernel() {
        return parity;
    }

    @Override
    Kernel kernel(byte[][] coefficients) {
        return new NibbleKernel(coefficients);
    }

    /** Coefficients prepared as nibble tables: {@code tables[((r * inputs + k) * 2 + half) * VLEN + j]}. */
    static final class NibbleKernel implements Kernel {
        private final byte[][] coefficients;
        private final int rows;
        private final int inputs;
        private final byte[] tables;
        /** The same tables as vectors, so kernels start without re-loading them. */
        private final ByteVector[] vectors;

        NibbleKernel(byte[][] coefficients) {
            this.rows = coefficients.length;
            this.inputs = rows == 0 ? 0 : coefficients[0].length;
            this.coefficients = new byte[rows][];
            this.tables = new byte[rows * inputs * 2 * VLEN];
            for (int r = 0; r < rows; r++) {
                this.coefficients[r] = coefficients[r].clone();
                for (int k = 0; k < inputs; k++) {
                    int c = coefficients[r][k] & 0xFF;
                    int base = (r * inputs + k) * 2 * VLEN;
                    for (int j = 0; j < 16; j++) {
                        tables[base + j] = (byte) GaloisField.mul(c, j);
                        tables[base + VLEN + j] = (byte) GaloisField.mul(c, j << 4);
                    }
                }
            }
            this.vectors = new ByteVector[rows * inputs * 2];
            for (int t = 0; t < vectors.length; t++) {
                vectors[t] = ByteVector.fromArray(SPECIES, tables, t * VLEN);
            }
        }

        @Override
        public void apply(byte[][] in, byte[][] out, int offset, int length) {
            int vectorEnd = offset + (length - length % VLEN);
            for (int from = offset; from < vectorEnd; from += CHUNK) {
                int to = Math.min(vectorEnd, from + CHUNK);
                int r = 0;
                for (; r + 4 <= rows; r += 4) {
                    group(4, in, out, r, from, to);
                }
                if (rows - r >= 2) {
                    group(2, in, out, r, from, to);
                    r += 2;
                }
                if (rows - r == 1) {
                    group(1, in, out, r, from, to);
                }
            }
            if (vectorEnd < offset + length) {
                ScalarReedSolomon.multiply(coefficients, in, out, vectorEnd, offset + length - vectorEnd);
            }
        }

        /**
         * Produces {@code g} output rows starting at {@code r} over {@code [from, to)}: the inputs are consumed two at a
         * time (one first if their count is odd); the first pass stores, later passes add to what is there.
         */
        private void group(int g, byte[][] in, byte[][] out, int r, int from, int to) {
            int k = 0;
            if ((inputs & 1) != 0) {
                switch (g) {
                    case 4 -> rows4of1(in, out, r, k, from, to);
                    case 2 -> rows2of1(in, out, r, k, from, to);
                    default -> rows1of1(in, out, r, k, from, to);
                }
                k = 1;
            }
            for (; k < inputs; k += 2) {
                boolean add = k > 0;
                switch (g) {
                    case 4 -> rows4of2(in, out, r, k, from, to, add);
                    case 2 -> rows2of2(in, out, r, k, from, to, add);
                    default -> rows1of2(in, out, r, k, from, to, add);
                }
            }
        }

        private ByteVector lo(int r, int k) {
            return vectors[(r * inputs + k) * 2];
        }

        private ByteVector hi(int r, int k) {
            return vectors[(r * inputs + k) * 2 + 1];
        }

        private static ByteVector lowNibbles(ByteVector v) {
            return v.and((byte) 0x0F);
        }

        /** x86 has no byte shift: shift as ints and mask off the bits that came in from the neighbour byte. */
        private static ByteVector highNibbles(ByteVector v) {
            return v.reinterpretAsInts()
                    .lanewise(VectorOperators.LSHR, 4)
                    .reinterpretAsBytes()
                    .and((byte) 0x0F);
        }

        /** {@code c * x} for every byte, given c's nibble tables and x's nibbles. */
        private static ByteVector mul(ByteVector tableLo, ByteVector tableHi, ByteVector lo, ByteVector hi) {
            return lo.selectFrom(tableLo).lanewise(VectorOperators.XOR, hi.selectFrom(tableHi));
        }

        private static ByteVector xor(ByteVector a, ByteVector b) {
            return a.lanewise(VectorOperators.XOR, b);
        }

        private static ByteVector load(byte[] a, int i) {
            return ByteVector.fromArray(SPECIES, a, i);
        }

        // ---- one input per pass (only the first pass, when the input count is odd) ----

        private void rows1of1(byte[][] in, byte[][] out, int r, int k, int from, int to) {
            ByteVector l0 = lo(r, k), h0 = hi(r, k);
            byte[] x = in[k];
            byte[] o0 = out[r];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v = load(x, i);
                ByteVector lo = lowNibbles(v), hi = highNibbles(v);
                mul(l0, h0, lo, hi).intoArray(o0, i);
            }
        }

        private void rows2of1(byte[][] in, byte[][] out, int r, int k, int from, int to) {
            ByteVector l0 = lo(r, k), h0 = hi(r, k);
            ByteVector l1 = lo(r + 1, k), h1 = hi(r + 1, k);
            byte[] x = in[k];
            byte[] o0 = out[r], o1 = out[r + 1];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v = load(x, i);
                ByteVector lo = lowNibbles(v), hi = highNibbles(v);
                mul(l0, h0, lo, hi).intoArray(o0, i);
                mul(l1, h1, lo, hi).intoArray(o1, i);
            }
        }

        private void rows4of1(byte[][] in, byte[][] out, int r, int k, int from, int to) {
            ByteVector l0 = lo(r, k), h0 = hi(r, k);
            ByteVector l1 = lo(r + 1, k), h1 = hi(r + 1, k);
            ByteVector l2 = lo(r + 2, k), h2 = hi(r + 2, k);
            ByteVector l3 = lo(r + 3, k), h3 = hi(r + 3, k);
            byte[] x = in[k];
            byte[] o0 = out[r], o1 = out[r + 1], o2 = out[r + 2], o3 = out[r + 3];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v = load(x, i);
                ByteVector lo = lowNibbles(v), hi = highNibbles(v);
                mul(l0, h0, lo, hi).intoArray(o0, i);
                mul(l1, h1, lo, hi).intoArray(o1, i);
                mul(l2, h2, lo, hi).intoArray(o2, i);
                mul(l3, h3, lo, hi).intoArray(o3, i);
            }
        }

        // ---- two inputs per pass; add == false stores, add == true adds to the outputs ----

        private void rows1of2(byte[][] in, byte[][] out, int r, int k, int from, int to, boolean add) {
            ByteVector l00 = lo(r, k), h00 = hi(r, k), l01 = lo(r, k + 1), h01 = hi(r, k + 1);
            byte[] x0 = in[k], x1 = in[k + 1];
            byte[] o0 = out[r];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v0 = load(x0, i), v1 = load(x1, i);
                ByteVector lo0 = lowNibbles(v0), hi0 = highNibbles(v0);
                ByteVector lo1 = lowNibbles(v1), hi1 = highNibbles(v1);
                ByteVector p0 = xor(mul(l00, h00, lo0, hi0), mul(l01, h01, lo1, hi1));
                if (add) {
                    p0 = xor(p0, load(o0, i));
                }
                p0.intoArray(o0, i);
            }
        }

        private void rows2of2(byte[][] in, byte[][] out, int r, int k, int from, int to, boolean add) {
            ByteVector l00 = lo(r, k), h00 = hi(r, k), l01 = lo(r, k + 1), h01 = hi(r, k + 1);
            ByteVector l10 = lo(r + 1, k), h10 = hi(r + 1, k), l11 = lo(r + 1, k + 1), h11 = hi(r + 1, k + 1);
            byte[] x0 = in[k], x1 = in[k + 1];
            byte[] o0 = out[r], o1 = out[r + 1];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v0 = load(x0, i), v1 = load(x1, i);
                ByteVector lo0 = lowNibbles(v0), hi0 = highNibbles(v0);
                ByteVector lo1 = lowNibbles(v1), hi1 = highNibbles(v1);
                ByteVector p0 = xor(mul(l00, h00, lo0, hi0), mul(l01, h01, lo1, hi1));
                ByteVector p1 = xor(mul(l10, h10, lo0, hi0), mul(l11, h11, lo1, hi1));
                if (add) {
                    p0 = xor(p0, load(o0, i));
                    p1 = xor(p1, load(o1, i));
                }
                p0.intoArray(o0, i);
                p1.intoArray(o1, i);
            }
        }

        private void rows4of2(byte[][] in, byte[][] out, int r, int k, int from, int to, boolean add) {
            ByteVector l00 = lo(r, k), h00 = hi(r, k), l01 = lo(r, k + 1), h01 = hi(r, k + 1);
            ByteVector l10 = lo(r + 1, k), h10 = hi(r + 1, k), l11 = lo(r + 1, k + 1), h11 = hi(r + 1, k + 1);
            ByteVector l20 = lo(r + 2, k), h20 = hi(r + 2, k), l21 = lo(r + 2, k + 1), h21 = hi(r + 2, k + 1);
            ByteVector l30 = lo(r + 3, k), h30 = hi(r + 3, k), l31 = lo(r + 3, k + 1), h31 = hi(r + 3, k + 1);
            byte[] x0 = in[k], x1 = in[k + 1];
            byte[] o0 = out[r], o1 = out[r + 1], o2 = out[r + 2], o3 = out[r + 3];
            for (int i = from; i < to; i += VLEN) {
                ByteVector v0 = load(x0, i), v1 = load(x1, i);
                ByteVector lo0 = lowNibbles(v0), hi0 = highNibbles(v0);
                ByteVector lo1 = lowNibbles(v1), hi1 = highNibbles(v1);
                ByteVector p0 = xor(mul(l00, h00, lo0, hi0), mul(l01, h01, lo1, hi1));
                ByteVector p1 = xor(mul(l10, h10, lo0, hi0), mul(l11, h11, lo1, hi1));
                ByteVector p2 = xor(mul(l20, h20, lo0, hi0), mul(l21, h21, lo1, hi1));
                ByteVector p3 = xor(mul(l30, h30, lo0, hi0), mul(l31, h31, lo1, hi1));
                if (add) {
                    p0 = xor(p0, load(o0, i));
                    p1 = xor(p1, load(o1, i));
                    p2 = xor(p2, load(o2, i));
                    p3 = xor(p3, load(o3, i));
                }
                p0.intoArray(o0, i);
                p1.intoArray(o1, i);
                p2.intoArray(o2, i);
                p3.intoArray(o3, i);
            }
        }
    }
}
