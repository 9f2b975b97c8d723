package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;

/**
 * The checksum a multipart upload declared at its creation ({@code x-amz-checksum-algorithm} and {@code
 * x-amz-checksum-type}); the type is never null (the algorithm's default when the request named none).
 */
public record MultipartChecksum(ChecksumAlgorithm algorithm, ChecksumType type) {
    public MultipartChecksum {
        requireNonNull(algorithm, "algorithm");
        requireNonNull(type, "type");
        if (!algorithm.supports(type)) {
            throw new IllegalArgumentException("checksum: " + algorithm + " with " + type + " (not supported)");
        }
    }
}
