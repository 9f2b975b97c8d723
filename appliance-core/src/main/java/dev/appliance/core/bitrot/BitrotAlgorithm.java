package dev.appliance.core.bitrot;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Checksums that guard each shard chunk on disk against silent corruption. The id is stored per version so another
 * algorithm can be added without rewriting old data.
 *
 * <p>{@link #CRC32C_PAIR} computes CRC32C (a JIT intrinsic on x86 and ARM) over each half of the chunk: 64 bits of
 * checksum at the speed of one CRC32C pass. It detects accidental corruption; like MinIO's keyed-with-a-public-key
 * HighwayHash it is no defence against deliberate tampering.
 */
public enum BitrotAlgorithm {
    CRC32C_PAIR(1, 8);

    private final int id;
    private final int checksumLength;

    BitrotAlgorithm(int id, int checksumLength) {
        this.id = id;
        this.checksumLength = checksumLength;
    }

    public int id() {
        return id;
    }

    /** Bytes of checksum stored before every chunk. */
    public int checksumLength() {
        return checksumLength;
    }

    public static BitrotAlgorithm byId(int id) {
        for (BitrotAlgorithm a : values()) {
            if (a.id == id) {
                return a;
            }
        }
        throw new IllegalArgumentException("bitrot algorithm id: " + id + " (unknown)");
    }

    /** Writes the checksum of {@code data[off, off+len)} into {@code out[outOff, outOff+checksumLength)}. */
    public void checksum(byte[] data, int off, int len, byte[] out, int outOff) {
        int half = len >>> 1;
        CRC32C crc = new CRC32C();
        crc.update(data, off, half);
        putInt(out, outOff, (int) crc.getValue());
        crc.reset();
        crc.update(data, off + half, len - half);
        putInt(out, outOff + 4, (int) crc.getValue());
    }

    /** True when {@code expected[expOff..]} holds the checksum of {@code data[off, off+len)}. */
    public boolean verify(byte[] data, int off, int len, byte[] expected, int expOff) {
        byte[] actual = new byte[checksumLength];
        checksum(data, off, len, actual, 0);
        return Arrays.equals(actual, 0, checksumLength, expected, expOff, expOff + checksumLength);
    }

    /**
     * True when {@code expected[expOff..]} holds the checksum of {@code data}'s remaining bytes (its position and
     * limit are left as they were). For a direct buffer just read from a file, checked where it lies, not copied.
     */
    public boolean verify(ByteBuffer data, byte[] expected, int expOff) {
        int off = data.position();
        int len = data.remaining();
        int half = len >>> 1;
        byte[] actual = new byte[checksumLength];
        CRC32C crc = new CRC32C();
        crc.update(data.slice(off, half));
        putInt(actual, 0, (int) crc.getValue());
        crc.reset();
        crc.update(data.slice(off + half, len - half));
        putInt(actual, 4, (int) crc.getValue());
        return Arrays.equals(actual, 0, checksumLength, expected, expOff, expOff + checksumLength);
    }

    private static void putInt(byte[] out, int off, int v) {
        out[off] = (byte) (v >>> 24);
        out[off + 1] = (byte) (v >>> 16);
        out[off + 2] = (byte) (v >>> 8);
        out[off + 3] = (byte) v;
    }
}
