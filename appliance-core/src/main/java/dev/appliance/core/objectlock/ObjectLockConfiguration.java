package dev.appliance.core.objectlock;

import java.time.Instant;
import java.time.ZoneOffset;

/**
 * A bucket's Object Lock configuration: lock is enabled (it can never be disabled), with an optional default retention
 * applied to new versions written without explicit lock settings.
 *
 * @param defaultMode the default retention's mode, or null for no default retention
 * @param days the default period in days (positive), or 0 when given in years or when there is no default
 * @param years the default period in years (positive), or 0 when given in days or when there is no default
 */
public record ObjectLockConfiguration(RetentionMode defaultMode, int days, int years) {
    /** Lock enabled, no default retention: what Veeam wants and what CreateBucket with the lock header makes. */
    public static final ObjectLockConfiguration ENABLED = new ObjectLockConfiguration(null, 0, 0);

    /**
     * AWS's longest default period, 100 years, in days and in years. Checked where a configuration is set, not here:
     * a configuration stored before the check existed must still load.
     */
    public static final int MAX_DAYS = 36_500;

    public static final int MAX_YEARS = 100;

    public ObjectLockConfiguration {
        if (days < 0 || years < 0) {
            throw new IllegalArgumentException("days/years: " + days + "/" + years + " (expected positive)");
        }
        if (defaultMode == null && (days != 0 || years != 0)) {
            throw new IllegalArgumentException("a default period needs a mode");
        }
        if (defaultMode != null && (days == 0) == (years == 0)) {
            throw new IllegalArgumentException("days/years: " + days + "/" + years + " (expected exactly one)");
        }
    }

    public boolean hasDefaultRetention() {
        return defaultMode != null;
    }

    /** The default retention of a version created at {@code created}, or null when there is none. */
    public Retention defaultRetention(Instant created) {
        if (defaultMode == null) {
            return null;
        }
        Instant until = days > 0
                ? created.plusSeconds(86_400L * days)
                : created.atZone(ZoneOffset.UTC).plusYears(years).toInstant();
        // only an over-long period stored before it was bounded gets here: the longest date that stays readable
        return new Retention(
                defaultMode, until.isAfter(ObjectLock.LATEST_RETAIN_UNTIL) ? ObjectLock.LATEST_RETAIN_UNTIL : until);
    }
}
