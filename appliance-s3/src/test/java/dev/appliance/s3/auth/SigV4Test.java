package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

class SigV4Test {
    private static final Instant NOW = Instant.parse("2025-03-04T05:06:07Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final String AK = "AKIDEXAMPLE";
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final CredentialsProvider CREDS = ak -> AK.equals(ak) ? Optional.of(SECRET) : Optional.empty();

    private final SigV4Verifier verifier = new SigV4Verifier(CREDS, "us-east-1", CLOCK);

    @Test
    void canonicalUri_decodesThenEncodesOnce() {
        assertThat(SigV4.canonicalUri("/b/a%20b+c")).isEqualTo("/b/a%20b%2Bc");
        assertThat(SigV4.canonicalUri("/b/%E2%82%AC/x~y_z.-")).isEqualTo("/b/%E2%82%AC/x~y_z.-");
        assertThat(SigV4.canonicalUri("/b/a%2Fb")).isEqualTo("/b/a/b");
        assertThat(SigV4.canonicalUri("/b/a*b")).isEqualTo("/b/a%2Ab");
        assertThat(SigV4.canonicalUri("")).isEqualTo("/");
    }

    @Test
    void canonicalQuery_sortsByNameThenValue_encodesSlash_emptyValueForBareName() {
        assertThat(SigV4.canonicalQuery("versions&prefix=a%2Fb&delimiter=/&max-keys=2&a=2&a=1"))
                .isEqualTo("a=1&a=2&delimiter=%2F&max-keys=2&prefix=a%2Fb&versions=");
        assertThat(SigV4.canonicalQuery(null)).isEmpty();
    }

    @Test
    void canonicalHeaderValue_trimsAndCollapsesWhitespace() {
        assertThat(SigV4.canonicalHeaderValue("  a   b \t c  ")).isEqualTo("a b c");
    }

    /** Signs with the AWS SDK v2 signer and verifies with ours. */
    private SdkHttpRequest sdkSigned(String method, String uri, Map<String, String> extraHeaders, String secret) {
        return sdkSigned(method, uri, extraHeaders, secret, null);
    }

    private SdkHttpRequest sdkSigned(
            String method, String uri, Map<String, String> extraHeaders, String secret, byte[] payload) {
        SdkHttpRequest.Builder b =
                SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).uri(URI.create(uri));
        extraHeaders.forEach(b::putHeader);
        SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r.identity(AwsCredentialsIdentity.create(AK, secret))
                .request(b.build())
                .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, payload != null)
                .putProperty(HttpSigner.SIGNING_CLOCK, CLOCK));
        return signed.request();
    }

    private AuthResult verify(SdkHttpRequest r) {
        return verify(r, UnaryOperator.identity());
    }

    private AuthResult verify(SdkHttpRequest r, UnaryOperator<Map<String, List<String>>> tamper) {
        Map<String, List<String>> headers = new TreeMap<>();
        r.headers().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
        if (!headers.containsKey("host")) {
            headers.put("host", List.of(r.host() + (r.port() == 80 ? "" : ":" + r.port())));
        }
        URI uri = r.getUri();
        return verifier.verify(r.method().name(), uri.getRawPath(), uri.getRawQuery(), tamper.apply(headers));
    }

    @Test
    void verify_acceptsRequestsSignedByTheAwsSdk() {
        SdkHttpRequest r = sdkSigned(
                "GET",
                "http://localhost:9000/bucket/dir/a%20b%2Bc%E2%82%AC?list-type=2&prefix=a%2Fb&delimiter=%2F&versions",
                Map.of("Range", "bytes=0-9", "x-amz-meta-note", "  two   spaces "),
                SECRET);
        AuthResult auth = verify(r);
        assertThat(auth.accessKey()).isEqualTo(AK);
        assertThat(auth.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
    }

    @Test
    void verify_acceptsPutWithHexPayloadHash() {
        SdkHttpRequest r = sdkSigned(
                "PUT",
                "http://127.0.0.1:41234/b/k",
                Map.of(),
                SECRET,
                "abc".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        AuthResult auth = verify(r);
        assertThat(auth.payloadMode()).isEqualTo(PayloadMode.SHA256);
        assertThat(auth.contentSha256()).hasSize(64);
    }

    @Test
    void verify_whenSecretWrong_isSignatureDoesNotMatch() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/bucket", Map.of(), "not-the-secret");
        assertCode(() -> verify(r), S3ErrorCode.SignatureDoesNotMatch);
    }

    @Test
    void verify_whenHeaderTampered_isSignatureDoesNotMatch() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b/k", Map.of("Range", "bytes=0-9"), SECRET);
        assertCode(
                () -> verify(r, h -> {
                    h.put("range", List.of("bytes=0-99"));
                    return h;
                }),
                S3ErrorCode.SignatureDoesNotMatch);
    }

    @Test
    void verify_whenQueryTampered_isSignatureDoesNotMatch() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b?prefix=a", Map.of(), SECRET);
        assertCode(() -> verifier.verify("GET", "/b", "prefix=b", headersOf(r)), S3ErrorCode.SignatureDoesNotMatch);
        assertCode(() -> verifier.verify("GET", "/c", "prefix=a", headersOf(r)), S3ErrorCode.SignatureDoesNotMatch);
    }

    @Test
    void verify_whenUnsignedAmzHeaderAdded_isAccessDenied() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b/k", Map.of(), SECRET);
        assertCode(
                () -> verify(r, h -> {
                    h.put("x-amz-meta-evil", List.of("1"));
                    return h;
                }),
                S3ErrorCode.AccessDenied);
    }

    @Test
    void verify_whenClockSkewedBeyond15Minutes_isRequestTimeTooSkewed() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b", Map.of(), SECRET);
        SigV4Verifier late =
                new SigV4Verifier(CREDS, "us-east-1", Clock.fixed(NOW.plusSeconds(15 * 60 + 1), ZoneOffset.UTC));
        assertCode(() -> late.verify("GET", "/b", null, headersOf(r)), S3ErrorCode.RequestTimeTooSkewed);
        SigV4Verifier justInTime =
                new SigV4Verifier(CREDS, "us-east-1", Clock.fixed(NOW.minusSeconds(15 * 60 - 1), ZoneOffset.UTC));
        assertThat(justInTime.verify("GET", "/b", null, headersOf(r)).accessKey())
                .isEqualTo(AK);
    }

    @Test
    void verify_whenRegionWrong_isAuthorizationHeaderMalformed() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b", Map.of(), SECRET);
        SigV4Verifier eu = new SigV4Verifier(CREDS, "eu-west-1", CLOCK);
        assertCode(() -> eu.verify("GET", "/b", null, headersOf(r)), S3ErrorCode.AuthorizationHeaderMalformed);
    }

    @Test
    void verify_whenHostNotSigned_isRefused() {
        Map<String, List<String>> h = new TreeMap<>();
        String amzDate = "20250304T050607Z";
        h.put("x-amz-date", List.of(amzDate));
        h.put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
        TreeMap<String, List<String>> signed = new TreeMap<>(h);
        String sig =
                SigV4.sign(SECRET, "20250304", "us-east-1", amzDate, "GET", "/b", null, signed, "UNSIGNED-PAYLOAD");
        h.put("host", List.of("localhost"));
        h.put(
                "authorization",
                List.of("AWS4-HMAC-SHA256 Credential=" + AK
                        + "/20250304/us-east-1/s3/aws4_request, SignedHeaders=x-amz-content-sha256;x-amz-date, Signature="
                        + sig));
        assertCode(() -> verifier.verify("GET", "/b", null, h), S3ErrorCode.AuthorizationHeaderMalformed);
    }

    @Test
    void verify_whenTheCredentialDateIsNotEightDigits_isAuthorizationHeaderMalformed() {
        for (String date : List.of("2025030", "202503041", "2025-03-", "2025030\u0664", "2025030x")) {
            Map<String, List<String>> h = new TreeMap<>();
            h.put("host", List.of("localhost"));
            h.put("x-amz-date", List.of("20250304T050607Z"));
            h.put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
            h.put(
                    "authorization",
                    List.of("AWS4-HMAC-SHA256 Credential=" + AK + "/" + date
                            + "/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="
                            + "0".repeat(64)));
            assertThatThrownBy(() -> verifier.verify("GET", "/b", null, h))
                    .as(date)
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.code()).isEqualTo(S3ErrorCode.AuthorizationHeaderMalformed);
                        assertThat(e.getMessage()).contains("bad credential date");
                    });
        }
    }

    @Test
    void verify_unknownAccessKey_anonymous_sigV2_andMissingContentSha() {
        SdkHttpRequest r = sdkSigned("GET", "http://localhost:9000/b", Map.of(), SECRET);
        Map<String, List<String>> h = headersOf(r);
        h.put("authorization", List.of(h.get("authorization").getFirst().replace(AK, "NOPE")));
        assertCode(() -> verifier.verify("GET", "/b", null, h), S3ErrorCode.InvalidAccessKeyId);

        assertCode(() -> verifier.verify("GET", "/b", null, new TreeMap<>()), S3ErrorCode.AccessDenied);
        Map<String, List<String>> v2 = new TreeMap<>(Map.of("authorization", List.of("AWS AK:sig")));
        assertCode(() -> verifier.verify("GET", "/b", null, v2), S3ErrorCode.InvalidRequest);

        Map<String, List<String>> noSha = headersOf(r);
        noSha.remove("x-amz-content-sha256");
        assertCode(() -> verifier.verify("GET", "/b", null, noSha), S3ErrorCode.InvalidRequest);
    }

    @Test
    void signingKeyCache_isBounded() {
        SigningKeyCache cache = new SigningKeyCache(4);
        for (int i = 0; i < 10; i++) {
            cache.get("s" + i, "20250101", "us-east-1");
        }
        assertThat(cache.size()).isEqualTo(4);
        assertThat(cache.get("s", "20250101", "us-east-1"))
                .isEqualTo(SigV4.signingKey("s", "20250101", "us-east-1", "s3"));
    }

    private static Map<String, List<String>> headersOf(SdkHttpRequest r) {
        Map<String, List<String>> headers = new TreeMap<>();
        r.headers().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
        headers.putIfAbsent("host", List.of(r.host() + ":" + r.port()));
        return headers;
    }

    private static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, S3ErrorCode code) {
        assertThatThrownBy(call)
                .isInstanceOf(S3Exception.class)
                .extracting(e -> ((S3Exception) e).code())
                .isEqualTo(code);
    }
}
