package dev.appliance.core.policy;

/**
 * Where a policy document is attached, which decides its size limit and whether it names principals. The limits are
 * AWS's: IAM counts the document without white space; S3 counts a bucket policy's characters as sent.
 */
public enum PolicyKind {
    /** A user's inline policy (PutUserPolicy): 2,048 characters. */
    USER_INLINE(2_048, false),
    /** A group's inline policy (PutGroupPolicy): 5,120 characters. */
    GROUP_INLINE(5_120, false),
    /** A managed policy (CreatePolicy) attached to users or groups: 6,144 characters. */
    MANAGED(6_144, false),
    /** A bucket policy (PutBucketPolicy): 20 KiB; its statements must name a Principal or NotPrincipal. */
    BUCKET(20 * 1024, true);

    private final int maxChars;
    private final boolean resourceBased;

    PolicyKind(int maxChars, boolean resourceBased) {
        this.maxChars = maxChars;
        this.resourceBased = resourceBased;
    }

    /** The largest document accepted, in characters (IAM kinds: not counting white space). */
    public int maxChars() {
        return maxChars;
    }

    /** True for a bucket policy (statements name principals), false for identity policies (they must not). */
    public boolean resourceBased() {
        return resourceBased;
    }

    /** The size this kind counts for {@code json}: IAM ignores white space, S3 counts everything. */
    int sizeOf(String json) {
        if (resourceBased) {
            return json.length();
        }
        int n = 0;
        for (int i = 0; i < json.length(); i++) {
            if (!Character.isWhitespace(json.charAt(i))) {
                n++;
            }
        }
        return n;
    }
}
