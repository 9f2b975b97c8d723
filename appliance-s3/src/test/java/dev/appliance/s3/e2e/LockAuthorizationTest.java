package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Object Lock through the authorization seam: a lock bucket needs the lock and versioning permissions to be created,
 * and GET/HEAD show retention and legal hold only to callers allowed to read them.
 */
class LockAuthorizationTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing((ak, action, bucket, key) -> switch (action) {
        case "s3:PutBucketObjectLockConfiguration" -> !"no-lock-rights".equals(bucket);
        case "s3:GetObjectRetention", "s3:GetObjectLegalHold" -> key == null || !key.startsWith("hidden/");
        case "s3:PutObjectRetention" -> key == null || !key.startsWith("noretain/");
        case "s3:PutObjectLegalHold" -> key == null || !key.startsWith("nohold/");
        default -> true;
    });

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("locks").objectLockEnabledForBucket(true));
    }

    @Test
    void creatingALockBucket_needsTheLockPermission() {
        S3Exception denied = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .createBucket(b -> b.bucket("no-lock-rights").objectLockEnabledForBucket(true)));
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(SERVER.s3().listBuckets().buckets()).noneMatch(b -> b.name().equals("no-lock-rights"));
        SERVER.s3().createBucket(b -> b.bucket("no-lock-rights")); // without lock it is an ordinary bucket
    }

    @Test
    void lockHeaders_areShownOnlyToCallersAllowedToReadThem() {
        Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        for (String key : new String[] {"hidden/blk", "shown/blk"}) {
            SERVER.s3()
                    .putObject(
                            b -> b.bucket("locks")
                                    .key(key)
                                    .objectLockMode(ObjectLockMode.GOVERNANCE)
                                    .objectLockRetainUntilDate(until)
                                    .objectLockLegalHoldStatus(ObjectLockLegalHoldStatus.ON),
                            RequestBody.fromString("block"));
        }
        var shown = SERVER.s3().headObject(b -> b.bucket("locks").key("shown/blk"));
        assertThat(shown.objectLockMode()).isEqualTo(ObjectLockMode.GOVERNANCE);
        assertThat(shown.objectLockRetainUntilDate()).isEqualTo(until);
        assertThat(shown.objectLockLegalHoldStatus()).isEqualTo(ObjectLockLegalHoldStatus.ON);
        var hidden = SERVER.s3().headObject(b -> b.bucket("locks").key("hidden/blk"));
        assertThat(hidden.objectLockMode()).isNull();
        assertThat(hidden.objectLockRetainUntilDate()).isNull();
        assertThat(hidden.objectLockLegalHoldStatus()).isNull();
        var hiddenGet = SERVER.s3().getObjectAsBytes(b -> b.bucket("locks").key("hidden/blk"));
        assertThat(hiddenGet.asUtf8String()).isEqualTo("block");
        assertThat(hiddenGet.response().objectLockMode()).isNull();
    }

    @Test
    void writingLockHeaders_needsTheRetentionAndLegalHoldPermissions() {
        Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        S3Exception retention = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .putObject(
                        b -> b.bucket("locks")
                                .key("noretain/blk")
                                .objectLockMode(ObjectLockMode.COMPLIANCE)
                                .objectLockRetainUntilDate(until),
                        RequestBody.fromString("block")));
        assertThat(retention.statusCode()).isEqualTo(403);
        assertThat(retention.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
        S3Exception hold = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .putObject(
                        b -> b.bucket("locks")
                                .key("nohold/blk")
                                .objectLockLegalHoldStatus(ObjectLockLegalHoldStatus.ON),
                        RequestBody.fromString("block")));
        assertThat(hold.statusCode()).isEqualTo(403);
        assertThat(SERVER.s3()
                        .listObjectVersions(b -> b.bucket("locks").prefix("no"))
                        .versions())
                .as("nothing written by a refused request")
                .isEmpty();

        S3Exception upload =
                catchThrowableOfType(S3Exception.class, () -> SERVER.s3().createMultipartUpload(b -> b.bucket("locks")
                        .key("noretain/mp")
                        .objectLockMode(ObjectLockMode.GOVERNANCE)
                        .objectLockRetainUntilDate(until)));
        assertThat(upload.statusCode()).isEqualTo(403);
        SERVER.s3().putObject(b -> b.bucket("locks").key("src"), RequestBody.fromString("source"));
        S3Exception copy =
                catchThrowableOfType(S3Exception.class, () -> SERVER.s3().copyObject(b -> b.sourceBucket("locks")
                        .sourceKey("src")
                        .destinationBucket("locks")
                        .destinationKey("nohold/copy")
                        .objectLockLegalHoldStatus(ObjectLockLegalHoldStatus.ON)));
        assertThat(copy.statusCode()).isEqualTo(403);

        // The same keys take writes that set no lock (the bucket has no default retention).
        SERVER.s3().putObject(b -> b.bucket("locks").key("noretain/blk"), RequestBody.fromString("plain"));
        assertThat(SERVER.s3()
                        .headObject(b -> b.bucket("locks").key("noretain/blk"))
                        .objectLockMode())
                .isNull();
    }
}
