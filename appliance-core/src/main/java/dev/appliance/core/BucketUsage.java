package dev.appliance.core;

import java.time.Instant;

/**
 * What a bucket holds, counted over every version (noncurrent and locked ones included), as of {@code computedAt}.
 *
 * @param objects keys whose latest version is an object (not a delete marker)
 * @param versions object versions, current and noncurrent
 * @param deleteMarkers delete markers
 * @param bytes logical bytes of all object versions (what clients stored, before erasure overhead)
 */
public record BucketUsage(long objects, long versions, long deleteMarkers, long bytes, Instant computedAt) {}
