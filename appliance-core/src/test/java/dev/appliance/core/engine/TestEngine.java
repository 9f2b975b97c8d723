package dev.appliance.core.engine;

import dev.appliance.core.drive.TestDriveSettings;
import dev.appliance.core.heal.BackgroundHealer;
import dev.appliance.core.heal.DriveHealer;
import dev.appliance.core.testing.TestStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The concrete engine opened on a {@link TestStore} layout, with the package-private hooks this package's tests set
 * before or after open, and drives taken away and back by their position in the store.
 */
final class TestEngine {
    private TestEngine() {}

    static ErasureObjectStore open(TestStore layout) {
        return layout.open(ErasureObjectStore::open);
    }

    /** As {@link #open(TestStore)}, with the drive-heal agent's timing set before it starts. */
    static ErasureObjectStore open(TestStore layout, DriveHealer.Settings driveHealSettings) {
        return layout.open(config -> ErasureObjectStore.open(config, driveHealSettings));
    }

    /** A whole store whose background agents are not started: the test runs them. */
    static ErasureObjectStore openStopped(TestStore layout) {
        return layout.open(config -> ErasureObjectStore.openStopped(config, DriveHealer.Settings.DEFAULTS));
    }

    /** Opens a store with the background healer off, so a test decides when healing happens. */
    static ErasureObjectStore openQuiet(TestStore layout) {
        ErasureObjectStore store = open(layout);
        store.healer().settings(new BackgroundHealer.Settings(false, 0, 0, 0, 0));
        return store;
    }

    /** A quiet store whose drive calls have {@code deadlineMillis} and {@code errorLimit}. */
    static ErasureObjectStore openWithDeadline(TestStore layout, long deadlineMillis, int errorLimit) {
        return openQuiet(
                layout.driveSettings(TestDriveSettings.deadline(Duration.ofMillis(deadlineMillis), errorLimit)));
    }

    /** Takes the drives at {@code positions} {@link TestStore#away away} until {@link #back}. */
    static void away(ErasureObjectStore store, List<Integer> positions) throws IOException {
        for (int i : positions) {
            TestStore.away(store.drives().get(i).root());
        }
    }

    static void back(ErasureObjectStore store, List<Integer> positions) throws IOException {
        for (int i : positions) {
            TestStore.back(store.drives().get(i).root());
        }
    }
}
