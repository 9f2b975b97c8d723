package dev.appliance.core;

/**
 * Appliance settings of a bucket that S3 has no API for; set through the admin API.
 *
 * @param quotaBytes the bucket's quota in bytes, reported to Veeam as its capacity; null for none
 * @param sosapi whether the bucket answers Veeam's Smart Object Storage API objects; null for the default (on for
 *     buckets with Object Lock, off otherwise)
 * @param versionAlertThreshold versions per key above which a version-explosion alert is raised (docs/alerts.md); null
 *     for the default of 1,000
 */
public record BucketSettings(Long quotaBytes, Boolean sosapi, Integer versionAlertThreshold) {
    public static final BucketSettings DEFAULTS = new BucketSettings(null, null, null);

    public BucketSettings {
        if (quotaBytes != null && quotaBytes <= 0) {
            throw new IllegalArgumentException("quotaBytes: " + quotaBytes + " (expected a positive number or none)");
        }
        if (versionAlertThreshold != null && versionAlertThreshold < 1) {
            throw new IllegalArgumentException("versionAlertThreshold: " + versionAlertThreshold
                    + " (expected a positive number of versions per key, or none for the default of 1000)");
        }
    }

    /** Quota and SOSAPI switch, the alert threshold at its default. */
    public BucketSettings(Long quotaBytes, Boolean sosapi) {
        this(quotaBytes, sosapi, null);
    }
}
