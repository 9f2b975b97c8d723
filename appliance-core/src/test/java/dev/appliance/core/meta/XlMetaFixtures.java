package dev.appliance.core.meta;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** Deterministic versions for the xl.meta tests (no randomness, no clock: golden files depend on it). */
final class XlMetaFixtures {
    static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z in ns
    static final int MIB = 1 << 20;

    private XlMetaFixtures() {}

    static UUID id(int n) {
        return new UUID(0x0193_0000_0000_7000L | n, 0x8000_0000_0000_0000L | (long) n * 0x9E37_79B9L);
    }

    static UUID dataDir(int n) {
        return new UUID(0x0D17_0000_0000_4000L | n, 0xA000_0000_0000_0000L | n);
    }

    static String md5Hex(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            sb.append(String.format("%02x", (n * 31 + i * 17) & 0xFF));
        }
        return sb.toString();
    }

    static TreeMap<String, String> contentType(String type) {
        return new TreeMap<>(Map.of("content-type", type));
    }

    /** A typical single-part object of an 8-drive set (4+4) whose shards live in part files. */
    static ObjectVersion dataDirObject(int n, long modTime, long size) {
        return new ObjectVersion(
                id(n),
                VersionType.OBJECT,
                modTime,
                dataDir(n),
                size,
                4,
                4,
                MIB,
                new int[] {3, 4, 5, 6, 7, 8, 1, 2},
                1,
                List.of(new PartInfo(1, size, null)),
                md5Hex(n),
                contentType("application/octet-stream"),
                false);
    }

    /** A small object of a 4-drive set (2+2) whose shard lives inline in each drive's xl.meta. */
    static ObjectVersion inlineObject(int n, long modTime, long size) {
        return new ObjectVersion(
                id(n),
                VersionType.OBJECT,
                modTime,
                null,
                size,
                2,
                2,
                MIB,
                new int[] {2, 3, 4, 1},
                1,
                List.of(new PartInfo(1, size, null)),
                md5Hex(n),
                contentType("text/plain"),
                true);
    }

    /** A three-part multipart upload with user metadata. */
    static ObjectVersion multipartObject(int n, long modTime) {
        TreeMap<String, String> meta = new TreeMap<>();
        meta.put("x-amz-meta-owner", "backup-job-7");
        meta.put("content-type", "application/x-tar");
        meta.put("x-amz-meta-empty", "");
        meta.put("x-amz-meta-unicode", "Grüße ✓");
        long part = 5L * MIB;
        return new ObjectVersion(
                id(n),
                VersionType.OBJECT,
                modTime,
                dataDir(n),
                2 * part + 1234,
                6,
                2,
                MIB,
                new int[] {8, 1, 2, 3, 4, 5, 6, 7},
                1,
                List.of(
                        new PartInfo(1, part, md5Hex(n + 1)),
                        new PartInfo(2, part, md5Hex(n + 2)),
                        new PartInfo(3, 1234, md5Hex(n + 3))),
                md5Hex(n) + "-3",
                meta,
                false);
    }

    static ObjectVersion nullVersion(long modTime, long size) {
        ObjectVersion v = dataDirObject(0, modTime, size);
        return new ObjectVersion(
                ObjectVersion.NULL_VERSION_ID,
                v.type(),
                v.modTimeNanos(),
                v.dataDir(),
                v.size(),
                v.dataShards(),
                v.parityShards(),
                v.blockSize(),
                v.distribution(),
                v.bitrotAlgorithm(),
                v.parts(),
                v.etag(),
                v.metadata(),
                v.inline());
    }

    static byte[] shard(int n, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (n * 7 + i * 13);
        }
        return b;
    }
}
