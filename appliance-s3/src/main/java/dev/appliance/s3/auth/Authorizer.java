package dev.appliance.s3.auth;

/**
 * The one authorization seam: decides whether an authenticated access key may perform an S3 action on a bucket and
 * key. Called on a worker thread after authentication, before the operation touches the store.
 */
@FunctionalInterface
public interface Authorizer {
    /**
     * @param action S3's action name, e.g. {@code s3:PutObject}
     * @param bucket the bucket, or null for service-level actions (ListBuckets)
     * @param key the object key, or null for bucket-level actions
     */
    boolean allowed(String accessKey, String action, String bucket, String key);

    /** Everything allowed to every authenticated key: the single-root-user setup. */
    static Authorizer allowAll() {
        return (accessKey, action, bucket, key) -> true;
    }
}
