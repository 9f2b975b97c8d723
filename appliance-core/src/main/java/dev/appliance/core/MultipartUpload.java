package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** An upload in progress, as ListMultipartUploads shows it. */
public record MultipartUpload(String bucket, String key, String uploadId, Instant initiated) {
    public MultipartUpload {
        requireNonNull(bucket, "bucket");
        requireNonNull(key, "key");
        requireNonNull(uploadId, "uploadId");
        requireNonNull(initiated, "initiated");
    }
}
