package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.s3.testing.S3TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The hard cap of versions per key seen by an S3 client: the write past it fails with 400 InvalidRequest naming the key
 * and the cap (PUT, copy and multipart completion alike), the key keeps exactly the cap, and a write to another key or
 * after removing a version goes through. Never silent.
 */
class VersionCapServerTest {
    private static final int CAP = 5;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        ((StoreAdmin) SERVER.store()).maxVersionsPerKey(CAP);
        SERVER.s3().createBucket(b -> b.bucket("capped"));
        SERVER.s3().putBucketVersioning(b -> b.bucket("capped")
                .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
    }

    private static int versions(String key) {
        return (int) SERVER.s3().listObjectVersions(b -> b.bucket("capped").prefix(key)).versions().stream()
                .filter(v -> v.key().equals(key))
                .count();
    }

    private static void assertRefused(Runnable write) {
        S3Exception e = catchThrowableOfType(S3Exception.class, write::run);
        assertThat(e).as("the write past the cap must fail").isNotNull();
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidRequest");
        assertThat(e.awsErrorDetails().errorMessage())
                .contains("Key 'k' in bucket 'capped' has reached the limit of " + CAP + " versions per key")
                .contains("NoncurrentVersionExpiration", "--max-versions-per-key");
    }

    @Test
    void writesPastTheCap_failWithAClearS3Error_neverSilently() {
        for (int i = 0; i < CAP; i++) {
            int n = i;
            SERVER.s3().putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("v" + n));
        }
        assertRefused(
                () -> SERVER.s3().putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("one too many")));
        SERVER.s3().putObject(b -> b.bucket("capped").key("source"), RequestBody.fromString("copied"));
        assertRefused(() -> SERVER.s3().copyObject(b -> b.sourceBucket("capped")
                .sourceKey("source")
                .destinationBucket("capped")
                .destinationKey("k")));
        String upload = SERVER.s3()
                .createMultipartUpload(b -> b.bucket("capped").key("k"))
                .uploadId();
        String etag = SERVER.s3()
                .uploadPart(
                        b -> b.bucket("capped").key("k").uploadId(upload).partNumber(1), RequestBody.fromString("part"))
                .eTag();
        assertRefused(() -> SERVER.s3().completeMultipartUpload(b -> b.bucket("capped")
                .key("k")
                .uploadId(upload)
                .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag)))));
        assertThat(versions("k")).isEqualTo(CAP);
        assertThat(SERVER.s3()
                        .getObjectAsBytes(b -> b.bucket("capped").key("k"))
                        .asUtf8String())
                .isEqualTo("v" + (CAP - 1));

        // removing one version makes room for exactly one more
        String oldest = SERVER.s3().listObjectVersions(b -> b.bucket("capped").prefix("k")).versions().stream()
                .filter(v -> v.key().equals("k"))
                .reduce((a, b) -> b)
                .orElseThrow()
                .versionId();
        SERVER.s3().deleteObject(b -> b.bucket("capped").key("k").versionId(oldest));
        SERVER.s3().putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("fits again"));
        assertThat(versions("k")).isEqualTo(CAP);
        assertRefused(
                () -> SERVER.s3().putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("full again")));
    }
}
