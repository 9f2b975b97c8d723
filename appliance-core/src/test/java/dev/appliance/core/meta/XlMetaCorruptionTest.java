package dev.appliance.core.meta;

import static dev.appliance.core.meta.XlMetaFixtures.T0;
import static dev.appliance.core.meta.XlMetaFixtures.dataDirObject;
import static dev.appliance.core.meta.XlMetaFixtures.id;
import static dev.appliance.core.meta.XlMetaFixtures.inlineObject;
import static dev.appliance.core.meta.XlMetaFixtures.multipartObject;
import static dev.appliance.core.meta.XlMetaFixtures.shard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Damaged files: every single-byte flip, every truncation, and seeded random damage (including damage whose checksums
 * were recomputed, as a fuzzer or an attacker would) must end in correct data or {@link CorruptMetaException}.
 */
class XlMetaCorruptionTest {
    private static final XlMeta SMALL = XlMeta.empty()
            .withVersion(inlineObject(1, T0 + 1, 3000), shard(1, 40))
            .withVersion(multipartObject(2, T0 + 2), null)
            .withVersion(ObjectVersion.deleteMarker(id(3), T0 + 3), null)
            .withVersion(dataDirObject(4, T0 + 4, 99), null);
    private static final byte[] GOOD = SMALL.toBytes();

    @Test
    void parse_whenMagicIsWrong_throwsCorruptMetaNamingTheMagic() {
        byte[] b = GOOD.clone();
        b[0] = 'X';
        assertThatThrownBy(() -> XlMeta.parse(b))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("magic");
    }

    @Test
    void parse_whenMajorVersionIsNewer_throwsCorruptMetaSayingSo() {
        byte[] b = GOOD.clone();
        b[5] = 2;
        assertThatThrownBy(() -> XlMeta.parse(b))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("major version 2 is newer");
        b[5] = 0;
        assertThatThrownBy(() -> XlMeta.parse(b))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("major version 0 is not supported");
    }

    @Test
    void parse_whenMinorVersionIsNewer_readsTheFile() throws Exception {
        byte[] b = GOOD.clone();
        b[7] = 9;
        fixIndexChecksum(b); // the version field is inside the checksummed index
        assertThat(XlMeta.parse(b).version(1)).isEqualTo(SMALL.version(1));
    }

    @Test
    void parse_whenChecksumMismatch_throwsCorruptMeta() {
        byte[] b = GOOD.clone();
        b[XlMeta.TABLE_OFF + XlMeta.R_MOD_TIME + 7] ^= 1; // newest version's mod time
        assertThatThrownBy(() -> XlMeta.parse(b))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("index checksum mismatch");
    }

    @Test
    void version_whenBodyChecksumMismatch_throwsCorruptMetaButOtherVersionsStillRead() throws Exception {
        byte[] b = GOOD.clone();
        int body2 = bodyOffset(b, 2); // the multipart upload
        b[body2 + 3] ^= 0x10;
        XlMeta meta = XlMeta.parse(b); // the index is intact
        assertThatThrownBy(() -> meta.version(2))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("body checksum mismatch for version 2");
        assertThat(meta.version(0)).isEqualTo(SMALL.version(0));
        assertThat(meta.version(1)).isEqualTo(SMALL.version(1));
        assertThat(meta.version(3)).isEqualTo(SMALL.version(3));
    }

    @Test
    void parse_whenTruncatedAtAnyLength_throwsCorruptMeta() {
        for (int len = 0; len < GOOD.length; len++) {
            byte[] b = Arrays.copyOf(GOOD, len);
            int at = len;
            assertThatThrownBy(() -> XlMeta.parse(b))
                    .as("truncated to %d bytes", at)
                    .isInstanceOf(CorruptMetaException.class);
        }
        byte[] longer = Arrays.copyOf(GOOD, GOOD.length + 1);
        assertThatThrownBy(() -> XlMeta.parse(longer)).isInstanceOf(CorruptMetaException.class);
    }

    @Test
    void anySingleByteFlip_outsideInlinePayloads_isDetected_andInsideThemChangesOnlyThePayload() throws Exception {
        int payloadStart = GOOD.length - (int) SMALL.inlineBytes();
        for (int pos = 0; pos < GOOD.length; pos++) {
            for (int mask : new int[] {0x01, 0x80, 0xFF}) {
                byte[] b = GOOD.clone();
                b[pos] ^= (byte) mask;
                boolean detected = !readsBackCorrectlyOrThrowsCorrupt(b, pos);
                if (pos < payloadStart) {
                    assertThat(detected)
                            .as("flip 0x%02x at %d undetected", mask, pos)
                            .isTrue();
                } else {
                    assertThat(detected).isFalse();
                    assertThat(XlMeta.parse(b).inlineData(id(1))).isNotEqualTo(shard(1, 40));
                }
            }
        }
    }

    @Test
    void randomDamage_withAndWithoutRecomputedChecksums_onlyEverThrowsCorruptMeta() {
        SplittableRandom rnd = new SplittableRandom(20260101);
        for (int round = 0; round < 20_000; round++) {
            byte[] b = GOOD.clone();
            int flips = 1 + rnd.nextInt(6);
            for (int f = 0; f < flips; f++) {
                b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
            }
            if (rnd.nextInt(4) == 0) {
                b = Arrays.copyOf(b, rnd.nextInt(b.length + 8));
            }
            int mode = rnd.nextInt(3);
            if (mode >= 1) {
                fixBodyChecksums(b);
            }
            if (mode >= 1) {
                fixIndexChecksum(b);
            }
            exerciseAll(b, round);
        }
        // pure garbage behind a valid magic
        for (int round = 0; round < 2_000; round++) {
            byte[] b = new byte[rnd.nextInt(200)];
            rnd.nextBytes(b);
            System.arraycopy(XlMeta.MAGIC, 0, b, 0, Math.min(4, b.length));
            if (b.length > 6) {
                b[4] = 0;
                b[5] = 1;
            }
            exerciseAll(b, round);
        }
    }

    @Test
    void parse_whenCountsClaimMoreThanTheFileHolds_throwsWithoutAllocatingForThem() {
        byte[] b = GOOD.clone();
        XlMeta.putInt(b, XlMeta.META_OFF + 1, Integer.MAX_VALUE); // version count
        fixIndexChecksumAt(b, XlMeta.TABLE_OFF); // keep the checksum from hiding the count check
        assertThatThrownBy(() -> XlMeta.parse(b))
                .isInstanceOf(CorruptMetaException.class)
                .hasMessageContaining("do not fit");
    }

    /** True when parse and every read give the original answers; false when a CorruptMetaException said no. */
    private static boolean readsBackCorrectlyOrThrowsCorrupt(byte[] b, int pos) {
        try {
            XlMeta meta = XlMeta.parse(b);
            assertThat(meta.versionCount()).isEqualTo(SMALL.versionCount());
            for (int i = 0; i < meta.versionCount(); i++) {
                assertThat(meta.header(i)).isEqualTo(SMALL.header(i));
                assertThat(meta.version(i)).as("flip at %d", pos).isEqualTo(SMALL.version(i));
            }
            return true;
        } catch (CorruptMetaException e) {
            assertThat(e.getMessage()).isNotBlank();
            return false;
        } catch (RuntimeException e) {
            throw new AssertionError("flip at " + pos + " threw " + e, e);
        }
    }

    private static void exerciseAll(byte[] b, int round) {
        try {
            XlMeta meta = XlMeta.parse(b);
            meta.headers().forEach(h -> meta.inlineData(h.versionId()));
            for (int i = 0; i < meta.versionCount(); i++) {
                try {
                    meta.version(i);
                } catch (CorruptMetaException expected) {
                    // fine
                }
            }
            meta.inlineBytes();
            XlMeta.parse(meta.withVersion(dataDirObject(50, T0, 1), null).toBytes());
        } catch (CorruptMetaException expected) {
            // fine
        } catch (RuntimeException | Error e) {
            fail(
                    "round " + round + ": " + e + " for "
                            + java.util.HexFormat.of().formatHex(b),
                    e);
        }
    }

    private static int bodyOffset(byte[] b, int index) {
        int v = XlMeta.getInt(b, XlMeta.META_OFF + 1);
        int e = XlMeta.getInt(b, XlMeta.META_OFF + 6);
        int off = XlMeta.TABLE_OFF + v * XlMeta.ROW + e * XlMeta.INLINE_ROW;
        for (int i = 0; i < index; i++) {
            off += XlMeta.getInt(b, XlMeta.TABLE_OFF + i * XlMeta.ROW + XlMeta.R_LEN);
        }
        return off;
    }

    /** Recomputes each body's CRC in its row where the row/body geometry is still plausible. */
    private static void fixBodyChecksums(byte[] b) {
        if (b.length < XlMeta.MIN_FILE) {
            return;
        }
        long v = Integer.toUnsignedLong(XlMeta.getInt(b, XlMeta.META_OFF + 1));
        long e = Integer.toUnsignedLong(XlMeta.getInt(b, XlMeta.META_OFF + 6));
        long off = XlMeta.TABLE_OFF + v * XlMeta.ROW + e * XlMeta.INLINE_ROW;
        for (int i = 0; i < v && XlMeta.TABLE_OFF + (i + 1L) * XlMeta.ROW <= b.length; i++) {
            int row = XlMeta.TABLE_OFF + i * XlMeta.ROW;
            long len = Integer.toUnsignedLong(XlMeta.getInt(b, row + XlMeta.R_LEN));
            if (off + len > b.length) {
                return;
            }
            XlMeta.putInt(b, row + XlMeta.R_CRC, XlMeta.crc32c(b, (int) off, (int) len));
            off += len;
        }
    }

    private static void fixIndexChecksum(byte[] b) {
        if (b.length < XlMeta.MIN_FILE) {
            return;
        }
        long v = Integer.toUnsignedLong(XlMeta.getInt(b, XlMeta.META_OFF + 1));
        long e = Integer.toUnsignedLong(XlMeta.getInt(b, XlMeta.META_OFF + 6));
        long indexEnd = XlMeta.TABLE_OFF + v * XlMeta.ROW + e * XlMeta.INLINE_ROW;
        if (indexEnd <= b.length) {
            fixIndexChecksumAt(b, (int) indexEnd);
        }
    }

    private static void fixIndexChecksumAt(byte[] b, int indexEnd) {
        long metaEnd = XlMeta.META_OFF + Integer.toUnsignedLong(XlMeta.getInt(b, 9));
        if (metaEnd + 5 <= b.length && indexEnd <= b.length) {
            XlMeta.putInt(b, (int) metaEnd + 1, XlMeta.crc32c(b, 0, indexEnd));
        }
    }
}
