package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.presigner.PresignedRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/** Presigned URLs made by the AWS SDK v2 {@link S3Presigner}, verified by {@link SigV4Verifier}. */
class PresignedUrlTest {
    private static final String AK = "AKIDPRESIGN";
    private static final String SECRET = "presign-secret-0123456789abcdefghijklmnop";
    private static final CredentialsProvider CREDS = ak -> AK.equals(ak) ? Optional.of(SECRET) : Optional.empty();

    private final S3Presigner presigner = presigner(SECRET);

    @AfterEach
    void close() {
        presigner.close();
    }

    private static S3Presigner presigner(String secret) {
        return S3Presigner.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9000"))
                .region(Region.US_EAST_1)
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(AK, secret)))
                .build();
    }

    private static SigV4Verifier verifierAt(Duration offset) {
        return new SigV4Verifier(CREDS, "us-east-1", Clock.offset(Clock.system(ZoneOffset.UTC), offset));
    }

    private static AuthResult verify(SigV4Verifier v, PresignedRequest p, Map<String, String> extraHeaders) {
        URI url = URI.create(p.url().toString());
        return verify(v, p.httpRequest().method().name(), url.getRawPath(), url.getRawQuery(), p, extraHeaders);
    }

    private static AuthResult verify(
            SigV4Verifier v,
            String method,
            String rawPath,
            String rawQuery,
            PresignedRequest p,
            Map<String, String> extraHeaders) {
        Map<String, List<String>> headers = new TreeMap<>();
        p.signedHeaders().forEach((k, vals) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(vals)));
        extraHeaders.forEach((k, val) -> headers.computeIfAbsent(k.toLowerCase(Locale.ROOT), x -> new ArrayList<>())
                .add(val));
        return v.verify(method, rawPath, rawQuery, headers);
    }

    private PresignedRequest presignGet(String key, Duration validity) {
        return presigner.presignGetObject(b -> b.signatureDuration(validity)
                .getObjectRequest(g -> g.bucket("bucket").key(key)));
    }

    private static S3ErrorCode codeOf(Throwable t) {
        return ((S3Exception) t).code();
    }

    @Test
    void sdkPresignedGet_isAccepted_withUnsignedPayload() {
        PresignedRequest p = presignGet("dir/a key+€.bin", Duration.ofMinutes(10));
        assertThat(p.url().getQuery()).contains("X-Amz-Algorithm=AWS4-HMAC-SHA256");

        AuthResult auth = verify(verifierAt(Duration.ZERO), p, Map.of());

        assertThat(auth.accessKey()).isEqualTo(AK);
        assertThat(auth.payloadMode()).isEqualTo(PayloadMode.UNSIGNED);
        assertThat(auth.contentSha256()).isEqualTo("UNSIGNED-PAYLOAD");
    }

    @Test
    void sdkPresignedPut_withSignedMetadataHeader_isAccepted_andTheHeaderMustBeSent() {
        PresignedRequest p = presigner.presignPutObject(b -> b.signatureDuration(Duration.ofMinutes(5))
                .putObjectRequest(r -> r.bucket("bucket").key("k").metadata(Map.of("owner", "veeam"))));
        assertThat(p.signedHeaders()).containsKey("x-amz-meta-owner");

        assertThat(verify(verifierAt(Duration.ZERO), p, Map.of()).accessKey()).isEqualTo(AK);

        // the client sends another value for the signed header: the signature no longer matches
        Map<String, List<String>> altered = new TreeMap<>();
        altered.put("host", List.of("127.0.0.1:9000"));
        altered.put("x-amz-meta-owner", List.of("mallory"));
        URI url = URI.create(p.url().toString());
        assertThatThrownBy(() -> verifierAt(Duration.ZERO).verify("PUT", url.getRawPath(), url.getRawQuery(), altered))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
    }

    @Test
    void wrongSecret_isSignatureDoesNotMatch() {
        try (S3Presigner other = presigner("not-the-secret")) {
            PresignedRequest p = other.presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(1))
                    .getObjectRequest(g -> g.bucket("b").key("k")));
            assertThatThrownBy(() -> verify(verifierAt(Duration.ZERO), p, Map.of()))
                    .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
        }
    }

    @Test
    void tamperedPathOrQuery_isSignatureDoesNotMatch() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        URI url = URI.create(p.url().toString());
        SigV4Verifier v = verifierAt(Duration.ZERO);
        assertThatThrownBy(() -> verify(v, "GET", "/bucket/other", url.getRawQuery(), p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
        assertThatThrownBy(() -> verify(v, "DELETE", url.getRawPath(), url.getRawQuery(), p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
        assertThatThrownBy(() -> verify(v, "GET", url.getRawPath(), url.getRawQuery() + "&versionId=v1", p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
    }

    @Test
    void expiredUrl_isAccessDenied_requestHasExpired() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        assertThatThrownBy(() -> verify(verifierAt(Duration.ofMinutes(11)), p, Map.of()))
                .satisfies(t -> {
                    assertThat(codeOf(t)).isEqualTo(S3ErrorCode.AccessDenied);
                    assertThat(t).hasMessage("Request has expired");
                });
        // still valid just before the end
        assertThat(verify(verifierAt(Duration.ofMinutes(9)), p, Map.of()).accessKey())
                .isEqualTo(AK);
    }

    @Test
    void expiresOutOfRange_isAuthorizationQueryParametersError() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        URI url = URI.create(p.url().toString());
        SigV4Verifier v = verifierAt(Duration.ZERO);
        for (String bad : List.of("604801", "0", "-5", "soon")) {
            String query = url.getRawQuery().replaceAll("X-Amz-Expires=[0-9]+", "X-Amz-Expires=" + bad);
            assertThatThrownBy(() -> verify(v, "GET", url.getRawPath(), query, p, Map.of()))
                    .as("X-Amz-Expires=%s", bad)
                    .satisfies(t -> {
                        assertThat(codeOf(t)).isEqualTo(S3ErrorCode.AuthorizationQueryParametersError);
                        assertThat(codeOf(t).status()).isEqualTo(400);
                    });
        }
        // the largest allowed validity, 7 days, is accepted by the parser (then refused only by the signature)
        String week = url.getRawQuery().replaceAll("X-Amz-Expires=[0-9]+", "X-Amz-Expires=604800");
        assertThatThrownBy(() -> verify(v, "GET", url.getRawPath(), week, p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.SignatureDoesNotMatch));
    }

    @Test
    void sevenDayUrl_fromTheSdk_isAccepted() {
        PresignedRequest p = presignGet("k", Duration.ofDays(7));
        assertThat(p.url().getQuery()).contains("X-Amz-Expires=604800");
        assertThat(verify(verifierAt(Duration.ofDays(6)), p, Map.of()).accessKey())
                .isEqualTo(AK);
    }

    @Test
    void missingParameter_isAuthorizationQueryParametersError() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        URI url = URI.create(p.url().toString());
        String query = url.getRawQuery().replaceAll("X-Amz-Date=[0-9TZ]+&?", "");
        assertThatThrownBy(() -> verify(verifierAt(Duration.ZERO), "GET", url.getRawPath(), query, p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.AuthorizationQueryParametersError));
    }

    @Test
    void unsignedAmzHeader_isAccessDenied() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        for (String header : List.of("x-amz-meta-injected", "x-amz-server-side-encryption", "x-amz-content-sha256")) {
            assertThatThrownBy(() -> verify(verifierAt(Duration.ZERO), p, Map.of(header, "AES256")))
                    .as(header)
                    .satisfies(t -> {
                        assertThat(codeOf(t)).isEqualTo(S3ErrorCode.AccessDenied);
                        assertThat(t.getMessage()).contains(header);
                    });
        }
    }

    @Test
    void headerAndQueryAuthTogether_isInvalidArgument() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        assertThatThrownBy(() -> verify(
                        verifierAt(Duration.ZERO),
                        p,
                        Map.of(
                                "authorization",
                                "AWS4-HMAC-SHA256 Credential=" + AK + "/20250101/us-east-1/s3/aws4_request,"
                                        + " SignedHeaders=host, Signature=" + "0".repeat(64))))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.InvalidArgument));
    }

    @Test
    void wrongRegion_isAuthorizationQueryParametersError() {
        try (S3Presigner west = S3Presigner.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9000"))
                .region(Region.EU_WEST_1)
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(AK, SECRET)))
                .build()) {
            PresignedRequest p = west.presignGetObject(b -> b.signatureDuration(Duration.ofMinutes(1))
                    .getObjectRequest(g -> g.bucket("b").key("k")));
            assertThatThrownBy(() -> verify(verifierAt(Duration.ZERO), p, Map.of()))
                    .satisfies(t -> {
                        assertThat(codeOf(t)).isEqualTo(S3ErrorCode.AuthorizationQueryParametersError);
                        assertThat(t.getMessage()).contains("eu-west-1");
                    });
        }
    }

    @Test
    void unknownAccessKey_isInvalidAccessKeyId() {
        PresignedRequest p = presignGet("k", Duration.ofMinutes(10));
        URI url = URI.create(p.url().toString());
        String query = url.getRawQuery().replace("X-Amz-Credential=" + AK, "X-Amz-Credential=NOBODY");
        assertThatThrownBy(() -> verify(verifierAt(Duration.ZERO), "GET", url.getRawPath(), query, p, Map.of()))
                .satisfies(t -> assertThat(codeOf(t)).isEqualTo(S3ErrorCode.InvalidAccessKeyId));
    }
}
