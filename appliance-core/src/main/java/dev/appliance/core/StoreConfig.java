package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.drive.DriveSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * How to open a store.
 *
 * @param drives drive root directories in the order the operator gave them (the order is part of the format)
 * @param setDriveCount drives per erasure set; 0 picks the largest allowed size that divides the drive count
 * @param parity parity shards per set; -1 picks the default for the set size
 * @param allowRootFilesystem false refuses drives that sit on the root filesystem (production mode)
 * @param metadataJournal true (the default) makes metadata-only rewrites (retention, legal hold, tags) durable through
 *     each drive's metadata journal, one journal force per batch of concurrent rewrites, and rewrites the files in
 *     place ({@code dev.appliance.core.drive.MetadataJournal}); false forces every rewritten file and its directory
 * @param driveSettings drive call deadlines, fault thresholds and how often drives are checked
 */
public record StoreConfig(
        List<Path> drives,
        int setDriveCount,
        int parity,
        boolean allowRootFilesystem,
        Clock clock,
        boolean metadataJournal,
        DriveSettings driveSettings) {
    public StoreConfig {
        requireNonNull(drives, "drives");
        drives = List.copyOf(drives);
        if (drives.isEmpty()) {
            throw new IllegalArgumentException("drives: none given (expected at least 2)");
        }
        requireNonNull(clock, "clock");
        requireNonNull(driveSettings, "driveSettings");
    }

    public StoreConfig(List<Path> drives, int setDriveCount, int parity, boolean allowRootFilesystem, Clock clock) {
        this(drives, setDriveCount, parity, allowRootFilesystem, clock, true, DriveSettings.DEFAULTS);
    }

    public static StoreConfig of(List<Path> drives) {
        return new StoreConfig(drives, 0, -1, true, Clock.systemUTC());
    }

    public StoreConfig withMetadataJournal(boolean enabled) {
        return new StoreConfig(drives, setDriveCount, parity, allowRootFilesystem, clock, enabled, driveSettings);
    }

    public StoreConfig withDriveSettings(DriveSettings settings) {
        return new StoreConfig(drives, setDriveCount, parity, allowRootFilesystem, clock, metadataJournal, settings);
    }
}
