package dev.appliance.core.drive;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How long drive calls may take and when a drive is taken out of service ({@link DriveCalls}), and how often the drives
 * are checked for removal, return and replacement. Part of {@code StoreConfig}; the appliance binds them from
 * {@code appliance.drives.*} (docs/operations.md).
 *
 * @param timeout no call waits longer for a drive; one that overruns takes the drive out of service (MinIO: 30 s)
 * @param straggler once enough drives answered a read, how long the others may lag before they are given up on
 * @param writeStraggler the same for the staging writes of a write: longer, since leaving a merely busy drive out of a
 *     write costs a heal afterwards, while leaving it out of a read costs nothing
 * @param errorLimit this many I/O errors of one drive within {@code errorWindow} take it out of service (0: never)
 * @param errorWindow the window the errors are counted in
 * @param checkInterval how often the drives are checked; zero: only when the store opens and when asked
 * @param groupCommit true (the default, where {@code syncfs} exists) makes object writes durable by one flush per
 *     filesystem shared by concurrent writes ({@link SyncGroup}); false forces each file and directory
 * @param directIo true (the default, where the filesystem allows it) writes part files with direct I/O, bypassing the
 *     page cache; false writes them through it
 */
public record DriveSettings(
        Duration timeout,
        Duration straggler,
        Duration writeStraggler,
        int errorLimit,
        Duration errorWindow,
        Duration checkInterval,
        boolean groupCommit,
        boolean directIo) {

    /** The appliance's defaults. */
    public static final DriveSettings DEFAULTS = new DriveSettings(
            Duration.ofSeconds(30),
            Duration.ofMillis(300),
            Duration.ofSeconds(2),
            10,
            Duration.ofSeconds(60),
            Duration.ofSeconds(10),
            true,
            true);

    /** With group commit and direct I/O (the defaults). */
    public DriveSettings(
            Duration timeout,
            Duration straggler,
            Duration writeStraggler,
            int errorLimit,
            Duration errorWindow,
            Duration checkInterval) {
        this(timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, true, true);
    }

    public DriveSettings {
        atLeast("timeout", timeout, Duration.ofMillis(1));
        atLeast("straggler", straggler, Duration.ZERO);
        atLeast("writeStraggler", writeStraggler, Duration.ZERO);
        if (errorLimit < 0) {
            throw new IllegalArgumentException("errorLimit: " + errorLimit + " (expected 0 or more)");
        }
        atLeast("errorWindow", errorWindow, Duration.ofMillis(1));
        atLeast("checkInterval", checkInterval, Duration.ZERO);
    }

    /** These settings with the drive call {@code timeout} and {@code errorLimit} (tests of stalling drives). */
    public DriveSettings withTimeout(Duration timeout, int errorLimit) {
        return new DriveSettings(
                timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, groupCommit, directIo);
    }

    /** These settings with {@code groupCommit} (false: each file and directory forced, the reference path). */
    public DriveSettings withGroupCommit(boolean groupCommit) {
        return new DriveSettings(
                timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, groupCommit, directIo);
    }

    /** These settings with {@code directIo} (false: part files written through the page cache, the reference path). */
    public DriveSettings withDirectIo(boolean directIo) {
        return new DriveSettings(
                timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, groupCommit, directIo);
    }

    /** These settings with {@code checkInterval} (zero: no periodic drive check). */
    public DriveSettings withCheckInterval(Duration checkInterval) {
        return new DriveSettings(
                timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, groupCommit, directIo);
    }

    private static void atLeast(String name, Duration value, Duration least) {
        requireNonNull(value, name);
        if (value.compareTo(least) < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected "
                    + (least.isZero() ? "zero or more" : "at least " + least.toMillis() + " ms") + ")");
        }
    }
}
