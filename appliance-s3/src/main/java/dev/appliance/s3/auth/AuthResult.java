package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

/**
 * An authenticated request: who signed it and what the body's verification needs.
 *
 * @param signingKey the derived SigV4 key (chunk and trailer signatures are checked with it)
 * @param amzDate the request time as signed ({@code yyyyMMdd'T'HHmmss'Z'})
 * @param scope {@code date/region/s3/aws4_request}
 * @param seedSignature the header signature: the "previous signature" of the first chunk
 * @param contentSha256 the raw {@code x-amz-content-sha256} value
 */
public record AuthResult(
        String accessKey,
        byte[] signingKey,
        String amzDate,
        String scope,
        String seedSignature,
        PayloadMode payloadMode,
        String contentSha256) {
    public AuthResult {
        requireNonNull(accessKey, "accessKey");
        requireNonNull(signingKey, "signingKey");
        requireNonNull(amzDate, "amzDate");
        requireNonNull(scope, "scope");
        requireNonNull(seedSignature, "seedSignature");
        requireNonNull(payloadMode, "payloadMode");
        requireNonNull(contentSha256, "contentSha256");
    }
}
