package dev.appliance.it.veeam;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * Object contents as a pure function of (seed, size), so the simulator keeps only a seed per version and can compare
 * a downloaded body byte for byte by regenerating it while it streams, without holding it in memory.
 */
public final class Payload {
    private static final int CHUNK = 64 * 1024; // a multiple of 8: every chunk starts on a fresh long

    private Payload() {}

    /** The whole body, for an upload. */
    public static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        new Stream(seed).fill(b, size);
        return b;
    }

    /**
     * Reads {@code in} to its end and compares it with the body of (seed, size).
     *
     * @return -1 when equal, else the offset of the first difference (the shorter length when only the lengths differ)
     */
    public static long firstMismatch(long seed, long size, InputStream in) throws IOException {
        Stream expected = new Stream(seed);
        byte[] want = new byte[CHUNK];
        byte[] got = new byte[CHUNK];
        long offset = 0;
        while (true) {
            int n = in.readNBytes(got, 0, CHUNK);
            if (n == 0) {
                return offset == size ? -1 : offset;
            }
            int wantLen = (int) Math.min(CHUNK, size - offset);
            expected.fill(want, wantLen);
            int common = Math.min(n, wantLen);
            int diff = java.util.Arrays.mismatch(got, 0, common, want, 0, common);
            if (diff >= 0) {
                return offset + diff;
            }
            if (n != wantLen) {
                // one side ends here; skip the rest so the connection stays reusable
                in.transferTo(java.io.OutputStream.nullOutputStream());
                return offset + common;
            }
            offset += n;
        }
    }

    static String md5Hex(byte[] data) {
        return HexFormat.of().formatHex(digest("MD5", data));
    }

    static String md5Base64(byte[] data) {
        return Base64.getEncoder().encodeToString(digest("MD5", data));
    }

    static String md5Base64(String text) {
        return md5Base64(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static byte[] digest(String algorithm, byte[] data) {
        try {
            return MessageDigest.getInstance(algorithm).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Eight bytes per {@code nextLong()}, little-endian; fills must be multiples of 8 except the last. */
    private static final class Stream {
        private final SplittableRandom random;

        Stream(long seed) {
            this.random = new SplittableRandom(seed);
        }

        void fill(byte[] buf, int len) {
            int i = 0;
            for (; i + 8 <= len; i += 8) {
                long v = random.nextLong();
                buf[i] = (byte) v;
                buf[i + 1] = (byte) (v >>> 8);
                buf[i + 2] = (byte) (v >>> 16);
                buf[i + 3] = (byte) (v >>> 24);
                buf[i + 4] = (byte) (v >>> 32);
                buf[i + 5] = (byte) (v >>> 40);
                buf[i + 6] = (byte) (v >>> 48);
                buf[i + 7] = (byte) (v >>> 56);
            }
            if (i < len) {
                long v = random.nextLong();
                for (int s = 0; i < len; i++, s += 8) {
                    buf[i] = (byte) (v >>> s);
                }
            }
        }
    }
}
