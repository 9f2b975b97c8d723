package dev.appliance.s3.api.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.s3.testing.S3TestServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.IamException;

/** Every IAM call asks the one authorization seam under its IAM action name; a refused call changes nothing. */
class IamAuthorizationTest {
    static final List<String> ASKED = new CopyOnWriteArrayList<>();

    /** Allows reads (Get*, List*) and refuses every other IAM action; S3 actions are allowed (the test's bucket). */
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing((accessKey, action, bucket, key) -> {
        ASKED.add(action);
        return !action.startsWith("iam:") || action.startsWith("iam:Get") || action.startsWith("iam:List");
    });

    static IamClient iam;
    static IdentityStore identity;

    @BeforeAll
    static void client() {
        identity = ((StoreAdmin) SERVER.store()).identity();
        identity.unlock(new byte[32]);
        iam = IamClient.builder()
                .endpointOverride(SERVER.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY)))
                .httpClient(ApacheHttpClient.create())
                .build();
    }

    @AfterAll
    static void close() {
        iam.close();
    }

    @Test
    void refusedAction_isAccessDenied_andChangesNothing() {
        assertThatThrownBy(() -> iam.createUser(b -> b.userName("denied")))
                .isInstanceOfSatisfying(IamException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    assertThat(e.awsErrorDetails().errorMessage()).contains("iam:CreateUser");
                });
        assertThat(identity.findUser("denied")).isEmpty();
        assertThat(ASKED).contains("iam:CreateUser");
    }

    @Test
    void allowedAction_runs() {
        assertThat(iam.listUsers().users()).isEmpty();
        assertThat(ASKED).contains("iam:ListUsers");
    }

    @Test
    void unauthenticated_isRefusedBeforeTheAuthorizer() throws Exception {
        IamRaw.Answer a = IamRaw.sendAs(SERVER.port(), "nobody", "secret", "Action=ListUsers");
        assertThat(a.status()).isEqualTo(403);
        assertThat(a.body()).contains("<Code>InvalidClientTokenId</Code>");
    }
}
