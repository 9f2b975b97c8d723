package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The appliance opens the identity state on its drives with a key derived from its root credential, as
 * docs/decisions/identity-secrets-at-rest.md says (HKDF-SHA256 of the root secret, salt the deployment id), and says so
 * when the root secret changed without the state being re-encrypted, while the root credential keeps working. The
 * identity file is written here from the documented format only (docs/formats/identity.md), not with the engine's code.
 */
class IdentityKeyIT {
    private static final Pattern DEPLOYMENT = Pattern.compile("(?m): Appliance ([0-9a-f-]{36}):");
    private static final String WARNING = "does not open with the given identity key";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    Path work;

    @Test
    void theIdentityStateOpensWithTheRootSecretsKey_andAChangedRootSecretIsReported() throws Exception {
        String first = "first-root-password-1";
        String deployment;
        try (ApplianceProcess app = LOGS.watch(ApplianceProcess.withRootCredentials(work, "rootadmin", first))) {
            app.start();
            Matcher m = DEPLOYMENT.matcher(app.stdout());
            assertThat(m.find()).as(app.stdout()).isTrue();
            deployment = m.group(1);
        }
        byte[] file = identityFile(deriveKey(first, deployment));
        for (int i = 1; i <= ApplianceProcess.DRIVES; i++) {
            Path f = work.resolve("disk" + i).resolve(".appliance.sys/identity/identity.bin");
            Files.createDirectories(f.getParent());
            Files.write(f, file);
        }

        try (ApplianceProcess app = LOGS.watch(ApplianceProcess.withRootCredentials(work, "rootadmin", first))) {
            app.start();
            assertThat(app.stdout()).doesNotContain(WARNING);
            assertThat(app.client().listBuckets().buckets()).isEmpty();
        }
        try (ApplianceProcess app =
                LOGS.watch(ApplianceProcess.withRootCredentials(work, "rootadmin", "second-root-password-2"))) {
            app.start();
            assertThat(app.stdout())
                    .contains(" WARN  appliance: ")
                    .contains(WARNING)
                    .contains("IAM users cannot sign in");
            assertThat(app.client().listBuckets().buckets()).isEmpty(); // the root credential still works
        }
        for (int i = 1; i <= ApplianceProcess.DRIVES; i++) {
            Path f = work.resolve("disk" + i).resolve(".appliance.sys/identity/identity.bin");
            assertThat(Files.readAllBytes(f))
                    .as("left untouched under the wrong key")
                    .isEqualTo(file);
        }
    }

    /** HKDF-SHA256 (RFC 5869) with one output block: the documented derivation of the 32-byte identity key. */
    private static byte[] deriveKey(String rootSecret, String deploymentId) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(deploymentId.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] prk = mac.doFinal(rootSecret.getBytes(StandardCharsets.UTF_8));
        mac.init(new SecretKeySpec(prk, "HmacSHA256"));
        mac.update("appliance identity secrets v1".getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 1);
        return mac.doFinal();
    }

    /** An identity file with no users (format 1.0): header, JSON payload with the sealed key check, SHA-256 trailer. */
    private static byte[] identityFile(byte[] key) throws Exception {
        byte[] nonce = new byte[12];
        new SecureRandom().nextBytes(nonce);
        String check = "appliance identity key check";
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        c.updateAAD(check.getBytes(StandardCharsets.UTF_8));
        byte[] sealed = c.doFinal(check.getBytes(StandardCharsets.UTF_8));
        ObjectMapper json = new ObjectMapper();
        ObjectNode payload = json.createObjectNode();
        payload.put("account", "123456789012");
        ObjectNode keyCheck = payload.putObject("keyCheck");
        keyCheck.put("nonce", Base64.getEncoder().encodeToString(nonce));
        keyCheck.put("sealed", Base64.getEncoder().encodeToString(sealed));
        payload.putArray("users");
        payload.putArray("groups");
        payload.putArray("policies");
        byte[] body = json.writeValueAsBytes(payload);
        ByteBuffer buf = ByteBuffer.allocate(20 + body.length + 32);
        buf.put("APID".getBytes(StandardCharsets.US_ASCII))
                .putShort((short) 1)
                .putShort((short) 0)
                .putLong(System.currentTimeMillis())
                .putInt(body.length)
                .put(body);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(buf.array(), 0, 20 + body.length);
        buf.put(sha.digest());
        return buf.array();
    }
}
