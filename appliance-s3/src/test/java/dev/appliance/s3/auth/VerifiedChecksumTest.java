package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.io.ByteArrayInputStream;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VerifiedChecksumTest {

    @Test
    void verifiedChecksum_reportsTheValueTheBodyMatched_evenForDigestsThatResetOnRead() throws Exception {
        byte[] body = "the body of an object".getBytes();
        String sha = Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
        VerifyingInputStream in =
                new VerifyingInputStream(new ByteArrayInputStream(body), null, ChecksumAlgorithm.SHA256, () -> sha);
        assertThat(in.verifiedChecksum())
                .as("nothing before the end of the body")
                .isEmpty();
        assertThat(in.readAllBytes()).isEqualTo(body);
        assertThat(in.read()).isEqualTo(-1);
        assertThat(in.verifiedChecksum()).isEqualTo(Map.of("x-amz-checksum-sha256", sha));
        assertThat(in.verifiedChecksum())
                .as("asking twice gives the same value")
                .isEqualTo(Map.of("x-amz-checksum-sha256", sha));
    }
}
