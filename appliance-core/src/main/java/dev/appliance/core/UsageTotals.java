package dev.appliance.core;

import java.time.Instant;

/**
 * What every bucket holds together, from each bucket's last count ({@link BucketUsage}); nothing is counted to answer.
 *
 * @param buckets buckets that exist
 * @param uncounted buckets never counted yet, left out of the sums (the scanner's next cycle counts them)
 * @param objects keys whose latest version is an object, summed
 * @param versions object versions, summed
 * @param deleteMarkers delete markers, summed
 * @param bytes logical bytes of all object versions, summed
 * @param oldestCount when the oldest count in the sums was made; null when no bucket has been counted
 */
public record UsageTotals(
        long buckets,
        long uncounted,
        long objects,
        long versions,
        long deleteMarkers,
        long bytes,
        Instant oldestCount) {}
