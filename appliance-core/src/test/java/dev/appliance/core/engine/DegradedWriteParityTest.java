package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.read;
import static dev.appliance.core.engine.HealTestDrives.snapshot;
import static dev.appliance.core.engine.TestEngine.away;
import static dev.appliance.core.engine.TestEngine.back;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes with drives offline get more parity, as MinIO's availability mode does: on 6 drives EC 4+2 with one drive out
 * of service a new object is written 3+3, records that in its metadata, and survives the loss of two more drives;
 * parity never exceeds half the set; reads and heals use each version's own counts.
 */
class DegradedWriteParityTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private void put(String key, byte[] data) throws IOException {
        store.putObject(B, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** The version's counts as recorded in {@code xl.meta} on a drive. */
    private static ObjectVersion stored(LocalDrive drive, String key) throws Exception {
        XlMeta meta = XlMeta.parse(Files.readAllBytes(drive.metaFile(B, key)));
        return meta.version(0);
    }

    /** Takes drives out of service the way the drive check finds an unmounted disk. */
    private void outOfService(List<Integer> positions) throws IOException {
        away(store, positions);
        store.checkDrives();
        for (int i : positions) {
            assertThat(store.drives().get(i).isOnline()).isFalse();
        }
    }

    @Test
    void oneDriveOffline_writesThreePlusThree_andSurvivesTwoMoreLosses() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(6).parity(2));
        store.makeBucket(B, false);
        byte[] healthy = random(3 << 20, 1);
        put("healthy", healthy);
        assertThat(stored(store.drives().get(0), "healthy").parityShards()).isEqualTo(2);

        outOfService(List.of(5));
        byte[] big = random((7 << 20) / 2, 2);
        byte[] small = random(10_000, 3);
        put("big", big);
        put("small", small);
        String upload = store.createMultipartUpload(B, "multi", PutRequest.of(-1), null);
        byte[] part1 = random(5 << 20, 4);
        byte[] part2 = random(1234, 5);
        UploadedPart p1 =
                store.uploadPart(B, "multi", upload, 1, PutRequest.of(part1.length), new ByteArrayInputStream(part1));
        UploadedPart p2 =
                store.uploadPart(B, "multi", upload, 2, PutRequest.of(part2.length), new ByteArrayInputStream(part2));
        store.completeMultipartUpload(
                B, "multi", upload, List.of(new CompletedPart(1, p1.etag()), new CompletedPart(2, p2.etag())));
        for (String key : List.of("big", "small", "multi")) {
            ObjectVersion v = stored(store.drives().get(0), key);
            assertThat(v.dataShards()).as(key).isEqualTo(3);
            assertThat(v.parityShards()).as(key).isEqualTo(3);
        }

        // Two more drives fail: 3 of 6 are left, enough for 3+3, not for the set's 4+2.
        away(store, List.of(1, 3));
        assertThat(read(store, B, "big", null)).isEqualTo(big);
        assertThat(read(store, B, "small", null)).isEqualTo(small);
        byte[] whole = new byte[part1.length + part2.length];
        System.arraycopy(part1, 0, whole, 0, part1.length);
        System.arraycopy(part2, 0, whole, part1.length, part2.length);
        assertThat(read(store, B, "multi", null)).isEqualTo(whole);
        // The object written 4+2 with every drive present cannot be read from 3 (the answer is "not found" today:
        // drives whose directory vanished answer reads as if they lacked the key).
        assertThatThrownBy(() -> read(store, B, "healthy", null)).isInstanceOf(StorageException.class);

        // Everything back: a heal gives the drive that missed the writes its shards under the version's own layout.
        back(store, List.of(1, 3, 5));
        store.checkDrives();
        for (String key : List.of("big", "small", "multi")) {
            assertThat(store.heal(B, key, null).status()).as(key).isEqualTo(HealResult.Status.HEALED);
            assertThat(stored(store.drives().get(5), key).parityShards()).isEqualTo(3);
        }
        var files = snapshot(store, B, "big");
        assertThat(files.get(5)).isNotEmpty();
        away(store, List.of(0, 2, 4));
        assertThat(read(store, B, "big", null)).isEqualTo(big);
    }

    @Test
    void parityNeverExceedsHalfTheSet_andTooManyOfflineDrivesRefuseTheWrite() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(6).parity(2));
        store.makeBucket(B, false);
        outOfService(List.of(4, 5));
        byte[] data = random(100_000, 7);
        put("two-away", data);
        ObjectVersion v = stored(store.drives().get(0), "two-away");
        assertThat(v.dataShards()).isEqualTo(3);
        assertThat(v.parityShards()).isEqualTo(3); // 2 + 2 capped at 6 / 2
        assertThat(read(store, B, "two-away", null)).isEqualTo(data);

        outOfService(List.of(3));
        assertThatThrownBy(() -> put("three-away", data))
                .isInstanceOf(StorageException.class)
                .satisfies(e -> assertThat(((StorageException) e).kind()).isEqualTo(ErrorKind.WRITE_QUORUM));
    }

    @Test
    void setAtHalfParityAlready_writesUnchanged() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        store.makeBucket(B, false);
        outOfService(List.of(3));
        put("k", random(50_000, 9));
        ObjectVersion v = stored(store.drives().get(0), "k");
        assertThat(v.dataShards()).isEqualTo(2);
        assertThat(v.parityShards()).isEqualTo(2);
    }

    @Test
    void healUsesTheVersionsOwnQuorum_neverTakesARaisedParityVersionForDangling() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(6).parity(2));
        store.makeBucket(B, false);
        outOfService(List.of(5));
        byte[] data = random(2 << 20, 11);
        put("k", data);
        back(store, List.of(5));
        store.checkDrives();
        // Drives 1 and 2 lose the key entirely: 3 holders (its data count) and 3 drives answering "absent". With the
        // set's 4+2 quorum this would look dangling and be removed; with the version's own 3+3 it is healed.
        for (int i : List.of(0, 1)) {
            LocalDrive.deleteTree(store.drives().get(i).objectDir(B, "k"));
        }
        HealResult r = store.heal(B, "k", null);
        assertThat(r.status()).isEqualTo(HealResult.Status.HEALED);
        assertThat(r.healedDrives()).hasSize(3);
        away(store, List.of(2, 3, 4));
        assertThat(read(store, B, "k", null)).isEqualTo(data);
    }
}
