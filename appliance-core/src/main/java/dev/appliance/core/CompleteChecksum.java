package dev.appliance.core;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;

/**
 * What a CompleteMultipartUpload request says of the whole object's checksum: {@code x-amz-checksum-type} and an
 * {@code x-amz-checksum-<algorithm>} value; each may be null.
 */
public record CompleteChecksum(ChecksumType type, ChecksumAlgorithm algorithm, String value) {
    public static final CompleteChecksum NONE = new CompleteChecksum(null, null, null);

    public CompleteChecksum {
        if ((algorithm == null) != (value == null)) {
            throw new IllegalArgumentException("algorithm and value: both or neither");
        }
    }
}
