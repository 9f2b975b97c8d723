/** Bucket operations and listings: ListBuckets, Create/Head/DeleteBucket, versioning, ListObjects V1/V2, versions. */
package dev.appliance.s3.api.bucket;
