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

    @Test
    void objectInline_serializesToGoldenBytesAndParsesBack() throws Exception {
        byte[] golden = golden("object-inline-v1.bin", objectInline());
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
        byte[] golden = golden("versions-and-marker-v1.bin", versionsAndMarker());
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
        byte[] golden = golden("empty-v1.bin", empty());
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
