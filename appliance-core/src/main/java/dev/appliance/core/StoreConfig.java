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
 * @param identityKey the 32-byte key that seals access-key secrets of the identity state on the drives
 *     ({@code dev.appliance.core.identity.IdentityStore}); null when not known at open (given later, or identity
 *     unused). Where it comes from is the application's choice (docs/decisions/identity-secrets-at-rest.md)
 */
public record StoreConfig(
        List<Path> drives,
        int setDriveCount,
        int parity,
        boolean allowRootFilesystem,
        Clock clock,
        boolean metadataJournal,
        DriveSettings driveSettings,
        byte[] identityKey) {
    public StoreConfig {
        requireNonNull(drives, "drives");
        drives = List.copyOf(drives);
        if (drives.isEmpty()) {
            throw new IllegalArgumentException("drives: none given (expected at least 2)");
        }
        requireNonNull(clock, "clock");
        requireNonNull(driveSettings, "driveSettings");
        if (identityKey != null && identityKey.length != 32) {
            throw new IllegalArgumentException("identityKey: " + identityKey.length + " bytes (expected 32)");
        }
        identityKey = identityKey == null ? null : identityKey.clone();
    }

    @Override
    public byte[] identityKey() {
        return identityKey == null ? null : identityKey.clone();
    }

    public StoreConfig(List<Path> drives, int setDriveCount, int parity, boolean allowRootFilesystem, Clock clock) {
        this(drives, setDriveCount, parity, allowRootFilesystem, clock, true, DriveSettings.DEFAULTS, null);
    }

    public static StoreConfig of(List<Path> drives) {
        return new StoreConfig(drives, 0, -1, true, Clock.systemUTC());
    }

    public StoreConfig withMetadataJournal(boolean enabled) {
        return new StoreConfig(
                drives, setDriveCount, parity, allowRootFilesystem, clock, enabled, driveSettings, identityKey);
    }

    public StoreConfig withDriveSettings(DriveSettings settings) {
        return new StoreConfig(
                drives, setDriveCount, parity, allowRootFilesystem, clock, metadataJournal, settings, identityKey);
    }

    public StoreConfig withIdentityKey(byte[] key) {
        return new StoreConfig(
                drives, setDriveCount, parity, allowRootFilesystem, clock, metadataJournal, driveSettings, key);
    }
}
