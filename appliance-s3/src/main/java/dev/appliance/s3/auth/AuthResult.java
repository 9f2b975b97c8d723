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

    private static final AuthResult FORM_FIELDS =
            new AuthResult("", new byte[0], "", "", "", PayloadMode.UNSIGNED, SigV4.UNSIGNED_PAYLOAD);

    /**
     * Stands for a browser-based upload (POST Object, {@code multipart/form-data}) whose credentials and signature
     * are form fields in its body: not authenticated yet. Only the POST Object operation accepts it, and it verifies
     * the form itself ({@link SigV4Verifier#verifyPostPolicy}) before anything else. An IAM call (signed for the
     * service {@code iam}) is not authenticated with its head either: its handler verifies it with the body it reads
     * ({@link SigV4Verifier#verifyIam}).
     */
    public static AuthResult formFields() {
        return FORM_FIELDS;
    }

    /** Whether this is {@link #formFields()}: no one has been authenticated. */
    public boolean isFormFields() {
        return this == FORM_FIELDS;
    }

    private static final AuthResult ANONYMOUS = new AuthResult(
            AccessRequest.ANONYMOUS, new byte[0], "", "", "", PayloadMode.UNSIGNED, SigV4.UNSIGNED_PAYLOAD);

    /**
     * Stands for a request without credentials (no {@code Authorization} header, no presigned query): anonymous. It is
     * authorized as anonymous against the bucket's policy only (see {@link PolicyAuthorizer}); everything else refuses
     * it.
     */
    public static AuthResult anonymous() {
        return ANONYMOUS;
    }

    /** Whether this is {@link #anonymous()}: the request carried no credentials. */
    public boolean isAnonymous() {
        return this == ANONYMOUS;
    }
}
