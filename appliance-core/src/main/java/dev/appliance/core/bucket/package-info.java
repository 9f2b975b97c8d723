/**
 * Bucket persistence: each bucket's record (versioning, tags, Object Lock, lifecycle, settings) kept on every drive,
 * written to a majority and resolved by quorum and generation, with tombstones and repair. Entry type: {@link
 * dev.appliance.core.bucket.BucketRecords}.
 */
package dev.appliance.core.bucket;
