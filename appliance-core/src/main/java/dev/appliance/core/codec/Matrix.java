package dev.appliance.core.codec;

/**
 * Dense matrices over GF(2^8), stored as {@code byte[rows][columns]} of unsigned field elements. Only what the codec
 * needs: the systematic encoding matrix, products, sub-matrices and Gauss-Jordan inversion.
 */
final class Matrix {
    private Matrix() {}

    static byte[][] identity(int n) {
        byte[][] m = new byte[n][n];
        for (int i = 0; i < n; i++) {
            m[i][i] = 1;
        }
        return m;
    }

    /** {@code rows x columns} Vandermonde matrix: {@code V[r][c] = r^c}. */
    static byte[][] vandermonde(int rows, int columns) {
        byte[][] m = new byte[rows][columns];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < columns; c++) {
                m[r][c] = (byte) GaloisField.pow(r, c);
            }
        }
        return m;
    }

    /**
     * The systematic encoding matrix: the Vandermonde matrix of {@code total x data} times the inverse of its top
     * square, so the top {@code data} rows are the identity and the rest generate parity.
     */
    static byte[][] systematicEncoding(int dataShards, int totalShards) {
        byte[][] v = vandermonde(totalShards, dataShards);
        byte[][] topInverse = invert(subMatrix(v, 0, dataShards));
        return multiply(v, topInverse);
    }

    static byte[][] multiply(byte[][] a, byte[][] b) {
        int inner = b.length;
        if (a.length > 0 && a[0].length != inner) {
            throw new IllegalArgumentException(
                    "matrix shapes: " + a.length + "x" + a[0].length + " * " + inner + "x" + b[0].length);
        }
        int columns = inner == 0 ? 0 : b[0].length;
        byte[][] out = new byte[a.length][columns];
        for (int r = 0; r < a.length; r++) {
            for (int c = 0; c < columns; c++) {
                int sum = 0;
                for (int k = 0; k < inner; k++) {
                    sum ^= GaloisField.mul(a[r][k] & 0xFF, b[k][c] & 0xFF);
                }
                out[r][c] = (byte) sum;
            }
        }
        return out;
    }

    /** A copy of rows {@code [from, to)}. */
    static byte[][] subMatrix(byte[][] m, int from, int to) {
        byte[][] out = new byte[to - from][];
        for (int r = from; r < to; r++) {
            out[r - from] = m[r].clone();
        }
        return out;
    }

    /** A copy of the given rows, in the given order. */
    static byte[][] selectRows(byte[][] m, int[] rows) {
        byte[][] out = new byte[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            out[i] = m[rows[i]].clone();
        }
        return out;
    }

    /** The inverse of a square matrix by Gauss-Jordan elimination; the argument is not modified. */
    static byte[][] invert(byte[][] m) {
        int n = m.length;
        byte[][] a = new byte[n][];
        byte[][] inv = identity(n);
        for (int r = 0; r < n; r++) {
            if (m[r].length != n) {
                throw new IllegalArgumentException("matrix is not square: row " + r + " has " + m[r].length);
            }
            a[r] = m[r].clone();
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            while (pivot < n && a[pivot][col] == 0) {
                pivot++;
            }
            if (pivot == n) {
                throw new ArithmeticException("matrix is singular");
            }
            swap(a, col, pivot);
            swap(inv, col, pivot);
            int scale = GaloisField.inverse(a[col][col] & 0xFF);
            scaleRow(a[col], scale);
            scaleRow(inv[col], scale);
            for (int r = 0; r < n; r++) {
                int factor = a[r][col] & 0xFF;
                if (r != col && factor != 0) {
                    addScaledRow(a[r], a[col], factor);
                    addScaledRow(inv[r], inv[col], factor);
                }
            }
        }
        return inv;
    }

    private static void swap(byte[][] m, int i, int j) {
        byte[] t = m[i];
        m[i] = m[j];
        m[j] = t;
    }

    private static void scaleRow(byte[] row, int factor) {
        for (int i = 0; i < row.length; i++) {
            row[i] = (byte) GaloisField.mul(row[i] & 0xFF, factor);
        }
    }

    /** {@code target += factor * source}. */
    private static void addScaledRow(byte[] target, byte[] source, int factor) {
        for (int i = 0; i < target.length; i++) {
            target[i] ^= (byte) GaloisField.mul(source[i] & 0xFF, factor);
        }
    }
}
