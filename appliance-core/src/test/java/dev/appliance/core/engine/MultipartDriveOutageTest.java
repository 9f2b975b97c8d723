package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multipart uploads across drive outages on a real four-drive store (2+2): an upload aborted or completed while a
 * drive was away never comes back when the drive returns (while running, while the store was stopped, or unnoticed
 * by the drive check), and what the drive kept of it is removed; a creation a crash cut short on too few drives can
 * still be aborted and is rolled back at the next start.
 */
class MultipartDriveOutageTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private final List<ErasureObjectStore> stores = new ArrayList<>();
    private TestStore layout;

    @AfterEach
    void close() {
        for (ErasureObjectStore s : stores) {
            s.close();
        }
    }

    private ErasureObjectStore open() throws IOException {
        if (layout == null) {
            layout = TestStore.on(tmp).parity(2);
        }
        ErasureObjectStore s = TestEngine.openQuiet(layout);
        stores.add(s);
        return s;
    }

    /** Takes drive {@code i} away; {@code notice}: the store's drive check runs (it takes the drive out of service). */
    private static void takeAway(ErasureObjectStore s, int i, boolean notice) throws IOException {
        TestEngine.away(s, List.of(i));
        if (notice) {
            s.checkDrives();
            assertThat(s.drives().get(i).isOnline()).isFalse();
        }
    }

    private static void bringBack(ErasureObjectStore s, int i, boolean notice) throws IOException {
        TestEngine.back(s, List.of(i));
        if (notice) {
            s.checkDrives();
            assertThat(s.drives().get(i).isOnline()).isTrue();
        }
    }

    private static String uploadWithAPart(ErasureObjectStore s, String key, byte[] data, List<CompletedPart> parts)
            throws IOException {
        String id = s.createMultipartUpload(B, key, PutRequest.of(-1), null);
        UploadedPart p = s.uploadPart(B, key, id, 1, PutRequest.of(data.length), new ByteArrayInputStream(data));
        parts.add(new CompletedPart(1, p.etag()));
        return id;
    }

    private static List<String> listed(ErasureObjectStore s) {
        return s.listMultipartUploads(B, "").stream()
                .map(MultipartUpload::uploadId)
                .toList();
    }

    private static Path uploadDir(LocalDrive d, String key, String id) {
        return MultipartUploads.uploadsOf(d, B, key).resolve(id);
    }

    /** Key "mp" reads back as {@code data}, under the ETag its completion answered. */
    private static void assertCompleted(ErasureObjectStore s, byte[] data, ObjectInfo done) throws IOException {
        assertThat(read(s, B, "mp", null)).isEqualTo(data);
        assertThat(s.headObject(B, "mp", null).etag()).isEqualTo(done.etag());
    }

    private static void assertWriteQuorum(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(ErrorKind.WRITE_QUORUM));
    }

    private static void assertNoSuchUpload(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(ErrorKind.NO_SUCH_UPLOAD));
    }

    @Test
    void abortedWhileADriveWasAway_isNotListedWhenItReturns_andItsDirectoryIsRemovedThere() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(300_000, 1);
        List<CompletedPart> parts = new ArrayList<>();
        String id = uploadWithAPart(s, "mp", data, parts);
        String kept = uploadWithAPart(s, "other", data, new ArrayList<>());

        takeAway(s, 3, true);
        s.abortMultipartUpload(B, "mp", id);
        bringBack(s, 3, true);

        assertThat(listed(s)).containsExactly(kept);
        assertThat(uploadDir(s.drives().get(3), "mp", id)).doesNotExist();
        assertThat(uploadDir(s.drives().get(3), "other", kept)).isDirectory(); // a live upload is left alone
        assertNoSuchUpload(() -> s.completeMultipartUpload(B, "mp", id, parts));
        assertNoSuchUpload(() -> s.listParts(B, "mp", id, 0, 1000));
    }

    @Test
    void completedWhileADriveWasAway_isNotListedWhenItReturns_andTheObjectIsHealedThere() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(400_000, 2);
        List<CompletedPart> parts = new ArrayList<>();
        String id = uploadWithAPart(s, "mp", data, parts);

        takeAway(s, 2, true);
        ObjectInfo done = s.completeMultipartUpload(B, "mp", id, parts);
        bringBack(s, 2, true);

        assertThat(listed(s)).isEmpty();
        assertThat(uploadDir(s.drives().get(2), "mp", id)).doesNotExist();
        s.healer().drain();
        assertThat(HealTestDrives.files(s.drives().get(2), B, "mp")).containsKey("xl.meta");
        takeAway(s, 0, true);
        takeAway(s, 1, true); // the returned drive now carries half the object
        assertCompleted(s, data, done);
    }

    @Test
    void abortedWhileADriveWasAway_whichReturnsWhileTheStoreIsStopped_isGoneAfterTheStart() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        String id = uploadWithAPart(first, "mp", random(200_000, 3), new ArrayList<>());
        takeAway(first, 1, true);
        first.abortMultipartUpload(B, "mp", id);
        first.close();
        stores.remove(first);
        bringBack(first, 1, false);

        ErasureObjectStore second = open();
        assertThat(listed(second)).isEmpty();
        assertThat(uploadDir(second.drives().get(1), "mp", id)).doesNotExist();
    }

    @Test
    void abortedWhileADriveWasBrieflyAwayUnnoticed_isNotListed_andTheScannerRemovesItsDirectory() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        String id = uploadWithAPart(s, "mp", random(200_000, 4), new ArrayList<>());
        takeAway(s, 0, false); // away and back between two drive checks: no return is ever seen
        s.abortMultipartUpload(B, "mp", id);
        bringBack(s, 0, false);
        assertThat(s.checkDrives()).isEmpty();

        assertThat(listed(s)).isEmpty();
        assertNoSuchUpload(() -> s.listParts(B, "mp", id, 0, 1000));
        assertThat(uploadDir(s.drives().getFirst(), "mp", id)).isDirectory();
        s.scanNow();
        assertThat(uploadDir(s.drives().getFirst(), "mp", id)).doesNotExist();
    }

    @Test
    void completeWithTooFewDrivesHoldingTheParts_answers503_andLosesNoPart() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(300_000, 6);
        List<CompletedPart> parts = new ArrayList<>();
        takeAway(s, 3, true);
        String id = uploadWithAPart(s, "mp", data, parts); // acknowledged on drives 1-3
        takeAway(s, 0, true); // now only drives 2 and 3 hold the part, and no other drive is in service to take it

        // Found a crash test: committing on the two, then undoing the refused commit, threw their part data away,
        // and once the drives were back only drive 1 held the part: InvalidPart for an acknowledged upload.
        assertWriteQuorum(() -> s.completeMultipartUpload(B, "mp", id, parts));
        bringBack(s, 0, true);
        bringBack(s, 3, true);

        assertThat(listed(s)).containsExactly(id);
        ObjectInfo done = s.completeMultipartUpload(B, "mp", id, parts);
        assertCompleted(s, data, done);
    }

    /**
     * Each part acknowledged on a write quorum, but not the same one: part 1 without drive 3, part 2 without drive 2,
     * so only drives 0 and 1 hold both (found by the crash test: the upload could never be completed). The completion
     * rebuilds each part's shard on the drive that lacks it and commits on all four.
     */
    @Test
    void partsAcknowledgedOnDifferentDrives_areRebuiltWhereMissing_andTheUploadCompletesOnEveryDrive()
            throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] first = random((5 << 20) + 123_457, 11); // several erasure blocks, the last short
        byte[] second = random(300_001, 12);
        String id = uploadInTwoParts(s, first, second, new int[] {3, 2});
        List<CompletedPart> parts = completedParts(s, id);

        ObjectInfo done = s.completeMultipartUpload(B, "mp", id, parts);

        byte[] whole = concat(first, second);
        assertCompleted(s, whole, done);
        for (LocalDrive d : s.drives()) {
            assertThat(HealTestDrives.files(d, B, "mp")).as("%s", d).containsKey("xl.meta");
        }
        takeAway(s, 0, true);
        takeAway(s, 1, true); // left: the two drives that got a part rebuilt
        assertCompleted(s, whole, done);
    }

    @Test
    void aDamagedShardAmongThoseAPartIsRebuiltFrom_isPassedOver() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] first = random((5 << 20) + 1, 13);
        byte[] second = random(300_001, 14);
        String id = uploadInTwoParts(s, first, second, new int[] {3, 2});
        List<CompletedPart> parts = completedParts(s, id);
        // Part 2 is held by drives 0, 1 and 3; damage the copy read first, the one with the lowest shard index.
        ObjectMapper json = new ObjectMapper();
        int[] distribution = json.treeToValue(
                json.readTree(Files.readAllBytes(
                                uploadDir(s.drives().getFirst(), "mp", id).resolve("upload.json")))
                        .get("distribution"),
                int[].class);
        int damaged = IntStream.of(0, 1, 3)
                .boxed()
                .min(Comparator.comparingInt(i -> distribution[i]))
                .orElseThrow();
        HealTestDrives.corrupt(uploadedPart(s.drives().get(damaged), id, 2), 8, 15);

        ObjectInfo done = s.completeMultipartUpload(B, "mp", id, parts);

        byte[] whole = concat(first, second);
        assertCompleted(s, whole, done);
        // Reading without the damaged drive and another one that held part 2 uses drive 2's rebuilt shard.
        takeAway(s, damaged, true);
        takeAway(s, damaged == 0 ? 1 : 0, true);
        assertCompleted(s, whole, done);
    }

    /** Key "mp" in two parts, each uploaded while drive {@code awayFor[i]} is away (and back afterwards). */
    private static String uploadInTwoParts(ErasureObjectStore s, byte[] first, byte[] second, int[] awayFor)
            throws IOException {
        String id = s.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        byte[][] bodies = {first, second};
        for (int i = 0; i < 2; i++) {
            takeAway(s, awayFor[i], true);
            s.uploadPart(B, "mp", id, i + 1, PutRequest.of(bodies[i].length), new ByteArrayInputStream(bodies[i]));
            bringBack(s, awayFor[i], true);
        }
        return id;
    }

    private static List<CompletedPart> completedParts(ErasureObjectStore s, String id) {
        return s.listParts(B, "mp", id, 0, 1000).stream()
                .map(p -> new CompletedPart(p.partNumber(), p.etag()))
                .toList();
    }

    private static Path uploadedPart(LocalDrive d, String id, int number) throws IOException {
        try (var walk = Files.walk(uploadDir(d, "mp", id))) {
            return walk.filter(p -> p.getFileName().toString().equals("part." + number))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void completeRefusedByDrivesFailingTheCommit_putsThePartsBack_andARetryCompletes() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(300_000, 7);
        List<CompletedPart> parts = new ArrayList<>();
        String id = uploadWithAPart(s, "mp", data, parts);
        // every drive holds the part, but two fail their writes: the commit reaches two drives, three needed
        for (int i : new int[] {2, 3}) {
            s.drives().get(i).injectFaults(new DriveFaults(false, true, false, false, 0));
        }
        assertWriteQuorum(() -> s.completeMultipartUpload(B, "mp", id, parts));
        for (LocalDrive d : s.drives()) {
            d.injectFaults(null);
        }
        s.checkDrives();

        // the two drives that had committed hold the part in the upload again, not in trash
        for (int i : new int[] {0, 1}) {
            assertThat(HealTestDrives.files(s.drives().get(i), B, "mp")).doesNotContainKey("xl.meta");
            try (var walk = Files.walk(uploadDir(s.drives().get(i), "mp", id))) {
                assertThat(walk.map(p -> p.getFileName().toString()))
                        .as("drive %d", i + 1)
                        .contains("part.1");
            }
        }
        ObjectInfo done = s.completeMultipartUpload(B, "mp", id, parts);
        assertCompleted(s, data, done);
        assertThat(listed(s)).isEmpty();
    }

    @Test
    void abortWithTwoDrivesAway_answers503_andTheUploadStaysUsable() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(300_000, 5);
        List<CompletedPart> parts = new ArrayList<>();
        String id = uploadWithAPart(s, "mp", data, parts);
        takeAway(s, 2, true);
        takeAway(s, 3, true);
        // Only two drives can confirm the removal: the two away would bring the upload back.
        assertWriteQuorum(() -> s.abortMultipartUpload(B, "mp", id));
        bringBack(s, 2, false); // both back before the drive check notices either
        bringBack(s, 3, true);

        assertThat(listed(s)).containsExactly(id);
        s.abortMultipartUpload(B, "mp", id);
        assertThat(listed(s)).isEmpty();
        for (LocalDrive d : s.drives()) {
            assertThat(uploadDir(d, "mp", id)).as("%s", d).doesNotExist();
        }
    }

    /**
     * The same refused abort, but the drives return one at a time: with the first back, one drive holds the upload,
     * two positively lack it (the abort took it from them) and one is away, fewer than a write quorum together. Such
     * an upload can no longer be told from one whose abort succeeded while drives were away, so it counts as ended and
     * is removed, as the client asked (a version deleted the same way is rolled back alike: {@code ObjectHealer}).
     */
    @Test
    void abortRefusedWithTwoDrivesAway_thenTheyReturnOneAtATime_theUploadCountsAsEnded() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        String id = uploadWithAPart(s, "mp", random(300_000, 6), new ArrayList<>());
        takeAway(s, 2, true);
        takeAway(s, 3, true);
        assertWriteQuorum(() -> s.abortMultipartUpload(B, "mp", id));
        bringBack(s, 2, true);
        bringBack(s, 3, true);

        assertThat(listed(s)).isEmpty();
        for (LocalDrive d : s.drives()) {
            assertThat(uploadDir(d, "mp", id)).as("%s", d).doesNotExist();
        }
    }

    @Test
    void aCreationCutShortOnOneDrive_isNotListed_canBeAborted_andIsRolledBackAtTheNextStart() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        String aborted = first.createMultipartUpload(B, "a", PutRequest.of(-1), null);
        String left = first.createMultipartUpload(B, "b", PutRequest.of(-1), null);
        String onTwo = first.createMultipartUpload(B, "c", PutRequest.of(-1), null);
        // The crash: "a" and "b" reached drive 0 only, "c" drives 0 and 1 (a read quorum, not a write quorum).
        for (int i = 1; i < 4; i++) {
            LocalDrive.deleteTree(MultipartUploads.uploadsOf(first.drives().get(i), B, "a"));
            LocalDrive.deleteTree(MultipartUploads.uploadsOf(first.drives().get(i), B, "b"));
            if (i > 1) {
                LocalDrive.deleteTree(MultipartUploads.uploadsOf(first.drives().get(i), B, "c"));
            }
        }
        assertThat(listed(first)).containsExactly(onTwo);
        first.abortMultipartUpload(B, "a", aborted);
        assertThat(uploadDir(first.drives().getFirst(), "a", aborted)).doesNotExist();

        ErasureObjectStore second = open(); // the restart after the crash (the first is abandoned, as by SIGKILL)
        assertThat(uploadDir(second.drives().getFirst(), "b", left)).doesNotExist();
        assertThat(listed(second)).containsExactly(onTwo);
        second.abortMultipartUpload(B, "c", onTwo);
        assertThat(listed(second)).isEmpty();
        for (LocalDrive d : second.drives()) {
            for (String key : List.of("a", "b", "c")) {
                assertThat(MultipartUploads.uploadsOf(d, B, key))
                        .as("%s %s", d, key)
                        .doesNotExist();
            }
        }
    }

    @Test
    void anUploadWhoseCreationIsStillWritingItsRecord_isLeftAloneByTheReconcile() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        String id = s.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        // As while its creation runs: the record on drive 0 so far, the creation holding the upload's lock.
        Map<Path, byte[]> records = new HashMap<>();
        for (int i = 1; i < 4; i++) {
            Path record = uploadDir(s.drives().get(i), "mp", id).resolve("upload.json");
            records.put(record, Files.readAllBytes(record));
            LocalDrive.deleteTree(MultipartUploads.uploadsOf(s.drives().get(i), B, "mp"));
        }
        ErasureSet set = s.setFor("mp");
        CompletableFuture<Integer> removed = new CompletableFuture<>();
        try (var creating = set.locks.write(MultipartUploads.UPLOAD_LOCKS, id)) {
            Thread.ofVirtual().start(() -> {
                try {
                    removed.complete(s.uploadsOf(set).reconcile());
                } catch (RuntimeException e) {
                    removed.completeExceptionally(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (set.locks.users(MultipartUploads.UPLOAD_LOCKS, id) < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the reconcile, which took the upload for a leftover, waits for the lock
            }
            assertThat(set.locks.users(MultipartUploads.UPLOAD_LOCKS, id)).isEqualTo(2);
            for (var e : records.entrySet()) { // the creation reaches the other drives
                Files.createDirectories(e.getKey().getParent());
                Files.write(e.getKey(), e.getValue());
            }
        }
        assertThat(removed.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(listed(s)).containsExactly(id);
        for (LocalDrive d : s.drives()) {
            assertThat(uploadDir(d, "mp", id).resolve("upload.json"))
                    .as("%s", d)
                    .exists();
        }
    }
}
