package dev.appliance.core.meta;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Hand-written MessagePack encoder/decoder of one version body (no reflection on the hot path).
 *
 * <p>A body is a msgpack array of up to 9 positional fields; trailing fields equal to their default are omitted, so a
 * plain delete marker is the 1-byte empty array. Fields the header already holds (version id, mod time, type, EC
 * counts, inline flag) are not repeated. Decoders ignore extra trailing fields (room for minor versions).
 *
 * <pre>
 *  #  field            encoding                                   default
 *  0  dataDir          bin(16) raw UUID | nil                     nil
 *  1  size             int                                        0
 *  2  blockSize        int                                        0
 *  3  distribution     array of uint (1-based shard index)        []
 *  4  bitrotAlgorithm  uint                                       0
 *  5  etag             bin(16) if 32 lower-case hex | str | nil   nil
 *  6  parts            nil = one part {1, size, no etag};         []
 *                      else array of [number, size], [number, size, etag]
 *                      or [number, size, etag|nil, checksum] (since 1.1;
 *                      checksum bin raw value, or str when not canonical base64)
 *  7  metadata         map str -> str|nil, keys ascending         {}
 *  8  metaGeneration   uint (since 1.2): metadata updates since   0
 *                      the version was written
 * </pre>
 */
final class VersionBodyCodec {
    static final int FIELD_COUNT = 9;
    private static final HexFormat HEX = HexFormat.of();
    private static final MessagePack.PackerConfig PACKER = new MessagePack.PackerConfig().withBufferSize(256);

    private VersionBodyCodec() {}

    static byte[] encode(ObjectVersion v) {
        List<PartInfo> parts = v.parts();
        boolean implicitPart = parts.size() == 1
                && parts.get(0).number() == 1
                && parts.get(0).size() == v.size()
                && parts.get(0).etag() == null
                && parts.get(0).checksum() == null;
        Map<String, String> metadata = v.metadata();
        int[] dist = v.distribution();
        int fields;
        if (v.metaGeneration() != 0) {
            fields = 9;
        } else if (!metadata.isEmpty()) {
            fields = 8;
        } else if (!parts.isEmpty()) {
            fields = 7;
        } else if (v.etag() != null) {
            fields = 6;
        } else if (v.bitrotAlgorithm() != 0) {
            fields = 5;
        } else if (dist.length != 0) {
            fields = 4;
        } else if (v.blockSize() != 0) {
            fields = 3;
        } else if (v.size() != 0) {
            fields = 2;
        } else if (v.dataDir() != null) {
            fields = 1;
        } else {
            fields = 0;
        }
        try (MessageBufferPacker p = PACKER.newBufferPacker()) {
            p.packArrayHeader(fields);
            if (fields > 0) {
                packUuid(p, v.dataDir());
            }
            if (fields > 1) {
                p.packLong(v.size());
            }
            if (fields > 2) {
                p.packInt(v.blockSize());
            }
            if (fields > 3) {
                p.packArrayHeader(dist.length);
                for (int d : dist) {
                    p.packInt(d);
                }
            }
            if (fields > 4) {
                p.packInt(v.bitrotAlgorithm());
            }
            if (fields > 5) {
                packEtag(p, v.etag());
            }
            if (fields > 6) {
                if (implicitPart) {
                    p.packNil();
                } else {
                    p.packArrayHeader(parts.size());
                    for (PartInfo part : parts) {
                        p.packArrayHeader(part.checksum() != null ? 4 : part.etag() == null ? 2 : 3);
                        p.packInt(part.number());
                        p.packLong(part.size());
                        if (part.etag() != null || part.checksum() != null) {
                            packEtag(p, part.etag());
                        }
                        if (part.checksum() != null) {
                            packChecksum(p, part.checksum());
                        }
                    }
                }
            }
            if (fields > 7) {
                p.packMapHeader(metadata.size());
                for (Map.Entry<String, String> e : metadata.entrySet()) { // TreeMap: ascending keys
                    p.packString(e.getKey());
                    if (e.getValue() == null) {
                        p.packNil();
                    } else {
                        p.packString(e.getValue());
                    }
                }
            }
            if (fields > 8) {
                p.packLong(v.metaGeneration());
            }
            return p.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("in-memory msgpack encoding failed", e);
        }
    }

    /** Decodes the body at {@code buf[off, off+len)} of the version described by {@code h}. */
    static ObjectVersion decode(byte[] buf, int off, int len, VersionHeader h) throws CorruptMetaException {
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(buf, off, len)) {
            Reader r = new Reader(u, len);
            int fields = r.arrayHeader();
            UUID dataDir = fields > 0 ? r.uuidOrNil() : null;
            long size = fields > 1 ? r.u().unpackLong() : 0;
            int blockSize = fields > 2 ? r.u().unpackInt() : 0;
            int[] dist = new int[0];
            if (fields > 3) {
                dist = new int[r.arrayHeader()];
                for (int i = 0; i < dist.length; i++) {
                    dist[i] = r.u().unpackInt();
                }
            }
            int bitrot = fields > 4 ? r.u().unpackInt() : 0;
            String etag = fields > 5 ? r.etag() : null;
            List<PartInfo> parts = List.of();
            if (fields > 6) {
                if (u.tryUnpackNil()) {
                    parts = List.of(new PartInfo(1, size, null));
                } else {
                    int n = r.arrayHeader();
                    List<PartInfo> list = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        int pf = r.arrayHeader();
                        if (pf < 2) {
                            throw new CorruptMetaException("part " + i + " has " + pf + " fields (expected >= 2)");
                        }
                        int number = u.unpackInt();
                        long partSize = u.unpackLong();
                        String partEtag = pf > 2 ? r.etag() : null;
                        String partChecksum = pf > 3 ? r.checksum() : null;
                        for (int k = 4; k < pf; k++) {
                            u.skipValue();
                        }
                        list.add(new PartInfo(number, partSize, partEtag, partChecksum));
                    }
                    parts = list;
                }
            }
            TreeMap<String, String> metadata = new TreeMap<>();
            if (fields > 7) {
                int n = r.mapHeader();
                for (int i = 0; i < n; i++) {
                    String key = r.string();
                    String value = u.tryUnpackNil() ? null : r.string();
                    metadata.put(key, value);
                }
            }
            long metaGeneration = fields > 8 ? u.unpackLong() : 0;
            for (int k = FIELD_COUNT; k < fields; k++) {
                u.skipValue(); // written by a newer minor version
            }
            if (u.getTotalReadBytes() != len) {
                throw new CorruptMetaException(
                        "body has " + (len - u.getTotalReadBytes()) + " trailing bytes after its msgpack array");
            }
            if (((h.flags() & VersionHeader.FLAG_DATA_DIR) != 0) != (dataDir != null)) {
                throw new CorruptMetaException("header data-dir flag disagrees with the body's dataDir");
            }
            return new ObjectVersion(
                    h.versionId(),
                    h.type(),
                    h.modTimeNanos(),
                    dataDir,
                    size,
                    h.dataShards(),
                    h.parityShards(),
                    blockSize,
                    dist,
                    bitrot,
                    parts,
                    etag,
                    metadata,
                    h.inline(),
                    metaGeneration);
        } catch (CorruptMetaException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // msgpack-core type/format/EOF errors and the value types' own validation (IllegalArgumentException)
            throw new CorruptMetaException("version body is not valid: " + e, e);
        }
    }

    private static void packUuid(MessagePacker p, UUID id) throws IOException {
        if (id == null) {
            p.packNil();
            return;
        }
        byte[] b = new byte[16];
        XlMeta.putLong(b, 0, id.getMostSignificantBits());
        XlMeta.putLong(b, 8, id.getLeastSignificantBits());
        p.packBinaryHeader(16);
        p.writePayload(b);
    }

    private static void packEtag(MessagePacker p, String etag) throws IOException {
        if (etag == null) {
            p.packNil();
        } else if (isLowerHex32(etag)) {
            p.packBinaryHeader(16);
            p.writePayload(HEX.parseHex(etag));
        } else {
            p.packString(etag);
        }
    }

    /** A part checksum: its raw bytes when the value is canonical base64 (always, as written here), else the text. */
    private static void packChecksum(MessagePacker p, String checksum) throws IOException {
        byte[] raw = null;
        try {
            raw = Base64.getDecoder().decode(checksum);
        } catch (IllegalArgumentException e) {
            // kept as text below
        }
        if (raw != null
                && raw.length > 0
                && Base64.getEncoder().encodeToString(raw).equals(checksum)) {
            p.packBinaryHeader(raw.length);
            p.writePayload(raw);
        } else {
            p.packString(checksum);
        }
    }

    static boolean isLowerHex32(String s) {
        if (s.length() != 32) {
            return false;
        }
        for (int i = 0; i < 32; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** Bounds-checked reads: no count or length may exceed the bytes left in the body. */
    private record Reader(MessageUnpacker u, int len) {
        long remaining() {
            return len - u.getTotalReadBytes();
        }

        int arrayHeader() throws IOException, CorruptMetaException {
            return checkCount(u.unpackArrayHeader(), 1);
        }

        int mapHeader() throws IOException, CorruptMetaException {
            return checkCount(u.unpackMapHeader(), 2);
        }

        private int checkCount(int n, int minBytesEach) throws CorruptMetaException {
            if (n < 0 || (long) n * minBytesEach > remaining()) {
                throw new CorruptMetaException(
                        "body declares " + n + " elements but has " + remaining() + " bytes left");
            }
            return n;
        }

        byte[] payload(int n) throws IOException, CorruptMetaException {
            if (n < 0 || n > remaining()) {
                throw new CorruptMetaException("body declares " + n + " bytes but has " + remaining() + " left");
            }
            return u.readPayload(n);
        }

        UUID uuidOrNil() throws IOException, CorruptMetaException {
            if (u.tryUnpackNil()) {
                return null;
            }
            int n = u.unpackBinaryHeader();
            if (n != 16) {
                throw new CorruptMetaException("uuid of " + n + " bytes (expected 16)");
            }
            byte[] b = payload(16);
            return new UUID(XlMeta.getLong(b, 0), XlMeta.getLong(b, 8));
        }

        String string() throws IOException, CorruptMetaException {
            return new String(payload(u.unpackRawStringHeader()), StandardCharsets.UTF_8);
        }

        String checksum() throws IOException, CorruptMetaException {
            if (u.tryUnpackNil()) {
                return null;
            }
            MessageFormat f = u.getNextFormat();
            if (f.getValueType() == ValueType.BINARY) {
                int n = u.unpackBinaryHeader();
                if (n < 1 || n > 64) {
                    throw new CorruptMetaException("binary part checksum of " + n + " bytes (expected 1..64)");
                }
                return Base64.getEncoder().encodeToString(payload(n));
            }
            return string();
        }

        String etag() throws IOException, CorruptMetaException {
            if (u.tryUnpackNil()) {
                return null;
            }
            MessageFormat f = u.getNextFormat();
            if (f.getValueType() == ValueType.BINARY) {
                int n = u.unpackBinaryHeader();
                if (n != 16) {
                    throw new CorruptMetaException("binary etag of " + n + " bytes (expected 16)");
                }
                return HEX.formatHex(payload(16));
            }
            return string();
        }
    }
}
