package dev.appliance.s3.api.post;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostPolicyTest {
    static String b64(String json) {
        return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    static final String DOC = """
            {"expiration": "2030-01-01T12:00:00.000Z",
             "conditions": [
               {"bucket": "photos"},
               ["starts-with", "$key", "user/eric/"],
               ["eq", "$acl", "private"],
               ["starts-with", "$Content-Type", "image/"],
               ["STARTS-WITH", "$x-amz-meta-tag", ""],
               {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
               ["content-length-range", 10, "2048"]
             ]}""";

    static Map<String, String> goodFields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("key", "user/eric/${filename}");
        f.put("acl", "private");
        f.put("content-type", "image/png");
        f.put("x-amz-meta-tag", "anything");
        f.put("x-amz-algorithm", "AWS4-HMAC-SHA256");
        f.put("policy", "...");
        f.put("x-amz-signature", "...");
        f.put("x-ignore-me", "yes");
        f.put("bucket", "photos");
        return f;
    }

    static S3Exception refusal(Runnable r) {
        return catchThrowableOfType(S3Exception.class, r::run);
    }

    @Test
    void parse_readsConditionsAndRange() {
        PostPolicy p = PostPolicy.parse(b64(DOC));
        assertThat(p.expiration()).isEqualTo(Instant.parse("2030-01-01T12:00:00Z"));
        assertThat(p.conditions()).hasSize(7);
        assertThat(p.minLength()).isEqualTo(10);
        assertThat(p.maxLength()).isEqualTo(2048);
        p.checkFields(goodFields());
        p.checkNotExpired(Instant.parse("2030-01-01T11:59:59Z"));
    }

    @Test
    void expiration_inThePast_isAccessDenied() {
        PostPolicy p = PostPolicy.parse(b64(DOC));
        S3Exception e = refusal(() -> p.checkNotExpired(Instant.parse("2030-01-01T12:00:00Z")));
        assertThat(e.code()).isEqualTo(S3ErrorCode.AccessDenied);
        assertThat(e.getMessage()).isEqualTo("Invalid according to Policy: Policy expired.");
    }

    @Test
    void conditions_failingOrMissing_nameTheCondition() {
        PostPolicy p = PostPolicy.parse(b64(DOC));
        Map<String, String> f = goodFields();
        f.put("key", "user/other/x");
        S3Exception e = refusal(() -> p.checkFields(f));
        assertThat(e.code()).isEqualTo(S3ErrorCode.AccessDenied);
        assertThat(e.getMessage())
                .isEqualTo("Invalid according to Policy: Policy Condition failed: [\"starts-with\", \"$key\", "
                        + "\"user/eric/\"]");

        Map<String, String> g = goodFields();
        g.put("bucket", "other");
        assertThat(refusal(() -> p.checkFields(g)).getMessage())
                .endsWith("Policy Condition failed: [\"eq\", \"$bucket\", \"photos\"]");

        Map<String, String> h = goodFields();
        h.remove("acl"); // a missing field is the empty string: eq "private" fails
        assertThat(refusal(() -> p.checkFields(h)).getMessage()).contains("$acl");

        Map<String, String> i = goodFields();
        i.remove("x-amz-meta-tag"); // starts-with "" holds for a missing field
        p.checkFields(i);
    }

    @Test
    void fields_notNamedByAnyCondition_areExtraInputFields() {
        PostPolicy p = PostPolicy.parse(b64(DOC));
        Map<String, String> f = goodFields();
        f.put("success_action_status", "201");
        f.put("x-amz-meta-other", "1");
        S3Exception e = refusal(() -> p.checkFields(f));
        assertThat(e.code()).isEqualTo(S3ErrorCode.AccessDenied);
        assertThat(e.getMessage())
                .isEqualTo("Invalid according to Policy: Extra input fields: success_action_status, x-amz-meta-other");

        PostPolicy noBucket = PostPolicy.parse(
                b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"starts-with\",\"$key\",\"\"]]}"));
        assertThat(refusal(() -> noBucket.checkFields(Map.of("key", "k", "bucket", "b")))
                        .getMessage())
                .isEqualTo("Invalid according to Policy: Extra input fields: bucket");
    }

    @Test
    void malformedDocuments_areInvalidPolicyDocument() {
        String[] bad = {
            "not base64!*",
            b64("not json"),
            b64("[]"),
            b64("{\"conditions\":[]}"),
            b64("{\"expiration\":\"tomorrow\",\"conditions\":[]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\"}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":{}}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"eq\",\"key\",\"a\"]]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"lt\",\"$key\",\"a\"]]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"eq\",\"$key\"]]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[{\"key\":1}]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"content-length-range\",-1,5]]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[[\"content-length-range\",1.5,5]]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[],\"conditions\":[]}"),
            b64("{\"expiration\":\"2030-01-01T00:00:00Z\",\"conditions\":[\"key\"]}"),
        };
        for (String b : bad) {
            S3Exception e = refusal(() -> PostPolicy.parse(b));
            assertThat(e).as(b).isNotNull();
            assertThat(e.code()).as(b).isEqualTo(S3ErrorCode.InvalidPolicyDocument);
        }
    }

    @Test
    void exemptFields_needNoCondition() {
        assertThat(PostPolicy.exempt("x-amz-signature")).isTrue();
        assertThat(PostPolicy.exempt("policy")).isTrue();
        assertThat(PostPolicy.exempt("file")).isTrue();
        assertThat(PostPolicy.exempt("x-ignore-anything")).isTrue();
        assertThat(PostPolicy.exempt("x-amz-credential")).isFalse();
        assertThat(PostPolicy.exempt("key")).isFalse();
    }
}
