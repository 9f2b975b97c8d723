package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.drive.LocalDrive.ChangeMark;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Change marks as slots of one mapped file, against the reference form (a file per mark) they fall back to. */
class ChangeMarkSlotsTest {
    @TempDir
    Path dir;

    private LocalDrive prepared() throws Exception {
        LocalDrive d = new LocalDrive(dir);
        d.prepare();
        return d;
    }

    /** What the next start finds: a fresh drive object on the same directory, as after a process crash. */
    private List<ChangeMark> foundByNextStart() throws Exception {
        LocalDrive next = new LocalDrive(dir);
        next.prepare();
        next.closeChangeMarks();
        return next.interruptedChanges();
    }

    @Test
    void marksLeftSet_areFoundByTheNextStart_andClearedOnesAreNot() throws Exception {
        LocalDrive d = prepared();
        LocalDrive.Mark done = d.markChange("b", "done");
        LocalDrive.Mark open = d.markChange("b", "dir/open");
        d.removeChangeMark(done);
        assertThat(open.isFile()).isFalse();
        assertThat(stagingFiles()).as("a slot, not a file").isEmpty();
        assertThat(d.heldChangeMarks()).containsExactly(new ChangeMark("b", "dir/open"));

        assertThat(foundByNextStart()).containsExactly(new ChangeMark("b", "dir/open"));
    }

    @Test
    void aKeyTooLongForASlot_andMarksBeyondTheLastSlot_areFilesFoundTheSameWay() throws Exception {
        LocalDrive d = prepared();
        String longKey = "k".repeat(ChangeMarkSlots.MAX_PAYLOAD);
        LocalDrive.Mark longMark = d.markChange("b", longKey);
        assertThat(longMark.isFile()).isTrue();
        List<LocalDrive.Mark> marks = new ArrayList<>();
        for (int i = 0; i < ChangeMarkSlots.SLOTS + 3; i++) {
            marks.add(d.markChange("b", "k" + i));
        }
        assertThat(marks.stream().filter(LocalDrive.Mark::isFile)).hasSize(3);
        assertThat(stagingFiles()).hasSize(4);
        for (int i = 0; i < marks.size(); i += 2) {
            d.removeChangeMark(marks.get(i));
        }

        List<ChangeMark> expected = new ArrayList<>();
        expected.add(new ChangeMark("b", longKey));
        for (int i = 1; i < marks.size(); i += 2) {
            expected.add(new ChangeMark("b", "k" + i));
        }
        assertThat(d.heldChangeMarks()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(foundByNextStart()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aMarkClearedTwice_doesNotFreeTheSlotAnotherChangeReused() throws Exception {
        LocalDrive d = prepared();
        LocalDrive.Mark first = d.markChange("b", "first");
        d.removeChangeMark(first);
        LocalDrive.Mark second = d.markChange("b", "second");
        d.removeChangeMark(first);
        LocalDrive.Mark third = d.markChange("b", "third");

        assertThat(d.heldChangeMarks())
                .containsExactlyInAnyOrder(new ChangeMark("b", "second"), new ChangeMark("b", "third"));
        d.removeChangeMark(second);
        d.removeChangeMark(third);
        assertThat(d.heldChangeMarks()).isEmpty();
    }

    @Test
    void aSlotTornByACrash_namesNoKey_andTheOthersAreStillFound() throws Exception {
        LocalDrive d = prepared();
        d.markChange("b", "intact");
        d.markChange("b", "torn");
        d.closeChangeMarks();
        try (FileChannel ch = FileChannel.open(d.changeMarksFile(), StandardOpenOption.WRITE)) {
            // the second slot's last payload byte never reached the page: the checksum no longer matches
            int payload = "b\ntorn".length();
            ch.write(ByteBuffer.wrap(new byte[] {0}), ChangeMarkSlots.SLOT_BYTES + 8 + payload - 1);
        }

        assertThat(foundByNextStart()).containsExactly(new ChangeMark("b", "intact"));
    }

    @Test
    void marksOfAStartThatStoppedBeforeRecordingThem_areFoundAgainFromTrash() throws Exception {
        LocalDrive d = prepared();
        d.markChange("b", "k");
        LocalDrive second = new LocalDrive(dir);
        second.prepare(); // finds the mark, then stops before its owner records it: the slot file is in trash
        second.closeChangeMarks();
        assertThat(second.interruptedChanges()).containsExactly(new ChangeMark("b", "k"));
        assertThat(second.heldChangeMarks())
                .as("the new slot file starts empty")
                .isEmpty();

        assertThat(foundByNextStart()).containsExactly(new ChangeMark("b", "k"));
    }

    @Test
    void marksSetAfterTheSlotFileWasClosed_areFiles() throws Exception {
        LocalDrive d = prepared();
        LocalDrive.Mark before = d.markChange("b", "before");
        d.closeChangeMarks();
        LocalDrive.Mark after = d.markChange("b", "after");
        assertThat(after.isFile()).isTrue();
        d.removeChangeMark(before); // its file is unmapped: nothing to do, and no failure

        assertThat(foundByNextStart())
                .containsExactlyInAnyOrder(new ChangeMark("b", "before"), new ChangeMark("b", "after"));
    }

    private List<Path> stagingFiles() throws Exception {
        try (Stream<Path> s = Files.list(dir.resolve(LocalDrive.SYS_DIR).resolve("tmp"))) {
            return s.toList();
        }
    }
}
