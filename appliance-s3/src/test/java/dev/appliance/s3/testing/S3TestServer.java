package dev.appliance.s3.testing;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The shared setup of this module's server tests: a real S3 server over a real store on four drive directories in a
 * fresh temporary folder, started before a test class's {@code @BeforeAll} methods and closed (clients, server, store,
 * folder) after its {@code @AfterAll} methods. Register it in a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final S3TestServer SERVER = S3TestServer.allowingAll();
 * }</pre>
 *
 * Leaked Netty buffers are checked for every test class anyway ({@link NettyLeakCheck}).
 */
public final class S3TestServer implements BeforeAllCallback, AfterAllCallback {
    public static final String ACCESS_KEY = "root";
    public static final String SECRET_KEY = "root-secret-key-123";
    /** Knows the one test key pair. */
    public static final CredentialsProvider CREDENTIALS =
            ak -> ACCESS_KEY.equals(ak) ? Optional.of(SECRET_KEY) : Optional.empty();

    private final Authorizer authorizer;
    private final UnaryOperator<S3ServerConfig> config;
    private final List<S3Client> clients = new ArrayList<>();
    private Path root;
    private ObjectStore store;
    private S3Server server;
    private S3Client s3;

    private S3TestServer(Authorizer authorizer, UnaryOperator<S3ServerConfig> config) {
        this.authorizer = authorizer;
        this.config = config;
    }

    /** A server that authorizes every request of the test key. */
    public static S3TestServer allowingAll() {
        return authorizing(Authorizer.allowAll());
    }

    public static S3TestServer authorizing(Authorizer authorizer) {
        return configured(authorizer, UnaryOperator.identity());
    }

    /** A server whose authorizer decides on the key, action, bucket and object key only. */
    public static S3TestServer authorizing(Authorizer.Rule rule) {
        return authorizing(Authorizer.byAction(rule));
    }

    /** @param config adjusts the default configuration (127.0.0.1, any port, the test key, plain HTTP) */
    public static S3TestServer configured(Authorizer authorizer, UnaryOperator<S3ServerConfig> config) {
        return new S3TestServer(authorizer, config);
    }

    /** Starts the server; {@link #beforeAll} calls it. */
    public void start() throws IOException, InterruptedException {
        root = Files.createTempDirectory("s3-test-");
        store = TestStore.on(drives()).open();
        server = S3Server.start(store, config.apply(new S3ServerConfig("127.0.0.1", 0, null, CREDENTIALS, authorizer)));
    }

    /** Closes the clients, the server and the store, and deletes the drives; {@link #afterAll} calls it. */
    public void stop() {
        clients.forEach(S3Client::close);
        clients.clear();
        s3 = null;
        if (server != null) {
            server.close();
        }
        if (store != null) {
            store.close();
        }
        if (root != null) {
            deleteTree(root);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    /** The temporary folder; the drives are in its folder {@link #drives()}, so that tests can look around them. */
    public Path root() {
        return root;
    }

    /** The folder of the drives, laid out by {@link TestStore} ({@code drive1} … {@code drive4}). */
    public Path drives() {
        return root.resolve("drives");
    }

    public ObjectStore store() {
        return store;
    }

    public S3Server server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port());
    }

    /** A shared path-style SDK v2 client signed with the test key (Apache HTTP client). */
    public synchronized S3Client s3() {
        if (s3 == null) {
            s3 = client(b -> {});
        }
        return s3;
    }

    /** A new path-style client signed with the test key, adjusted by {@code custom}; closed with the server. */
    public synchronized S3Client client(Consumer<S3ClientBuilder> custom) {
        S3ClientBuilder b = S3Client.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .forcePathStyle(true)
                .httpClient(ApacheHttpClient.create());
        custom.accept(b);
        S3Client c = b.build();
        clients.add(c);
        return c;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
