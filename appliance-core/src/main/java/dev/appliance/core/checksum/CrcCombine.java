package dev.appliance.core.checksum;

/**
 * Combines reflected CRCs: given {@code crc(A)}, {@code crc(B)} and {@code |B|}, computes {@code crc(A ‖ B)} without the
 * bytes, in O(log |B|) polynomial multiplications.
 *
 * <p>The three CRCs S3 combines (CRC-32, CRC-32C, CRC-64/NVME) are reflected, start from all ones and end with an XOR
 * by all ones. For such a CRC, {@code crc(A ‖ B) = crc(A) · x^(8|B|) mod P  ⊕  crc(B)}: appending {@code |B|} zero
 * bytes to {@code A} multiplies its register by {@code x^(8|B|)}, and the init and final XOR of both halves cancel.
 * Values are polynomials over GF(2) in reflected bit order: the most significant bit of a {@code width}-bit value is
 * the coefficient of {@code x^0}. {@code x^(8n)} is built from a table of {@code x^(2^k) mod P} by square-and-multiply
 * over the bits of {@code n}.
 */
final class CrcCombine {
    private final int width;
    private final long poly;
    private final long mask;
    /** {@code POWERS[k] = x^(2^k) mod P}, for every k an exponent {@code 8n < 2^66} can need. */
    private final long[] powers = new long[67];

    /**
     * @param width 32 or 64
     * @param reflectedPoly the polynomial in reflected form (e.g. {@code 0xEDB88320} for CRC-32)
     */
    CrcCombine(int width, long reflectedPoly) {
        if (width != 32 && width != 64) {
            throw new IllegalArgumentException("width: " + width + " (expected 32 or 64)");
        }
        this.width = width;
        this.poly = reflectedPoly;
        this.mask = width == 64 ? -1L : (1L << width) - 1;
        powers[0] = 1L << (width - 2); // x^1
        for (int k = 1; k < powers.length; k++) {
            powers[k] = multiply(powers[k - 1], powers[k - 1]);
        }
    }

    /** {@code crc(A ‖ B)} from {@code crc(A)}, {@code crc(B)} and {@code |B|} in bytes. */
    long combine(long crcA, long crcB, long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("lengthB: " + lengthB + " (expected >= 0)");
        }
        return (multiply(xPow8n(lengthB), crcA & mask) ^ crcB) & mask;
    }

    /** {@code a · b mod P} in reflected representation. */
    long multiply(long a, long b) {
        long m = 1L << (width - 1); // x^0
        long product = 0;
        while (m != 0) {
            if ((a & m) != 0) {
                product ^= b;
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ poly : b >>> 1; // b · x
        }
        return product & mask;
    }

    /** {@code x^(8n) mod P}. */
    long xPow8n(long n) {
        long p = 1L << (width - 1); // x^0
        int k = 3; // x^(2^3) = x^8: one byte
        while (n != 0) {
            if ((n & 1) != 0) {
                p = multiply(powers[k], p);
            }
            n >>>= 1;
            k++;
        }
        return p;
    }
}
