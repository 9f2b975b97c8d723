package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

/** A key just created, with its secret: the only time the secret is handed out (CreateAccessKey). */
public record NewAccessKey(AccessKey key, String secretAccessKey) {
    public NewAccessKey {
        requireNonNull(key, "key");
        requireNonNull(secretAccessKey, "secretAccessKey");
    }

    @Override
    public String toString() {
        return "NewAccessKey[key=" + key + ", secretAccessKey=<redacted>]";
    }
}
