package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

/**
 * A token just created, with its secret ({@code apt_} and 43 base64url characters of 32 random bytes): the only time
 * the secret is handed out; the store keeps its SHA-256 only.
 */
public record NewAdminToken(AdminToken token, String secret) {
    public NewAdminToken {
        requireNonNull(token, "token");
        requireNonNull(secret, "secret");
    }

    @Override
    public String toString() {
        return "NewAdminToken[token=" + token + ", secret=<redacted>]";
    }
}
