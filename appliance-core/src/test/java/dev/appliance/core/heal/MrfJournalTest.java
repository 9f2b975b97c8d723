package dev.appliance.core.heal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The heal journal's record format: round trips, replay, and a torn or damaged tail cut at every byte. */
class MrfJournalTest {
    private static final MrfJournal.Entry A =
            new MrfJournal.Entry(MrfJournal.REPORT, 1_700_000_000_000L, "bucket", "dir/key", "null", "write reached 3");
    private static final MrfJournal.Entry B = new MrfJournal.Entry(
            MrfJournal.REPORT,
            1_700_000_000_001L,
            "bucket",
            "ключ/ü",
            "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
            "bitrot");
    private static final MrfJournal.Entry A_DONE =
            new MrfJournal.Entry(MrfJournal.DONE, 1_700_000_000_002L, "bucket", "dir/key", "null", "");

    private static byte[] file(MrfJournal.Entry... entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MrfJournal.header());
        for (MrfJournal.Entry e : entries) {
            out.writeBytes(MrfJournal.encode(e));
        }
        return out.toByteArray();
    }

    @Test
    void decode_ofEncodedRecords_returnsThemInOrder() {
        MrfJournal.Decoded d = MrfJournal.decode(file(A, B, A_DONE));
        assertThat(d.entries()).containsExactly(A, B, A_DONE);
        assertThat(d.tornTail()).isFalse();
    }

    @Test
    void replay_doneRecordRemovesItsReport_andAReportAfterItAddsItBack() {
        assertThat(MrfJournal.replay(List.of(A, B, A_DONE))).containsExactly(B);
        MrfJournal.Entry again = new MrfJournal.Entry(MrfJournal.REPORT, 5, "bucket", "dir/key", "null", "again");
        assertThat(MrfJournal.replay(List.of(A, B, A_DONE, again))).containsExactly(B, again);
    }

    @Test
    void decode_ofAFileCutAtEveryByteOfItsLastRecord_keepsTheEarlierRecords() {
        byte[] whole = file(A, B);
        int lastStart = file(A).length;
        for (int cut = lastStart; cut < whole.length; cut++) {
            MrfJournal.Decoded d = MrfJournal.decode(Arrays.copyOf(whole, cut));
            assertThat(d.entries()).as("cut at %d", cut).containsExactly(A);
            assertThat(d.validLength()).isEqualTo(lastStart);
            assertThat(d.tornTail()).isEqualTo(cut > lastStart);
        }
    }

    @Test
    void decode_ofARecordWithAnyFlippedByte_stopsBeforeIt() {
        byte[] whole = file(A, B, A_DONE);
        int start = file(A).length;
        int end = file(A, B).length;
        for (int at = start; at < end; at++) {
            byte[] damaged = whole.clone();
            damaged[at] ^= 0x20;
            MrfJournal.Decoded d = MrfJournal.decode(damaged);
            assertThat(d.entries()).as("byte %d flipped", at).containsExactly(A);
            assertThat(d.tornTail()).isTrue();
        }
    }

    @Test
    void decode_withoutTheMagic_holdsNothing() {
        byte[] f = file(A);
        f[0] = 'X';
        assertThat(MrfJournal.decode(f).entries()).isEmpty();
        assertThat(MrfJournal.decode(new byte[0]).entries()).isEmpty();
    }

    @Test
    void encode_cutsALongReasonAtACharacterBoundary() {
        String reason = "é".repeat(400); // 800 bytes of two-byte characters
        MrfJournal.Entry e = new MrfJournal.Entry(MrfJournal.REPORT, 1, "b", "k", "", reason);
        MrfJournal.Entry back = MrfJournal.decode(file(e)).entries().getFirst();
        assertThat(back.reason()).isEqualTo("é".repeat(MrfJournal.MAX_REASON / 2));
        assertThat(back.key()).isEqualTo("k");
    }
}
