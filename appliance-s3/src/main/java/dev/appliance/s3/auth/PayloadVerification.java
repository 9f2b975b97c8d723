package dev.appliance.s3.auth;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Builds the verified view of a request body for the payload mode of an authenticated request:
 *
 * <ul>
 *   <li>hex SHA-256: the body hashed while streaming, {@code XAmzContentSHA256Mismatch} at the end on mismatch;
 *   <li>{@code UNSIGNED-PAYLOAD}: as received;
 *   <li>{@code STREAMING-*}: aws-chunked decoded, chunk and trailer signatures checked, decoded length checked;
 * </ul>
 *
 * and in every mode an {@code x-amz-checksum-*} header or the trailer named by {@code x-amz-trailer} checked at the
 * end ({@code BadDigest}). Every failure surfaces as an exception from the stream before it returns -1.
 */
public final class PayloadVerification {
    private PayloadVerification() {}

    /**
     * The verified body and the object size it will yield.
     *
     * @param size decoded size in bytes, -1 when unknown
     */
    public record VerifiedBody(
            InputStream stream,
            long size,
            Supplier<Map<String, String>> verifiedChecksums,
            ChecksumAlgorithm checksumAlgorithm) {
        public VerifiedBody(InputStream stream, long size) {
            this(stream, size, Map::of, null);
        }
    }

    /** As below, with {@code x-amz-checksum-*} headers describing the body. */
    public static VerifiedBody open(
            InputStream raw, AuthResult auth, Map<String, List<String>> headers, long contentLength) {
        return open(raw, auth, headers, contentLength, true);
    }

    /**
     * @param raw the body bytes exactly as received
     * @param contentLength the HTTP Content-Length, -1 when absent
     * @param headerChecksums whether {@code x-amz-checksum-*} headers describe the body (false for
     *     CompleteMultipartUpload, where they state the whole object's checksum, checked by the operation)
     */
    public static VerifiedBody open(
            InputStream raw,
            AuthResult auth,
            Map<String, List<String>> headers,
            long contentLength,
            boolean headerChecksums) {
        PayloadMode mode = auth.payloadMode();
        ChecksumAlgorithm headerChecksum = null;
        String headerChecksumValue = null;
        for (ChecksumAlgorithm a : headerChecksums ? ChecksumAlgorithm.values() : new ChecksumAlgorithm[0]) {
            String v = first(headers, a.headerName());
            if (v != null) {
                if (headerChecksum != null) {
                    throw new S3Exception(S3ErrorCode.InvalidRequest, "Expecting a single x-amz-checksum- header.");
                }
                headerChecksum = a;
                headerChecksumValue = v;
            }
        }
        if (headerChecksum != null) {
            try {
                VerifyingInputStream.decode(headerChecksum, headerChecksumValue);
            } catch (BodyException e) {
                throw new S3Exception(e.code(), e.getMessage());
            }
        }
        ChecksumAlgorithm trailerChecksum = trailerChecksum(headers, mode);
        if (trailerChecksum != null && headerChecksum != null) {
            throw new S3Exception(S3ErrorCode.InvalidRequest, "Expecting a single x-amz-checksum- header.");
        }

        InputStream stream = raw;
        long size = contentLength;
        AwsChunkedInputStream chunked = null;
        if (mode.chunked()) {
            size = decodedLength(headers);
            AwsChunkedDecoder.Signing signing = mode.chunkSignatures()
                    ? new AwsChunkedDecoder.Signing(
                            auth.signingKey(), auth.amzDate(), auth.scope(), auth.seedSignature())
                    : null;
            Set<String> trailers = trailerChecksum == null ? Set.of() : Set.of(trailerChecksum.headerName());
            chunked = new AwsChunkedInputStream(
                    raw, new AwsChunkedDecoder(signing, mode == PayloadMode.STREAMING_SIGNED_TRAILER, trailers), size);
            stream = chunked;
        }
        String sha = mode == PayloadMode.SHA256 ? auth.contentSha256().toLowerCase(Locale.ROOT) : null;
        if (sha != null || headerChecksum != null || trailerChecksum != null) {
            ChecksumAlgorithm algorithm = headerChecksum != null ? headerChecksum : trailerChecksum;
            String fixed = headerChecksumValue;
            AwsChunkedInputStream source = chunked;
            VerifyingInputStream verifying = new VerifyingInputStream(
                    stream,
                    sha,
                    algorithm,
                    fixed != null ? () -> fixed : () -> source.trailers().get(algorithm.headerName()));
            return new VerifiedBody(verifying, size, verifying::verifiedChecksum, algorithm);
        }
        return new VerifiedBody(stream, size);
    }

    private static ChecksumAlgorithm trailerChecksum(Map<String, List<String>> headers, PayloadMode mode) {
        String trailer = first(headers, "x-amz-trailer");
        if (trailer == null) {
            return null;
        }
        if (!mode.trailer()) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest, "x-amz-trailer requires a STREAMING-*-TRAILER x-amz-content-sha256.");
        }
        Optional<ChecksumAlgorithm> a = ChecksumAlgorithm.forHeader(trailer.strip());
        return a.orElseThrow(() -> new S3Exception(
                S3ErrorCode.InvalidRequest, "The value specified in the x-amz-trailer header is not supported."));
    }

    private static long decodedLength(Map<String, List<String>> headers) {
        String v = first(headers, "x-amz-decoded-content-length");
        if (v == null) {
            throw new S3Exception(
                    S3ErrorCode.MissingContentLength, "aws-chunked bodies need x-amz-decoded-content-length.");
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n < 0) {
                throw new NumberFormatException(v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "x-amz-decoded-content-length is not a valid length.");
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }
}
