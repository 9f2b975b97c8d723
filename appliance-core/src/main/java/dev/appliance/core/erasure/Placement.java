package dev.appliance.core.erasure;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Which erasure set holds a key, and in what order its shards go onto the set's drives.
 *
 * <p>The set is SipHash-2-4 of the key, keyed by the deployment id, modulo the set count, so placement cannot be
 * steered by a client that does not know the deployment id. The shard order is a rotation of the set's drives starting
 * at another SipHash of {@code bucket/key}: it spreads data shards (and so the plain read load) over all drives. Both
 * are recorded as {@link dev.appliance.core.drive.DriveFormat#PLACEMENT_SIPHASH} and must never change for a
 * deployment.
 */
public final class Placement {
    private final long k0;
    private final long k1;

    public Placement(UUID deploymentId) {
        this.k0 = Long.reverseBytes(deploymentId.getMostSignificantBits());
        this.k1 = Long.reverseBytes(deploymentId.getLeastSignificantBits());
    }

    public int setIndex(String key, int setCount) {
        return (int) Long.remainderUnsigned(sipHash24(k0, k1, key.getBytes(StandardCharsets.UTF_8)), setCount);
    }

    /** For each drive position, the 1-based shard index stored there. */
    public int[] distribution(String bucket, String key, int drives) {
        byte[] name = (bucket + "/" + key).getBytes(StandardCharsets.UTF_8);
        int start = (int) Long.remainderUnsigned(sipHash24(k1, k0, name), drives);
        int[] dist = new int[drives];
        for (int i = 0; i < drives; i++) {
            dist[i] = 1 + Math.floorMod(i - start, drives);
        }
        return dist;
    }

    /** SipHash-2-4 (Aumasson and Bernstein) with a 128-bit key given as two little-endian 64-bit words. */
    static long sipHash24(long k0, long k1, byte[] data) {
        long[] v = {
            0x736f6d6570736575L ^ k0, 0x646f72616e646f6dL ^ k1, 0x6c7967656e657261L ^ k0, 0x7465646279746573L ^ k1
        };
        int len = data.length;
        int end = len - (len % 8);
        for (int i = 0; i < end; i += 8) {
            compress(v, littleEndian(data, i, 8));
        }
        compress(v, ((long) len) << 56 | littleEndian(data, end, len - end));
        v[2] ^= 0xff;
        for (int r = 0; r < 4; r++) {
            sipRound(v);
        }
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    /** Absorbs one 64-bit message word with two rounds. */
    private static void compress(long[] v, long m) {
        v[3] ^= m;
        sipRound(v);
        sipRound(v);
        v[0] ^= m;
    }

    private static void sipRound(long[] v) {
        v[0] += v[1];
        v[1] = Long.rotateLeft(v[1], 13);
        v[1] ^= v[0];
        v[0] = Long.rotateLeft(v[0], 32);
        v[2] += v[3];
        v[3] = Long.rotateLeft(v[3], 16);
        v[3] ^= v[2];
        v[0] += v[3];
        v[3] = Long.rotateLeft(v[3], 21);
        v[3] ^= v[0];
        v[2] += v[1];
        v[1] = Long.rotateLeft(v[1], 17);
        v[1] ^= v[2];
        v[2] = Long.rotateLeft(v[2], 32);
    }

    private static long littleEndian(byte[] data, int off, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = (v << 8) | (data[off + i] & 0xffL);
        }
        return v;
    }
}
