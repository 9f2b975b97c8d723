package dev.appliance.app.credentials;

import static java.util.Objects.requireNonNull;

/** The root access key and secret key (SigV4 needs the secret itself, so it is kept encrypted, not hashed). */
public record RootCredentials(String accessKey, String secretKey) {
    public RootCredentials {
        requireNonNull(accessKey, "accessKey");
        requireNonNull(secretKey, "secretKey");
        if (accessKey.length() < 3 || accessKey.length() > 128 || !accessKey.matches("[A-Za-z0-9._@+=-]+")) {
            throw new IllegalArgumentException(
                    "root user '" + accessKey + "': expected 3 to 128 characters of letters, digits and . _ @ + = -");
        }
        if (secretKey.length() < 8 || secretKey.length() > 128) {
            throw new IllegalArgumentException(
                    "root password: " + secretKey.length() + " characters (expected 8 to 128)");
        }
    }

    @Override
    public String toString() {
        return "RootCredentials[" + accessKey + ", secret hidden]";
    }
}
