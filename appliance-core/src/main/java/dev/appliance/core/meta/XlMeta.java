package dev.appliance.core.meta;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.msgpack.core.MessagePack;

/**
 * One drive's {@code xl.meta}: every version of one object key, newest first, plus this drive's inline shard data.
 * Immutable; mutations return a new instance. Full specification: {@code docs/formats/xl-meta.md}.
 *
 * <pre>
 * offset      width  content                                       (all integers big-endian)
 * +---------+------+-----------------------------------------------+
 * | 0       | 4    | magic "AXLM"                                  |
 * | 4       | 2    | major version (uint16) = 1                    |
 * | 6       | 2    | minor version (uint16) = 2                    |
 * | 8       | 5    | msgpack bin32 header: 0xC6, M (uint32)        |
 * | 13      | M    | metadata block:                               |
 * |         |      |   +0   5   msgpack uint32 0xCE, V (versions)  |
 * |         |      |   +5   5   msgpack uint32 0xCE, E (inline)    |
 * |         |      |   +10  36V version table, newest first        |
 * |         |      |   ...  20E inline table                       |
 * |         |      |   ...      bodies, in version-table order     |
 * | 13+M    | 5    | msgpack uint32 0xCE, CRC32C of [0, 23+36V+20E)|
 * | 18+M    | 5    | msgpack bin32 header: 0xC6, K (uint32)        |
 * | 23+M    | K    | inline payloads, in inline-table order        |
 * +---------+------+-----------------------------------------------+
 * version row (36): versionId 16 | modTimeNanos 8 | type 1 | flags 1 | dataShards 1 | parityShards 1
 *                   | bodyCrc32c 4 | bodyLength 4
 * inline row  (20): versionId 16 | payloadLength 4
 * </pre>
 *
 * <p>The file checksum covers the index only (framing, counts, both tables), so {@link #parse} costs one CRC32C pass
 * over 36 bytes per version and never touches bodies; each body is verified against its own CRC32C (in its row) when
 * {@link #version} decodes it. Bodies fill the body area exactly (checked on parse), so every metadata byte is covered
 * by one of the two. Inline payloads are opaque shard data that carry their own bitrot checksums; which version a
 * payload belongs to, and its bounds, are covered by the index checksum. Rows hold lengths, not offsets, so a row
 * does not depend on its position: mutations copy rows and bodies byte for byte.
 *
 * <p>{@link #parse} does not copy its argument: the caller must not modify the array afterwards.
 */
public final class XlMeta {
    /** Cap on {@link #inlineBytes()}: past it, new versions keep their data in part files. */
    public static final int MAX_INLINE_BYTES = 256 * 1024;

    static final int MAJOR_VERSION = 1;
    static final int MINOR_VERSION = 2;
    static final byte[] MAGIC = {'A', 'X', 'L', 'M'};

    static final int META_OFF = 13; // start of the metadata block
    static final int TABLE_OFF = META_OFF + 10; // start of the version table
    static final int ROW = 36;
    static final int INLINE_ROW = 20;
    static final int TRAILER = 10; // checksum token + inline bin32 header
    static final int MIN_FILE = TABLE_OFF + TRAILER;

    // row field offsets
    static final int R_ID = 0;
    static final int R_MOD_TIME = 16;
    static final int R_TYPE = 24;
    static final int R_FLAGS = 25;
    static final int R_DATA = 26;
    static final int R_PARITY = 27;
    static final int R_CRC = 28;
    static final int R_LEN = 32;

    private static final int KNOWN_FLAGS = VersionHeader.FLAG_INLINE | VersionHeader.FLAG_DATA_DIR;
    private static final byte BIN32 = MessagePack.Code.BIN32;
    private static final byte UINT32 = MessagePack.Code.UINT32;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final XlMeta EMPTY = emptyFile();

    private final byte[] buf;
    private final int count;
    /** Absolute offset of body i; {@code bodyOff[count]} is the end of the body area (= 13 + M). */
    private final int[] bodyOff;

    private final int inlineCount;
    private final int inlineTableOff;
    /** Absolute offset of inline payload i; {@code inlineOff[inlineCount]} is the end of the file. */
    private final int[] inlineOff;

    private XlMeta(byte[] buf, int count, int[] bodyOff, int inlineCount, int[] inlineOff) {
        this.buf = buf;
        this.count = count;
        this.bodyOff = bodyOff;
        this.inlineCount = inlineCount;
        this.inlineTableOff = TABLE_OFF + count * ROW;
        this.inlineOff = inlineOff;
    }

    public static XlMeta empty() {
        return EMPTY;
    }

    /**
     * Validates framing and the index checksum; decodes headers lazily/cheaply, bodies only on demand. Throws {@link
     * CorruptMetaException} on bad magic, unsupported major version, truncation, out-of-bounds counts or lengths,
     * versions out of order, or checksum mismatch. Never throws anything else, for any input.
     */
    public static XlMeta parse(byte[] bytes) throws CorruptMetaException {
        if (bytes == null) {
            throw new CorruptMetaException("xl.meta: no bytes");
        }
        int n = bytes.length;
        for (int i = 0; i < Math.min(n, MAGIC.length); i++) {
            if (bytes[i] != MAGIC[i]) {
                throw new CorruptMetaException("xl.meta: bad magic (not an xl.meta file of this appliance)");
            }
        }
        if (n < 8) {
            throw new CorruptMetaException("xl.meta: truncated at " + n + " bytes (no version field)");
        }
        int major = u16(bytes, 4);
        if (major != MAJOR_VERSION) {
            bytes = XlMetaMigrations.toCurrent(major, bytes);
            n = bytes.length;
        }
        if (n < MIN_FILE) {
            throw new CorruptMetaException("xl.meta: truncated at " + n + " bytes (minimum " + MIN_FILE + ")");
        }
        expectToken(bytes, 8, BIN32, "metadata block header");
        long m = u32(bytes, 9);
        if (META_OFF + m + TRAILER > n) {
            throw new CorruptMetaException(
                    "xl.meta: metadata block of " + m + " bytes does not fit in a file of " + n + " bytes (truncated)");
        }
        int metaEnd = META_OFF + (int) m;
        expectToken(bytes, META_OFF, UINT32, "version count");
        expectToken(bytes, META_OFF + 5, UINT32, "inline entry count");
        long v = u32(bytes, META_OFF + 1);
        long e = u32(bytes, META_OFF + 6);
        long indexEnd = TABLE_OFF + v * ROW + e * INLINE_ROW;
        if (indexEnd > metaEnd) {
            throw new CorruptMetaException("xl.meta: " + v + " versions and " + e
                    + " inline entries do not fit in a metadata block of " + m + " bytes");
        }
        expectToken(bytes, metaEnd, UINT32, "index checksum");
        int stored = getInt(bytes, metaEnd + 1);
        int actual = crc32c(bytes, 0, (int) indexEnd);
        if (stored != actual) {
            throw new CorruptMetaException("xl.meta: index checksum mismatch (stored " + Integer.toHexString(stored)
                    + ", computed " + Integer.toHexString(actual) + ")");
        }
        expectToken(bytes, metaEnd + 5, BIN32, "inline section header");
        long k = u32(bytes, metaEnd + 6);
        if (metaEnd + TRAILER + k != n) {
            throw new CorruptMetaException("xl.meta: inline section declares " + k + " bytes but the file has "
                    + (n - metaEnd - TRAILER) + " after the index (truncated or trailing garbage)");
        }
        return index(bytes, (int) v, (int) e, metaEnd, true);
    }

    /** Walks the (checksummed or freshly written) tables: validates them and computes body/payload offsets. */
    private static XlMeta index(byte[] b, int v, int e, int metaEnd, boolean validate) throws CorruptMetaException {
        int[] bodyOff = new int[v + 1];
        long pos = TABLE_OFF + (long) v * ROW + (long) e * INLINE_ROW;
        int row = TABLE_OFF;
        for (int i = 0; i < v; i++, row += ROW) {
            bodyOff[i] = (int) pos;
            pos += Integer.toUnsignedLong(getInt(b, row + R_LEN));
            if (validate) {
                if (pos > metaEnd) {
                    throw new CorruptMetaException("xl.meta: body of version " + i + " runs past the metadata block");
                }
                int type = b[row + R_TYPE];
                if (type != VersionType.OBJECT.id() && type != VersionType.DELETE_MARKER.id()) {
                    throw new CorruptMetaException("xl.meta: version " + i + " has unknown type " + type);
                }
                if ((b[row + R_FLAGS] & ~KNOWN_FLAGS) != 0) {
                    throw new CorruptMetaException(
                            "xl.meta: version " + i + " has unknown flags " + (b[row + R_FLAGS] & 0xFF));
                }
                if (i > 0 && compareRows(b, row - ROW, b, row) >= 0) {
                    throw new CorruptMetaException("xl.meta: version " + i + " is out of order (newest first)");
                }
            }
        }
        bodyOff[v] = (int) pos;
        if (validate && pos != metaEnd) {
            throw new CorruptMetaException(
                    "xl.meta: bodies end at " + pos + " but the metadata block ends at " + metaEnd);
        }
        int[] inlineOff = new int[e + 1];
        long ipos = metaEnd + TRAILER;
        int irow = TABLE_OFF + v * ROW;
        for (int i = 0; i < e; i++, irow += INLINE_ROW) {
            inlineOff[i] = (int) ipos;
            ipos += Integer.toUnsignedLong(getInt(b, irow + 16));
            if (validate && ipos > b.length) {
                throw new CorruptMetaException("xl.meta: inline payload " + i + " runs past the end of the file");
            }
        }
        inlineOff[e] = (int) ipos;
        if (validate && ipos != b.length) {
            throw new CorruptMetaException(
                    "xl.meta: inline payloads end at " + ipos + " but the file ends at " + b.length);
        }
        return new XlMeta(b, v, bodyOff, e, inlineOff);
    }

    public int versionCount() {
        return count;
    }

    /** The header of version {@code index} (0 = newest), decoded from its fixed-width row in O(1). */
    public VersionHeader header(int index) {
        int r = rowOff(index);
        return new VersionHeader(
                new UUID(getLong(buf, r), getLong(buf, r + 8)),
                getLong(buf, r + R_MOD_TIME),
                buf[r + R_TYPE] == 1 ? VersionType.OBJECT : VersionType.DELETE_MARKER,
                buf[r + R_FLAGS] & 0xFF,
                buf[r + R_DATA] & 0xFF,
                buf[r + R_PARITY] & 0xFF,
                getInt(buf, r + R_CRC));
    }

    /** All headers, newest first: a lazy view decoding rows on access. */
    public List<VersionHeader> headers() {
        return new Headers();
    }

    /** Position of {@code versionId} (a scan of the version table comparing 16 bytes per row), or -1. */
    public int indexOf(UUID versionId) {
        return findId(buf, TABLE_OFF, ROW, count, versionId);
    }

    /** Index of the row of {@code rows} rows of {@code rowSize} bytes from {@code tableOff} that starts with the id. */
    private static int findId(byte[] b, int tableOff, int rowSize, int rows, UUID id) {
        long msb = id.getMostSignificantBits();
        long lsb = id.getLeastSignificantBits();
        for (int i = 0, r = tableOff; i < rows; i++, r += rowSize) {
            if (getLong(b, r + 8) == lsb && getLong(b, r) == msb) {
                return i;
            }
        }
        return -1;
    }

    /** Decodes one body, verifying its checksum (CorruptMetaException on mismatch). */
    public ObjectVersion version(int index) throws CorruptMetaException {
        int r = rowOff(index);
        int off = bodyOff[index];
        int len = bodyOff[index + 1] - off;
        int stored = getInt(buf, r + R_CRC);
        int actual = crc32c(buf, off, len);
        if (stored != actual) {
            throw new CorruptMetaException("xl.meta: body checksum mismatch for version " + index + " (stored "
                    + Integer.toHexString(stored) + ", computed " + Integer.toHexString(actual) + ")");
        }
        return VersionBodyCodec.decode(buf, off, len, header(index));
    }

    /** The serialized body of version {@code index} (a copy), as stored and as covered by its body checksum. */
    public byte[] rawBody(int index) {
        rowOff(index);
        return Arrays.copyOfRange(buf, bodyOff[index], bodyOff[index + 1]);
    }

    /** This drive's inline shard bytes for that version (a copy), or null. */
    public byte[] inlineData(UUID versionId) {
        int i = inlineIndexOf(versionId);
        return i < 0 ? null : Arrays.copyOfRange(buf, inlineOff[i], inlineOff[i + 1]);
    }

    /** Total payload bytes in the inline section (the quantity {@link #MAX_INLINE_BYTES} caps). */
    public long inlineBytes() {
        return inlineOff[inlineCount] - inlineOff[0];
    }

    /** Number of inline entries. */
    public int inlineCount() {
        return inlineCount;
    }

    /**
     * Returns a new XlMeta with {@code version} added, or replacing the version with the same id; {@code inlineShard}
     * (nullable) is stored in the inline section keyed by version id, replacing or removing any old inline entry of
     * that id. Untouched versions' serialized bodies are copied byte for byte, never re-encoded. Versions stay sorted
     * newest first (modTime desc; ties: type id asc, then versionId bytes desc).
     *
     * @throws IllegalArgumentException if the inline section would exceed {@link #MAX_INLINE_BYTES}, the EC counts do
     *     not fit a byte, or the file would exceed 2 GiB
     */
    public XlMeta withVersion(ObjectVersion version, byte[] inlineShard) {
        byte[] body = VersionBodyCodec.encode(version);
        byte[] row = row(version, body);
        UUID id = version.versionId();
        int removed = indexOf(id);
        // insertion point among the remaining rows: first row the new one sorts before
        int remaining = count - (removed >= 0 ? 1 : 0);
        int lo = 0;
        int hi = remaining;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int old = removed >= 0 && mid >= removed ? mid + 1 : mid;
            if (compareRows(row, 0, buf, TABLE_OFF + old * ROW) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return rebuild(removed, lo, row, body, id, inlineShard, true);
    }

    /**
     * Builds a file holding {@code versions} (ids must be distinct; no inline entries) in one pass, sorted newest
     * first. For tests, benchmarks and rebuilding a drive's file from scratch.
     */
    static XlMeta of(List<ObjectVersion> versions) {
        int v = versions.size();
        byte[][] rows = new byte[v][];
        byte[][] bodies = new byte[v][];
        Integer[] order = new Integer[v];
        long bodyBytes = 0;
        for (int i = 0; i < v; i++) {
            bodies[i] = VersionBodyCodec.encode(versions.get(i));
            rows[i] = row(versions.get(i), bodies[i]);
            order[i] = i;
            bodyBytes += bodies[i].length;
        }
        Arrays.sort(order, (a, b) -> compareRows(rows[a], 0, rows[b], 0));
        long indexEnd = TABLE_OFF + (long) v * ROW;
        if (indexEnd + bodyBytes + TRAILER > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("xl.meta: " + v + " versions do not fit one file");
        }
        int metaEnd = (int) (indexEnd + bodyBytes);
        byte[] out = new byte[metaEnd + TRAILER];
        writeFraming(out, metaEnd - META_OFF, v, 0);
        int rowPos = TABLE_OFF;
        int bodyPos = (int) indexEnd;
        for (int i : order) {
            System.arraycopy(rows[i], 0, out, rowPos, ROW);
            System.arraycopy(bodies[i], 0, out, bodyPos, bodies[i].length);
            rowPos += ROW;
            bodyPos += bodies[i].length;
        }
        writeTrailer(out, metaEnd, (int) indexEnd, 0);
        try {
            return index(out, v, 0, metaEnd, false);
        } catch (CorruptMetaException ex) {
            throw new IllegalStateException(ex); // not reachable: validation is off
        }
    }

    /** One version of a file, picked for {@link #assemble}. */
    public record Pick(XlMeta file, int index) {}

    /**
     * Builds a file from versions picked from other files (the engine moves a key's older versions between
     * {@code xl.meta} and its archive this way), copying rows, bodies and inline payloads byte for byte, sorted newest
     * first. Ids must be distinct. The inline cap is not checked: versions move between files, no data is added.
     */
    public static XlMeta assemble(List<Pick> picks) {
        Pick[] order = picks.toArray(new Pick[0]);
        Arrays.sort(
                order, (a, b) -> compareRows(a.file.buf, a.file.rowOff(a.index), b.file.buf, b.file.rowOff(b.index)));
        int v = order.length;
        int[] inlineOf = new int[v];
        int e = 0;
        long bodyBytes = 0;
        long payloadBytes = 0;
        for (int i = 0; i < v; i++) {
            Pick p = order[i];
            bodyBytes += p.file.bodyOff[p.index + 1] - p.file.bodyOff[p.index];
            inlineOf[i] = p.file.inlineIndexOf(p.file.header(p.index).versionId());
            if (inlineOf[i] >= 0) {
                e++;
                payloadBytes += p.file.inlineOff[inlineOf[i] + 1] - p.file.inlineOff[inlineOf[i]];
            }
        }
        long indexEnd = TABLE_OFF + (long) v * ROW + (long) e * INLINE_ROW;
        byte[] out = newFile(v, e, indexEnd, bodyBytes, payloadBytes);
        int metaEnd = (int) (indexEnd + bodyBytes);
        int rowPos = TABLE_OFF;
        int bodyPos = TABLE_OFF + v * ROW + e * INLINE_ROW;
        for (Pick p : order) {
            System.arraycopy(p.file.buf, p.file.rowOff(p.index), out, rowPos, ROW);
            int len = p.file.bodyOff[p.index + 1] - p.file.bodyOff[p.index];
            System.arraycopy(p.file.buf, p.file.bodyOff[p.index], out, bodyPos, len);
            rowPos += ROW;
            bodyPos += len;
        }
        int payloadPos = metaEnd + TRAILER;
        for (int i = 0; i < v; i++) {
            if (inlineOf[i] < 0) {
                continue;
            }
            XlMeta f = order[i].file;
            int j = inlineOf[i];
            System.arraycopy(f.buf, f.inlineTableOff + j * INLINE_ROW, out, rowPos, INLINE_ROW);
            rowPos += INLINE_ROW;
            int len = f.inlineOff[j + 1] - f.inlineOff[j];
            System.arraycopy(f.buf, f.inlineOff[j], out, payloadPos, len);
            payloadPos += len;
        }
        writeTrailer(out, metaEnd, (int) indexEnd, (int) payloadBytes);
        try {
            return index(out, v, e, metaEnd, false);
        } catch (CorruptMetaException ex) {
            throw new IllegalStateException(ex); // not reachable: validation is off
        }
    }

    /** Bytes of a file's prefix that {@link #versionCountOf} needs. */
    public static final int COUNT_PREFIX = TABLE_OFF;

    /**
     * The version count recorded in a file's first {@link #COUNT_PREFIX} bytes, without reading or verifying the rest
     * (for cheap limits such as the cap on versions per key); -1 when the prefix is not an xl.meta of this version.
     */
    public static int versionCountOf(byte[] prefix) {
        if (prefix == null || prefix.length < COUNT_PREFIX) {
            return -1;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (prefix[i] != MAGIC[i]) {
                return -1;
            }
        }
        if (u16(prefix, 4) != MAJOR_VERSION || prefix[META_OFF] != UINT32) {
            return -1;
        }
        long v = u32(prefix, META_OFF + 1);
        return v > Integer.MAX_VALUE ? -1 : (int) v;
    }

    private static byte[] row(ObjectVersion version, byte[] body) {
        if (version.dataShards() < 0
                || version.dataShards() > 255
                || version.parityShards() < 0
                || version.parityShards() > 255) {
            throw new IllegalArgumentException("erasure counts " + version.dataShards() + "+" + version.parityShards()
                    + " do not fit xl.meta (0..255 each)");
        }
        byte[] row = new byte[ROW];
        UUID id = version.versionId();
        putLong(row, R_ID, id.getMostSignificantBits());
        putLong(row, R_ID + 8, id.getLeastSignificantBits());
        putLong(row, R_MOD_TIME, version.modTimeNanos());
        row[R_TYPE] = (byte) version.type().id();
        row[R_FLAGS] = (byte) ((version.inline() ? VersionHeader.FLAG_INLINE : 0)
                | (version.dataDir() != null ? VersionHeader.FLAG_DATA_DIR : 0));
        row[R_DATA] = (byte) version.dataShards();
        row[R_PARITY] = (byte) version.parityShards();
        putInt(row, R_CRC, crc32c(body, 0, body.length));
        putInt(row, R_LEN, body.length);
        return row;
    }

    /** Returns a new XlMeta without that version and its inline entry; {@code this} if neither exists. */
    public XlMeta withoutVersion(UUID versionId) {
        int removed = indexOf(versionId);
        if (removed < 0 && inlineIndexOf(versionId) < 0) {
            return this;
        }
        return rebuild(removed, -1, null, null, versionId, null, false);
    }

    /** The file's bytes (a copy). */
    public byte[] toBytes() {
        return buf.clone();
    }

    /**
     * A read-only view of the file's bytes without copying, for writing the file out (e.g. {@code
     * FileChannel.write}); {@link #toBytes()} copies.
     */
    public ByteBuffer asReadOnlyBuffer() {
        return ByteBuffer.wrap(buf).asReadOnlyBuffer();
    }

    /** Size of the file {@link #toBytes()} returns. */
    public int byteSize() {
        return buf.length;
    }

    /**
     * Writes a new file: the version table minus row {@code removed} (if >= 0) with {@code newRow} inserted at {@code
     * insertAt} of the remaining rows (if not null), bodies likewise; inline entries of {@code id} dropped and {@code
     * newPayload} added first when {@code addInline}.
     */
    private XlMeta rebuild(
            int removed, int insertAt, byte[] newRow, byte[] newBody, UUID id, byte[] newPayload, boolean addInline) {
        long msb = id.getMostSignificantBits();
        long lsb = id.getLeastSignificantBits();
        // inline entries kept
        int[] keep = new int[inlineCount];
        int kept = 0;
        long payloadBytes = 0;
        for (int i = 0, r = inlineTableOff; i < inlineCount; i++, r += INLINE_ROW) {
            if (!(getLong(buf, r) == msb && getLong(buf, r + 8) == lsb)) {
                keep[kept++] = i;
                payloadBytes += inlineOff[i + 1] - inlineOff[i];
            }
        }
        boolean withPayload = addInline && newPayload != null;
        if (withPayload) {
            payloadBytes += newPayload.length;
            if (payloadBytes > MAX_INLINE_BYTES) {
                throw new IllegalArgumentException("xl.meta: inline section would hold " + payloadBytes
                        + " bytes, over the cap of " + MAX_INLINE_BYTES + ": keep this version's data in part files");
            }
        }
        int v = count - (removed >= 0 ? 1 : 0) + (newRow != null ? 1 : 0);
        int e = kept + (withPayload ? 1 : 0);
        long bodyBytes = (bodyOff[count] - bodyOff[0])
                - (removed >= 0 ? bodyOff[removed + 1] - bodyOff[removed] : 0)
                + (newBody != null ? newBody.length : 0);
        long indexEnd = TABLE_OFF + (long) v * ROW + (long) e * INLINE_ROW;
        byte[] out = newFile(v, e, indexEnd, bodyBytes, payloadBytes);
        int metaEnd = (int) (indexEnd + bodyBytes);

        // version table and bodies: [0, insertAt) of the remaining, the new one, [insertAt, remaining)
        int rowPos = TABLE_OFF;
        int bodyPos = (int) indexEnd;
        int remaining = count - (removed >= 0 ? 1 : 0);
        int split = newRow != null ? insertAt : remaining;
        int[] pos = copyRemaining(out, rowPos, bodyPos, removed, 0, split);
        rowPos = pos[0];
        bodyPos = pos[1];
        if (newRow != null) {
            System.arraycopy(newRow, 0, out, rowPos, ROW);
            System.arraycopy(newBody, 0, out, bodyPos, newBody.length);
            rowPos += ROW;
            bodyPos += newBody.length;
            pos = copyRemaining(out, rowPos, bodyPos, removed, split, remaining);
            rowPos = pos[0];
        }

        // inline table and payloads: the new entry first, then the kept ones in their order
        int payloadPos = metaEnd + TRAILER;
        if (withPayload) {
            putLong(out, rowPos, msb);
            putLong(out, rowPos + 8, lsb);
            putInt(out, rowPos + 16, newPayload.length);
            rowPos += INLINE_ROW;
            System.arraycopy(newPayload, 0, out, payloadPos, newPayload.length);
            payloadPos += newPayload.length;
        }
        for (int j = 0; j < kept; j++) {
            int i = keep[j];
            System.arraycopy(buf, inlineTableOff + i * INLINE_ROW, out, rowPos, INLINE_ROW);
            rowPos += INLINE_ROW;
            int len = inlineOff[i + 1] - inlineOff[i];
            System.arraycopy(buf, inlineOff[i], out, payloadPos, len);
            payloadPos += len;
        }
        writeTrailer(out, metaEnd, (int) indexEnd, (int) payloadBytes);
        try {
            return index(out, v, e, metaEnd, false);
        } catch (CorruptMetaException ex) {
            throw new IllegalStateException(ex); // not reachable: validation is off
        }
    }

    /**
     * Copies the rows and bodies of remaining indices [from, to) (remaining = old rows without {@code removed}) to
     * {@code out}; returns the new row and body positions.
     */
    private int[] copyRemaining(byte[] out, int rowPos, int bodyPos, int removed, int from, int to) {
        if (from >= to) {
            return new int[] {rowPos, bodyPos};
        }
        int a = removed >= 0 && from >= removed ? from + 1 : from; // old index of `from`
        int b = removed >= 0 && to > removed ? to + 1 : to; // old exclusive end
        if (removed >= a && removed < b) {
            int[] p = copyOld(out, rowPos, bodyPos, a, removed);
            return copyOld(out, p[0], p[1], removed + 1, b);
        }
        return copyOld(out, rowPos, bodyPos, a, b);
    }

    private int[] copyOld(byte[] out, int rowPos, int bodyPos, int a, int b) {
        int rows = (b - a) * ROW;
        System.arraycopy(buf, TABLE_OFF + a * ROW, out, rowPos, rows);
        int bodies = bodyOff[b] - bodyOff[a];
        System.arraycopy(buf, bodyOff[a], out, bodyPos, bodies);
        return new int[] {rowPos + rows, bodyPos + bodies};
    }

    /** A zeroed file of the given shape with its framing written; refuses files over 2 GiB. */
    private static byte[] newFile(int v, int e, long indexEnd, long bodyBytes, long payloadBytes) {
        long total = indexEnd + bodyBytes + TRAILER + payloadBytes;
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("xl.meta: would grow to " + total + " bytes");
        }
        byte[] out = new byte[(int) total];
        writeFraming(out, (int) (indexEnd + bodyBytes) - META_OFF, v, e);
        return out;
    }

    private static void writeFraming(byte[] out, int metaLen, int v, int e) {
        System.arraycopy(MAGIC, 0, out, 0, MAGIC.length);
        SHORT.set(out, 4, (short) MAJOR_VERSION);
        SHORT.set(out, 6, (short) MINOR_VERSION);
        out[8] = BIN32;
        putInt(out, 9, metaLen);
        out[META_OFF] = UINT32;
        putInt(out, META_OFF + 1, v);
        out[META_OFF + 5] = UINT32;
        putInt(out, META_OFF + 6, e);
    }

    private static void writeTrailer(byte[] out, int metaEnd, int indexEnd, int payloadBytes) {
        out[metaEnd] = UINT32;
        putInt(out, metaEnd + 1, crc32c(out, 0, indexEnd));
        out[metaEnd + 5] = BIN32;
        putInt(out, metaEnd + 6, payloadBytes);
    }

    private static XlMeta emptyFile() {
        byte[] out = new byte[MIN_FILE];
        writeFraming(out, TABLE_OFF - META_OFF, 0, 0);
        writeTrailer(out, TABLE_OFF, TABLE_OFF, 0);
        return new XlMeta(out, 0, new int[] {TABLE_OFF}, 0, new int[] {MIN_FILE});
    }

    private int inlineIndexOf(UUID versionId) {
        return findId(buf, inlineTableOff, INLINE_ROW, inlineCount, versionId);
    }

    private int rowOff(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("version index " + index + " (count " + count + ")");
        }
        return TABLE_OFF + index * ROW;
    }

    /** Sort order of two rows: negative when row {@code a} is newer (sorts first). */
    static int compareRows(byte[] ab, int a, byte[] bb, int b) {
        long ta = getLong(ab, a + R_MOD_TIME);
        long tb = getLong(bb, b + R_MOD_TIME);
        if (ta != tb) {
            return ta > tb ? -1 : 1;
        }
        int ya = ab[a + R_TYPE] & 0xFF;
        int yb = bb[b + R_TYPE] & 0xFF;
        if (ya != yb) {
            return ya < yb ? -1 : 1;
        }
        int c = Long.compareUnsigned(getLong(bb, b), getLong(ab, a));
        return c != 0 ? c : Long.compareUnsigned(getLong(bb, b + 8), getLong(ab, a + 8));
    }

    private static void expectToken(byte[] b, int off, byte token, String what) throws CorruptMetaException {
        if (b[off] != token) {
            throw new CorruptMetaException("xl.meta: " + what + " at offset " + off + " is 0x"
                    + Integer.toHexString(b[off] & 0xFF) + " (expected msgpack 0x" + Integer.toHexString(token & 0xFF)
                    + ")");
        }
    }

    static int crc32c(byte[] b, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }

    static long getLong(byte[] b, int off) {
        return (long) LONG.get(b, off);
    }

    static void putLong(byte[] b, int off, long v) {
        LONG.set(b, off, v);
    }

    static int getInt(byte[] b, int off) {
        return (int) INT.get(b, off);
    }

    static void putInt(byte[] b, int off, int v) {
        INT.set(b, off, v);
    }

    private static long u32(byte[] b, int off) {
        return Integer.toUnsignedLong(getInt(b, off));
    }

    private static int u16(byte[] b, int off) {
        return Short.toUnsignedInt((short) SHORT.get(b, off));
    }

    private final class Headers extends AbstractList<VersionHeader> implements RandomAccess {
        @Override
        public VersionHeader get(int index) {
            return header(index);
        }

        @Override
        public int size() {
            return count;
        }
    }

    @Override
    public String toString() {
        return "XlMeta[" + count + " versions, " + inlineCount + " inline entries, " + buf.length + " bytes]";
    }
}
