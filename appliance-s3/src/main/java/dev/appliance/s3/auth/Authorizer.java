package dev.appliance.s3.auth;

/**
 * The one authorization seam: decides whether an authenticated access key may perform an S3 action on a bucket and
 * key, given the request's context (source address, transport, time, condition keys). Called on a worker thread after
 * authentication, before the operation touches the store.
 */
@FunctionalInterface
public interface Authorizer {
    boolean allowed(AccessRequest request);

    /**
     * Whether this authorizer decides {@linkplain AccessRequest#anonymous() anonymous} requests (by bucket policy and
     * public access block). The front end refuses anonymous requests without asking an authorizer that does not, so
     * that an authorizer written for signed requests alone (e.g. {@link #allowAll()}) never admits them.
     */
    default boolean decidesAnonymous() {
        return false;
    }

    /**
     * For callers that have no request context (the console's filter): the decision on who asks for what alone, so
     * conditions on the source address or transport do not hold.
     *
     * @param action S3's action name, e.g. {@code s3:PutObject}
     * @param bucket the bucket, or null for service-level actions (ListBuckets)
     * @param key the object key, or null for bucket-level actions
     */
    default boolean allowed(String accessKey, String action, String bucket, String key) {
        return allowed(AccessRequest.of(accessKey, action, bucket, key));
    }

    /**
     * Whether the IAM user {@code userName} (not a key of theirs: a console session or an admin token acts for the
     * user) may perform {@code action}, resource {@code *}, with no request context. False unless the authorizer knows
     * users; see {@link PolicyAuthorizer}.
     */
    default boolean allowedAsUser(String userName, String action) {
        return false;
    }

    /**
     * Whether the policies {@code policyArns} name allow {@code action} to {@code owner} (an IAM user's name, or
     * {@code root}; resource {@code *}, no request context): an admin token's scope. False unless the authorizer knows
     * policies.
     */
    default boolean allowedByScope(String owner, java.util.List<String> policyArns, String action) {
        return false;
    }

    /** Everything allowed to every authenticated key: the single-root-user setup. */
    static Authorizer allowAll() {
        return request -> true;
    }

    /** An authorizer that looks at the key, action, bucket and object key only (tests, fixed rules). */
    static Authorizer byAction(Rule rule) {
        return request -> rule.allowed(request.accessKey(), request.action(), request.bucket(), request.key());
    }

    /** A decision on the key, action, bucket and object key only; see {@link #byAction}. */
    @FunctionalInterface
    interface Rule {
        boolean allowed(String accessKey, String action, String bucket, String key);
    }
}
