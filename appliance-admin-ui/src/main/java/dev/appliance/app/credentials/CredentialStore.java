package dev.appliance.app.credentials;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Keeps generated root credentials across restarts without ever writing the secret in plain text.
 *
 * <p>The credentials are encrypted with AES-256-GCM (the deployment id as associated data) and the ciphertext is
 * written to every drive ({@code .appliance.sys/config/root-credentials.enc}), so they travel with the data. The key
 * is a random 256-bit file kept on the machine, outside the drives, readable only by its owner:
 * {@code $APPLIANCE_CONFIG_DIR/keys/<deployment-id>.key} (default config dir {@code ~/.config/appliance}; the RPM's
 * unit sets {@code /etc/appliance}). Stealing the drives alone does not reveal the secret.
 */
public final class CredentialStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILE = "root-credentials.enc";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ACCESS_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final String SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    private final List<LocalDrive> drives;
    private final UUID deploymentId;
    private final Path keyFile;

    public CredentialStore(List<LocalDrive> drives, UUID deploymentId, Path configDir) {
        this.drives = List.copyOf(drives);
        this.deploymentId = deploymentId;
        this.keyFile = configDir.resolve("keys").resolve(deploymentId + ".key");
    }

    public static Path defaultConfigDir(Map<String, String> env) {
        String dir = env.get("APPLIANCE_CONFIG_DIR");
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        return Path.of(System.getProperty("user.home"), ".config", "appliance");
    }

    /** The outcome of {@link #resolve}: the credentials and whether they were generated just now. */
    public record Resolved(RootCredentials credentials, boolean generated, String source) {}

    /**
     * Environment first ({@code APPLIANCE_ROOT_USER} and {@code APPLIANCE_ROOT_PASSWORD}, both or neither); else the
     * stored credentials; else new ones, generated, stored, and reported as generated so the caller prints them once.
     */
    public Resolved resolve(Map<String, String> env) throws IOException {
        String user = env.get("APPLIANCE_ROOT_USER");
        String password = env.get("APPLIANCE_ROOT_PASSWORD");
        if (user != null || password != null) {
            if (user == null || password == null) {
                throw new IllegalArgumentException(
                        "set both APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD, or neither");
            }
            return new Resolved(new RootCredentials(user, password), false, "environment");
        }
        RootCredentials stored = load();
        if (stored != null) {
            return new Resolved(stored, false, "stored (encrypted) on the drives");
        }
        RootCredentials fresh = new RootCredentials(random(ACCESS_ALPHABET, 20), random(SECRET_ALPHABET, 40));
        save(fresh);
        return new Resolved(fresh, true, "generated");
    }

    private static String random(String alphabet, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    RootCredentials load() throws IOException {
        byte[] blob = null;
        for (LocalDrive d : drives) {
            if (d.isOnline()) {
                blob = d.readOrNull(d.sysDir().resolve("config").resolve(FILE));
                if (blob != null) {
                    break;
                }
            }
        }
        if (blob == null) {
            return null;
        }
        if (!Files.exists(keyFile)) {
            throw new IllegalStateException("the drives hold encrypted root credentials but their key " + keyFile
                    + " is missing on this machine: set APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD"
                    + " (or APPLIANCE_CONFIG_DIR to where the key is)");
        }
        Map<?, ?> doc = JSON.readValue(blob, Map.class);
        try {
            byte[] nonce = Base64.getDecoder().decode((String) doc.get("nonce"));
            byte[] sealed = Base64.getDecoder().decode((String) doc.get("ciphertext"));
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(
                    Cipher.DECRYPT_MODE,
                    new SecretKeySpec(Files.readAllBytes(keyFile), "AES"),
                    new GCMParameterSpec(128, nonce));
            c.updateAAD(deploymentId.toString().getBytes(StandardCharsets.UTF_8));
            String plain = new String(c.doFinal(sealed), StandardCharsets.UTF_8);
            int nl = plain.indexOf('\n');
            return new RootCredentials(plain.substring(0, nl), plain.substring(nl + 1));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalStateException(
                    "stored root credentials cannot be decrypted with " + keyFile
                            + " (wrong key?): set APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD",
                    e);
        }
    }

    void save(RootCredentials creds) throws IOException {
        byte[] key = loadOrCreateKey();
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        byte[] sealed;
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
            c.updateAAD(deploymentId.toString().getBytes(StandardCharsets.UTF_8));
            sealed = c.doFinal((creds.accessKey() + "\n" + creds.secretKey()).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
        byte[] doc = JSON.writeValueAsBytes(Map.of(
                "version", 1,
                "algorithm", "AES-256-GCM",
                "deploymentId", deploymentId.toString(),
                "nonce", Base64.getEncoder().encodeToString(nonce),
                "ciphertext", Base64.getEncoder().encodeToString(sealed)));
        for (LocalDrive d : drives) {
            if (d.isOnline()) {
                d.writeDurably(d.sysDir().resolve("config").resolve(FILE), doc);
            }
        }
    }

    private byte[] loadOrCreateKey() throws IOException {
        if (Files.exists(keyFile)) {
            return Files.readAllBytes(keyFile);
        }
        Files.createDirectories(keyFile.getParent());
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        Path tmp = keyFile.resolveSibling(keyFile.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, key);
        Files.move(tmp, keyFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return key;
    }
}
