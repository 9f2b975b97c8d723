package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Fuzzes the SigV4 {@code Authorization} header: the field parser refuses anything malformed with {@code
 * AuthorizationHeaderMalformed} and what it accepts is well-formed (scope, sorted lower-case unique signed headers, 64
 * lower-case hex digits); the whole verifier answers every header, method, path and query with an {@code S3Exception}
 * of the authentication family or a result, never another exception, and never accepts a forged signature.
 */
class SigV4AuthorizationFuzzTest {
    private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
    private static final String AMZ_DATE = "20250101T000000Z";
    private static final SigV4Verifier VERIFIER = new SigV4Verifier(
            ak -> "AKID".equals(ak) ? Optional.of("secret") : Optional.empty(),
            "us-east-1",
            Clock.fixed(NOW, ZoneOffset.UTC));
    private static final List<String> PREFIXES = List.of(
            "AWS4-HMAC-SHA256 ",
            "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/s3/aws4_request, SignedHeaders=",
            "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/s3/aws4_request,"
                    + " SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=",
            "AWS ",
            "");
    private static final Set<S3ErrorCode> AUTH_CODES = Set.of(
            S3ErrorCode.AuthorizationHeaderMalformed,
            // presigned-URL parameters in the query are refused with this one
            S3ErrorCode.AuthorizationQueryParametersError,
            S3ErrorCode.AccessDenied,
            S3ErrorCode.InvalidRequest,
            S3ErrorCode.InvalidArgument,
            S3ErrorCode.InvalidAccessKeyId,
            S3ErrorCode.SignatureDoesNotMatch,
            S3ErrorCode.RequestTimeTooSkewed,
            S3ErrorCode.NotImplemented,
            S3ErrorCode.InvalidURI);

    @FuzzTest
    void authorizationHeaderIsParsedOrRefusedAsMalformed(FuzzedDataProvider data) {
        String prefix = PREFIXES.get(data.consumeInt(0, PREFIXES.size() - 1));
        String contentSha = data.consumeBoolean() ? "UNSIGNED-PAYLOAD" : data.consumeString(80);
        String path = "/" + data.consumeString(40);
        String query = data.consumeBoolean() ? null : data.consumeString(40);
        String authorization = prefix + data.consumeRemainingAsString();

        if (authorization.startsWith(SigV4.ALGORITHM + " ")) {
            try {
                SigV4Verifier.ParsedAuthorization p =
                        SigV4Verifier.ParsedAuthorization.parse(authorization.substring(SigV4.ALGORITHM.length() + 1));
                assertThat(p.accessKey()).isNotEmpty();
                assertThat(p.date()).matches("[0-9]{8}");
                assertThat(p.signature()).matches("[0-9a-f]{64}");
                assertThat(p.signedHeaders()).isNotEmpty().isSorted().doesNotHaveDuplicates();
                assertThat(p.signedHeaders()).allMatch(h -> !h.isEmpty() && h.equals(h.toLowerCase(Locale.ROOT)));
            } catch (S3Exception e) {
                assertThat(e.code()).isEqualTo(S3ErrorCode.AuthorizationHeaderMalformed);
            }
        }

        Map<String, List<String>> headers = new TreeMap<>();
        headers.put("authorization", List.of(authorization));
        headers.put("host", List.of("127.0.0.1:9000"));
        headers.put("x-amz-content-sha256", List.of(contentSha));
        headers.put("x-amz-date", List.of(AMZ_DATE));
        try {
            AuthResult r = VERIFIER.verify("GET", path, query, headers);
            // only a correct signature is accepted: recompute it independently of the verifier's bookkeeping
            TreeMap<String, List<String>> signed = new TreeMap<>();
            signed.put("host", headers.get("host"));
            signed.put("x-amz-content-sha256", headers.get("x-amz-content-sha256"));
            signed.put("x-amz-date", headers.get("x-amz-date"));
            assertThat(r.accessKey()).isEqualTo("AKID");
            assertThat(r.seedSignature())
                    .isEqualTo(SigV4.sign(
                            "secret", "20250101", "us-east-1", AMZ_DATE, "GET", path, query, signed, contentSha));
        } catch (S3Exception e) {
            assertThat(AUTH_CODES).contains(e.code());
        }
    }
}
