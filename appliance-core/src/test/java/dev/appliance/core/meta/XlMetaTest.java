package dev.appliance.core.meta;

import static dev.appliance.core.meta.XlMetaFixtures.T0;
import static dev.appliance.core.meta.XlMetaFixtures.dataDirObject;
import static dev.appliance.core.meta.XlMetaFixtures.id;
import static dev.appliance.core.meta.XlMetaFixtures.inlineObject;
import static dev.appliance.core.meta.XlMetaFixtures.multipartObject;
import static dev.appliance.core.meta.XlMetaFixtures.nullVersion;
import static dev.appliance.core.meta.XlMetaFixtures.shard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

class XlMetaTest {

    private static XlMeta roundTrip(XlMeta meta) throws CorruptMetaException {
        return XlMeta.parse(meta.toBytes());
    }

    @Test
    void empty_roundTripsWithNoVersionsAndNoInlineData() throws Exception {
        XlMeta parsed = roundTrip(XlMeta.empty());
        assertThat(parsed.versionCount()).isZero();
        assertThat(parsed.headers()).isEmpty();
        assertThat(parsed.inlineBytes()).isZero();
        assertThat(parsed.indexOf(id(1))).isEqualTo(-1);
        assertThat(parsed.toBytes()).hasSize(XlMeta.MIN_FILE);
    }

    @Test
    void inlineObject_roundTripsVersionHeaderAndShard() throws Exception {
        ObjectVersion v = inlineObject(1, T0, 5000);
        byte[] shard = shard(1, 2600);
        XlMeta parsed = roundTrip(XlMeta.empty().withVersion(v, shard));

        assertThat(parsed.versionCount()).isEqualTo(1);
        assertThat(parsed.version(0)).isEqualTo(v);
        VersionHeader h = parsed.header(0);
        assertThat(h.versionId()).isEqualTo(v.versionId());
        assertThat(h.modTimeNanos()).isEqualTo(T0);
        assertThat(h.type()).isEqualTo(VersionType.OBJECT);
        assertThat(h.inline()).isTrue();
        assertThat(h.flags()).isEqualTo(VersionHeader.FLAG_INLINE);
        assertThat(h.dataShards()).isEqualTo(2);
        assertThat(h.parityShards()).isEqualTo(2);
        assertThat(h.bodyChecksum()).isEqualTo(XlMeta.crc32c(parsed.rawBody(0), 0, parsed.rawBody(0).length));
        assertThat(parsed.inlineData(v.versionId())).isEqualTo(shard);
        assertThat(parsed.inlineBytes()).isEqualTo(2600);
    }

    @Test
    void dataDirObject_roundTripsWithDataDirFlag() throws Exception {
        ObjectVersion v = dataDirObject(2, T0, 123_456_789L);
        XlMeta parsed = roundTrip(XlMeta.empty().withVersion(v, null));
        assertThat(parsed.version(0)).isEqualTo(v);
        assertThat(parsed.header(0).flags()).isEqualTo(VersionHeader.FLAG_DATA_DIR);
        assertThat(parsed.inlineData(v.versionId())).isNull();
        assertThat(parsed.inlineBytes()).isZero();
    }

    @Test
    void multipartObject_roundTripsPartsEtagsAndUserMetadata() throws Exception {
        ObjectVersion v = multipartObject(3, T0);
        ObjectVersion back = roundTrip(XlMeta.empty().withVersion(v, null)).version(0);
        assertThat(back).isEqualTo(v);
        assertThat(back.parts()).hasSize(3);
        assertThat(back.etag()).endsWith("-3");
        assertThat(back.metadata())
                .containsEntry("x-amz-meta-unicode", "Grüße ✓")
                .containsEntry("x-amz-meta-empty", "");
    }

    @Test
    void unusualValues_roundTripExactly() throws Exception {
        TreeMap<String, String> meta = new TreeMap<>();
        meta.put("x-null-value", null);
        ObjectVersion v = new ObjectVersion(
                id(9),
                VersionType.OBJECT,
                -5, // before the epoch
                null,
                0,
                1,
                0,
                0,
                new int[] {1},
                0,
                List.of(new PartInfo(1, 0, "ABCDEF0123456789ABCDEF0123456789")), // upper-case: kept as a string
                "not-a-hex-etag",
                meta,
                true);
        assertThat(roundTrip(XlMeta.empty().withVersion(v, new byte[0])).version(0))
                .isEqualTo(v);
        ObjectVersion noParts = new ObjectVersion(
                id(10), VersionType.OBJECT, 1, null, 0, 1, 0, 0, new int[] {1}, 0, List.of(), null, null, true);
        assertThat(roundTrip(XlMeta.empty().withVersion(noParts, null)).version(0))
                .isEqualTo(noParts);
    }

    @Test
    void nullVersion_roundTripsUnderAllZeroId() throws Exception {
        ObjectVersion v = nullVersion(T0, 42);
        XlMeta parsed = roundTrip(XlMeta.empty().withVersion(v, null));
        assertThat(parsed.indexOf(ObjectVersion.NULL_VERSION_ID)).isZero();
        assertThat(parsed.version(0)).isEqualTo(v);
        assertThat(parsed.version(0).isNullVersion()).isTrue();
    }

    @Test
    void deleteMarker_roundTripsWithMinimalBody() throws Exception {
        ObjectVersion dm = ObjectVersion.deleteMarker(id(4), T0 + 10);
        XlMeta parsed = roundTrip(XlMeta.empty().withVersion(dm, null));
        assertThat(parsed.version(0)).isEqualTo(dm);
        assertThat(parsed.header(0).isDeleteMarker()).isTrue();
        assertThat(parsed.header(0).flags()).isZero();
        assertThat(parsed.rawBody(0)).containsExactly(0x90); // empty msgpack array
    }

    @Test
    void withVersion_keepsVersionsNewestFirstWhateverTheInsertOrder() throws Exception {
        XlMeta meta = XlMeta.empty()
                .withVersion(dataDirObject(1, T0 + 200, 10), null)
                .withVersion(dataDirObject(2, T0 + 100, 10), null) // older: goes after
                .withVersion(ObjectVersion.deleteMarker(id(3), T0 + 300), null)
                .withVersion(dataDirObject(4, T0 + 150, 10), null); // in the middle
        XlMeta parsed = roundTrip(meta);
        assertThat(parsed.headers()).extracting(VersionHeader::versionId).containsExactly(id(3), id(1), id(4), id(2));
        for (int i = 0; i < parsed.versionCount(); i++) {
            assertThat(parsed.version(i).versionId()).isEqualTo(parsed.header(i).versionId());
        }
    }

    @Test
    void withVersion_breaksModTimeTiesByTypeThenVersionIdDescending() throws Exception {
        UUID low = new UUID(1, 0);
        UUID high = new UUID(-1, 0); // 0xFF.. : larger as unsigned bytes
        XlMeta meta = XlMeta.empty()
                .withVersion(ObjectVersion.deleteMarker(new UUID(5, 5), T0), null)
                .withVersion(withId(dataDirObject(1, T0, 1), low), null)
                .withVersion(withId(dataDirObject(2, T0, 1), high), null);
        assertThat(roundTrip(meta).headers())
                .extracting(VersionHeader::versionId)
                .containsExactly(high, low, new UUID(5, 5));
        // the same set inserted in another order gives the same bytes
        XlMeta other = XlMeta.empty()
                .withVersion(withId(dataDirObject(2, T0, 1), high), null)
                .withVersion(withId(dataDirObject(1, T0, 1), low), null)
                .withVersion(ObjectVersion.deleteMarker(new UUID(5, 5), T0), null);
        assertThat(other.toBytes()).isEqualTo(meta.toBytes());
    }

    @Test
    void withVersion_whenSameIdExists_replacesItAndResorts() throws Exception {
        XlMeta meta = XlMeta.empty()
                .withVersion(dataDirObject(1, T0 + 1, 10), null)
                .withVersion(dataDirObject(2, T0 + 2, 10), null);
        ObjectVersion replacement = dataDirObject(1, T0 + 3, 99);
        XlMeta parsed = roundTrip(meta.withVersion(replacement, null));
        assertThat(parsed.versionCount()).isEqualTo(2);
        assertThat(parsed.headers()).extracting(VersionHeader::versionId).containsExactly(id(1), id(2));
        assertThat(parsed.version(0)).isEqualTo(replacement);
        assertThat(parsed.version(1)).isEqualTo(dataDirObject(2, T0 + 2, 10));
    }

    @Test
    void withVersion_replacingNullVersion_keepsOneNullVersion() throws Exception {
        XlMeta meta = XlMeta.empty().withVersion(nullVersion(T0, 1), null).withVersion(nullVersion(T0 + 5, 2), null);
        assertThat(meta.versionCount()).isEqualTo(1);
        assertThat(roundTrip(meta).version(0).size()).isEqualTo(2);
    }

    @Test
    void withoutVersion_removesVersionAndItsInlineEntry() throws Exception {
        XlMeta meta = XlMeta.empty()
                .withVersion(inlineObject(1, T0 + 1, 100), shard(1, 50))
                .withVersion(inlineObject(2, T0 + 2, 100), shard(2, 60))
                .withVersion(dataDirObject(3, T0 + 3, 100), null);
        XlMeta without = roundTrip(meta.withoutVersion(id(2)));
        assertThat(without.headers()).extracting(VersionHeader::versionId).containsExactly(id(3), id(1));
        assertThat(without.inlineData(id(2))).isNull();
        assertThat(without.inlineData(id(1))).isEqualTo(shard(1, 50));
        assertThat(without.inlineBytes()).isEqualTo(50);
        assertThat(without.version(1)).isEqualTo(inlineObject(1, T0 + 1, 100));
    }

    @Test
    void withoutVersion_whenAbsent_returnsSameInstance() {
        XlMeta meta = XlMeta.empty().withVersion(dataDirObject(1, T0, 1), null);
        assertThat(meta.withoutVersion(id(77))).isSameAs(meta);
    }

    @Test
    void withoutVersion_lastVersion_givesEmptyFile() throws Exception {
        XlMeta meta = XlMeta.empty().withVersion(inlineObject(1, T0, 1), shard(1, 10));
        assertThat(meta.withoutVersion(id(1)).toBytes())
                .isEqualTo(XlMeta.empty().toBytes());
    }

    @Test
    void inlineEntries_areKeptPerVersionAndReplacedOrDroppedWithTheirVersion() throws Exception {
        XlMeta meta = XlMeta.empty()
                .withVersion(inlineObject(1, T0 + 1, 100), shard(1, 30))
                .withVersion(inlineObject(2, T0 + 2, 100), shard(2, 40));
        assertThat(meta.inlineBytes()).isEqualTo(70);
        // re-put of version 1 with a new shard replaces the entry
        XlMeta replaced = roundTrip(meta.withVersion(inlineObject(1, T0 + 1, 100), shard(9, 35)));
        assertThat(replaced.inlineData(id(1))).isEqualTo(shard(9, 35));
        assertThat(replaced.inlineData(id(2))).isEqualTo(shard(2, 40));
        assertThat(replaced.inlineBytes()).isEqualTo(75);
        // re-put without a shard removes it
        XlMeta dropped = roundTrip(replaced.withVersion(dataDirObject(1, T0 + 1, 100), null));
        assertThat(dropped.inlineData(id(1))).isNull();
        assertThat(dropped.inlineCount()).isEqualTo(1);
        // an empty shard (0-byte object) is an entry, not an absence
        XlMeta zero = roundTrip(dropped.withVersion(inlineObject(5, T0 + 5, 0), new byte[0]));
        assertThat(zero.inlineData(id(5))).isEmpty();
    }

    @Test
    void withVersion_whenInlineCapExceeded_throwsAndLeavesOriginalUsable() throws Exception {
        int big = 200 * 1024;
        XlMeta meta = XlMeta.empty().withVersion(inlineObject(1, T0 + 1, big), shard(1, big));
        assertThatThrownBy(() -> meta.withVersion(inlineObject(2, T0 + 2, 100_000), shard(2, 100_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cap");
        // exactly at the cap is allowed
        int rest = XlMeta.MAX_INLINE_BYTES - big;
        XlMeta full = meta.withVersion(inlineObject(2, T0 + 2, rest), shard(2, rest));
        assertThat(full.inlineBytes()).isEqualTo(XlMeta.MAX_INLINE_BYTES);
        // replacing an entry counts the old one as gone
        XlMeta swapped = meta.withVersion(inlineObject(1, T0 + 1, 250_000), shard(1, 250_000));
        assertThat(swapped.inlineBytes()).isEqualTo(250_000);
        assertThat(roundTrip(meta).inlineData(id(1))).isEqualTo(shard(1, big));
    }

    @Test
    void withVersion_whenErasureCountsExceedAByte_throws() {
        ObjectVersion v = new ObjectVersion(
                id(1), VersionType.OBJECT, T0, null, 0, 256, 0, 0, new int[256], 1, null, null, null, true);
        assertThatThrownBy(() -> XlMeta.empty().withVersion(v, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bodies_areCanonical_sameVersionGivesSameBytesWhateverTheMapOrder() {
        TreeMap<String, String> a = new TreeMap<>();
        a.put("b", "2");
        a.put("a", "1");
        ObjectVersion v1 = withMetadata(dataDirObject(1, T0, 7), a);
        ObjectVersion v2 = withMetadata(dataDirObject(1, T0, 7), new TreeMap<>(java.util.Map.of("a", "1", "b", "2")));
        assertThat(VersionBodyCodec.encode(v1)).isEqualTo(VersionBodyCodec.encode(v2));
        XlMeta driveA = XlMeta.empty().withVersion(v1, shard(1, 10));
        XlMeta driveB = XlMeta.empty().withVersion(v2, shard(2, 10)); // another drive: other shard
        assertThat(driveA.header(0)).isEqualTo(driveB.header(0));
        assertThat(driveA.rawBody(0)).isEqualTo(driveB.rawBody(0));
    }

    @Test
    void typicalSinglePartBody_isSmallerThan120Bytes() {
        int bodyBytes = VersionBodyCodec.encode(dataDirObject(1, T0, 18_000)).length;
        System.out.println("typical single-part body: " + bodyBytes + " bytes, row: " + XlMeta.ROW + " bytes");
        assertThat(bodyBytes).isLessThan(120);
    }

    @Test
    void bodies_areWellFormedMessagePackReadableByJackson() {
        XlMeta meta = XlMeta.empty()
                .withVersion(multipartObject(1, T0 + 1), null)
                .withVersion(ObjectVersion.deleteMarker(id(2), T0 + 2), null);
        assertThat(XlMetaDump.bodyTree(meta.rawBody(1)).isArray()).isTrue();
        // every field but the metadata generation, which is 0 (a default, omitted) until the first update
        assertThat(XlMetaDump.bodyTree(meta.rawBody(1)).size()).isEqualTo(VersionBodyCodec.FIELD_COUNT - 1);
        XlMeta updated = meta.withVersion(multipartObject(1, T0 + 1).withMetaGeneration(3), null);
        assertThat(XlMetaDump.bodyTree(updated.rawBody(1)).size()).isEqualTo(VersionBodyCodec.FIELD_COUNT);
        assertThat(XlMetaDump.bodyTree(updated.rawBody(1)).get(8).asLong()).isEqualTo(3);
        String json = XlMetaDump.toJson(meta);
        assertThat(json).contains("\"DELETE_MARKER\"").contains("x-amz-meta-owner");
    }

    @Test
    void framing_isAMessagePackSequenceAfterTheEightByteMagicAndVersion() throws Exception {
        XlMeta meta = XlMeta.empty().withVersion(inlineObject(1, T0, 10), shard(1, 10));
        byte[] b = meta.toBytes();
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(b, 8, b.length - 8)) {
            int m = u.unpackBinaryHeader();
            byte[] block = u.readPayload(m);
            long crc = u.unpackLong();
            int k = u.unpackBinaryHeader();
            assertThat(u.readPayload(k)).isEqualTo(shard(1, 10));
            assertThat(u.hasNext()).isFalse();
            assertThat((int) crc).isEqualTo(XlMeta.getInt(b, 13 + m + 1));
            try (MessageUnpacker inner = MessagePack.newDefaultUnpacker(block)) {
                assertThat(inner.unpackInt()).isEqualTo(1); // versions
                assertThat(inner.unpackInt()).isEqualTo(1); // inline entries
            }
        }
    }

    @Test
    void asReadOnlyBuffer_exposesTheSameBytesAsToBytesWithoutCopying() {
        XlMeta meta = XlMeta.empty().withVersion(inlineObject(1, T0, 10), shard(1, 10));
        java.nio.ByteBuffer view = meta.asReadOnlyBuffer();
        assertThat(view.isReadOnly()).isTrue();
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        assertThat(copy).isEqualTo(meta.toBytes());
    }

    @Test
    void headers_isALazyViewOfAllHeadersNewestFirst() throws Exception {
        XlMeta meta = XlMeta.empty();
        for (int i = 0; i < 5; i++) {
            meta = meta.withVersion(dataDirObject(i, T0 + i, i), null);
        }
        List<VersionHeader> headers = roundTrip(meta).headers();
        assertThat(headers).hasSize(5);
        assertThat(headers.get(0).modTimeNanos()).isEqualTo(T0 + 4);
        assertThat(headers.get(4).modTimeNanos()).isEqualTo(T0);
    }

    private static ObjectVersion withId(ObjectVersion v, UUID id) {
        return new ObjectVersion(
                id,
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

    private static ObjectVersion withMetadata(ObjectVersion v, TreeMap<String, String> metadata) {
        return new ObjectVersion(
                v.versionId(),
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
                metadata,
                v.inline());
    }
}
