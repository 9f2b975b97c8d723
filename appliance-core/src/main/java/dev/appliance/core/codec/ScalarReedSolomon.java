package dev.appliance.core.codec;

/**
 * The reference implementation: one byte at a time through a 256-entry product table per coefficient. Simple enough
 * to check by eye; the vectorised codec is tested against it.
 */
final class ScalarReedSolomon extends ReedSolomon {
    private final Kernel parity;

    ScalarReedSolomon(int dataShards, int parityShards) {
        super(dataShards, parityShards);
        this.parity = kernel(parityMatrix());
    }

    @Override
    Kernel parityKernel() {
        return parity;
    }

    @Override
    Kernel kernel(byte[][] coefficients) {
        byte[][] rows = new byte[coefficients.length][];
        for (int r = 0; r < rows.length; r++) {
            rows[r] = coefficients[r].clone();
        }
        return (inputs, outputs, offset, length) -> multiply(rows, inputs, outputs, offset, length);
    }

    /** {@code outputs[r][i] = sum_k rows[r][k] * inputs[k][i]}. */
    static void multiply(byte[][] rows, byte[][] inputs, byte[][] outputs, int offset, int length) {
        int end = offset + length;
        for (int r = 0; r < rows.length; r++) {
            byte[] out = outputs[r];
            for (int k = 0; k < inputs.length; k++) {
                byte[] product = GaloisField.mulTable(rows[r][k] & 0xFF);
                byte[] in = inputs[k];
                if (k == 0) {
                    for (int i = offset; i < end; i++) {
                        out[i] = product[in[i] & 0xFF];
                    }
                } else {
                    for (int i = offset; i < end; i++) {
                        out[i] ^= product[in[i] & 0xFF];
                    }
                }
            }
        }
    }
}
