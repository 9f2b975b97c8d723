package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.testing.AccountTestServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The root credential turned off for S3 ({@link IdentityStore#setRootS3Enabled}): the S3 port refuses the root key as
 * a deactivated key (403 InvalidAccessKeyId, signed and presigned requests alike) while an admin user keeps working,
 * and takes it again once it is turned back on. The console's provider keeps taking it throughout.
 */
class RootS3SwitchTest {
    private AccountTestServer account;

    @BeforeEach
    void start() throws Exception {
        account = AccountTestServer.start("root-s3-switch");
    }

    @AfterEach
    void stop() throws Exception {
        account.close();
    }

    @Test
    void theRootKey_isRefusedOnS3WhileTurnedOff_andWorksAgainOnceTurnedOn() throws Exception {
        S3Client root = account.root();
        root.createBucket(b -> b.bucket("bkt"));
        root.putObject(b -> b.bucket("bkt").key("k"), RequestBody.fromString("data"));
        IdentityStore identity = account.identity();
        identity.createUser("ops");
        NewAccessKey key = identity.createAccessKey("ops");
        identity.attachUserPolicy("ops", "arn:aws:iam::aws:policy/admin");
        S3Client ops = account.s3(key.key().accessKeyId(), key.secretAccessKey());

        identity.setRootS3Enabled(false);
        assertThatThrownBy(() -> root.listBuckets()).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(403);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId");
        });
        assertThatThrownBy(() -> root.putObject(b -> b.bucket("bkt").key("k2"), RequestBody.fromString("x")))
                .isInstanceOfSatisfying(
                        S3Exception.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId"));
        assertThat(presignedGetStatus()).isEqualTo(403);
        // nothing was written by the refused request; the admin user still works
        assertThat(ops.listObjectsV2(b -> b.bucket("bkt")).contents())
                .extracting(o -> o.key())
                .containsExactly("k");
        // the console's provider (recovery path) still knows the root key
        assertThat(new AccountCredentials(AccountTestServer.ROOT_KEY, AccountTestServer.ROOT_SECRET, identity)
                        .secretKey(AccountTestServer.ROOT_KEY))
                .contains(AccountTestServer.ROOT_SECRET);

        identity.setRootS3Enabled(true);
        assertThat(root.listBuckets().buckets()).extracting(b -> b.name()).isEqualTo(List.of("bkt"));
        assertThat(presignedGetStatus()).isEqualTo(200);
    }

    private int presignedGetStatus() throws Exception {
        try (S3Presigner presigner = S3Presigner.builder()
                        .endpointOverride(account.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(AccountTestServer.ROOT_KEY, AccountTestServer.ROOT_SECRET)))
                        .serviceConfiguration(S3Configuration.builder()
                                .pathStyleAccessEnabled(true)
                                .build())
                        .build();
                HttpClient http = HttpClient.newHttpClient()) {
            var url = presigner
                    .presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                            .getObjectRequest(g -> g.bucket("bkt").key("k")))
                    .url();
            return http.send(HttpRequest.newBuilder(url.toURI()).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        }
    }
}
