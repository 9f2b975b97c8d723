package dev.appliance.s3.testing;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.StoreBucketPolicies;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real store with its identity state and a real S3 server that authenticates the root key and IAM users' keys and
 * authorizes through their policies and the buckets' policies, as the process wires it; plus SDK clients for any key.
 * The tests of users, policies and the audit log share it.
 */
public final class AccountTestServer implements AutoCloseable {
    public static final String ROOT_KEY = "rootaccesskey";
    public static final String ROOT_SECRET = "rootsecretkey-0123456789";

    private final Path tmp;
    private final ApplianceStore store;
    private final S3Server server;
    private final PolicySetCache policySets = new PolicySetCache(1000);
    private final List<AutoCloseable> clients = new ArrayList<>();

    private AccountTestServer(Path tmp, dev.appliance.s3.metrics.S3Metrics metrics) throws InterruptedException {
        this.tmp = tmp;
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        this.store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        IdentityStore identity = store.identity();
        identity.reserveAccessKeyId(ROOT_KEY);
        this.server = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        AccountCredentials.forS3(ROOT_KEY, ROOT_SECRET, identity),
                        new PolicyAuthorizer(
                                ROOT_KEY,
                                identity,
                                new UserPolicies(identity, policySets),
                                new StoreBucketPolicies(store))),
                metrics);
    }

    /** Starts on drives in a new temporary directory, removed again by {@link #close}. */
    public static AccountTestServer start(String name) throws IOException, InterruptedException {
        return start(name, dev.appliance.s3.metrics.S3Metrics.NONE);
    }

    /** As {@link #start(String)}, telling the traffic to {@code metrics}. */
    public static AccountTestServer start(String name, dev.appliance.s3.metrics.S3Metrics metrics)
            throws IOException, InterruptedException {
        return new AccountTestServer(Files.createTempDirectory(name + "-"), metrics);
    }

    public ApplianceStore store() {
        return store;
    }

    public IdentityStore identity() {
        return store.identity();
    }

    /** The compiled policy sets the authorizer uses (tests count compilations). */
    public PolicySetCache policySets() {
        return policySets;
    }

    public int port() {
        return server.port();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    public S3Client root() {
        return s3(ROOT_KEY, ROOT_SECRET);
    }

    /** A path-style S3 client signing with {@code accessKey}; closed with the server. */
    public S3Client s3(String accessKey, String secret) {
        S3Client c = S3Client.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
                .forcePathStyle(true)
                .httpClient(ApacheHttpClient.create())
                .build();
        clients.add(c);
        return c;
    }

    /** An IAM client signing with {@code accessKey} (the IAM API is served on the S3 address); closed with the server. */
    public IamClient iam(String accessKey, String secret) {
        IamClient c = IamClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
                .httpClient(ApacheHttpClient.create())
                .build();
        clients.add(c);
        return c;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
        server.close();
        store.close();
        try (Stream<Path> files = Files.walk(tmp)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
