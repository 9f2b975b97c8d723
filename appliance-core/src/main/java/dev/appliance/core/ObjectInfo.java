package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One version of an object as a client sees it.
 *
 * @param versionId {@code "null"} for the null version, else the version's UUID string
 * @param etag lower-case hex without quotes; null for delete markers
 * @param userMetadata stored headers, keys lower-case
 * @param partSizes size of each part in order (one entry for a single PUT; empty for delete markers)
 * @param partChecksums base64 checksum of each part in order, in the algorithm of the object's {@code x-amz-checksum-*}
 *     entry, or null entries when the parts have none (multipart uploads that declared a checksum); empty when unknown
 */
public record ObjectInfo(
        String bucket,
        String key,
        String versionId,
        boolean latest,
        boolean deleteMarker,
        long size,
        String etag,
        Instant modTime,
        String contentType,
        Map<String, String> userMetadata,
        List<Long> partSizes,
        List<String> partChecksums) {
    public ObjectInfo {
        requireNonNull(bucket, "bucket");
        requireNonNull(key, "key");
        requireNonNull(versionId, "versionId");
        requireNonNull(modTime, "modTime");
        userMetadata = userMetadata == null ? Map.of() : Map.copyOf(userMetadata);
        partSizes = partSizes == null ? List.of() : List.copyOf(partSizes);
        partChecksums = partChecksums == null
                ? List.of()
                : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(partChecksums));
    }

    public ObjectInfo(
            String bucket,
            String key,
            String versionId,
            boolean latest,
            boolean deleteMarker,
            long size,
            String etag,
            Instant modTime,
            String contentType,
            Map<String, String> userMetadata,
            List<Long> partSizes) {
        this(
                bucket,
                key,
                versionId,
                latest,
                deleteMarker,
                size,
                etag,
                modTime,
                contentType,
                userMetadata,
                partSizes,
                List.of());
    }
}
