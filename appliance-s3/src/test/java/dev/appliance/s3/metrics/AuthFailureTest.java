package dev.appliance.s3.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.metrics.S3Metrics.AuthFailure;
import org.junit.jupiter.api.Test;

/**
 * Which refusals count as authentication failures, and under which reason: the verifier's own errors do; an
 * authorizer's AccessDenied and other errors do not.
 */
class AuthFailureTest {
    @Test
    void verifierErrors_mapToTheirReason() {
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.SignatureDoesNotMatch)))
                .isEqualTo(AuthFailure.SIGNATURE_MISMATCH);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.InvalidAccessKeyId)))
                .isEqualTo(AuthFailure.UNKNOWN_KEY);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.RequestTimeTooSkewed)))
                .isEqualTo(AuthFailure.CLOCK_SKEW);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AuthorizationHeaderMalformed)))
                .isEqualTo(AuthFailure.MALFORMED);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AuthorizationQueryParametersError)))
                .isEqualTo(AuthFailure.MALFORMED);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AccessDenied, "Request has expired")))
                .isEqualTo(AuthFailure.EXPIRED);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AccessDenied, "Request is not valid yet")))
                .isEqualTo(AuthFailure.EXPIRED);
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AccessDenied, "Anonymous access is not allowed.")))
                .isEqualTo(AuthFailure.ANONYMOUS);
        assertThat(AuthFailure.EXPIRED.label()).isEqualTo("expired");
    }

    @Test
    void otherRefusals_areNotAuthenticationFailures() {
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.AccessDenied))).isNull();
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.NoSuchKey))).isNull();
        assertThat(AuthFailure.of(new S3Exception(S3ErrorCode.SlowDown, "Too many requests")))
                .isNull();
    }
}
