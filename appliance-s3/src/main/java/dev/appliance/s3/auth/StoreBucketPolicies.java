package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.PublicAccessBlock;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.PolicyDocument;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The buckets' policies and public access blocks as {@link PolicyAuthorizer} asks for them, from the store (which
 * serves them from memory). A policy is parsed once per text: the parsed document is kept per bucket until the
 * bucket's text changes.
 */
public final class StoreBucketPolicies {
    private static final Logger LOG = Logger.getLogger(StoreBucketPolicies.class.getName());

    private record Parsed(String json, NamedPolicy policy) {}

    private final ObjectStore store;
    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();

    public StoreBucketPolicies(ObjectStore store) {
        this.store = requireNonNull(store, "store");
    }

    /** The bucket's policy, or null when it has none or does not exist. */
    public NamedPolicy policy(String bucket) {
        String json;
        try {
            json = store.bucketPolicy(bucket);
        } catch (StorageException noSuchBucket) {
            json = null;
        }
        if (json == null) {
            parsed.remove(bucket);
            return null;
        }
        Parsed p = parsed.get(bucket);
        if (p == null || !p.json().equals(json)) {
            p = new Parsed(json, new NamedPolicy("bucket/" + bucket, parse(json, bucket)));
            parsed.put(bucket, p);
        }
        return p.policy();
    }

    /** Whether the bucket's public access block has RestrictPublicBuckets (true when the bucket does not exist). */
    public boolean restrictsPublicBuckets(String bucket) {
        try {
            return store.publicAccessBlock(bucket).restrictPublicBuckets();
        } catch (StorageException noSuchBucket) {
            return PublicAccessBlock.BLOCK_ALL.restrictPublicBuckets();
        }
    }

    /**
     * Stored policies were parsed when put; one that no longer parses (a stricter parser in a later build) denies
     * everyone everything on the bucket rather than being skipped, since skipping could drop a Deny.
     */
    private static PolicyDocument parse(String json, String bucket) {
        try {
            return PolicyDocument.parseBucketPolicy(json, bucket);
        } catch (RuntimeException refused) {
            LOG.warning("bucket " + bucket + ": stored bucket policy no longer parses, denying everything on it"
                    + " but the root credential: " + refused.getMessage());
            return PolicyDocument.parseBucketPolicy(
                    "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Deny\",\"Principal\":\"*\","
                            + "\"Action\":\"s3:*\",\"Resource\":[\"arn:aws:s3:::" + bucket + "\",\"arn:aws:s3:::"
                            + bucket + "/*\"]}]}",
                    bucket);
        }
    }
}
