package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.TestDriveSettings;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drive settings a store is opened with ({@code StoreConfig.driveSettings}) are the ones its drive calls and its
 * drive check run with; nothing is read from system properties.
 */
class DriveSettingsStoreTest {
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

    @Test
    void aStalledDrive_isGivenUpOnAtTheTimeoutTheStoreWasOpenedWith() throws Exception {
        store = TestEngine.openQuiet(
                TestStore.on(tmp).parity(2).driveSettings(TestDriveSettings.deadline(Duration.ofMillis(700), 10)));
        store.makeBucket("bucket");
        LocalDrive stalled = store.drives().get(1);
        stalled.injectFaults(new DriveFaults(false, false, false, false, 0, 4_000)); // its commits stall 4 s

        byte[] data = HealTestDrives.random(10_000, 1);
        // well below the 4 s stall (and the 30 s default timeout), room for a loaded machine above 700 ms
        assertTimeoutPreemptively(
                Duration.ofMillis(3_000),
                () -> store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data)));

        assertThat(stalled.isOnline()).isFalse();
        assertThat(stalled.offlineReason()).startsWith("faulty: stalled").contains("did not answer within 700 ms");
        stalled.injectFaults(null);
        HealTestDrives.awaitBackInService(store, stalled);
    }

    @Test
    void theDriveCheck_runsAtTheIntervalTheStoreWasOpenedWith() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp)
                .parity(2)
                .driveSettings(TestDriveSettings.MANUAL_CHECKS.withCheckInterval(Duration.ofMillis(50))));
        LocalDrive removed = store.drives().get(2);

        // Nobody calls checkDrives(): only the periodic check notices a drive going and coming back.
        TestStore.away(removed.root());
        await("the periodic check took the removed drive out", () -> !removed.isOnline());
        TestStore.back(removed.root());
        await("the periodic check brought the drive back", removed::isOnline);
    }
}
