package dev.appliance.s3.auth;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;

/** How the body is protected, as announced by {@code x-amz-content-sha256}. */
public enum PayloadMode {
    /** The header is the hex SHA-256 of the body; verified while streaming. */
    SHA256,
    UNSIGNED,
    /** aws-chunked with a signature per chunk. */
    STREAMING_SIGNED,
    /** aws-chunked without signatures, checksum trailer. */
    STREAMING_UNSIGNED_TRAILER,
    /** aws-chunked with chunk signatures and a signed trailer. */
    STREAMING_SIGNED_TRAILER;

    public boolean chunked() {
        return this != SHA256 && this != UNSIGNED;
    }

    public boolean chunkSignatures() {
        return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER;
    }

    public boolean trailer() {
        return this == STREAMING_UNSIGNED_TRAILER || this == STREAMING_SIGNED_TRAILER;
    }

    public static PayloadMode parse(String header) {
        return switch (header) {
            case "UNSIGNED-PAYLOAD" -> UNSIGNED;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" -> STREAMING_SIGNED;
            case "STREAMING-UNSIGNED-PAYLOAD-TRAILER" -> STREAMING_UNSIGNED_TRAILER;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" -> STREAMING_SIGNED_TRAILER;
            case "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD", "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER" ->
                throw new S3Exception(S3ErrorCode.NotImplemented, "SigV4a (ECDSA) payload signing is not supported.");
            default -> {
                if (isSha256Hex(header)) {
                    yield SHA256;
                }
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument,
                        "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, a STREAMING-* value or a valid SHA-256 hex"
                                + " value.");
            }
        };
    }

    static boolean isSha256Hex(String s) {
        if (s.length() != 64) {
            return false;
        }
        for (int i = 0; i < 64; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
