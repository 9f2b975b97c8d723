package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the metadata journal's record reader, which a start runs on whatever a crash left on each drive: any bytes
 * read without an exception to the records before the first damaged one; a segment written from fuzzed records reads
 * back exactly those records, and cut at any byte, the records wholly before the cut.
 */
class MetadataJournalFuzzTest {
    @FuzzTest
    void recordsNeverThrow_andWrittenRecordsComeBackExactly(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            byte[] bytes = data.consumeRemainingAsBytes();
            List<MetadataJournal.Record> read = MetadataJournal.records(bytes);
            assertThat(read.size()).isLessThanOrEqualTo(bytes.length / 12);
            return;
        }
        ByteArrayOutputStream segment = new ByteArrayOutputStream();
        segment.writeBytes(MetadataJournal.header(data.consumeLong()));
        List<MetadataJournal.Record> written = new ArrayList<>();
        List<Integer> ends = new ArrayList<>();
        int count = data.consumeInt(0, 16);
        for (int i = 0; i < count; i++) {
            var r = new MetadataJournal.Record(
                    data.consumeAsciiString(200),
                    new MetadataJournal.Identity(data.consumeLong(), data.consumeLong()),
                    data.consumeBytes(data.consumeInt(0, 2048)));
            written.add(r);
            segment.writeBytes(MetadataJournal.record(r.path(), r.identity(), r.content()));
            ends.add(segment.size());
        }
        byte[] bytes = segment.toByteArray();
        assertSame(MetadataJournal.records(bytes), written);
        int cut = data.consumeInt(0, bytes.length);
        int complete = (int) ends.stream().filter(end -> end <= cut).count();
        assertSame(MetadataJournal.records(Arrays.copyOf(bytes, cut)), written.subList(0, complete));
    }

    private static void assertSame(List<MetadataJournal.Record> read, List<MetadataJournal.Record> expected) {
        assertThat(read).hasSameSizeAs(expected);
        for (int i = 0; i < read.size(); i++) {
            assertThat(read.get(i).path()).isEqualTo(expected.get(i).path());
            assertThat(read.get(i).identity()).isEqualTo(expected.get(i).identity());
            assertThat(read.get(i).content()).isEqualTo(expected.get(i).content());
        }
    }
}
