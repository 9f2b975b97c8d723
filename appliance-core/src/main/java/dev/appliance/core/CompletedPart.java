package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.util.Map;

/**
 * A part named in CompleteMultipartUpload: its number, the ETag its upload returned (quotes optional) and the checksums
 * the request names for it ({@code ChecksumCRC32} etc.: algorithm to base64 value; usually none or one).
 */
public record CompletedPart(int partNumber, String etag, Map<ChecksumAlgorithm, String> checksums) {
    public CompletedPart {
        requireNonNull(etag, "etag");
        etag = etag.startsWith("\"") && etag.endsWith("\"") && etag.length() >= 2
                ? etag.substring(1, etag.length() - 1)
                : etag;
        checksums = checksums == null ? Map.of() : Map.copyOf(checksums);
    }

    public CompletedPart(int partNumber, String etag) {
        this(partNumber, etag, Map.of());
    }
}
