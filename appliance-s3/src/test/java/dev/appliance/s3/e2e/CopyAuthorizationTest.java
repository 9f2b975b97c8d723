package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.ObjectStore;
import dev.appliance.s3.S3Server;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Copies read their source: a caller not allowed to read it cannot copy it, by CopyObject or UploadPartCopy. */
class CopyAuthorizationTest {
    @TempDir
    static Path drives;

    private static ObjectStore store;
    private static S3Server server;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        // Everything is allowed except reading keys under private/.
        TestServer started = TestServer.start(
                drives,
                (ak, action, bucket, key) ->
                        !(action.startsWith("s3:GetObject") && key != null && key.startsWith("private/")));
        store = started.store();
        server = started.server();
        s3 = started.client();
        s3.createBucket(b -> b.bucket("copies"));
        s3.putObject(b -> b.bucket("copies").key("private/secret"), RequestBody.fromString("classified"));
        s3.putObject(b -> b.bucket("copies").key("public/open"), RequestBody.fromString("open"));
    }

    @AfterAll
    static void stop() {
        s3.close();
        server.close();
        store.close();
    }

    @Test
    void copyObject_needsReadPermissionOnTheSource() {
        S3Exception denied = catchThrowableOfType(
                S3Exception.class,
                () -> s3.copyObject(b -> b.sourceBucket("copies")
                        .sourceKey("private/secret")
                        .destinationBucket("copies")
                        .destinationKey("public/leak")));
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(denied.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
        assertThat(s3.listObjectsV2(b -> b.bucket("copies").prefix("public/")).contents())
                .extracting(o -> o.key())
                .containsExactly("public/open");

        s3.copyObject(b -> b.sourceBucket("copies")
                .sourceKey("public/open")
                .destinationBucket("copies")
                .destinationKey("public/copy"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket("copies").key("public/copy"))
                        .asUtf8String())
                .isEqualTo("open");
    }

    @Test
    void uploadPartCopy_needsReadPermissionOnTheSource() {
        String id = s3.createMultipartUpload(b -> b.bucket("copies").key("public/assembled"))
                .uploadId();
        S3Exception denied = catchThrowableOfType(
                S3Exception.class,
                () -> s3.uploadPartCopy(b -> b.sourceBucket("copies")
                        .sourceKey("private/secret")
                        .destinationBucket("copies")
                        .destinationKey("public/assembled")
                        .uploadId(id)
                        .partNumber(1)));
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(s3.listParts(b -> b.bucket("copies").key("public/assembled").uploadId(id))
                        .parts())
                .isEmpty();
        s3.abortMultipartUpload(b -> b.bucket("copies").key("public/assembled").uploadId(id));
    }
}
