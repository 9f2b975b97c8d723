package dev.appliance.core.policy;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiled {@link PolicySet}s by the policies they hold, so a request does not rebuild its caller's set: the key is
 * the list of identity policies and the bucket policy (documents compare by their text, so a policy changed in the
 * store is a new key and the stale set simply ages out). Bounded: when full, the cache is emptied and refills with what
 * is in use, which keeps it simple and never lets it grow with the number of distinct sets ever seen.
 */
public final class PolicySetCache {
    private final int maxEntries;
    private final ConcurrentHashMap<Key, PolicySet> sets = new ConcurrentHashMap<>();

    private record Key(List<NamedPolicy> identityPolicies, NamedPolicy bucketPolicy) {}

    public PolicySetCache(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected at least 1)");
        }
        this.maxEntries = maxEntries;
    }

    /** The compiled set for these policies (see {@link PolicySet#of}), built on first use. */
    public PolicySet get(List<NamedPolicy> identityPolicies, NamedPolicy bucketPolicy) {
        Key key = new Key(identityPolicies, bucketPolicy);
        PolicySet set = sets.get(key);
        if (set != null) {
            return set;
        }
        if (sets.size() >= maxEntries) {
            sets.clear();
        }
        return sets.computeIfAbsent(
                new Key(List.copyOf(identityPolicies), bucketPolicy),
                k -> PolicySet.of(k.identityPolicies, k.bucketPolicy));
    }

    public int size() {
        return sets.size();
    }
}
