package dev.appliance.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GaloisFieldTest {
    @Test
    void mul_matchesCarrylessMultiplicationReducedBy0x11D() {
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                assertThat(GaloisField.mul(a, b)).as("%d * %d", a, b).isEqualTo(slowMul(a, b));
                assertThat(GaloisField.mulTable(a)[b] & 0xFF).isEqualTo(slowMul(a, b));
            }
        }
    }

    @Test
    void divAndInverse_undoMultiplication() {
        for (int a = 1; a < 256; a++) {
            assertThat(GaloisField.mul(a, GaloisField.inverse(a))).isEqualTo(1);
            for (int b = 1; b < 256; b++) {
                assertThat(GaloisField.div(GaloisField.mul(a, b), b)).isEqualTo(a);
            }
        }
        assertThatThrownBy(() -> GaloisField.div(3, 0)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void pow_treatsZeroToTheZeroAsOne() {
        assertThat(GaloisField.pow(0, 0)).isEqualTo(1);
        assertThat(GaloisField.pow(0, 3)).isZero();
        assertThat(GaloisField.pow(2, 8)).isEqualTo(0x1D);
        assertThat(GaloisField.pow(7, 3)).isEqualTo(GaloisField.mul(7, GaloisField.mul(7, 7)));
    }

    @Test
    void systematicEncoding_hasIdentityOnTopAndInvertsBack() {
        byte[][] m = Matrix.systematicEncoding(5, 8);
        assertThat(Matrix.subMatrix(m, 0, 5)).isDeepEqualTo(Matrix.identity(5));
        byte[][] square = Matrix.selectRows(m, new int[] {1, 5, 6, 3, 7});
        assertThat(Matrix.multiply(square, Matrix.invert(square))).isDeepEqualTo(Matrix.identity(5));
    }

    @Test
    void invert_onSingularMatrix_throws() {
        assertThatThrownBy(() -> Matrix.invert(new byte[][] {{1, 2}, {1, 2}})).isInstanceOf(ArithmeticException.class);
    }

    private static int slowMul(int a, int b) {
        int product = 0;
        for (int i = 0; i < 8; i++) {
            if ((b & (1 << i)) != 0) {
                product ^= a << i;
            }
        }
        for (int bit = 15; bit >= 8; bit--) {
            if ((product & (1 << bit)) != 0) {
                product ^= 0x11D << (bit - 8);
            }
        }
        return product;
    }
}
