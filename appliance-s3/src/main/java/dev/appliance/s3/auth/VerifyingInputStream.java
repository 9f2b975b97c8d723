package dev.appliance.s3.auth;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.io.BulkInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * Hashes the body as it passes and, at its end, checks the payload SHA-256 and/or an additional checksum before
 * returning -1: a mismatch is thrown instead, so a consumer that commits on end-of-stream never commits a bad body.
 */
final class VerifyingInputStream extends BulkInputStream {
    private final InputStream in;
    /** The hash of no bytes: what an empty body is checked against, without a digest. */
    private static final byte[] EMPTY_SHA256 = HexFormat.of().parseHex(SigV4.EMPTY_SHA256);

    /** Made at the first byte: most bodies checked here are empty (GET, HEAD, DELETE), and a new digest costs. */
    private MessageDigest sha256;

    private final byte[] expectedSha256;
    private final ChecksumAlgorithm algorithm;
    private final ChecksumAlgorithm.Running checksum;
    private final Supplier<String> expectedChecksum;
    private boolean verified;
    private byte[] verifiedValue;

    /**
     * @param expectedSha256Hex the payload hash to check, or null
     * @param algorithm an additional checksum to check, or null
     * @param expectedChecksum base64 value of that checksum, asked for at the end (trailers arrive last)
     */
    VerifyingInputStream(
            InputStream in, String expectedSha256Hex, ChecksumAlgorithm algorithm, Supplier<String> expectedChecksum) {
        this.in = in;
        this.expectedSha256 = expectedSha256Hex == null ? null : HexFormat.of().parseHex(expectedSha256Hex);
        this.algorithm = algorithm;
        this.checksum = algorithm == null ? null : algorithm.newRunning();
        this.expectedChecksum = expectedChecksum;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        int n = in.read(b, off, len);
        if (n < 0) {
            verifyOnce();
            return -1;
        }
        if (expectedSha256 != null) {
            if (sha256 == null) {
                sha256 = SigV4.newSha256();
            }
            sha256.update(b, off, n);
        }
        if (checksum != null) {
            checksum.update(b, off, n);
        }
        return n;
    }

    private void verifyOnce() throws BodyException {
        if (verified) {
            return;
        }
        if (expectedSha256 != null
                && !MessageDigest.isEqual(sha256 == null ? EMPTY_SHA256 : sha256.digest(), expectedSha256)) {
            throw new BodyException(
                    S3ErrorCode.XAmzContentSHA256Mismatch, S3ErrorCode.XAmzContentSHA256Mismatch.defaultMessage());
        }
        if (checksum != null) {
            byte[] expected = decode(algorithm, expectedChecksum.get());
            // value() may reset the running digest (SHA-1/SHA-256): take it once and keep it.
            verifiedValue = checksum.value();
            if (!MessageDigest.isEqual(verifiedValue, expected)) {
                throw new BodyException(
                        S3ErrorCode.BadDigest,
                        "The " + algorithm.headerName() + " you specified did not match the calculated checksum.");
            }
        }
        verified = true;
    }

    /** The additional checksum, header name to base64 value, once the body ended and it matched; else empty. */
    java.util.Map<String, String> verifiedChecksum() {
        if (!verified || verifiedValue == null) {
            return java.util.Map.of();
        }
        return java.util.Map.of(algorithm.headerName(), Base64.getEncoder().encodeToString(verifiedValue));
    }

    /** Base64 checksum value of the right length for the algorithm, else {@code InvalidRequest}. */
    static byte[] decode(ChecksumAlgorithm algorithm, String base64) throws BodyException {
        byte[] raw;
        try {
            raw = base64 == null ? null : Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            raw = null;
        }
        if (raw == null || raw.length != algorithm.valueLength()) {
            throw new BodyException(
                    S3ErrorCode.InvalidRequest, "Value for " + algorithm.headerName() + " header is invalid.");
        }
        return raw;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
