package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Virtual-hosted-style addressing with {@code --domain s3.appliance.test}: the SDK v2 client with path style off (its
 * HTTP client resolves every name to 127.0.0.1, there is no DNS here) and curl {@code --resolve}; path style keeps
 * working on the same process.
 */
class VirtualHostIT {
    private static final String DOMAIN = "s3.appliance.test";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client virtual;
    private static S3Client path;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "vhost-it-admin", "vhost-it-secret-" + UUID.randomUUID())
                        .withArgs("--domain", DOMAIN))
                .start();
        URI endpoint =
                URI.create("http://" + DOMAIN + ":" + appliance.s3Endpoint().getPort());
        virtual = appliance.client(appliance.accessKey(), appliance.secretKey(), b -> b.endpointOverride(endpoint)
                .forcePathStyle(false)
                .httpClientBuilder(ApacheHttpClient.builder()
                        .dnsResolver(host -> new InetAddress[] {InetAddress.getLoopbackAddress()})));
        path = appliance.client();
    }

    @AfterAll
    static void stop() {
        if (virtual != null) {
            virtual.close();
            path.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void sdkVirtualHostedStyle_createPutListGetDelete_seenByPathStyleToo() {
        virtual.createBucket(b -> b.bucket("vh-bucket"));
        virtual.putObject(b -> b.bucket("vh-bucket").key("a/b c.txt"), RequestBody.fromString("virtual"));
        assertThat(virtual.listObjectsV2(b -> b.bucket("vh-bucket")).contents())
                .extracting(S3Object::key, S3Object::storageClassAsString)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a/b c.txt", "STANDARD"));
        assertThat(virtual.getObjectAsBytes(b -> b.bucket("vh-bucket").key("a/b c.txt"))
                        .asUtf8String())
                .isEqualTo("virtual");
        assertThat(path.getObjectAsBytes(b -> b.bucket("vh-bucket").key("a/b c.txt"))
                        .asUtf8String())
                .isEqualTo("virtual");
        assertThat(virtual.listBuckets().buckets()).anyMatch(bk -> bk.name().equals("vh-bucket"));
        virtual.deleteObject(b -> b.bucket("vh-bucket").key("a/b c.txt"));
        virtual.deleteBucket(b -> b.bucket("vh-bucket"));
        assertThat(path.listBuckets().buckets()).noneMatch(bk -> bk.name().equals("vh-bucket"));
    }

    @Test
    void curlResolve_virtualHostName_reachesTheBucket() {
        path.createBucket(b -> b.bucket("curl-vh"));
        int port = appliance.s3Endpoint().getPort();
        Commands.Result r = Commands.run(
                tmp,
                List.of(
                        "curl",
                        "-sS",
                        "--resolve",
                        "curl-vh." + DOMAIN + ":" + port + ":127.0.0.1",
                        "http://curl-vh." + DOMAIN + ":" + port + "/some-key"),
                Map.of(),
                30);
        // anonymous: refused, and the error names the bucket taken from the host name
        assertThat(r.stdout()).contains("<Code>AccessDenied</Code>").contains("<Resource>/curl-vh/some-key</Resource>");
    }
}
