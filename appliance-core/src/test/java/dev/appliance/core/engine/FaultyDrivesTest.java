package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.await;
import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.BackgroundHealer;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives that fail while their {@code format.json} still reads, on a 4-drive EC 2+2 store: a drive that stalls only at
 * commit points does not hold a PUT, a DELETE or a PutObjectRetention beyond the drive deadline (they succeed on the
 * quorum, and the drive is taken out of service until its stalled calls ended and a probe succeeded); a drive whose
 * writes fail with I/O errors is taken out of service after the error limit, writes go on without it, and it comes back
 * once the faults clear and a probe succeeds, healed.
 */
class FaultyDrivesTest {
    private static final long DEADLINE_MILLIS = 1_000;
    /** Well above the deadline: before the fix, each operation waited this long for the stalled drive. */
    private static final long COMMIT_STALL_MILLIS = 4_000;
    /** The deadline plus room for a loaded machine, well below the stall. */
    private static final Duration BOUND = Duration.ofMillis(3_000);

    private static final BackgroundHealer.Settings FAST = new BackgroundHealer.Settings(true, 0, 0, 0, 60_000);

    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.drives().forEach(d -> d.injectFaults(null));
            store.close();
        }
    }

    private void open(int errorLimit) throws IOException {
        store = TestEngine.openWithDeadline(TestStore.on(tmp), DEADLINE_MILLIS, errorLimit);
    }

    private LocalDrive drive(int i) {
        return store.drives().get(i);
    }

    private ObjectInfo put(String bucket, String key, byte[] data) throws IOException {
        return store.putObject(bucket, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** Waits until the calls the drive stalled have ended, then runs the drive check, which must bring it back. */
    private void bringBack(LocalDrive d) throws InterruptedException {
        HealTestDrives.awaitBackInService(store, d);
        assertThat(store.driveState(d)).isEqualTo("online");
    }

    private void assertTakenOutAsStalled(LocalDrive d) {
        assertThat(d.isOnline()).isFalse();
        assertThat(store.driveState(d)).isEqualTo("faulty");
        assertThat(d.offlineReason()).startsWith("faulty: stalled");
    }

    @Test
    void aDriveStallingOnlyAtCommit_holdsNoPutDeleteOrRetentionBeyondTheDeadline() throws Exception {
        open(10);
        store.makeBucket("plain");
        store.makeBucket("locked", true);
        byte[] small = random(20_000, 1);
        byte[] large = random(2_500_000, 2);
        put("plain", "to-delete", small);
        ObjectInfo locked = put("locked", "held", small);
        drive(1).injectFaults(new DriveFaults(false, false, false, false, 0, COMMIT_STALL_MILLIS));

        // PUT (part files): staging works on the drive, its commit stalls.
        assertTimeoutPreemptively(BOUND, () -> put("plain", "written", large));
        assertTakenOutAsStalled(drive(1));
        store.checkDrives();
        assertThat(drive(1).isOnline()).as("out while its commit still runs").isFalse();
        assertThat(drive(1).offlineReason()).contains("waiting for the calls it stalled to end");
        bringBack(drive(1));

        // DELETE of an unversioned object: the removal of its metadata stalls.
        assertTimeoutPreemptively(BOUND, () -> store.deleteObject("plain", "to-delete", null, false));
        assertTakenOutAsStalled(drive(1));
        bringBack(drive(1));

        // PutObjectRetention: a metadata rewrite in place.
        Instant until = Instant.now().plus(Duration.ofDays(3)).truncatedTo(ChronoUnit.MILLIS);
        assertTimeoutPreemptively(
                BOUND,
                () -> store.putObjectRetention(
                        "locked", "held", locked.versionId(), new Retention(RetentionMode.GOVERNANCE, until), false));
        assertTakenOutAsStalled(drive(1));

        // The answers hold, and once the drive is back and healed every drive agrees with them.
        drive(1).injectFaults(null);
        bringBack(drive(1));
        store.healer().settings(FAST);
        await("the heal queue drained", () -> store.healStatus().pending() == 0);
        assertThat(store.healStatus().failed()).isZero();
        for (List<Integer> away : List.of(List.of(0, 2), List.of(0, 3), List.of(2, 3))) {
            // Any two drives read alone: the one that stalled must hold everything too.
            TestEngine.away(store, away);
            try {
                assertThat(read(store, "plain", "written", null)).isEqualTo(large);
                assertThat(Files.exists(drive(1).metaFile("plain", "to-delete")))
                        .isFalse();
                assertThat(ObjectLock.retention(store.headObject("locked", "held", locked.versionId())
                                        .userMetadata())
                                .retainUntil())
                        .isEqualTo(until);
            } finally {
                TestEngine.back(store, away);
            }
        }
    }

    @Test
    void aDeleteMarker_isNotHeldByADriveStallingAtCommit() throws Exception {
        open(10);
        store.makeBucket("versioned");
        store.setVersioning("versioned", VersioningState.ENABLED);
        put("versioned", "k", random(10_000, 4));
        drive(3).injectFaults(new DriveFaults(false, false, false, false, 0, COMMIT_STALL_MILLIS));
        var result = assertTimeoutPreemptively(BOUND, () -> store.deleteObject("versioned", "k", null, false));
        assertThat(result.deleteMarker()).isTrue();
        assertTakenOutAsStalled(drive(3));
        var versions =
                store.listObjectVersions("versioned", "k", null, null, null, 10).versions();
        assertThat(versions).hasSize(2);
        assertThat(versions.getFirst().deleteMarker()).isTrue();
        assertThat(versions.getFirst().latest()).isTrue();
    }

    @Test
    void aRetentionUpdate_isNotHeldByADriveStallingAtCommit() throws Exception {
        open(10);
        store.makeBucket("locked", true);
        ObjectInfo v = put("locked", "k", random(10_000, 5));
        drive(0).injectFaults(new DriveFaults(false, false, false, false, 0, COMMIT_STALL_MILLIS));
        Instant until = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS);
        assertTimeoutPreemptively(
                BOUND,
                () -> store.putObjectRetention(
                        "locked", "k", v.versionId(), new Retention(RetentionMode.COMPLIANCE, until), false));
        assertTakenOutAsStalled(drive(0));
        assertThat(ObjectLock.retention(
                                store.headObject("locked", "k", v.versionId()).userMetadata())
                        .retainUntil())
                .isEqualTo(until);
    }

    @Test
    void aDriveStallingAtCommit_beyondTheQuorum_failsTheWriteWithinTheDeadline_andTheLateCommitsAreUndone()
            throws Exception {
        open(10);
        store.makeBucket("plain");
        store.setVersioning("plain", VersioningState.ENABLED);
        byte[] data = random(30_000, 3);
        for (int i : List.of(1, 2)) {
            drive(i).injectFaults(new DriveFaults(false, false, false, false, 0, COMMIT_STALL_MILLIS));
        }
        assertTimeoutPreemptively(BOUND, () -> {
            try {
                put("plain", "refused", data);
                throw new AssertionError("a write that reached 2 of 4 drives was acknowledged");
            } catch (dev.appliance.core.error.StorageException e) {
                assertThat(e.kind()).isEqualTo(dev.appliance.core.error.ErrorKind.WRITE_QUORUM);
            }
        });
        for (int i : List.of(1, 2)) {
            assertTakenOutAsStalled(drive(i));
            drive(i).injectFaults(null);
        }
        // The late commits land on the two stalled drives and are undone there: the refused version never shows.
        bringBack(drive(1));
        bringBack(drive(2));
        store.healer().settings(FAST);
        await("the heal queue drained", () -> store.healStatus().pending() == 0);
        assertThat(store.listObjectVersions("plain", "refused", null, null, null, 100)
                        .versions())
                .isEmpty();
        for (LocalDrive d : store.drives()) {
            assertThat(Files.exists(d.metaFile("plain", "refused"))).as("%s", d).isFalse();
        }
    }

    @Test
    void aDriveFailingWritesWithIoErrors_isTakenOutAfterTheLimit_writesGoOn_andItReturnsAfterAProbe() throws Exception {
        int limit = 4;
        open(limit);
        store.makeBucket("bkt");
        drive(0).injectFaults(new DriveFaults(false, true, false, false, 0));
        byte[][] data = new byte[12][];
        for (int i = 0; i < data.length; i++) {
            data[i] = random(150_000 + i, 10 + i);
            put("bkt", "k" + i, data[i]);
        }
        // format.json still reads, yet the drive is out of service.
        assertThat(Files.isRegularFile(drive(0).formatFile())).isTrue();
        assertThat(drive(0).isOnline()).isFalse();
        assertThat(store.driveState(drive(0))).isEqualTo("faulty");
        assertThat(drive(0).offlineReason()).contains(limit + " I/O errors");
        assertThat(drive(0).ioErrors()).isGreaterThanOrEqualTo(limit);
        // The drive check keeps it out while its probe fails.
        store.checkDrives();
        assertThat(drive(0).isOnline()).isFalse();
        assertThat(drive(0).offlineReason()).contains("probe failed");

        drive(0).injectFaults(null);
        List<String> events = store.checkDrives();
        assertThat(drive(0).isOnline()).as("%s", events).isTrue();
        assertThat(String.join("\n", events)).contains("passed its probe");
        store.healer().settings(FAST);
        await("the heal queue drained", () -> store.healStatus().pending() == 0);
        assertThat(store.healStatus().failed()).isZero();
        TestEngine.away(store, List.of(1, 2));
        try {
            for (int i = 0; i < data.length; i++) {
                assertThat(read(store, "bkt", "k" + i, null)).as("k%d", i).isEqualTo(data[i]);
            }
        } finally {
            TestEngine.back(store, List.of(1, 2));
        }
    }

    @Test
    void aFaultyDrive_replacedByAnEmptyDisk_isFormattedIntoItsSlot_andFilled() throws Exception {
        open(3);
        store.makeBucket("bkt");
        byte[] before = random(300_000, 20);
        put("bkt", "before", before);
        drive(2).injectFaults(new DriveFaults(false, true, false, false, 0));
        for (int i = 0; i < 5; i++) {
            put("bkt", "during" + i, random(1_000, 30 + i));
        }
        assertThat(store.driveState(drive(2))).isEqualTo("faulty");

        // The operator swaps the failing disk for an empty one (the faults belonged to the old disk).
        drive(2).injectFaults(null);
        LocalDrive.deleteTree(drive(2).root());
        Files.createDirectory(drive(2).root());
        List<String> events = store.checkDrives();
        assertThat(String.join("\n", events)).contains("was empty: formatted into set 1 slot 3");
        assertThat(drive(2).isOnline()).isTrue();
        await("the new disk filled", () -> store.driveHeals().stream().allMatch(h -> h.finished() != null));
        TestEngine.away(store, List.of(0, 1));
        try {
            assertThat(read(store, "bkt", "before", null)).isEqualTo(before);
        } finally {
            TestEngine.back(store, List.of(0, 1));
        }
    }
}
