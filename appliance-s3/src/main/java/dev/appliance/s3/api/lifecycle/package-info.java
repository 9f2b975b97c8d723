/**
 * Bucket lifecycle over S3: Put/Get/DeleteBucketLifecycleConfiguration ({@code ?lifecycle}) with S3's XML, and the
 * {@code x-amz-expiration} header of objects a rule will expire.
 */
package dev.appliance.s3.api.lifecycle;
