package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the {@link Authorizer} decides on: who asks for which S3 action on which bucket and key, from where, when, and
 * the request's S3 condition keys. Built by the S3 front end from the authenticated request, free of any HTTP type.
 *
 * @param accessKey the access key that signed the request; {@link #ANONYMOUS} for a request without credentials
 * @param action S3's IAM action name, e.g. {@code s3:PutObject}
 * @param bucket the bucket, or null for service-level actions (ListBuckets)
 * @param key the object key, or null for bucket-level actions
 * @param sourceIp the client's address (an IPv4 or IPv6 literal), or null when unknown
 * @param secureTransport whether the request came over TLS
 * @param time when the request was received (aws:CurrentTime)
 * @param conditionKeys the request's other condition keys ({@code s3:prefix}, {@code s3:x-amz-acl}, ...) by lower-case
 *     name; a key the request does not carry is absent
 */
public record AccessRequest(
        String accessKey,
        String action,
        String bucket,
        String key,
        String sourceIp,
        boolean secureTransport,
        Instant time,
        Map<String, String> conditionKeys) {
    /** The access key of a request that carries no credentials (no key is empty). */
    public static final String ANONYMOUS = "";

    public AccessRequest {
        requireNonNull(accessKey, "accessKey");
        requireNonNull(action, "action");
        requireNonNull(time, "time");
        requireNonNull(conditionKeys, "conditionKeys");
        for (String name : conditionKeys.keySet()) {
            if (!name.equals(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("conditionKeys: " + name + " (expected a lower-case name)");
            }
        }
    }

    /** Whether the request carries no credentials: only a bucket policy granting everyone can allow it. */
    public boolean anonymous() {
        return accessKey.isEmpty();
    }

    /** A request with nothing known but who asks for what (callers without an HTTP request, e.g. the console). */
    public static AccessRequest of(String accessKey, String action, String bucket, String key) {
        return new AccessRequest(accessKey, action, bucket, key, null, false, Instant.now(), Map.of());
    }

    /** The same request asking for another action on {@code bucket} and {@code key} (e.g. a copy's source). */
    public AccessRequest forAction(String action, String bucket, String key) {
        return new AccessRequest(accessKey, action, bucket, key, sourceIp, secureTransport, time, conditionKeys);
    }

    /** The same request with condition key {@code name} (any case) set to {@code value}, or removed when null. */
    public AccessRequest withConditionKey(String name, String value) {
        Map<String, String> keys = new HashMap<>(conditionKeys);
        if (value == null) {
            keys.remove(name.toLowerCase(Locale.ROOT));
        } else {
            keys.put(name.toLowerCase(Locale.ROOT), value);
        }
        return new AccessRequest(accessKey, action, bucket, key, sourceIp, secureTransport, time, keys);
    }
}
