package dev.appliance.app.credentials;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key that seals the identity state's secrets on the drives, derived from the root credential's secret (which is
 * kept on the host, never in plain text on the drives), so a set of stolen drives opens no secret
 * (docs/decisions/identity-secrets-at-rest.md). HKDF-SHA256 (RFC 5869): the deployment id as salt, a fixed label as
 * info; changing the root secret changes the key, so the identity state must be re-encrypted first.
 */
public final class IdentityKeys {
    static final String INFO = "appliance identity secrets v1";

    private IdentityKeys() {}

    /** The 32-byte identity key of a deployment whose root credential has {@code rootSecret}. */
    public static byte[] derive(String rootSecret, UUID deploymentId) {
        return hkdfSha256(
                deploymentId.toString().getBytes(StandardCharsets.UTF_8),
                rootSecret.getBytes(StandardCharsets.UTF_8),
                INFO.getBytes(StandardCharsets.UTF_8),
                32);
    }

    /** HKDF-SHA256: extract a pseudorandom key from {@code ikm} with {@code salt}, expand it to {@code length} bytes. */
    static byte[] hkdfSha256(byte[] salt, byte[] ikm, byte[] info, int length) {
        if (length < 1 || length > 255 * 32) {
            throw new IllegalArgumentException("length: " + length + " (expected 1..8160)");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // an empty salt stands for 32 zero bytes (RFC 5869 2.2); the JDK refuses an empty key
            mac.init(new SecretKeySpec(salt.length == 0 ? new byte[32] : salt, "HmacSHA256"));
            byte[] prk = mac.doFinal(ikm);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            byte[] out = new byte[length];
            byte[] previous = new byte[0];
            for (int block = 1, done = 0; done < length; block++) {
                mac.update(previous);
                mac.update(info);
                mac.update((byte) block);
                previous = mac.doFinal();
                int n = Math.min(previous.length, length - done);
                System.arraycopy(previous, 0, out, done, n);
                done += n;
            }
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
