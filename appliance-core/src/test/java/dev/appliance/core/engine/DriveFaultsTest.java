package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected into drives ({@link DriveFaults}) on a 4-drive EC 2+2 store: reads and writes within quorum work,
 * beyond it they fail with the quorum (or storage-full) error, never a wrong answer; a removed drive never counts as
 * one that lacks a key; a stalled drive does not stall reads or writes.
 */
class DriveFaultsTest {
    private static final DriveFaults READ_ERRORS = new DriveFaults(true, false, false, false, 0);
    private static final DriveFaults WRITE_ERRORS = new DriveFaults(false, true, false, false, 0);
    private static final DriveFaults FULL = new DriveFaults(false, false, true, false, 0);

    @TempDir
    Path tmp;

    private ErasureObjectStore store;
    private List<Path> roots;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private void open() throws Exception {
        TestStore layout = TestStore.on(tmp);
        roots = layout.drives();
        store = TestEngine.open(layout);
        store.makeBucket("bkt");
    }

    private LocalDrive drive(int i) {
        return store.drives().get(i);
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private void put(String key, byte[] data) throws Exception {
        store.putObject("bkt", key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    private byte[] read(String key) throws Exception {
        try (ObjectReader r = store.getObject("bkt", key, null, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            return out.toByteArray();
        }
    }

    private static ErrorKind kindOf(ThrowingRunnable r) {
        try {
            r.run();
            return null;
        } catch (StorageException e) {
            return e.kind();
        } catch (Exception e) {
            throw new AssertionError("expected a StorageException", e);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void noFaults_byDefault() throws Exception {
        open();
        assertThat(store.drives()).allSatisfy(d -> assertThat(d.faults()).isNull());
        drive(0).injectFaults(new DriveFaults(false, false, false, false, 0));
        assertThat(drive(0).faults()).as("injecting nothing clears").isNull();
    }

    @Test
    void readErrors_withinParity_readExactly_beyondParity_failWithReadQuorum() throws Exception {
        open();
        byte[] small = random(10_000, 1);
        byte[] large = random(3_000_000, 2);
        put("small", small);
        put("large", large);
        drive(0).injectFaults(READ_ERRORS);
        drive(2).injectFaults(READ_ERRORS);
        assertThat(read("small")).isEqualTo(small);
        assertThat(read("large")).isEqualTo(large);
        drive(3).injectFaults(READ_ERRORS);
        assertThat(kindOf(() -> read("small"))).isEqualTo(ErrorKind.READ_QUORUM);
        assertThat(kindOf(() -> read("large"))).isEqualTo(ErrorKind.READ_QUORUM);
        assertThat(kindOf(() -> store.headObject("bkt", "large", null))).isEqualTo(ErrorKind.READ_QUORUM);
        store.drives().forEach(d -> d.injectFaults(null));
        assertThat(read("large")).isEqualTo(large);
    }

    /** Found by the failure matrix: three removed drives of four made a read answer "no such key". */
    @Test
    void removedDrives_beyondParity_failWithReadQuorum_notNoSuchKey() throws Exception {
        open();
        byte[] data = random(200_000, 3);
        put("k", data);
        List<Path> away = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path to = tmp.resolve("away" + i);
            Files.move(roots.get(i), to);
            away.add(to);
        }
        assertThat(kindOf(() -> read("k"))).isEqualTo(ErrorKind.READ_QUORUM);
        assertThat(kindOf(() -> store.headObject("bkt", "k", null))).isEqualTo(ErrorKind.READ_QUORUM);
        for (int i = 0; i < 3; i++) {
            Files.move(away.get(i), roots.get(i));
        }
        assertThat(read("k")).isEqualTo(data);
    }

    /** Found by the failure matrix: a delete counted removed drives as drives it had deleted from. */
    @Test
    void removedDrives_deleteBeyondQuorum_failsAndTheObjectStays() throws Exception {
        open();
        byte[] data = random(50_000, 4);
        put("k", data);
        Files.move(roots.get(0), tmp.resolve("away0"));
        Files.move(roots.get(1), tmp.resolve("away1"));
        assertThat(kindOf(() -> store.deleteObject("bkt", "k", null))).isEqualTo(ErrorKind.WRITE_QUORUM);
        Files.move(tmp.resolve("away0"), roots.get(0));
        Files.move(tmp.resolve("away1"), roots.get(1));
        assertThat(read("k")).isEqualTo(data);
        for (Path r : roots) {
            assertThat(r.resolve("bkt/k/xl.meta")).exists();
        }
    }

    @Test
    void writeErrors_beyondWriteQuorum_failAndLeaveNothing() throws Exception {
        open();
        drive(1).injectFaults(WRITE_ERRORS);
        byte[] ok = random(2_500_000, 5);
        put("ok", ok); // 3 of 4 drives: the write quorum of 2+2
        assertThat(read("ok")).isEqualTo(ok);
        drive(2).injectFaults(WRITE_ERRORS);
        byte[] refused = random(2_500_000, 6);
        assertThat(kindOf(() -> put("refused", refused))).isEqualTo(ErrorKind.WRITE_QUORUM);
        store.drives().forEach(d -> d.injectFaults(null));
        assertThat(kindOf(() -> store.headObject("bkt", "refused", null))).isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
        for (Path r : roots) {
            assertThat(r.resolve("bkt/refused")).doesNotExist();
            try (Stream<Path> staging = Files.list(r.resolve(".appliance.sys/tmp"))) {
                assertThat(staging).as("staging left on " + r).isEmpty();
            }
        }
        assertThat(store.heal("bkt", "ok", null).status()).isEqualTo(HealResult.Status.HEALED);
        assertThat(roots.get(1).resolve("bkt/ok/xl.meta")).exists();
    }

    /** Found by the failure matrix: a write refused at commit left the key's empty directory on the drives it undid. */
    @Test
    void readErrors_writeRefusedAtCommit_leavesNoDirectory() throws Exception {
        open();
        drive(2).injectFaults(READ_ERRORS);
        drive(3).injectFaults(READ_ERRORS);
        // staging works on every drive, but the commit reads xl.meta first: two drives fail it, below the quorum of 3
        assertThat(kindOf(() -> put("dir/refused", random(1_500_000, 20)))).isEqualTo(ErrorKind.WRITE_QUORUM);
        store.drives().forEach(d -> d.injectFaults(null));
        for (Path r : roots) {
            assertThat(r.resolve("bkt/dir"))
                    .as("directories of the refused write on " + r)
                    .doesNotExist();
        }
        assertThat(store.listObjects("bkt", "", "/", null, 100).commonPrefixes())
                .isEmpty();
    }

    @Test
    void fullDrives_failWritesWithStorageFull_readsAndDeletesWork() throws Exception {
        open();
        byte[] before = random(300_000, 7);
        put("before", before);
        put("gone-soon", random(1000, 8));
        drive(0).injectFaults(FULL);
        byte[] oneFull = random(300_000, 9);
        put("one-full", oneFull); // one full drive of four: the write still has its quorum
        assertThat(read("one-full")).isEqualTo(oneFull);
        assertThat(roots.get(0).resolve("bkt/one-full")).doesNotExist();
        store.drives().forEach(d -> d.injectFaults(FULL));
        assertThat(kindOf(() -> put("refused", random(300_000, 10)))).isEqualTo(ErrorKind.STORAGE_FULL);
        assertThat(kindOf(() -> put("refused-small", random(100, 11)))).isEqualTo(ErrorKind.STORAGE_FULL);
        assertThat(read("before")).isEqualTo(before);
        store.deleteObject("bkt", "gone-soon", null);
        assertThat(kindOf(() -> store.headObject("bkt", "gone-soon", null))).isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
        store.drives().forEach(d -> d.injectFaults(null));
        assertThat(kindOf(() -> store.headObject("bkt", "refused", null))).isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
        byte[] after = random(300_000, 12);
        put("after", after);
        assertThat(read("after")).isEqualTo(after);
    }

    /**
     * A version held by three drives of four, two of them slow: the two that answer in time do not agree, so the read
     * waits for the slow ones instead of answering "no such key".
     */
    @Test
    void slowHolders_ofADegradedVersion_areWaitedFor_neverNoSuchKey() throws Exception {
        open();
        drive(3).injectFaults(WRITE_ERRORS);
        byte[] data = random(40_000, 30);
        put("degraded", data); // on drives 0, 1 and 2 only
        drive(3).injectFaults(null);
        drive(0).injectFaults(new DriveFaults(false, false, false, false, 1_000));
        drive(1).injectFaults(new DriveFaults(false, false, false, false, 1_000));
        assertThat(store.headObject("bkt", "degraded", null).size()).isEqualTo(40_000);
        assertThat(read("degraded")).isEqualTo(data);
        // with one slow drive, three that answer "absent" settle it: a missing key is "no such key" at once
        drive(1).injectFaults(null);
        long t0 = System.nanoTime();
        assertThat(kindOf(() -> store.headObject("bkt", "missing", null))).isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1_000);
    }

    @Test
    void goneDrive_countsAsFailed() throws Exception {
        open();
        byte[] data = random(100_000, 13);
        put("k", data);
        for (int i = 0; i < 3; i++) {
            drive(i).injectFaults(new DriveFaults(false, false, false, true, 0));
        }
        assertThat(kindOf(() -> read("k"))).isEqualTo(ErrorKind.READ_QUORUM);
        assertThat(kindOf(() -> put("k2", data))).isEqualTo(ErrorKind.WRITE_QUORUM);
        drive(0).injectFaults(null);
        assertThat(read("k")).isEqualTo(data);
    }

    @Test
    void stalledDrive_doesNotStallReadsOrWrites_andIsCounted() throws Exception {
        open();
        byte[] large = random(5_000_000, 14);
        byte[] small = random(20_000, 15);
        put("large", large);
        put("small", small);
        drive(0).injectFaults(new DriveFaults(false, false, false, false, 5_000));
        long t0 = System.nanoTime();
        assertThat(read("large")).isEqualTo(large);
        assertThat(read("small")).isEqualTo(small);
        long readMillis = (System.nanoTime() - t0) / 1_000_000;
        // waited out, the stall would cost at least 10 s (metadata, open, first block); bounded, about 1 s (3 × 300 ms)
        assertThat(readMillis).as("two reads with a drive stalling 5 s per I/O").isLessThan(4_000);

        byte[] written = random(3_000_000, 16);
        long t1 = System.nanoTime();
        put("written", written);
        long writeMillis = (System.nanoTime() - t1) / 1_000_000;
        // the slow drive is left out after the write straggler bound (2 s), not waited out (5 s per I/O)
        assertThat(writeMillis).as("a write with a drive stalling 5 s per I/O").isLessThan(4_500);
        assertThat(drive(0).slowCalls()).isPositive();
        drive(0).injectFaults(null);
        assertThat(read("written")).isEqualTo(written);
        assertThat(store.heal("bkt", "written", null).status()).isEqualTo(HealResult.Status.HEALED);
    }
}
