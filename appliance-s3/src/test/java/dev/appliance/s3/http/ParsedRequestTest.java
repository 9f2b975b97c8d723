package dev.appliance.s3.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

class ParsedRequestTest {
    private static ParsedRequest parse(String uri) {
        return ParsedRequest.parse(new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri));
    }

    @Test
    void pathStyle_bucketAndVerbatimKey() {
        ParsedRequest p = parse("/b//k%20x/./y?versionId=1&list-type");
        assertThat(p.bucket()).isEqualTo("b");
        assertThat(p.key()).isEqualTo("/k x/./y");
        assertThat(p.query()).containsEntry("versionId", "1").containsEntry("list-type", "");
        assertThat(parse("/").bucket()).isNull();
        assertThat(parse("/b/").key()).isNull();
    }

    @Test
    void emptyBucketName_isInvalidUri() {
        // found by ParsedRequestFuzzTest: "//key" used to yield the bucket "" and the key "key"
        for (String uri : new String[] {"//k", "//", "/%2Fk"}) {
            assertThatThrownBy(() -> parse(uri))
                    .as(uri)
                    .isInstanceOf(S3Exception.class)
                    .extracting(e -> ((S3Exception) e).code())
                    .isEqualTo(S3ErrorCode.InvalidURI);
        }
    }
}
