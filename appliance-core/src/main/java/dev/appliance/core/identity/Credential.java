package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

/**
 * What request authentication needs of an access key: its secret, whom it belongs to, and whether it may be used now
 * ({@code active}: the key is Active and its user enabled).
 */
public record Credential(String accessKeyId, String secretAccessKey, String userName, String userId, boolean active) {
    public Credential {
        requireNonNull(accessKeyId, "accessKeyId");
        requireNonNull(secretAccessKey, "secretAccessKey");
        requireNonNull(userName, "userName");
        requireNonNull(userId, "userId");
    }

    @Override
    public String toString() {
        return "Credential[accessKeyId=" + accessKeyId + ", userName=" + userName + ", active=" + active + "]";
    }
}
