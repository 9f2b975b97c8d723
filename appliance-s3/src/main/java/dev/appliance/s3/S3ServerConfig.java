package dev.appliance.s3;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;

/**
 * How to run the S3 endpoint.
 *
 * @param host address to bind, e.g. {@code 0.0.0.0}
 * @param port TCP port; 0 picks a free one (tests)
 * @param region the region clients sign for; null means {@code us-east-1}
 */
public record S3ServerConfig(
        String host, int port, String region, CredentialsProvider credentials, Authorizer authorizer) {
    public static final String DEFAULT_REGION = "us-east-1";

    public S3ServerConfig {
        requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected 0..65535)");
        }
        region = region == null || region.isBlank() ? DEFAULT_REGION : region;
        requireNonNull(credentials, "credentials");
        requireNonNull(authorizer, "authorizer");
    }
}
