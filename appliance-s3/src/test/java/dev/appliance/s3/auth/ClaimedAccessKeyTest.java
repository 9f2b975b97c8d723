package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The access key id a refused request claims, as the audit log names it: only the key id part of what was sent, never
 * the signature or anything else, and an unknown key id cut short (it may be a secret sent in its place).
 */
class ClaimedAccessKeyTest {
    private static final String SIGNATURE = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private static Map<String, List<String>> authorization(String value) {
        return Map.of("authorization", List.of(value));
    }

    @Test
    void theKeyIdIsReadFromEveryWayOfSigning_andNothingElse() {
        assertThat(SigV4Verifier.claimedAccessKey(
                        null,
                        authorization("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261126/us-east-1/s3/aws4_request, "
                                + "SignedHeaders=host, Signature=" + SIGNATURE)))
                .isEqualTo("AKIDEXAMPLE");
        assertThat(SigV4Verifier.claimedAccessKey(
                        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20261126%2Fus-east-1%2Fs3%2F"
                                + "aws4_request&X-Amz-Signature=" + SIGNATURE,
                        Map.of()))
                .isEqualTo("AKIDEXAMPLE");
        assertThat(SigV4Verifier.claimedAccessKey(null, authorization("AWS AKIDV2:" + SIGNATURE)))
                .isEqualTo("AKIDV2");
        assertThat(SigV4Verifier.claimedAccessKey("AWSAccessKeyId=AKIDV2Q&Signature=abc&Expires=1", Map.of()))
                .isEqualTo("AKIDV2Q");
        assertThat(SigV4Verifier.claimedAccessKey("AKIDFORM/20261126/us-east-1/s3/aws4_request"))
                .isEqualTo("AKIDFORM");
    }

    @Test
    void whatDoesNotLookLikeAKeyId_isUnreadable() {
        assertThat(SigV4Verifier.claimedAccessKey(null, authorization("Bearer " + SIGNATURE)))
                .isEqualTo(SigV4Verifier.UNREADABLE_KEY);
        assertThat(SigV4Verifier.claimedAccessKey(null, authorization("AWS4-HMAC-SHA256 Signature=" + SIGNATURE)))
                .isEqualTo(SigV4Verifier.UNREADABLE_KEY);
        assertThat(SigV4Verifier.claimedAccessKey(
                        null, authorization("AWS4-HMAC-SHA256 Credential=a key with spaces/x, Signature=1")))
                .isEqualTo(SigV4Verifier.UNREADABLE_KEY);
        assertThat(SigV4Verifier.claimedAccessKey(
                        null, authorization("AWS4-HMAC-SHA256 Credential=" + "k".repeat(129))))
                .isEqualTo(SigV4Verifier.UNREADABLE_KEY);
        assertThat(SigV4Verifier.claimedAccessKey("X-Amz-Credential=%zz", Map.of()))
                .isEqualTo(SigV4Verifier.UNREADABLE_KEY);
        assertThat(SigV4Verifier.claimedAccessKey((String) null)).isEqualTo(SigV4Verifier.UNREADABLE_KEY);
    }

    @Test
    void aKnownKeyIdIsNamedAsSent_anUnknownOneByItsFirstFourCharacters() {
        SigV4Verifier verifier = new SigV4Verifier(
                ak -> ak.equals("AKIDKNOWN") ? Optional.of("secret") : Optional.empty(),
                "us-east-1",
                Clock.systemUTC());
        assertThat(verifier.auditedKey("AKIDKNOWN")).isEqualTo("AKIDKNOWN");
        assertThat(verifier.auditedKey("wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"))
                .isEqualTo("wJal*** (unknown key)");
        assertThat(verifier.auditedKey("ab")).isEqualTo("ab*** (unknown key)");
        assertThat(verifier.auditedKey(SigV4Verifier.UNREADABLE_KEY)).isEqualTo(SigV4Verifier.UNREADABLE_KEY);
    }
}
