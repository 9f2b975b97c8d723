package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.read;
import static dev.appliance.core.engine.HealTestDrives.snapshot;
import static dev.appliance.core.engine.TestEngine.away;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.DriveFormat;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.BackgroundHealer;
import dev.appliance.core.heal.DriveHealStatus;
import dev.appliance.core.heal.DriveHealer;
import dev.appliance.core.heal.HealTracker;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drive replacement: an empty directory in place of a failed drive (at start, or while running) is formatted into
 * exactly the missing slot, filled with every version of its set byte for byte, and a fill stopped midway continues
 * from its tracker after a restart. Drives that are not empty, or formatted for another slot or deployment, are never
 * formatted.
 */
class DriveReplacementTest {
    private static final String B = "bucket";
    private static final String V = "versioned";
    private static final DriveHealer.Settings FAST = new DriveHealer.Settings(60_000, 1_000, 10, 0, -1, 4);

    @TempDir
    Path tmp;

    private final List<ErasureObjectStore> stores = new ArrayList<>();

    @AfterEach
    void close() {
        for (ErasureObjectStore s : stores) {
            s.close();
        }
    }

    private ErasureObjectStore open(TestStore layout, DriveHealer.Settings settings) {
        ErasureObjectStore s = TestEngine.open(layout, settings);
        s.healer().settings(new BackgroundHealer.Settings(false, 0, 0, 0, 0));
        stores.add(s);
        return s;
    }

    private void closeLast() {
        stores.removeLast().close();
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static ObjectInfo put(ErasureObjectStore s, String bucket, String key, byte[] data) throws IOException {
        return s.putObject(bucket, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** Writes a mix of objects; returns every version's bytes by "bucket/key?versionId". */
    private static Map<String, byte[]> writeMix(ErasureObjectStore s) throws IOException {
        Map<String, byte[]> written = new LinkedHashMap<>();
        s.makeBucket(B, false);
        s.makeBucket(V, false);
        s.setVersioning(V, VersioningState.ENABLED);
        int[] sizes = {0, 1, 1000, 200_000, (5 << 20) / 2};
        for (int i = 0; i < sizes.length; i++) {
            byte[] d = random(sizes[i], i);
            ObjectInfo o = put(s, B, "dir/obj-" + i, d);
            written.put(B + "/" + o.key() + "?" + o.versionId(), d);
        }
        byte[] nested = random(3000, 99);
        put(s, B, "dir/obj-1/nested", nested);
        written.put(B + "/dir/obj-1/nested?null", nested);
        for (int v = 0; v < 3; v++) {
            byte[] d = random(40_000 + v, 100 + v);
            ObjectInfo o = put(s, V, "doc", d);
            written.put(V + "/doc?" + o.versionId(), d);
        }
        s.deleteObject(V, "doc", null, false); // a delete marker on top
        return written;
    }

    private static List<String> keysOf(Map<String, byte[]> written) {
        return written.keySet().stream()
                .map(k -> k.substring(0, k.indexOf('?')))
                .distinct()
                .toList();
    }

    private static Map<String, List<Map<String, byte[]>>> snapshots(ErasureObjectStore s, List<String> keys)
            throws IOException {
        Map<String, List<Map<String, byte[]>>> out = new LinkedHashMap<>();
        for (String bk : keys) {
            int slash = bk.indexOf('/');
            out.put(bk, snapshot(s, bk.substring(0, slash), bk.substring(slash + 1)));
        }
        return out;
    }

    private static void assertSameFiles(
            Map<String, List<Map<String, byte[]>>> before, Map<String, List<Map<String, byte[]>>> after) {
        assertThat(after.keySet()).isEqualTo(before.keySet());
        for (String key : before.keySet()) {
            for (int d = 0; d < before.get(key).size(); d++) {
                Map<String, byte[]> b = before.get(key).get(d);
                Map<String, byte[]> a = after.get(key).get(d);
                assertThat(a.keySet()).as(key + " drive " + (d + 1)).isEqualTo(b.keySet());
                for (String f : b.keySet()) {
                    assertThat(a.get(f)).as(key + " drive " + (d + 1) + " " + f).isEqualTo(b.get(f));
                }
            }
        }
    }

    private static void assertReadsBack(ErasureObjectStore s, Map<String, byte[]> written) throws IOException {
        for (var e : written.entrySet()) {
            String bk = e.getKey().substring(0, e.getKey().indexOf('?'));
            String version = e.getKey().substring(e.getKey().indexOf('?') + 1);
            int slash = bk.indexOf('/');
            assertThat(read(s, bk.substring(0, slash), bk.substring(slash + 1), version))
                    .as(e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    /** Keys k000, k001... of bucket {@link #B} (made here, unversioned), {@code sizeOf(i)} random bytes each. */
    private static Map<String, byte[]> putKeys(
            ErasureObjectStore s, int count, java.util.function.IntUnaryOperator sizeOf) throws IOException {
        s.makeBucket(B, false);
        Map<String, byte[]> written = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            byte[] d = random(sizeOf.applyAsInt(i), i);
            put(s, B, String.format("k%03d", i), d);
            written.put(B + String.format("/k%03d", i) + "?null", d);
        }
        return written;
    }

    private static void wipe(Path drive) throws IOException {
        LocalDrive.deleteTree(drive);
        Files.createDirectory(drive);
    }

    private static DriveFormat format(Path drive) throws IOException {
        return DriveFormat.fromJson(Files.readAllBytes(new LocalDrive(drive).formatFile()));
    }

    private static DriveHealStatus statusOf(ErasureObjectStore s, Path drive) {
        return s.driveHeals().stream()
                .filter(h -> h.drive().equals(drive.toAbsolutePath().normalize().toString()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void emptyDriveAtStart_takesTheMissingSlot_andGetsEveryVersionByteForByte() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        Map<String, byte[]> written = writeMix(s);
        List<String> keys = keysOf(written);
        var before = snapshots(s, keys);
        DriveFormat original = format(drives.get(1));
        byte[] bucketRecord = Files.readAllBytes(s.drives().get(1).bucketMetaFile(V));
        closeLast();

        wipe(drives.get(1));
        s = open(layout, FAST);
        DriveFormat replaced = format(drives.get(1));
        assertThat(replaced).isEqualTo(original); // the same deployment, the same slot id
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();

        DriveHealStatus st = statusOf(s, drives.get(1));
        assertThat(st.state()).isEqualTo("done");
        assertThat(st.set()).isZero();
        assertThat(st.slot()).isEqualTo(1);
        assertThat(st.objectsScanned()).isEqualTo(keys.size());
        assertThat(st.objectsHealed()).isEqualTo(keys.size());
        assertThat(st.objectsFailed()).isZero();
        assertThat(st.bytesHealed()).isGreaterThan((5L << 20) / 2 / 2);
        assertThat(st.bucketsDone()).isEqualTo(2);
        assertThat(st.finished()).isNotNull();
        // a finished fill keeps the rates of its run (the console shows them beside the figures), and no ETA
        assertThat(st.objectsPerSecond()).isPositive();
        assertThat(st.bytesPerSecond()).isPositive();
        assertThat(st.etaSeconds()).isZero();
        assertThat(s.driveState(s.drives().get(1))).isEqualTo("online");
        assertThat(Files.readAllBytes(s.drives().get(1).bucketMetaFile(V))).isEqualTo(bucketRecord);
        assertSameFiles(before, snapshots(s, keys));

        // The refilled drive carries its share: any two other drives may go.
        away(s, List.of(0, 2));
        assertReadsBack(s, written);
    }

    @Test
    void driveWipedWhileRunning_isFoundByTheDriveCheck_andFilled() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        Map<String, byte[]> written = writeMix(s);
        List<String> keys = keysOf(written);
        var before = snapshots(s, keys);
        DriveFormat original = format(drives.get(2));

        wipe(drives.get(2));
        List<String> events = s.checkDrives();
        assertThat(String.join("\n", events)).contains("lost its format.json").contains("formatted into set 1 slot 3");
        assertThat(format(drives.get(2))).isEqualTo(original);
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        assertThat(statusOf(s, drives.get(2)).objectsHealed()).isEqualTo(keys.size());
        assertSameFiles(before, snapshots(s, keys));
        away(s, List.of(0, 3));
        assertReadsBack(s, written);
    }

    @Test
    void fillStoppedMidway_continuesFromItsTracker_notFromZero() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        Map<String, byte[]> written = putKeys(s, 40, i -> i % 4 == 0 ? 300_000 : 2_000);
        List<String> keys = keysOf(written);
        var before = snapshots(s, keys);
        closeLast();
        wipe(drives.get(3));

        // A crash after 18 keys; the tracker was saved every 5.
        s = open(layout, new DriveHealer.Settings(600_000, 5, 10, 0, 18, 1));
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        assertThat(s.driveState(s.drives().get(3))).isEqualTo("healing"); // never claims to be whole
        closeLast();
        HealTracker saved = HealTracker.load(new LocalDrive(drives.get(3)));
        assertThat(saved.finished()).isFalse();
        assertThat(saved.objectsScanned).isEqualTo(15);
        assertThat(saved.bucket).isEqualTo(B);
        assertThat(saved.lastKey).isEqualTo("k014");
        assertThat(Files.exists(new LocalDrive(drives.get(3)).metaFile(B, "k017")))
                .isTrue();
        assertThat(Files.exists(new LocalDrive(drives.get(3)).metaFile(B, "k018")))
                .isFalse();

        s = open(layout, FAST);
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        DriveHealStatus st = statusOf(s, drives.get(3));
        assertThat(st.state()).isEqualTo("done");
        assertThat(st.resumes()).isEqualTo(1);
        assertThat(s.driveHealer().scannedThisRun(s.drives().get(3))).isEqualTo(25);
        assertThat(st.objectsScanned()).isEqualTo(40);
        // keys 15..17 were healed before the crash (after the last save) and are found intact again
        assertThat(st.objectsHealed()).isEqualTo(37);
        assertThat(st.objectsFailed()).isZero();
        assertThat(HealTracker.load(new LocalDrive(drives.get(3))).finished()).isTrue();
        assertSameFiles(before, snapshots(s, keys));
        away(s, List.of(0, 1));
        assertReadsBack(s, written);
    }

    @Test
    void fillStoppedAfterItsLastKey_resumesOnlyToFinish_andShowsTheRateOfTheWholeFill() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        putKeys(s, 12, i -> 3_000);
        closeLast();
        wipe(drives.get(2));
        s = open(layout, FAST);
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        assertThat(statusOf(s, drives.get(2)).state()).isEqualTo("done");
        closeLast();

        // As if the drive went out of service after the fill's last key was saved but before the fill was marked done.
        LocalDrive filled = new LocalDrive(drives.get(2));
        HealTracker t = HealTracker.load(filled);
        t.state = HealTracker.HEALING;
        t.finishedMillis = 0;
        t.bucketsDone.remove(B);
        t.bucket = B;
        t.lastKey = "k011";
        t.save(filled);

        s = open(layout, FAST);
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        DriveHealStatus st = statusOf(s, drives.get(2));
        assertThat(st.state()).isEqualTo("done");
        assertThat(s.driveHealer().scannedThisRun(s.drives().get(2))).isZero();
        assertThat(st.objectsScanned()).isEqualTo(12);
        // the console shows "N objects/s; finished ...; started ...": the whole fill's rate, not its empty last run's
        double seconds =
                Math.max(1e-3, (st.finished().toEpochMilli() - st.started().toEpochMilli()) / 1e3);
        assertThat(st.objectsPerSecond()).isPositive().isEqualTo(12 / seconds);
        assertThat(st.bytesPerSecond()).isPositive().isEqualTo(st.bytesHealed() / seconds);
    }

    @Test
    void returningDrive_isBackInService_andForeignOrMisplacedDrivesAreNeverFormatted() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        s.makeBucket(B, false);
        put(s, B, "a", random(5000, 1));
        LocalDrive d1 = s.drives().get(0);

        // Away (unmounted): taken out of service, then back with its own format.
        away(s, List.of(0));
        assertThat(String.join("\n", s.checkDrives())).contains("lost its format.json");
        assertThat(d1.isOnline()).isFalse();
        assertThat(s.driveState(d1)).isEqualTo("offline");
        TestEngine.back(s, List.of(0));
        assertThat(String.join("\n", s.checkDrives())).contains("is back in service");
        assertThat(d1.isOnline()).isTrue();
        assertThat(s.driveHeals()).isEmpty();

        // Not empty, no format: left alone.
        Path root = drives.get(0);
        byte[] formatBytes = Files.readAllBytes(d1.formatFile());
        Files.delete(d1.formatFile());
        assertThat(String.join("\n", s.checkDrives())).contains("not empty but has no format.json");
        assertThat(Files.exists(d1.formatFile())).isFalse();
        assertThat(Files.exists(root.resolve(B))).isTrue();

        // Another slot's format, or another deployment's: left alone with the reason.
        DriveFormat f = DriveFormat.fromJson(formatBytes);
        Files.write(d1.formatFile(), f.forDrive(f.sets().get(0).get(1)).toJson());
        assertThat(String.join("\n", s.checkDrives())).contains("formatted for another slot");
        DriveFormat foreign = new DriveFormat(
                f.version(), f.format(), UUID.randomUUID(), f.thisDrive(), f.sets(), f.placement(), f.parity());
        Files.write(d1.formatFile(), foreign.toJson());
        assertThat(String.join("\n", s.checkDrives())).contains("belongs to another deployment");
        assertThat(d1.isOnline()).isFalse();
        assertThat(format(root).deploymentId()).isEqualTo(foreign.deploymentId()); // untouched
        assertThat(s.driveHeals()).isEmpty();

        // The right format again: back, nothing to fill.
        Files.write(d1.formatFile(), formatBytes);
        assertThat(String.join("\n", s.checkDrives())).contains("is back in service");
        assertThat(read(s, B, "a", null)).isEqualTo(random(5000, 1));
    }

    /**
     * A drive being filled after a replacement lacks every upload (fills copy no uploads), which proves nothing about
     * them. An upload created while drive 3 was away (on 0, 1 and 2), with drive 1 then replaced and drive 2 away, is
     * held by drive 0 alone beside two drives lacking it: counting the new drive's absence, the reconcile took the
     * upload for one ended while drives were away and removed the last copy in service.
     */
    @Test
    void anUploadLackingOnADriveBeingFilled_isNotTakenForEnded_andCompletesOnceTheDriveAwayReturns() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        List<Path> drives = layout.drives();
        ErasureObjectStore s = open(layout, FAST);
        s.makeBucket(B, false);
        put(s, B, "filled", random(1000, 1));
        away(s, List.of(3));
        s.checkDrives();
        String id = s.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
        byte[] data = random(300_000, 2);
        String etag = s.uploadPart(B, "mp", id, 1, PutRequest.of(data.length), new ByteArrayInputStream(data))
                .etag();
        TestEngine.back(s, List.of(3));
        s.checkDrives();
        closeLast();

        wipe(drives.get(1));
        s = open(layout, new DriveHealer.Settings(600_000, 5, 10, 0, 0, 1)); // the fill stops before its first key
        assertThat(s.driveHealer().awaitIdle(30_000)).isTrue();
        assertThat(s.driveState(s.drives().get(1))).isEqualTo("healing");
        away(s, List.of(2));
        s.checkDrives(); // a drive check that changed something runs the reconcile; and once more by hand
        assertThat(s.reconcileUploadsQuietly()).isZero();
        assertThat(MultipartUploads.uploadsOf(s.drives().getFirst(), B, "mp").resolve(id))
                .isDirectory();

        TestEngine.back(s, List.of(2));
        s.checkDrives();
        assertThat(s.listMultipartUploads(B, "").stream().map(MultipartUpload::uploadId))
                .containsExactly(id);
        s.completeMultipartUpload(B, "mp", id, List.of(new CompletedPart(1, etag)));
        assertThat(read(s, B, "mp", null)).isEqualTo(data);
    }
}
