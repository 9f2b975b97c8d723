package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.Credential;
import dev.appliance.core.identity.IdentityStore;
import java.util.Optional;

/**
 * The account's keys: the root credential and every IAM user's access key ({@link IdentityStore#credential}, a
 * lock-free lookup in the published identity state, so it answers on the event loop). An inactive key, or any key of
 * a disabled user, is unknown here: the request is refused with InvalidAccessKeyId, as AWS refuses a deactivated key.
 */
public final class AccountCredentials implements CredentialsProvider {
    private final String rootAccessKey;
    private final String rootSecretKey;
    private final IdentityStore identity;

    public AccountCredentials(String rootAccessKey, String rootSecretKey, IdentityStore identity) {
        this.rootAccessKey = requireNonNull(rootAccessKey, "rootAccessKey");
        this.rootSecretKey = requireNonNull(rootSecretKey, "rootSecretKey");
        this.identity = requireNonNull(identity, "identity");
    }

    @Override
    public Optional<String> secretKey(String accessKey) {
        if (rootAccessKey.equals(accessKey)) {
            return Optional.of(rootSecretKey);
        }
        return identity.credential(accessKey).filter(Credential::active).map(Credential::secretAccessKey);
    }
}
