package dev.appliance.core.meta;

import static dev.appliance.core.meta.XlMetaFixtures.T0;
import static dev.appliance.core.meta.XlMetaFixtures.dataDirObject;
import static dev.appliance.core.meta.XlMetaFixtures.id;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One key with 10,000 versions: what HEAD and PUT of such a key cost in xl.meta terms. */
class XlMetaManyVersionsTest {
    private static final int VERSIONS = 10_000;
    private static byte[] file;

    @BeforeAll
    static void buildFile() {
        long start = System.nanoTime();
        List<ObjectVersion> versions = new ArrayList<>(VERSIONS);
        for (int i = 0; i < VERSIONS; i++) {
            versions.add(dataDirObject(i, T0 + i * 1_000_000L, 18_000 + i));
        }
        file = XlMeta.of(versions).toBytes();
        System.out.printf(
                "10,000 typical single-part versions: %d bytes (%.1f bytes per version), built in %d ms%n",
                file.length, file.length / (double) VERSIONS, (System.nanoTime() - start) / 1_000_000);
    }

    @Test
    void of_givesTheSameBytesAsAddingVersionsOneByOne() {
        XlMeta oneByOne = XlMeta.empty();
        List<ObjectVersion> versions = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ObjectVersion v = i % 7 == 0
                    ? ObjectVersion.deleteMarker(id(i), T0 + (i * 7919L % 300))
                    : dataDirObject(i, T0 + (i * 7919L % 300), i);
            oneByOne = oneByOne.withVersion(v, null);
            versions.add(v);
        }
        assertThat(XlMeta.of(versions).toBytes()).isEqualTo(oneByOne.toBytes());
    }

    @Test
    void parse_of10000Versions_givesNewestHeaderAndBody() throws Exception {
        XlMeta meta = XlMeta.parse(file);
        assertThat(meta.versionCount()).isEqualTo(VERSIONS);
        int newest = VERSIONS - 1;
        assertThat(meta.header(0).versionId()).isEqualTo(id(newest));
        assertThat(meta.header(0).modTimeNanos()).isEqualTo(T0 + newest * 1_000_000L);
        assertThat(meta.version(0)).isEqualTo(dataDirObject(newest, T0 + newest * 1_000_000L, 18_000 + newest));
        assertThat(meta.header(VERSIONS - 1).versionId()).isEqualTo(id(0));
        assertThat(file.length / VERSIONS).isLessThan(140);
    }

    @Test
    void indexOf_findsAnOldVersionAndDecodesOnlyIt() throws Exception {
        XlMeta meta = XlMeta.parse(file);
        int at = meta.indexOf(id(17));
        assertThat(at).isEqualTo(VERSIONS - 1 - 17);
        assertThat(meta.version(at)).isEqualTo(dataDirObject(17, T0 + 17 * 1_000_000L, 18_017));
        assertThat(meta.indexOf(id(VERSIONS + 5))).isEqualTo(-1);
    }

    @Test
    void withVersion_on10000Versions_addsAtFrontAndCopiesUntouchedBodiesByteForByte() throws Exception {
        XlMeta meta = XlMeta.parse(file);
        ObjectVersion added = dataDirObject(VERSIONS, T0 + VERSIONS * 1_000_000L, 1);
        XlMeta next = XlMeta.parse(meta.withVersion(added, null).toBytes());

        assertThat(next.versionCount()).isEqualTo(VERSIONS + 1);
        assertThat(next.header(0).versionId()).isEqualTo(added.versionId());
        assertThat(next.version(0)).isEqualTo(added);
        for (int i = 0; i < VERSIONS; i++) {
            assertThat(next.header(i + 1)).isEqualTo(meta.header(i));
        }
        // every old body and row appears unchanged, in one contiguous run, in the new file
        byte[] out = next.toBytes();
        int oldRows = XlMeta.TABLE_OFF;
        int newRows = XlMeta.TABLE_OFF + XlMeta.ROW;
        assertThat(Arrays.equals(
                        file, oldRows, oldRows + VERSIONS * XlMeta.ROW, out, newRows, newRows + VERSIONS * XlMeta.ROW))
                .isTrue();
        int oldBodies = XlMeta.TABLE_OFF + VERSIONS * XlMeta.ROW;
        int newBodies = XlMeta.TABLE_OFF + (VERSIONS + 1) * XlMeta.ROW + next.rawBody(0).length;
        int bodyBytes = file.length - oldBodies - XlMeta.TRAILER;
        assertThat(Arrays.equals(file, oldBodies, oldBodies + bodyBytes, out, newBodies, newBodies + bodyBytes))
                .isTrue();
        for (int i : new int[] {0, 1, 4999, VERSIONS - 1}) {
            assertThat(next.rawBody(i + 1)).isEqualTo(meta.rawBody(i));
        }
    }

    @Test
    void withoutVersion_on10000Versions_removesOnlyThatOne() throws Exception {
        XlMeta meta = XlMeta.parse(file);
        XlMeta next = XlMeta.parse(meta.withoutVersion(id(5000)).toBytes());
        assertThat(next.versionCount()).isEqualTo(VERSIONS - 1);
        assertThat(next.indexOf(id(5000))).isEqualTo(-1);
        assertThat(next.version(next.indexOf(id(5001)))).isEqualTo(meta.version(meta.indexOf(id(5001))));
        assertThat(next.version(next.indexOf(id(4999)))).isEqualTo(meta.version(meta.indexOf(id(4999))));
    }

    @Test
    void headLatest_on10000Versions_isFastEnoughToMeasureHere() throws Exception {
        // a smoke check, not a benchmark (see XlMetaBenchmark): catches an accidental O(versions) body walk
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 300; round++) {
            long t = System.nanoTime();
            XlMeta meta = XlMeta.parse(file);
            meta.header(0);
            meta.version(0);
            best = Math.min(best, System.nanoTime() - t);
        }
        System.out.println("HEAD latest of 10,000 versions, best of 300 (untuned JIT): " + best / 1000 + " us");
        assertThat(best).isLessThan(5_000_000L);
    }
}
