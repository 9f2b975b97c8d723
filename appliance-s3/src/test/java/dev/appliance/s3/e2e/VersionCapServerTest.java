package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.s3.S3Server;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The hard cap of versions per key seen by an S3 client: the write past it fails with 400 InvalidRequest naming the key
 * and the cap (PUT, copy and multipart completion alike), the key keeps exactly the cap, and a write to another key or
 * after removing a version goes through. Never silent.
 */
class VersionCapServerTest {
    private static final int CAP = 5;

    @TempDir
    static Path drives;

    private static ObjectStore store;
    private static S3Server server;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        TestServer started = TestServer.start(drives, (ak, action, bucket, key) -> true);
        store = started.store();
        server = started.server();
        s3 = started.client();
        ((StoreAdmin) store).maxVersionsPerKey(CAP);
        s3.createBucket(b -> b.bucket("capped"));
        s3.putBucketVersioning(
                b -> b.bucket("capped").versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
    }

    @AfterAll
    static void stop() {
        s3.close();
        server.close();
        store.close();
    }

    private static int versions(String key) {
        return (int) s3.listObjectVersions(b -> b.bucket("capped").prefix(key)).versions().stream()
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
            s3.putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("v" + n));
        }
        assertRefused(() -> s3.putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("one too many")));
        s3.putObject(b -> b.bucket("capped").key("source"), RequestBody.fromString("copied"));
        assertRefused(() -> s3.copyObject(b -> b.sourceBucket("capped")
                .sourceKey("source")
                .destinationBucket("capped")
                .destinationKey("k")));
        String upload =
                s3.createMultipartUpload(b -> b.bucket("capped").key("k")).uploadId();
        String etag = s3.uploadPart(
                        b -> b.bucket("capped").key("k").uploadId(upload).partNumber(1), RequestBody.fromString("part"))
                .eTag();
        assertRefused(() -> s3.completeMultipartUpload(b -> b.bucket("capped")
                .key("k")
                .uploadId(upload)
                .multipartUpload(m -> m.parts(p -> p.partNumber(1).eTag(etag)))));
        assertThat(versions("k")).isEqualTo(CAP);
        assertThat(s3.getObjectAsBytes(b -> b.bucket("capped").key("k")).asUtf8String())
                .isEqualTo("v" + (CAP - 1));

        // removing one version makes room for exactly one more
        String oldest = s3.listObjectVersions(b -> b.bucket("capped").prefix("k")).versions().stream()
                .filter(v -> v.key().equals("k"))
                .reduce((a, b) -> b)
                .orElseThrow()
                .versionId();
        s3.deleteObject(b -> b.bucket("capped").key("k").versionId(oldest));
        s3.putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("fits again"));
        assertThat(versions("k")).isEqualTo(CAP);
        assertRefused(() -> s3.putObject(b -> b.bucket("capped").key("k"), RequestBody.fromString("full again")));
    }
}
