/**
 * Bucket usage (objects, versions, delete markers, bytes) as quotas, SOSAPI capacity and the console read it: counted
 * by walking a bucket, refreshed in the background, and fed by the scanner's counts; quota checks on writes; the
 * pool's usable and free capacity after erasure overhead. Entry type: {@link dev.appliance.core.usage.UsageTracker}.
 */
package dev.appliance.core.usage;
