package dev.appliance.core.drive;

import java.time.Duration;

/** Drive settings for tests that open a store. */
public final class TestDriveSettings {
    /**
     * The defaults without the periodic drive check: tests run the check themselves ({@code checkDrives()}); a periodic
     * one would take drives that a test moved away for a moment out of service at random.
     */
    public static final DriveSettings MANUAL_CHECKS = DriveSettings.DEFAULTS.withCheckInterval(Duration.ZERO);

    private TestDriveSettings() {}

    /** {@link #MANUAL_CHECKS} with a short drive call {@code timeout} and {@code errorLimit} (stalling drives). */
    public static DriveSettings deadline(Duration timeout, int errorLimit) {
        return MANUAL_CHECKS.withTimeout(timeout, errorLimit);
    }
}
