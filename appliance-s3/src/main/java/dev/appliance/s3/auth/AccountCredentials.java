package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.Credential;
import dev.appliance.core.identity.IdentityStore;
import java.util.Optional;

/**
 * The account's keys: the root credential and every IAM user's access key ({@link IdentityStore#credential}, a
 * lock-free lookup in the published identity state, so it answers on the event loop). An inactive key, or any key of
 * a disabled user, is unknown here: the request is refused with InvalidAccessKeyId, as AWS refuses a deactivated key.
 *
 * <p>The S3 endpoint's instance ({@link #forS3}) also treats the root key as unknown while the root credential is
 * turned off for S3 ({@link IdentityStore#rootS3Enabled}): InvalidAccessKeyId, as for any deactivated key. The
 * console's instance (the constructor) always accepts it, so an administrator can always turn it back on.
 */
public final class AccountCredentials implements CredentialsProvider {
    private final String rootAccessKey;
    private final String rootSecretKey;
    private final IdentityStore identity;
    private final boolean rootFollowsS3Switch;

    /** The keys as the console takes them: the root key always. */
    public AccountCredentials(String rootAccessKey, String rootSecretKey, IdentityStore identity) {
        this(rootAccessKey, rootSecretKey, identity, false);
    }

    private AccountCredentials(
            String rootAccessKey, String rootSecretKey, IdentityStore identity, boolean rootFollowsS3Switch) {
        this.rootAccessKey = requireNonNull(rootAccessKey, "rootAccessKey");
        this.rootSecretKey = requireNonNull(rootSecretKey, "rootSecretKey");
        this.identity = requireNonNull(identity, "identity");
        this.rootFollowsS3Switch = rootFollowsS3Switch;
    }

    /** The keys as the S3 endpoint takes them: the root key only while {@link IdentityStore#rootS3Enabled}. */
    public static AccountCredentials forS3(String rootAccessKey, String rootSecretKey, IdentityStore identity) {
        return new AccountCredentials(rootAccessKey, rootSecretKey, identity, true);
    }

    @Override
    public Optional<String> secretKey(String accessKey) {
        if (rootAccessKey.equals(accessKey)) {
            // the switch is a field of the published state: a lock-free read, fine on the event loop
            return rootFollowsS3Switch && !identity.rootS3Enabled() ? Optional.empty() : Optional.of(rootSecretKey);
        }
        return identity.credential(accessKey).filter(Credential::active).map(Credential::secretAccessKey);
    }
}
