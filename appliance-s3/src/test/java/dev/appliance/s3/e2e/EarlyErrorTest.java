package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.appliance.s3.testing.S3TestServer;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A PUT refused while its body is still arriving (a missing bucket, a retain-until date in the past) reaches the
 * client as its S3 error, not as a reset connection: the server reads and drops the rest of the body before it closes.
 * The SDK's Apache client sends the whole body before it reads the answer, as most clients do.
 */
class EarlyErrorTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("locks").objectLockEnabledForBucket(true));
    }

    private static S3Exception refused(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("an S3 error answer, not a broken connection").isInstanceOf(S3Exception.class);
        return (S3Exception) t;
    }

    @ParameterizedTest
    @ValueSource(ints = {13 * 1024, 512 * 1024, 4 * 1024 * 1024})
    void putIntoAMissingBucket_answersNoSuchBucket_everyTime(int size) {
        byte[] body = new byte[size];
        for (int i = 0; i < 10; i++) {
            S3Exception e = refused(() ->
                    SERVER.s3().putObject(b -> b.bucket("no-such-bucket").key("blk"), RequestBody.fromBytes(body)));
            assertThat(e.statusCode()).isEqualTo(404);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
        }
        // and the connection pool keeps working afterwards
        SERVER.s3().putObject(b -> b.bucket("locks").key("after-" + size), RequestBody.fromBytes(body));
    }

    @ParameterizedTest
    @ValueSource(ints = {13 * 1024, 4 * 1024 * 1024})
    void lockPutWithAPastRetainUntilDate_answersInvalidArgument_everyTime(int size) {
        byte[] body = new byte[size];
        for (int i = 0; i < 10; i++) {
            S3Exception e = refused(() -> SERVER.s3()
                    .putObject(
                            b -> b.bucket("locks")
                                    .key("late")
                                    .objectLockMode(ObjectLockMode.COMPLIANCE)
                                    .objectLockRetainUntilDate(Instant.parse("2001-01-01T00:00:00Z")),
                            RequestBody.fromBytes(body)));
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
        }
    }
}
