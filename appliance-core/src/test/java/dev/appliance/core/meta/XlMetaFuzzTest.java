package dev.appliance.core.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Fuzzes the {@code xl.meta} reader with what a damaged drive can hold: arbitrary bytes, and the golden files of every
 * format version with fuzzed bytes overwritten, cut or appended. Every input parses or fails with {@link
 * CorruptMetaException}, never another exception, and what parses can be read whole: every header and every version
 * body decodes (or fails as corrupt), and a file written back parses to the same versions.
 */
class XlMetaFuzzTest {
    private static final List<byte[]> GOLDEN = List.of(
            golden("empty-v1.bin"),
            golden("empty-v1.1.bin"),
            golden("object-inline-v1.bin"),
            golden("object-inline-v1.1.bin"),
            golden("part-checksums-v1.1.bin"),
            golden("versions-and-marker-v1.bin"),
            golden("versions-and-marker-v1.1.bin"));

    private static byte[] golden(String name) {
        try (InputStream in = XlMetaFuzzTest.class.getResourceAsStream("/golden/xl-meta/" + name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest
    void parseAcceptsOrRefusesAsCorrupt(FuzzedDataProvider data) {
        byte[] bytes;
        if (data.consumeBoolean()) {
            bytes = data.consumeRemainingAsBytes();
        } else {
            bytes = GOLDEN.get(data.consumeInt(0, GOLDEN.size() - 1)).clone();
            int edits = data.consumeInt(1, 4);
            for (int i = 0; i < edits && bytes.length > 0; i++) {
                switch (data.consumeInt(0, 2)) {
                    case 0 -> bytes[data.consumeInt(0, bytes.length - 1)] = data.consumeByte();
                    case 1 -> bytes = java.util.Arrays.copyOf(bytes, data.consumeInt(0, bytes.length));
                    default -> {
                        byte[] tail = data.consumeBytes(16);
                        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + tail.length);
                        System.arraycopy(tail, 0, longer, bytes.length, tail.length);
                        bytes = longer;
                    }
                }
            }
        }
        XlMeta meta;
        try {
            meta = XlMeta.parse(bytes);
        } catch (CorruptMetaException e) {
            return;
        }
        int count = meta.versionCount();
        assertThat(count).isNotNegative();
        for (int i = 0; i < count; i++) {
            assertThat(meta.header(i)).isNotNull();
            try {
                ObjectVersion v = meta.version(i);
                assertThat(v.versionId()).isEqualTo(meta.header(i).versionId());
            } catch (CorruptMetaException e) {
                // a damaged body is reported as corrupt, which is all the engine needs to know
            }
        }
        XlMeta again;
        try {
            again = XlMeta.parse(meta.toBytes());
        } catch (CorruptMetaException e) {
            throw new AssertionError("a file written from a parsed one must parse", e);
        }
        assertThat(again.versionCount()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
            assertThat(again.header(i).versionId()).isEqualTo(meta.header(i).versionId());
        }
    }
}
