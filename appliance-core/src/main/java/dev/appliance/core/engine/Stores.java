package dev.appliance.core.engine;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.erasure.Topology;

/**
 * Opens the engine. It lives apart from {@link dev.appliance.core.ObjectStore} so that the entry types and value
 * types depend on no implementation package (the erasure classes depend on them, never the reverse).
 */
public final class Stores {
    private Stores() {}

    /** Opens (formatting on first use) the drives of {@code config}; refuses with a message naming a bad drive. */
    public static ApplianceStore open(StoreConfig config) {
        return ErasureObjectStore.open(config);
    }

    /**
     * Makes every check {@link #open} makes on the drives without writing anything, so that a start refused for any
     * reason leaves the drives untouched. {@code missingAreNew}: directories that do not exist yet are new drives the
     * caller creates before {@link #open}.
     */
    public static void checkDrives(StoreConfig config, boolean missingAreNew) {
        ErasureObjectStore.checkDrives(config, missingAreNew);
    }

    /**
     * The erasure-set size the engine picks for {@code drives} drives when none is asked for: the largest of 16 down to
     * 2 that divides them; -1 when no set size does (the engine refuses that count).
     */
    public static int defaultSetSize(int drives) {
        try {
            return Topology.setSize(drives, 0);
        } catch (IllegalArgumentException refused) {
            return -1;
        }
    }
}
