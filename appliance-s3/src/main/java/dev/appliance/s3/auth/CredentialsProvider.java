package dev.appliance.s3.auth;

import java.util.Optional;

/**
 * Where SigV4 verification looks up secrets. Called on a Netty event loop for every request, so implementations must
 * answer from memory and never block.
 */
@FunctionalInterface
public interface CredentialsProvider {
    /** The secret key for an access key, or empty when the access key is unknown. */
    Optional<String> secretKey(String accessKey);
}
