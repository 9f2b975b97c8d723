package dev.appliance.s3.e2e;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.engine.Stores;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** A real S3 server over a real erasure-coded store on four drive directories, shared by this module's e2e tests. */
record TestServer(ObjectStore store, S3Server server) {
    static final String ACCESS_KEY = "root";
    static final String SECRET_KEY = "root-secret-key-123";

    /** A path-style SDK v2 client for this server, signed with the test credentials (Apache HTTP client). */
    S3Client client() {
        return S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .forcePathStyle(true)
                .httpClient(ApacheHttpClient.create())
                .build();
    }

    static TestServer start(Path root, Authorizer authorizer) throws Exception {
        List<Path> dirs = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            dirs.add(Files.createDirectories(root.resolve("drive" + i)));
        }
        ObjectStore store = Stores.open(StoreConfig.of(dirs));
        S3Server server = S3Server.start(
                store,
                new S3ServerConfig(
                        "127.0.0.1",
                        0,
                        null,
                        ak -> ACCESS_KEY.equals(ak) ? Optional.of(SECRET_KEY) : Optional.empty(),
                        authorizer));
        return new TestServer(store, server);
    }
}
