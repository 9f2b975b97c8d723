package dev.appliance.core.meta;

import static dev.appliance.core.meta.XlMetaFixtures.T0;
import static dev.appliance.core.meta.XlMetaFixtures.dataDirObject;
import static dev.appliance.core.meta.XlMetaFixtures.id;
import static dev.appliance.core.meta.XlMetaFixtures.inlineObject;
import static dev.appliance.core.meta.XlMetaFixtures.multipartObject;
import static dev.appliance.core.meta.XlMetaFixtures.nullVersion;
import static dev.appliance.core.meta.XlMetaFixtures.shard;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the on-disk format: deterministic inputs must serialize to exactly the committed bytes under {@code
 * src/test/resources/golden/xl-meta/}, and those bytes must parse to the expected values. A failure here means the
 * format changed: bump the minor or major version and add a migration (see {@code docs/formats/xl-meta.md}) rather than
 * regenerating.
 *
 * <p>The files are only rewritten on explicit request, never silently: run from the repository root
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core test -Dtest=XlMetaGoldenTest -Dgolden.update=true
 * </pre>
 *
 * and commit the new files together with the format change that caused them.
 */
class XlMetaGoldenTest {
    private static final Path DIR = Path.of("src/test/resources/golden/xl-meta");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    /** One inline object of a 2+2 set with its 64-byte shard. */
    static XlMeta objectInline() {
        return XlMeta.empty().withVersion(inlineObject(1, T0, 100), shard(1, 64));
    }

    /** A multipart upload, a data-dir object, a delete marker on top, and an older null version. */
    static XlMeta versionsAndMarker() {
        return XlMeta.empty()
                .withVersion(nullVersion(T0 - 1_000, 5), null)
                .withVersion(multipartObject(2, T0 + 1_000), null)
                .withVersion(dataDirObject(3, T0 + 2_000, 18_000), null)
                .withVersion(ObjectVersion.deleteMarker(id(4), T0 + 3_000), null);
    }

    static XlMeta empty() {
        return XlMeta.empty();
    }

    /** Since 1.1: a multipart object whose parts carry checksums (one raw CRC32, one kept as text). */
    static XlMeta partChecksums() {
        ObjectVersion base = multipartObject(5, T0 + 5_000);
        java.util.TreeMap<String, String> meta = new java.util.TreeMap<>(base.metadata());
        meta.put("x-amz-checksum-crc32", "AAAAAA==-3");
        meta.put("x-amz-checksum-type", "COMPOSITE");
        List<PartInfo> parts = List.of(
                new PartInfo(1, base.parts().get(0).size(), base.parts().get(0).etag(), "3q2+7w=="),
                new PartInfo(2, base.parts().get(1).size(), base.parts().get(1).etag(), "not-base64!"),
                new PartInfo(3, base.parts().get(2).size(), base.parts().get(2).etag()));
        return XlMeta.empty()
                .withVersion(
                        new ObjectVersion(
                                base.versionId(),
                                base.type(),
                                base.modTimeNanos(),
                                base.dataDir(),
                                base.size(),
                                base.dataShards(),
                                base.parityShards(),
                                base.blockSize(),
                                base.distribution(),
                                base.bitrotAlgorithm(),
                                parts,
                                base.etag(),
                                meta,
                                false),
                        null);
    }

    @Test
    void partChecksums_serializeToGoldenBytesAndParseBack() throws Exception {
        byte[] golden = golden("part-checksums-v1.2.bin", partChecksums());
        XlMeta parsed = XlMeta.parse(golden);
        assertThat(parsed.version(0)).isEqualTo(partChecksums().version(0));
        assertThat(parsed.version(0).parts())
                .extracting(PartInfo::checksum)
                .containsExactly("3q2+7w==", "not-base64!", null);
    }

    /** Files written by 1.0 (no part checksums) still parse to the same versions. */
    @Test
    void minorZeroFiles_stillParse() throws Exception {
        XlMeta inline = XlMeta.parse(Files.readAllBytes(DIR.resolve("object-inline-v1.bin")));
        assertThat(inline.version(0)).isEqualTo(inlineObject(1, T0, 100));
        assertThat(inline.inlineData(id(1))).isEqualTo(shard(1, 64));
        byte[] old = Files.readAllBytes(DIR.resolve("versions-and-marker-v1.bin"));
        assertThat(old[7]).as("minor version of the committed 1.0 file").isZero();
        XlMeta versions = XlMeta.parse(old);
        for (int i = 0; i < versions.versionCount(); i++) {
            assertThat(versions.version(i)).isEqualTo(versionsAndMarker().version(i));
        }
        assertThat(XlMeta.parse(Files.readAllBytes(DIR.resolve("empty-v1.bin"))).versionCount())
                .isZero();
    }

    /** Since 1.2: a version whose retention was changed twice after it was written (metadata generation 2). */
    static XlMeta metaGeneration() {
        ObjectVersion base = dataDirObject(6, T0 + 6_000, 18_000);
        java.util.TreeMap<String, String> meta = new java.util.TreeMap<>(base.metadata());
        meta.put("x-amz-object-lock-mode", "GOVERNANCE");
        meta.put("x-amz-object-lock-retain-until-date", "2030-01-01T00:00:00.000Z");
        return XlMeta.empty()
                .withVersion(base.withMetadata(meta).withMetaGeneration(2), null)
                .withVersion(ObjectVersion.deleteMarker(id(7), T0 + 7_000), null);
    }

    @Test
    void metaGeneration_serializesToGoldenBytesAndParsesBack() throws Exception {
        byte[] golden = golden("meta-generation-v1.2.bin", metaGeneration());
        XlMeta parsed = XlMeta.parse(golden);
        assertThat(parsed.version(1)).isEqualTo(metaGeneration().version(1));
        assertThat(parsed.version(1).metaGeneration()).isEqualTo(2);
        assertThat(parsed.version(0).metaGeneration()).isZero();
        assertThat(parsed.rawBody(0)).containsExactly((byte) 0x90); // generation 0 is omitted like every default
        // the body's ninth field; a 1.1 reader skips it as an unknown trailing field
        assertThat(parsed.rawBody(1)[0]).isEqualTo((byte) 0x99);
    }

    /** Files written by 1.1 (no metadata generation) parse to the same versions, all of generation 0. */
    @Test
    void minorOneFiles_stillParse_asGenerationZero() throws Exception {
        String[] names = {"object-inline", "versions-and-marker", "part-checksums", "empty"};
        XlMeta[] expected = {objectInline(), versionsAndMarker(), partChecksums(), empty()};
        for (int f = 0; f < names.length; f++) {
            byte[] old = Files.readAllBytes(DIR.resolve(names[f] + "-v1.1.bin"));
            assertThat(old[7]).as("minor version of the committed 1.1 file").isEqualTo((byte) 1);
            XlMeta parsed = XlMeta.parse(old);
            assertThat(parsed.versionCount()).isEqualTo(expected[f].versionCount());
            for (int i = 0; i < parsed.versionCount(); i++) {
                assertThat(parsed.version(i)).isEqualTo(expected[f].version(i));
                assertThat(parsed.version(i).metaGeneration()).isZero();
                assertThat(parsed.rawBody(i)).isEqualTo(expected[f].rawBody(i));
            }
        }
    }

    @Test
    void objectInline_serializesToGoldenBytesAndParsesBack() throws Exception {
        byte[] golden = golden("object-inline-v1.2.bin", objectInline());
        XlMeta parsed = XlMeta.parse(golden);
        assertThat(parsed.versionCount()).isEqualTo(1);
        assertThat(parsed.header(0))
                .isEqualTo(new VersionHeader(
                        id(1),
                        T0,
                        VersionType.OBJECT,
                        VersionHeader.FLAG_INLINE,
                        2,
                        2,
                        objectInline().header(0).bodyChecksum()));
        assertThat(parsed.version(0)).isEqualTo(inlineObject(1, T0, 100));
        assertThat(parsed.inlineData(id(1))).isEqualTo(shard(1, 64));
    }

    @Test
    void versionsAndMarker_serializesToGoldenBytesAndParsesBack() throws Exception {
        byte[] golden = golden("versions-and-marker-v1.2.bin", versionsAndMarker());
        XlMeta parsed = XlMeta.parse(golden);
        assertThat(parsed.headers())
                .extracting(VersionHeader::versionId)
                .containsExactly(id(4), id(3), id(2), ObjectVersion.NULL_VERSION_ID);
        assertThat(parsed.version(0)).isEqualTo(ObjectVersion.deleteMarker(id(4), T0 + 3_000));
        assertThat(parsed.version(1)).isEqualTo(dataDirObject(3, T0 + 2_000, 18_000));
        assertThat(parsed.version(2)).isEqualTo(multipartObject(2, T0 + 1_000));
        assertThat(parsed.version(3)).isEqualTo(nullVersion(T0 - 1_000, 5));
        assertThat(parsed.inlineBytes()).isZero();
    }

    @Test
    void empty_serializesToGoldenBytes() throws Exception {
        byte[] golden = golden("empty-v1.2.bin", empty());
        assertThat(XlMeta.parse(golden).versionCount()).isZero();
    }

    /** The committed golden bytes, after asserting that {@code meta} serializes to exactly them. */
    private static byte[] golden(String name, XlMeta meta) throws IOException {
        Path file = DIR.resolve(name);
        byte[] actual = meta.toBytes();
        if (UPDATE) {
            Files.createDirectories(DIR);
            Files.write(file, actual);
            System.out.println("golden file rewritten (golden.update=true): " + file.toAbsolutePath());
        }
        assertThat(file)
                .as("golden file %s is missing; create it only with -Dgolden.update=true", file)
                .exists();
        byte[] golden = Files.readAllBytes(file);
        assertThat(actual)
                .as("toBytes() differs from %s: the xl.meta format changed", name)
                .isEqualTo(golden);
        return golden;
    }
}
