package dev.appliance.core;

/**
 * A bucket's S3 public access block. Public access is blocked by default: a bucket that never had one set, and every
 * bucket of an older build, has {@link #BLOCK_ALL} (docs/decisions/bucket-policies-public-access.md).
 *
 * @param blockPublicAcls refuse requests that set a public ACL (ACLs are disabled on this appliance: always refused)
 * @param ignorePublicAcls ignore public ACLs (there are none: ACLs are disabled)
 * @param blockPublicPolicy refuse a bucket policy that is public ({@code PutBucketPolicy} answers AccessDenied)
 * @param restrictPublicBuckets a public bucket policy grants nothing to anonymous callers
 */
public record PublicAccessBlock(
        boolean blockPublicAcls, boolean ignorePublicAcls, boolean blockPublicPolicy, boolean restrictPublicBuckets) {
    public static final PublicAccessBlock BLOCK_ALL = new PublicAccessBlock(true, true, true, true);
}
