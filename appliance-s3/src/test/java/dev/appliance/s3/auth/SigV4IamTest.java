package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Requests signed for the service iam: verified only as IAM calls, with their body's hash signed. */
class SigV4IamTest {
    private static final Instant NOW = Instant.parse("2025-03-04T05:06:07Z");
    private static final String AMZ_DATE = "20250304T050607Z";
    private static final String AK = "AKIDEXAMPLE";
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final byte[] BODY = "Action=ListUsers&Version=2010-05-08".getBytes(StandardCharsets.UTF_8);

    private final SigV4Verifier verifier = new SigV4Verifier(
            ak -> AK.equals(ak) ? Optional.of(SECRET) : Optional.empty(),
            "us-east-1",
            Clock.fixed(NOW, ZoneOffset.UTC));

    /** POST / signed for {@code service} over {@code BODY}, the payload hash in the signature only (as IAM clients). */
    private static Map<String, List<String>> signed(String service, String payloadHashHeader) {
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("content-type", List.of("application/x-www-form-urlencoded; charset=utf-8"));
        h.put("host", List.of("127.0.0.1:9000"));
        h.put("x-amz-date", List.of(AMZ_DATE));
        String payloadHash = SigV4.sha256Hex(BODY);
        if (payloadHashHeader != null) {
            h.put("x-amz-content-sha256", List.of(payloadHashHeader));
            payloadHash = payloadHashHeader;
        }
        String date = AMZ_DATE.substring(0, 8);
        String scope = SigV4.scope(date, "us-east-1", service);
        String canonical = SigV4.canonicalRequest("POST", "/", null, List.copyOf(h.keySet()), h, payloadHash);
        String signature = SigV4.signature(
                SigV4.signingKey(SECRET, date, "us-east-1", service), SigV4.stringToSign(AMZ_DATE, scope, canonical));
        h.put(
                "authorization",
                List.of(SigV4.ALGORITHM + " Credential=" + AK + "/" + scope + ", SignedHeaders="
                        + String.join(";", List.copyOf(h.keySet())) + ", Signature=" + signature));
        return h;
    }

    @Test
    void signedService_readsTheCredentialScope() {
        assertThat(SigV4Verifier.signedService(signed("iam", null))).isEqualTo("iam");
        assertThat(SigV4Verifier.signedService(signed("s3", null))).isEqualTo("s3");
        assertThat(SigV4Verifier.signedService(Map.of())).isNull();
        assertThat(SigV4Verifier.signedService(Map.of("authorization", List.of("AWS4-HMAC-SHA256 Credential=x"))))
                .isNull();
    }

    @Test
    void verifyIam_acceptsABodySignedForIam() {
        AuthResult auth = verifier.verifyIam("POST", "/", null, signed("iam", null), BODY);
        assertThat(auth.accessKey()).isEqualTo(AK);
        assertThat(auth.scope()).isEqualTo("20250304/us-east-1/iam/aws4_request");
    }

    @Test
    void verifyIam_whenBodyAltered_isSignatureDoesNotMatch() {
        byte[] other = "Action=DeleteUser&UserName=alice".getBytes(StandardCharsets.UTF_8);
        assertCode(
                () -> verifier.verifyIam("POST", "/", null, signed("iam", null), other),
                S3ErrorCode.SignatureDoesNotMatch);
    }

    @Test
    void verifyIam_whenSignedForS3_isRefused() {
        assertCode(
                () -> verifier.verifyIam("POST", "/", null, signed("s3", null), BODY),
                S3ErrorCode.AuthorizationHeaderMalformed);
    }

    @Test
    void s3Verification_whenSignedForIam_isRefused() {
        assertCode(
                () -> verifier.verifyWholeBody("POST", "/", null, signed("iam", null), BODY),
                S3ErrorCode.AuthorizationHeaderMalformed);
    }

    @Test
    void verifyIam_whenPayloadUnsigned_isAccessDenied() {
        assertCode(
                () -> verifier.verifyIam("POST", "/", null, signed("iam", SigV4.UNSIGNED_PAYLOAD), BODY),
                S3ErrorCode.AccessDenied);
    }

    private static void assertCode(Runnable call, S3ErrorCode code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.code())
                .isEqualTo(code));
    }
}
