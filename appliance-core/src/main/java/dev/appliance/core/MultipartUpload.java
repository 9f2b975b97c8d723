package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * An upload in progress, as ListMultipartUploads and ListParts show it.
 *
 * @param checksum the checksum the upload declared, or null
 */
public record MultipartUpload(
        String bucket, String key, String uploadId, Instant initiated, MultipartChecksum checksum) {
    public MultipartUpload {
        requireNonNull(bucket, "bucket");
        requireNonNull(key, "key");
        requireNonNull(uploadId, "uploadId");
        requireNonNull(initiated, "initiated");
    }

    public MultipartUpload(String bucket, String key, String uploadId, Instant initiated) {
        this(bucket, key, uploadId, initiated, null);
    }
}
