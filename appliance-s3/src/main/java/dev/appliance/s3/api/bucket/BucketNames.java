package dev.appliance.s3.api.bucket;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;

/** S3's bucket naming rules for new buckets: 3-63 of a-z 0-9 . -, alphanumeric at both ends, no "..", not an IP. */
final class BucketNames {
    private BucketNames() {}

    static void validate(String name) {
        if (!valid(name)) {
            throw new S3Exception(S3ErrorCode.InvalidBucketName, "The specified bucket is not valid: " + name);
        }
    }

    static boolean valid(String name) {
        int n = name.length();
        if (n < 3 || n > 63) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && c != '.' && c != '-') {
                return false;
            }
            if ((i == 0 || i == n - 1) && !alnum) {
                return false;
            }
        }
        return !name.contains("..")
                && !name.contains(".-")
                && !name.contains("-.")
                && !name.matches("[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+");
    }
}
