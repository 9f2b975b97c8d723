package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.await;
import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a process crash (SIGKILL) leaves in the middle of a change, and how the next start cleans it: the change marks a
 * change keeps in staging while it runs make the next start heal the key as a whole, which collects data directories
 * no version references and what is left of a completed multipart upload; trash is emptied in the background. Each
 * crash is reproduced by putting the drives in the state the interrupted change leaves and abandoning the store
 * without closing it, as {@code CrashSafetyIT} does to the real process.
 */
class CrashLeftoversTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private final List<ErasureObjectStore> stores = new ArrayList<>();

    @AfterEach
    void close() {
        for (ErasureObjectStore s : stores) {
            s.close();
        }
    }

    private ErasureObjectStore open() throws IOException {
        ErasureObjectStore s = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        stores.add(s);
        return s;
    }

    private static ObjectInfo put(ErasureObjectStore s, String key, byte[] data) throws IOException {
        return s.putObject(B, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /**
     * Change marks and staging directories in a drive's staging (single {@code .tmp} files are metadata writes of
     * background threads, such as the heal journal's compaction, passing through).
     */
    private static List<String> marksAndStaging(LocalDrive d) throws IOException {
        return entries(d.sysDir().resolve("tmp")).stream()
                .filter(n -> !n.endsWith(".tmp"))
                .toList();
    }

    private static List<String> entries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aDataDirectoryRenamedInWithoutItsMetadata_isCollectedAfterTheNextStart() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        byte[] data = random(2_500_000, 1);
        put(first, "k", data);
        put(first, "other", random(1_500_000, 2));
        // The crash: an overwrite of k renamed its data directory in, and the process died before xl.meta's rename.
        // On drive 4 the start that found the mark died too, before recording it (its staging went to trash).
        String orphan = UUID.randomUUID().toString();
        for (LocalDrive d : first.drives()) {
            Path dir = Files.createDirectory(d.objectDir(B, "k").resolve(orphan));
            Files.write(dir.resolve("part.1"), random(1000, 3));
            d.markChange(B, "k");
        }
        Path earlierStaging = first.drives().get(3).sysDir().resolve("trash").resolve("tmp-earlier");
        Files.createDirectories(earlierStaging);
        for (Path mark : entries(first.drives().get(3).sysDir().resolve("tmp")).stream()
                .map(n -> first.drives().get(3).sysDir().resolve("tmp").resolve(n))
                .toList()) {
            Files.move(mark, earlierStaging.resolve(mark.getFileName()));
        }
        Path slots = first.drives().get(3).changeMarksFile();
        Files.move(slots, earlierStaging.resolve(slots.getFileName()));

        ErasureObjectStore second = open();
        assertThat(second.healQueue().snapshot())
                .as("the interrupted change is queued for a heal of the whole key, journaled")
                .extracting(i -> i.key() + "?" + i.versionId())
                .containsExactly("k?");
        second.healer().drain();

        for (LocalDrive d : second.drives()) {
            assertThat(entries(d.objectDir(B, "k"))).as("%s", d).doesNotContain(orphan);
            assertThat(marksAndStaging(d)).as("staging of %s", d).isEmpty();
        }
        assertThat(read(second, B, "k", null)).isEqualTo(data);
        assertThat(entries(second.drives().getFirst().objectDir(B, "other")))
                .as("keys nobody changed keep their data directory")
                .hasSize(2);
    }

    @Test
    void aDeleteStoppedBeforeTheDataDirectoryWentToTrash_leavesNothingAfterTheNextStart() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        put(first, "dir/k", random(1_200_000, 4));
        // The crash: the delete removed xl.meta on every drive; its data directory was still to go to trash.
        for (LocalDrive d : first.drives()) {
            d.markChange(B, "dir/k");
            Files.delete(d.metaFile(B, "dir/k"));
        }

        ErasureObjectStore second = open();
        second.healer().drain();

        for (LocalDrive d : second.drives()) {
            assertThat(d.objectDir(B, "dir/k")).as("%s", d).doesNotExist();
            assertThat(d.bucketDir(B).resolve("dir"))
                    .as("the empty parent on %s", d)
                    .doesNotExist();
        }
        assertThat(second.listObjects(B, "", null, null, 100).objects()).isEmpty();
    }

    @Test
    void aCompletionStoppedBeforeItsUploadWasRemoved_answersTheRepeatedCompletion_andIsCleaned() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        String id = first.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        byte[] data = random(700_000, 5);
        UploadedPart p = first.uploadPart(B, "mp", id, 1, PutRequest.of(data.length), new ByteArrayInputStream(data));
        List<CompletedPart> parts = List.of(new CompletedPart(1, p.etag()));
        // What the commit leaves in the upload's directory: its records (the parts moved into the object).
        Map<Path, byte[]> records = new HashMap<>();
        for (LocalDrive d : first.drives()) {
            Path upload = MultipartUploads.uploadsOf(d, B, "mp").resolve(id);
            for (String name : List.of("upload.json", "part.1.json")) {
                records.put(upload.resolve(name), Files.readAllBytes(upload.resolve(name)));
            }
        }
        ObjectInfo done = first.completeMultipartUpload(B, "mp", id, parts);
        // The crash: between the commit and the removal of the upload.
        for (var e : records.entrySet()) {
            Files.createDirectories(e.getKey().getParent());
            Files.write(e.getKey(), e.getValue());
        }
        assertThat(first.listMultipartUploads(B, "")).hasSize(1);

        ObjectInfo again = first.completeMultipartUpload(B, "mp", id, parts);
        assertThat(again.etag()).isEqualTo(done.etag());
        assertThat(first.listMultipartUploads(B, "")).isEmpty();
        assertThat(read(first, B, "mp", null)).isEqualTo(data);

        // Left again, and found by the heal of the key the change mark causes at the next start.
        for (var e : records.entrySet()) {
            Files.createDirectories(e.getKey().getParent());
            Files.write(e.getKey(), e.getValue());
        }
        for (LocalDrive d : first.drives()) {
            d.markChange(B, "mp");
        }
        ErasureObjectStore second = open();
        second.healer().drain();
        assertThat(second.listMultipartUploads(B, "")).isEmpty();
        for (LocalDrive d : second.drives()) {
            assertThat(MultipartUploads.uploadsOf(d, B, "mp")).as("%s", d).doesNotExist();
        }
        assertThat(read(second, B, "mp", null)).isEqualTo(data);
    }

    @Test
    void anOverwriteStoppedOnHalfTheDrives_readsTheNewerBody_andHealsBackToFullRedundancy() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] older = random(1_500_000, 11);
        byte[] newer = random(1_600_000, 12);
        put(s, "k", older);
        List<Map<String, byte[]>> olderFiles = HealTestDrives.snapshot(s, B, "k");
        put(s, "k", newer);
        // The crash: the unversioned overwrite committed on drives 0 and 1 only; 2 and 3 still hold the older body
        // under the same (null) version id. Neither group outnumbers the other.
        for (int i = 2; i < 4; i++) {
            Path dir = s.drives().get(i).objectDir(B, "k");
            LocalDrive.deleteTree(dir);
            for (var f : olderFiles.get(i).entrySet()) {
                Path file = dir.resolve(f.getKey());
                Files.createDirectories(file.getParent());
                Files.write(file, f.getValue());
            }
        }

        assertThat(read(s, B, "k", null)).as("the newer body wins the tie").isEqualTo(newer);
        assertThat(s.listObjects(B, "", null, null, 10).objects().getFirst().etag())
                .isEqualTo(s.headObject(B, "k", null).etag());
        HealResult r = s.heal(B, "k", null);
        assertThat(r.status()).as("%s", r).isEqualTo(HealResult.Status.HEALED);
        List<Map<String, byte[]>> after = HealTestDrives.snapshot(s, B, "k");
        for (int i = 1; i < 4; i++) {
            assertThat(after.get(i).keySet()).isEqualTo(after.getFirst().keySet());
        }
        TestEngine.away(s, List.of(0, 1));
        try {
            assertThat(read(s, B, "k", null)).as("drives 2 and 3 alone").isEqualTo(newer);
        } finally {
            TestEngine.back(s, List.of(0, 1));
        }
    }

    @Test
    void aCompletionStoppedBetweenItsRenames_keepsTheAcknowledgedParts() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        String id = first.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        byte[] data = random(900_000, 13);
        UploadedPart p = first.uploadPart(B, "mp", id, 1, PutRequest.of(data.length), new ByteArrayInputStream(data));
        // The crash: on every drive the upload's data directory was renamed into the object directory, and the
        // process died before xl.meta's rename.
        for (LocalDrive d : first.drives()) {
            d.markChange(B, "mp");
            Path upload = MultipartUploads.uploadsOf(d, B, "mp").resolve(id);
            String dataDir = entries(upload).stream()
                    .filter(n -> !n.endsWith(".json"))
                    .findFirst()
                    .orElseThrow();
            Files.createDirectories(d.objectDir(B, "mp"));
            Files.move(upload.resolve(dataDir), d.objectDir(B, "mp").resolve(dataDir));
        }

        ErasureObjectStore second = open();
        second.healer().drain(); // the heal of the key must not collect the parts as garbage
        ObjectInfo done = second.completeMultipartUpload(B, "mp", id, List.of(new CompletedPart(1, p.etag())));
        assertThat(done.size()).isEqualTo(data.length);
        assertThat(read(second, B, "mp", null)).isEqualTo(data);
    }

    @Test
    void anUploadWhoseCreationStoppedOnOneDrive_canBeAborted() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        String id = s.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        // The crash: the creation wrote its record on drive 0 only.
        for (int i = 1; i < 4; i++) {
            LocalDrive.deleteTree(MultipartUploads.uploadsOf(s.drives().get(i), B, "mp"));
        }
        // Not listed (a read quorum of drives must hold an upload), yet its id can still end it; the next start
        // would also roll it back (MultipartDriveOutageTest).
        assertThat(s.listMultipartUploads(B, "")).isEmpty();

        s.abortMultipartUpload(B, "mp", id);
        assertThat(s.listMultipartUploads(B, "")).isEmpty();
        assertThat(MultipartUploads.uploadsOf(s.drives().getFirst(), B, "mp")).doesNotExist();
    }

    @Test
    void trash_isEmptiedInTheBackground() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        put(s, "k", random(1_200_000, 6));
        put(s, "k", random(1_300_000, 7)); // the first version's data directory goes to trash
        s.deleteObject(B, "k", null, false);
        await("trash emptied", () -> {
            try {
                for (LocalDrive d : s.drives()) {
                    if (!entries(d.sysDir().resolve("trash")).isEmpty()) {
                        return false;
                    }
                }
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    void finishedChanges_leaveNoMark() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        put(s, "a", random(10, 8));
        put(s, "b", random(1_100_000, 9));
        s.deleteObject(B, "a", null, false);
        String id = s.createMultipartUpload(B, "c", PutRequest.of(-1), null);
        byte[] data = random(1000, 10);
        UploadedPart p = s.uploadPart(B, "c", id, 1, PutRequest.of(data.length), new ByteArrayInputStream(data));
        s.completeMultipartUpload(B, "c", id, List.of(new CompletedPart(1, p.etag())));
        for (LocalDrive d : s.drives()) {
            assertThat(marksAndStaging(d)).as("staging of %s", d).isEmpty();
        }
    }

    /**
     * A versioned PUT the crash stopped after its {@code xl.meta} was renamed on drives 1 and 2 (of 4, write quorum 3),
     * and another after drive 1 only: the next start rolls the first forward onto every drive, so it survives any two
     * drives away, and the second back, before anything is served.
     */
    @Test
    void writesStoppedBelowTheirWriteQuorum_areRolledForwardOrBack_beforeTheStoreServes() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        first.setVersioning(B, dev.appliance.core.VersioningState.ENABLED);
        ObjectInfo older = put(first, "k", random(1000, 20));
        ObjectInfo olderJ = put(first, "j", random(1000, 21));
        List<Map<String, byte[]>> kBefore = HealTestDrives.snapshot(first, B, "k");
        List<Map<String, byte[]>> jBefore = HealTestDrives.snapshot(first, B, "j");
        byte[] forward = random(700_000, 22);
        ObjectInfo rolledForward = put(first, "k", forward);
        ObjectInfo rolledBack = put(first, "j", random(700_000, 23));
        stopAfter(first, "k", kBefore, 2);
        stopAfter(first, "j", jBefore, 1);

        ErasureObjectStore second = open();
        for (LocalDrive d : second.drives()) {
            var meta = dev.appliance.core.meta.XlMeta.parse(Files.readAllBytes(d.metaFile(B, "k")));
            assertThat(meta.indexOf(UUID.fromString(rolledForward.versionId())))
                    .as("rolled forward onto %s", d.root())
                    .isGreaterThanOrEqualTo(0);
            var j = dev.appliance.core.meta.XlMeta.parse(Files.readAllBytes(d.metaFile(B, "j")));
            assertThat(j.indexOf(UUID.fromString(rolledBack.versionId())))
                    .as("rolled back on %s", d.root())
                    .isEqualTo(-1);
        }
        TestEngine.away(second, List.of(0, 1));
        try {
            assertThat(second.headObject(B, "k", null).versionId()).isEqualTo(rolledForward.versionId());
            assertThat(read(second, B, "k", rolledForward.versionId())).isEqualTo(forward);
            assertThat(second.headObject(B, "j", null).versionId()).isEqualTo(olderJ.versionId());
        } finally {
            TestEngine.back(second, List.of(0, 1));
        }
        assertThat(second.listObjectVersions(B, "k", null, null, null, 10).versions())
                .extracting(ObjectInfo::versionId)
                .containsExactly(rolledForward.versionId(), older.versionId());
    }

    /**
     * A PUT a crash cut on two drives of four (below its write quorum of three, so never acknowledged), restarted with
     * one of those two away: the start's settling rolls it back at once (one holder and one unknown drive are fewer
     * than the three its write needed), so when the drive returns it is not read, listed or healed forward: the
     * interrupted write stays absent, as it was served while the drive was away.
     */
    @Test
    void aWriteStoppedOnTwoDrives_oneOfThemAwayAtTheRestart_staysAbsentWhenTheDriveReturns() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        first.setVersioning(B, dev.appliance.core.VersioningState.ENABLED);
        ObjectInfo older = put(first, "k", random(1000, 30));
        List<Map<String, byte[]>> before = HealTestDrives.snapshot(first, B, "k");
        ObjectInfo cut = put(first, "k", random(700_000, 31));
        stopAfter(first, "k", before, 2); // drives 0 and 1 hold it
        List<Path> roots = first.drives().stream().map(LocalDrive::root).toList();
        TestStore.away(roots.get(1));

        ErasureObjectStore second = TestEngine.openQuiet(TestStore.on(tmp).parity(2));
        stores.add(second);
        assertThat(second.listObjectVersions(B, "k", null, null, null, 10).versions())
                .extracting(ObjectInfo::versionId)
                .containsExactly(older.versionId());

        TestStore.back(roots.get(1));
        second.checkDrives();
        second.heal(B, "k", null);
        assertThat(second.listObjectVersions(B, "k", null, null, null, 10).versions())
                .extracting(ObjectInfo::versionId)
                .as("the interrupted write stays absent once the drive is back")
                .containsExactly(older.versionId());
        for (LocalDrive d : second.drives()) {
            var meta = dev.appliance.core.meta.XlMeta.parse(Files.readAllBytes(d.metaFile(B, "k")));
            assertThat(meta.indexOf(UUID.fromString(cut.versionId())))
                    .as("rolled back on %s", d.root())
                    .isEqualTo(-1);
        }
    }

    /**
     * Found by the long crash run (kill 85 of 150): a CreateMultipartUpload cut short on two of four drives, one of
     * them away at the next start. Then one drive held it: not listed. Once the drive returned, two held it, a read
     * quorum: listed, an upload no client was ever told of appearing later. The start's reconcile now removes it
     * while its holders and the missing drive are fewer than a write quorum.
     */
    @Test
    void anUploadCreationStoppedOnTwoDrives_oneOfThemAwayAtTheRestart_staysAbsentWhenTheDriveReturns()
            throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        String id = first.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        for (int i : new int[] {0, 1}) { // the creation reached drives 2 and 3 only
            LocalDrive.deleteTree(
                    MultipartUploads.uploadsOf(first.drives().get(i), B, "mp").resolve(id));
        }
        List<Path> roots = first.drives().stream().map(LocalDrive::root).toList();
        first.close();
        stores.remove(first);
        TestStore.away(roots.get(2));

        ErasureObjectStore second =
                TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        stores.add(second);
        assertThat(second.listMultipartUploads(B, "")).isEmpty();

        TestStore.back(roots.get(2));
        second.checkDrives();
        second.reconcileUploadsQuietly();
        assertThat(second.listMultipartUploads(B, ""))
                .as("the cut-short creation stays absent once the drive is back")
                .isEmpty();
        for (LocalDrive d : second.drives()) {
            assertThat(Files.exists(MultipartUploads.uploadsOf(d, B, "mp").resolve(id)))
                    .as("removed from %s", d.root())
                    .isFalse();
        }
    }

    /** The drives as a PUT leaves them when the crash hit after {@code reached} drives committed it. */
    private static void stopAfter(ErasureObjectStore s, String key, List<Map<String, byte[]>> before, int reached)
            throws IOException {
        for (int i = 0; i < s.drives().size(); i++) {
            LocalDrive d = s.drives().get(i);
            if (i >= reached) {
                Path dir = d.objectDir(B, key);
                LocalDrive.deleteTree(dir);
                for (var f : before.get(i).entrySet()) {
                    Path file = dir.resolve(f.getKey());
                    Files.createDirectories(file.getParent());
                    Files.write(file, f.getValue());
                }
            }
            d.markChange(B, key);
        }
    }
}
