package dev.appliance.core.codec;

/**
 * Arithmetic in GF(2^8) with the generating polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), the field used by most
 * storage Reed-Solomon codecs. Elements are the ints 0..255; addition and subtraction are both XOR.
 *
 * <p>Multiplication uses log/exp tables with the generator 2. {@link #mulTable(int)} exposes a full row of products
 * for the scalar codec's inner loop.
 */
final class GaloisField {
    static final int POLYNOMIAL = 0x11D;
    static final int ORDER = 256;

    /** {@code EXP[i] = 2^i}, doubled in length so {@code EXP[log a + log b]} needs no modulo. */
    private static final int[] EXP = new int[2 * (ORDER - 1)];
    /** {@code LOG[2^i] = i}; {@code LOG[0]} is unused. */
    private static final int[] LOG = new int[ORDER];
    /** {@code MUL[a][b] = a * b}: 64 KiB, one row per coefficient. */
    private static final byte[][] MUL = new byte[ORDER][ORDER];

    static {
        int x = 1;
        for (int i = 0; i < ORDER - 1; i++) {
            EXP[i] = x;
            EXP[i + ORDER - 1] = x;
            LOG[x] = i;
            x <<= 1;
            if ((x & 0x100) != 0) {
                x ^= POLYNOMIAL;
            }
        }
        for (int a = 0; a < ORDER; a++) {
            for (int b = 0; b < ORDER; b++) {
                MUL[a][b] = (byte) mul(a, b);
            }
        }
    }

    private GaloisField() {}

    static int add(int a, int b) {
        return a ^ b;
    }

    static int mul(int a, int b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return EXP[LOG[a] + LOG[b]];
    }

    static int div(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by zero in GF(2^8)");
        }
        if (a == 0) {
            return 0;
        }
        return EXP[LOG[a] - LOG[b] + ORDER - 1];
    }

    static int inverse(int a) {
        return div(1, a);
    }

    /** {@code a^n}, with {@code 0^0 = 1} as the Vandermonde construction needs. */
    static int pow(int a, int n) {
        if (n == 0) {
            return 1;
        }
        if (a == 0) {
            return 0;
        }
        return EXP[(LOG[a] * n) % (ORDER - 1)];
    }

    /** The products {@code c * x} for all x in 0..255. The returned array is shared: do not modify it. */
    static byte[] mulTable(int c) {
        return MUL[c];
    }
}
