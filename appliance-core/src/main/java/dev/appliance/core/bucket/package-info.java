/**
 * The buckets and their settings (versioning, tags, Object Lock, lifecycle, appliance settings): served from memory,
 * each bucket's record kept on every drive, written to a majority and resolved by quorum and generation, with
 * tombstones and repair. Entry type: {@link dev.appliance.core.bucket.BucketRegistry}.
 */
package dev.appliance.core.bucket;
