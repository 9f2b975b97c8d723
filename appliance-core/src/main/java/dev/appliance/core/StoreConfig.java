package dev.appliance.core;

import static java.util.Objects.requireNonNull;

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
 * @param groupCommit true lets metadata-only rewrites share one filesystem sync per batch (Linux {@code syncfs}) where
 *     the machine allows it; false (the default) forces every file and directory separately. Opt-in while its latency
 *     under heavy concurrent writes (a sync flushes everything dirty on the filesystem) is not yet understood
 */
public record StoreConfig(
        List<Path> drives,
        int setDriveCount,
        int parity,
        boolean allowRootFilesystem,
        Clock clock,
        boolean groupCommit) {
    public StoreConfig {
        requireNonNull(drives, "drives");
        drives = List.copyOf(drives);
        if (drives.isEmpty()) {
            throw new IllegalArgumentException("drives: none given (expected at least 2)");
        }
        requireNonNull(clock, "clock");
    }

    public StoreConfig(List<Path> drives, int setDriveCount, int parity, boolean allowRootFilesystem, Clock clock) {
        this(drives, setDriveCount, parity, allowRootFilesystem, clock, false);
    }

    public static StoreConfig of(List<Path> drives) {
        return new StoreConfig(drives, 0, -1, true, Clock.systemUTC());
    }

    public StoreConfig withGroupCommit(boolean enabled) {
        return new StoreConfig(drives, setDriveCount, parity, allowRootFilesystem, clock, enabled);
    }
}
