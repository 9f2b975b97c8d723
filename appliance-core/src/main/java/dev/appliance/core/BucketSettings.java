package dev.appliance.core;

/**
 * Appliance settings of a bucket that S3 has no API for; set through the admin API.
 *
 * @param quotaBytes the bucket's quota in bytes, reported to Veeam as its capacity; null for none
 * @param sosapi whether the bucket answers Veeam's Smart Object Storage API objects; null for the default (on for
 *     buckets with Object Lock, off otherwise)
 */
public record BucketSettings(Long quotaBytes, Boolean sosapi) {
    public static final BucketSettings DEFAULTS = new BucketSettings(null, null);

    public BucketSettings {
        if (quotaBytes != null && quotaBytes <= 0) {
            throw new IllegalArgumentException("quotaBytes: " + quotaBytes + " (expected a positive number or none)");
        }
    }
}
