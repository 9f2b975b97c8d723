/**
 * Erasure sets: placement, quorum, the streaming write and read paths and the commit protocol across drives; and, still
 * here because they reach into a set's metadata and shards, multipart uploads, the data scanner, the object, drive and
 * background healers and the drive monitor. Only {@code engine.Stores} names these classes from outside: the S3 front
 * end and the admin app use {@code ObjectStore} and {@code admin.StoreAdmin} (enforced by ArchUnit rules).
 */
package dev.appliance.core.erasure;
