package dev.appliance.core.identity;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM with a random 96-bit nonce per sealed value and a 128-bit tag; the associated data binds a sealed value
 * to what it belongs to (an access key id and its user's id), so a ciphertext copied onto another record does not open.
 */
final class SecretCipher {
    static final int KEY_BYTES = 32;
    static final int NONCE_BYTES = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A sealed value: the nonce it was sealed under and the ciphertext with its tag. */
    record Sealed(byte[] nonce, byte[] ciphertext) {}

    private final SecretKeySpec key;

    SecretCipher(byte[] key) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException(
                    "identity key: " + (key == null ? "null" : key.length + " bytes") + " (expected 32 bytes)");
        }
        this.key = new SecretKeySpec(key.clone(), "AES");
    }

    Sealed seal(String plaintext, String associatedData) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
            c.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            return new Sealed(nonce, c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    /** The plaintext, or {@link AEADBadTagException} when the key, the associated data or the bytes differ. */
    String open(Sealed sealed, String associatedData) throws AEADBadTagException {
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, sealed.nonce()));
            c.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            return new String(c.doFinal(sealed.ciphertext()), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw e;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    /** What a secret of {@code accessKeyId} of user {@code userId} is bound to. */
    static String secretBinding(String accessKeyId, String userId) {
        return "appliance-identity-secret:" + accessKeyId + ":" + userId;
    }
}
