package dev.appliance.core;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.time.Instant;

/**
 * A part stored for a multipart upload.
 *
 * @param etag hex MD5 of the part's bytes, unquoted
 * @param checksumAlgorithm the algorithm of {@code checksum}, or null when the part has none: the upload's declared
 *     algorithm (the value the client sent, or computed here when it sent none), or in an upload that declared none, the
 *     algorithm of the checksum the client sent with the part
 * @param checksum base64 value of the part's checksum, or null
 */
public record UploadedPart(
        int partNumber, String etag, long size, Instant modTime, ChecksumAlgorithm checksumAlgorithm, String checksum) {
    public UploadedPart {
        if ((checksumAlgorithm == null) != (checksum == null)) {
            throw new IllegalArgumentException("checksumAlgorithm and checksum: both or neither");
        }
    }

    public UploadedPart(int partNumber, String etag, long size, Instant modTime) {
        this(partNumber, etag, size, modTime, null, null);
    }
}
