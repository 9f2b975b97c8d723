package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.ObjectStore;
import dev.appliance.s3.S3Server;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.Tag;
import software.amazon.awssdk.services.s3.model.TaggingDirective;

/** CopyObject's two directives are independent: metadata COPY/REPLACE and tagging COPY/REPLACE, four ways. */
class CopyDirectivesTest {
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
        s3.createBucket(b -> b.bucket("dirs"));
        s3.putObject(
                b -> b.bucket("dirs")
                        .key("src")
                        .contentType("text/x-source")
                        .metadata(Map.of("origin", "source"))
                        .tagging("colour=blue"),
                RequestBody.fromString("payload"));
    }

    @AfterAll
    static void stop() {
        s3.close();
        server.close();
        store.close();
    }

    private static Map<String, String> tags(String key) {
        return s3.getObjectTagging(b -> b.bucket("dirs").key(key)).tagSet().stream()
                .collect(Collectors.toMap(Tag::key, Tag::value));
    }

    @Test
    void defaults_copyMetadataAndTags_ignoringRequestTags() {
        s3.copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-copy")
                .tagging("ignored=yes"));
        var head = s3.headObject(b -> b.bucket("dirs").key("copy-copy"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "source"));
        assertThat(head.contentType()).isEqualTo("text/x-source");
        assertThat(tags("copy-copy")).containsExactly(Map.entry("colour", "blue"));
    }

    @Test
    void replaceTagsOnly_keepsSourceMetadataAndSetsRequestTags() {
        s3.copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-tags")
                .taggingDirective(TaggingDirective.REPLACE)
                .tagging("shape=round&size=big"));
        var head = s3.headObject(b -> b.bucket("dirs").key("copy-tags"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "source"));
        assertThat(head.contentType()).isEqualTo("text/x-source");
        assertThat(tags("copy-tags")).containsOnly(Map.entry("shape", "round"), Map.entry("size", "big"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket("dirs").key("copy-tags")).asUtf8String())
                .isEqualTo("payload");
    }

    @Test
    void replaceTagsWithNone_dropsTheTags() {
        s3.copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-untagged")
                .taggingDirective(TaggingDirective.REPLACE));
        assertThat(tags("copy-untagged")).isEmpty();
        assertThat(s3.headObject(b -> b.bucket("dirs").key("copy-untagged")).metadata())
                .containsExactly(Map.entry("origin", "source"));
    }

    @Test
    void replaceMetadataOnly_keepsSourceTags() {
        s3.copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-meta")
                .metadataDirective(MetadataDirective.REPLACE)
                .contentType("text/x-new")
                .metadata(Map.of("origin", "request"))
                .tagging("ignored=yes"));
        var head = s3.headObject(b -> b.bucket("dirs").key("copy-meta"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "request"));
        assertThat(head.contentType()).isEqualTo("text/x-new");
        assertThat(tags("copy-meta")).containsExactly(Map.entry("colour", "blue"));
    }

    @Test
    void replaceBoth_takesEverythingFromTheRequest() {
        s3.copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-both")
                .metadataDirective(MetadataDirective.REPLACE)
                .taggingDirective(TaggingDirective.REPLACE)
                .metadata(Map.of("k", "v"))
                .tagging("t=1"));
        assertThat(s3.headObject(b -> b.bucket("dirs").key("copy-both")).metadata())
                .containsExactly(Map.entry("k", "v"));
        assertThat(tags("copy-both")).containsExactly(Map.entry("t", "1"));
    }

    @Test
    void unknownTaggingDirective_isInvalidArgument() {
        S3Exception e = catchThrowableOfType(
                S3Exception.class,
                () -> s3.copyObject(b -> b.sourceBucket("dirs")
                        .sourceKey("src")
                        .destinationBucket("dirs")
                        .destinationKey("never")
                        .taggingDirective("MERGE")));
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
        assertThat(catchThrowableOfType(
                                S3Exception.class,
                                () -> s3.headObject(b -> b.bucket("dirs").key("never")))
                        .statusCode())
                .isEqualTo(404);
    }
}
