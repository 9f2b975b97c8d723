package dev.appliance.core.heal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the MRF journal decoder, which reads files a crash may have cut anywhere: any bytes decode without an
 * exception to the records before the first damaged one, and decoding that valid prefix again gives the same records
 * with no torn tail; a journal written from fuzzed records decodes to exactly those records, and cut at any byte, to
 * the records wholly before the cut.
 */
class MrfJournalFuzzTest {
    @FuzzTest
    void decodeNeverThrows_andWrittenRecordsComeBackExactly(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            arbitraryBytes(data.consumeRemainingAsBytes());
            return;
        }
        List<MrfJournal.Entry> written = new ArrayList<>();
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes(MrfJournal.header());
        List<Integer> ends = new ArrayList<>();
        int records = data.consumeInt(0, 20);
        for (int i = 0; i < records; i++) {
            MrfJournal.Entry e = new MrfJournal.Entry(
                    data.consumeBoolean() ? MrfJournal.REPORT : MrfJournal.DONE,
                    data.consumeLong(),
                    text(data, 63),
                    text(data, 1024),
                    text(data, 36),
                    text(data, 80)); // at most 240 bytes: under the 256-byte cap on reasons
            written.add(e);
            file.writeBytes(MrfJournal.encode(e));
            ends.add(file.size());
        }
        byte[] bytes = file.toByteArray();
        MrfJournal.Decoded whole = MrfJournal.decode(bytes);
        assertThat(whole.entries()).isEqualTo(written);
        assertThat(whole.tornTail()).isFalse();
        assertThat(whole.validLength()).isEqualTo(bytes.length);

        int cut = data.consumeInt(MrfJournal.header().length, bytes.length);
        MrfJournal.Decoded torn = MrfJournal.decode(Arrays.copyOf(bytes, cut));
        int complete = (int) ends.stream().filter(end -> end <= cut).count();
        assertThat(torn.entries()).isEqualTo(written.subList(0, complete));
        assertThat(torn.tornTail())
                .isEqualTo(cut != (complete == 0 ? MrfJournal.header().length : ends.get(complete - 1)));
    }

    private static void arbitraryBytes(byte[] bytes) {
        MrfJournal.Decoded d = MrfJournal.decode(bytes);
        assertThat(d.validLength()).isBetween(0, bytes.length);
        if (d.validLength() > 0) {
            MrfJournal.Decoded again = MrfJournal.decode(Arrays.copyOf(bytes, d.validLength()));
            assertThat(again.entries()).isEqualTo(d.entries());
            assertThat(again.tornTail()).isFalse();
        } else {
            assertThat(d.entries()).isEmpty();
        }
    }

    /** Fuzzed text that survives UTF-8 (no lone surrogates), at most {@code max} characters. */
    private static String text(FuzzedDataProvider data, int max) {
        StringBuilder sb = new StringBuilder(data.consumeString(max));
        for (int i = 0; i < sb.length(); i++) {
            if (Character.isSurrogate(sb.charAt(i))) {
                sb.setCharAt(i, 'x');
            }
        }
        return sb.toString();
    }
}
