package dev.appliance.s3.api.post;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostObjectHandlerTest {
    private static S3Request request(String host, boolean secure) {
        return new S3Request(
                "POST",
                "photos",
                null,
                Map.of(),
                Map.of("host", List.of(host)),
                AuthResult.formFields(),
                InputStream.nullInputStream(),
                0,
                "id",
                null,
                null,
                secure);
    }

    @Test
    void objectUrl_followsTheAddressingStyleAndScheme() {
        assertThat(PostObjectHandler.objectUrl(request("s3.example.com:9000", false), "a b/c+d"))
                .isEqualTo("http://s3.example.com:9000/photos/a%20b/c%2Bd");
        assertThat(PostObjectHandler.objectUrl(request("photos.s3.example.com", true), "k"))
                .isEqualTo("https://photos.s3.example.com/k");
    }

    @Test
    void redirectTarget_takesOnlyAbsoluteHttpUrls() {
        assertThat(PostObjectHandler.redirectTarget("https://example.com/a?b=c"))
                .isNotNull();
        assertThat(PostObjectHandler.redirectTarget("http://example.com")).isNotNull();
        assertThat(PostObjectHandler.redirectTarget("/relative")).isNull();
        assertThat(PostObjectHandler.redirectTarget("javascript:alert(1)")).isNull();
        assertThat(PostObjectHandler.redirectTarget("not a url")).isNull();
        assertThat(PostObjectHandler.redirectTarget("")).isNull();
    }

    @Test
    void putRequest_takesStoredFieldsAndRefusesUnsupportedOnes() {
        var req = PostObjectHandler.putRequest(Map.of(
                "content-type", "image/png",
                "x-amz-meta-a", "1",
                "cache-control", "no-cache",
                "key", "k",
                "acl", "bucket-owner-full-control"));
        assertThat(req.contentType()).isEqualTo("image/png");
        assertThat(req.userMetadata()).containsOnlyKeys("x-amz-meta-a", "cache-control");
        S3Exception sse = catchThrowableOfType(
                S3Exception.class,
                () -> PostObjectHandler.putRequest(Map.of("x-amz-server-side-encryption", "AES256")));
        assertThat(sse.code()).isEqualTo(S3ErrorCode.NotImplemented);
        S3Exception meta = catchThrowableOfType(
                S3Exception.class, () -> PostObjectHandler.putRequest(Map.of("x-amz-meta-big", "x".repeat(3000))));
        assertThat(meta.code()).isEqualTo(S3ErrorCode.MetadataTooLarge);
        S3Exception acl =
                catchThrowableOfType(S3Exception.class, () -> PostObjectHandler.putRequest(Map.of("acl", "nonsense")));
        assertThat(acl.code()).isEqualTo(S3ErrorCode.InvalidArgument);
    }
}
