package dev.appliance.app.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** HKDF-SHA256 against RFC 5869's published test cases, and the identity key's dependence on its inputs. */
class IdentityKeysTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void hkdf_matchesRfc5869TestCase1() {
        byte[] okm = IdentityKeys.hkdfSha256(
                HEX.parseHex("000102030405060708090a0b0c"),
                HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
                HEX.parseHex("f0f1f2f3f4f5f6f7f8f9"),
                42);
        assertThat(HEX.formatHex(okm))
                .isEqualTo("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
    }

    @Test
    void hkdf_matchesRfc5869TestCase3_emptySaltAndInfo() {
        byte[] okm = IdentityKeys.hkdfSha256(
                new byte[0], HEX.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), new byte[0], 42);
        assertThat(HEX.formatHex(okm))
                .isEqualTo("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
    }

    @Test
    void theIdentityKey_is32Bytes_andChangesWithTheRootSecretAndTheDeployment() {
        UUID deployment = UUID.fromString("9dc3d397-ee61-4c45-a019-0bb9738e9bd3");
        byte[] key = IdentityKeys.derive("root-secret", deployment);
        assertThat(key).hasSize(32);
        assertThat(IdentityKeys.derive("root-secret", deployment)).isEqualTo(key);
        assertThat(IdentityKeys.derive("root-secret2", deployment)).isNotEqualTo(key);
        assertThat(IdentityKeys.derive("root-secret", UUID.randomUUID())).isNotEqualTo(key);
    }
}
