package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Copies read their source: a caller not allowed to read it cannot copy it, by CopyObject or UploadPartCopy. */
class CopyAuthorizationTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing((ak, action, bucket, key) ->
            !(action.startsWith("s3:GetObject") && key != null && key.startsWith("private/")));

    @BeforeAll
    static void start() throws Exception {
        // Everything is allowed except reading keys under private/.
        SERVER.s3().createBucket(b -> b.bucket("copies"));
        SERVER.s3().putObject(b -> b.bucket("copies").key("private/secret"), RequestBody.fromString("classified"));
        SERVER.s3().putObject(b -> b.bucket("copies").key("public/open"), RequestBody.fromString("open"));
    }

    @Test
    void copyObject_needsReadPermissionOnTheSource() {
        S3Exception denied =
                catchThrowableOfType(S3Exception.class, () -> SERVER.s3().copyObject(b -> b.sourceBucket("copies")
                        .sourceKey("private/secret")
                        .destinationBucket("copies")
                        .destinationKey("public/leak")));
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(denied.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
        assertThat(SERVER.s3()
                        .listObjectsV2(b -> b.bucket("copies").prefix("public/"))
                        .contents())
                .extracting(o -> o.key())
                .containsExactly("public/open");

        SERVER.s3().copyObject(b -> b.sourceBucket("copies")
                .sourceKey("public/open")
                .destinationBucket("copies")
                .destinationKey("public/copy"));
        assertThat(SERVER.s3()
                        .getObjectAsBytes(b -> b.bucket("copies").key("public/copy"))
                        .asUtf8String())
                .isEqualTo("open");
    }

    @Test
    void uploadPartCopy_needsReadPermissionOnTheSource() {
        String id = SERVER.s3()
                .createMultipartUpload(b -> b.bucket("copies").key("public/assembled"))
                .uploadId();
        S3Exception denied =
                catchThrowableOfType(S3Exception.class, () -> SERVER.s3().uploadPartCopy(b -> b.sourceBucket("copies")
                        .sourceKey("private/secret")
                        .destinationBucket("copies")
                        .destinationKey("public/assembled")
                        .uploadId(id)
                        .partNumber(1)));
        assertThat(denied.statusCode()).isEqualTo(403);
        assertThat(SERVER.s3()
                        .listParts(
                                b -> b.bucket("copies").key("public/assembled").uploadId(id))
                        .parts())
                .isEmpty();
        SERVER.s3()
                .abortMultipartUpload(
                        b -> b.bucket("copies").key("public/assembled").uploadId(id));
    }
}
