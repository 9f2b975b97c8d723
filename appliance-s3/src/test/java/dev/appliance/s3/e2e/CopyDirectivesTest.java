package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.Tag;
import software.amazon.awssdk.services.s3.model.TaggingDirective;

/** CopyObject's two directives are independent: metadata COPY/REPLACE and tagging COPY/REPLACE, four ways. */
class CopyDirectivesTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("dirs"));
        SERVER.s3()
                .putObject(
                        b -> b.bucket("dirs")
                                .key("src")
                                .contentType("text/x-source")
                                .metadata(Map.of("origin", "source"))
                                .tagging("colour=blue"),
                        RequestBody.fromString("payload"));
    }

    private static Map<String, String> tags(String key) {
        return SERVER.s3().getObjectTagging(b -> b.bucket("dirs").key(key)).tagSet().stream()
                .collect(Collectors.toMap(Tag::key, Tag::value));
    }

    @Test
    void defaults_copyMetadataAndTags_ignoringRequestTags() {
        SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-copy")
                .tagging("ignored=yes"));
        var head = SERVER.s3().headObject(b -> b.bucket("dirs").key("copy-copy"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "source"));
        assertThat(head.contentType()).isEqualTo("text/x-source");
        assertThat(tags("copy-copy")).containsExactly(Map.entry("colour", "blue"));
    }

    @Test
    void replaceTagsOnly_keepsSourceMetadataAndSetsRequestTags() {
        SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-tags")
                .taggingDirective(TaggingDirective.REPLACE)
                .tagging("shape=round&size=big"));
        var head = SERVER.s3().headObject(b -> b.bucket("dirs").key("copy-tags"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "source"));
        assertThat(head.contentType()).isEqualTo("text/x-source");
        assertThat(tags("copy-tags")).containsOnly(Map.entry("shape", "round"), Map.entry("size", "big"));
        assertThat(SERVER.s3()
                        .getObjectAsBytes(b -> b.bucket("dirs").key("copy-tags"))
                        .asUtf8String())
                .isEqualTo("payload");
    }

    @Test
    void replaceTagsWithNone_dropsTheTags() {
        SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-untagged")
                .taggingDirective(TaggingDirective.REPLACE));
        assertThat(tags("copy-untagged")).isEmpty();
        assertThat(SERVER.s3()
                        .headObject(b -> b.bucket("dirs").key("copy-untagged"))
                        .metadata())
                .containsExactly(Map.entry("origin", "source"));
    }

    @Test
    void replaceMetadataOnly_keepsSourceTags() {
        SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-meta")
                .metadataDirective(MetadataDirective.REPLACE)
                .contentType("text/x-new")
                .metadata(Map.of("origin", "request"))
                .tagging("ignored=yes"));
        var head = SERVER.s3().headObject(b -> b.bucket("dirs").key("copy-meta"));
        assertThat(head.metadata()).containsExactly(Map.entry("origin", "request"));
        assertThat(head.contentType()).isEqualTo("text/x-new");
        assertThat(tags("copy-meta")).containsExactly(Map.entry("colour", "blue"));
    }

    @Test
    void replaceBoth_takesEverythingFromTheRequest() {
        SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                .sourceKey("src")
                .destinationBucket("dirs")
                .destinationKey("copy-both")
                .metadataDirective(MetadataDirective.REPLACE)
                .taggingDirective(TaggingDirective.REPLACE)
                .metadata(Map.of("k", "v"))
                .tagging("t=1"));
        assertThat(SERVER.s3()
                        .headObject(b -> b.bucket("dirs").key("copy-both"))
                        .metadata())
                .containsExactly(Map.entry("k", "v"));
        assertThat(tags("copy-both")).containsExactly(Map.entry("t", "1"));
    }

    @Test
    void unknownTaggingDirective_isInvalidArgument() {
        S3Exception e =
                catchThrowableOfType(S3Exception.class, () -> SERVER.s3().copyObject(b -> b.sourceBucket("dirs")
                        .sourceKey("src")
                        .destinationBucket("dirs")
                        .destinationKey("never")
                        .taggingDirective("MERGE")));
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
        assertThat(catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                                .headObject(b -> b.bucket("dirs").key("never")))
                        .statusCode())
                .isEqualTo(404);
    }
}
