/**
 * S3 Object Lock on the wire: Put/GetObjectLockConfiguration, Put/GetObjectRetention, Put/GetObjectLegalHold, the lock
 * headers of writes and reads, and the integrity and bypass rules of those requests. The rules themselves are the
 * engine's ({@code dev.appliance.core.objectlock}).
 */
package dev.appliance.s3.api.objectlock;
