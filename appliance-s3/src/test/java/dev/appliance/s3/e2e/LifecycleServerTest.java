package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.AbortIncompleteMultipartUpload;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.GetBucketLifecycleConfigurationResponse;
import software.amazon.awssdk.services.s3.model.LifecycleExpiration;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.LifecycleRuleAndOperator;
import software.amazon.awssdk.services.s3.model.LifecycleRuleFilter;
import software.amazon.awssdk.services.s3.model.NoncurrentVersionExpiration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.Tag;

/** Put/Get/DeleteBucketLifecycleConfiguration and x-amz-expiration through the real server, SDK and raw requests. */
class LifecycleServerTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    private static String bucket() {
        String b = "lc-" + UUID.randomUUID().toString().substring(0, 8);
        SERVER.s3().createBucket(c -> c.bucket(b));
        return b;
    }

    @Test
    void sdk_putGetDelete_roundTripsEveryRuleKind() {
        String b = bucket();
        LifecycleRule expire = LifecycleRule.builder()
                .id("logs")
                .status(ExpirationStatus.ENABLED)
                .filter(LifecycleRuleFilter.builder().prefix("logs/").build())
                .expiration(LifecycleExpiration.builder().days(30).build())
                .build();
        LifecycleRule combined = LifecycleRule.builder()
                .id("tmp-tagged")
                .status(ExpirationStatus.DISABLED)
                .filter(LifecycleRuleFilter.builder()
                        .and(LifecycleRuleAndOperator.builder()
                                .prefix("tmp/")
                                .tags(Tag.builder()
                                        .key("class")
                                        .value("scratch")
                                        .build())
                                .objectSizeGreaterThan(1024L)
                                .objectSizeLessThan(1_048_576L)
                                .build())
                        .build())
                .expiration(LifecycleExpiration.builder()
                        .date(Instant.parse("2030-01-01T00:00:00Z"))
                        .build())
                .noncurrentVersionExpiration(NoncurrentVersionExpiration.builder()
                        .noncurrentDays(7)
                        .newerNoncurrentVersions(3)
                        .build())
                .build();
        LifecycleRule markers = LifecycleRule.builder()
                .id("markers")
                .status(ExpirationStatus.ENABLED)
                .filter(LifecycleRuleFilter.builder().build())
                .expiration(LifecycleExpiration.builder()
                        .expiredObjectDeleteMarker(true)
                        .build())
                .abortIncompleteMultipartUpload(AbortIncompleteMultipartUpload.builder()
                        .daysAfterInitiation(2)
                        .build())
                .build();
        SERVER.s3().putBucketLifecycleConfiguration(r -> r.bucket(b)
                .lifecycleConfiguration(c -> c.rules(expire, combined, markers)));

        GetBucketLifecycleConfigurationResponse got = SERVER.s3().getBucketLifecycleConfiguration(r -> r.bucket(b));
        assertThat(got.rules()).hasSize(3);
        LifecycleRule g0 = got.rules().get(0);
        assertThat(g0.id()).isEqualTo("logs");
        assertThat(g0.status()).isEqualTo(ExpirationStatus.ENABLED);
        assertThat(g0.filter().prefix()).isEqualTo("logs/");
        assertThat(g0.expiration().days()).isEqualTo(30);
        LifecycleRule g1 = got.rules().get(1);
        assertThat(g1.status()).isEqualTo(ExpirationStatus.DISABLED);
        assertThat(g1.filter().and().prefix()).isEqualTo("tmp/");
        assertThat(g1.filter().and().tags())
                .containsExactly(Tag.builder().key("class").value("scratch").build());
        assertThat(g1.filter().and().objectSizeGreaterThan()).isEqualTo(1024L);
        assertThat(g1.filter().and().objectSizeLessThan()).isEqualTo(1_048_576L);
        assertThat(g1.expiration().date()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(g1.noncurrentVersionExpiration().noncurrentDays()).isEqualTo(7);
        assertThat(g1.noncurrentVersionExpiration().newerNoncurrentVersions()).isEqualTo(3);
        LifecycleRule g2 = got.rules().get(2);
        assertThat(g2.expiration().expiredObjectDeleteMarker()).isTrue();
        assertThat(g2.abortIncompleteMultipartUpload().daysAfterInitiation()).isEqualTo(2);

        SERVER.s3().deleteBucketLifecycle(r -> r.bucket(b));
        S3Exception none = catchThrowableOfType(
                S3Exception.class, () -> SERVER.s3().getBucketLifecycleConfiguration(r -> r.bucket(b)));
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(none.awsErrorDetails().errorCode()).isEqualTo("NoSuchLifecycleConfiguration");
    }

    @Test
    void get_onABucketWithoutRules_isNoSuchLifecycleConfiguration_andOnNoBucket_NoSuchBucket() {
        String b = bucket();
        S3Exception none = catchThrowableOfType(
                S3Exception.class, () -> SERVER.s3().getBucketLifecycleConfiguration(r -> r.bucket(b)));
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(none.awsErrorDetails().errorCode()).isEqualTo("NoSuchLifecycleConfiguration");
        S3Exception noBucket = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .getBucketLifecycleConfiguration(r -> r.bucket("lc-missing-bucket")));
        assertThat(noBucket.awsErrorDetails().errorCode()).isEqualTo("NoSuchBucket");
    }

    @Test
    void expirationHeader_onPutHeadAndGet_namesTheDateAndRule() {
        String b = bucket();
        SERVER.s3().putBucketLifecycleConfiguration(r -> r.bucket(b)
                .lifecycleConfiguration(c -> c.rules(LifecycleRule.builder()
                        .id("week")
                        .status(ExpirationStatus.ENABLED)
                        .filter(f -> f.prefix("tmp/"))
                        .expiration(e -> e.days(7))
                        .build())));
        var put = SERVER.s3().putObject(r -> r.bucket(b).key("tmp/a"), RequestBody.fromString("x"));
        var head = SERVER.s3().headObject(r -> r.bucket(b).key("tmp/a"));
        Instant due = head.lastModified().truncatedTo(ChronoUnit.DAYS).plus(java.time.Duration.ofDays(8));
        String expected = "expiry-date=\""
                + DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
                        .withZone(ZoneOffset.UTC)
                        .format(due)
                + "\", rule-id=\"week\"";
        assertThat(put.expiration()).isEqualTo(expected);
        assertThat(head.expiration()).isEqualTo(expected);
        try (var get = SERVER.s3().getObject(r -> r.bucket(b).key("tmp/a"))) {
            assertThat(get.response().expiration()).isEqualTo(expected);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        SERVER.s3().putObject(r -> r.bucket(b).key("keep/a"), RequestBody.fromString("x"));
        assertThat(SERVER.s3().headObject(r -> r.bucket(b).key("keep/a")).expiration())
                .isNull();
    }

    // ------------------------------------------------------------------------------------------------ raw errors

    private static String rule(String inner) {
        return "<Rule><ID>r</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>" + inner + "</Rule>";
    }

    private static String doc(String rules) {
        return "<LifecycleConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + rules
                + "</LifecycleConfiguration>";
    }

    private static String putRaw(String bucket, String body) throws Exception {
        byte[] md5 = MessageDigest.getInstance("MD5").digest(body.getBytes(StandardCharsets.UTF_8));
        return SignedRaw.send(
                SERVER.port(),
                "PUT",
                "/" + bucket,
                "lifecycle",
                Map.of("content-md5", Base64.getEncoder().encodeToString(md5)),
                body);
    }

    private static void assertRefused(String bucket, String body, int status, String code, String message)
            throws Exception {
        String resp = putRaw(bucket, body);
        assertThat(resp).startsWith("HTTP/1.1 " + status).contains("<Code>" + code + "</Code>");
        if (message != null) {
            assertThat(resp.replace("&apos;", "'").replace("&#39;", "'").replace("&quot;", "\""))
                    .contains(message);
        }
    }

    @Test
    void raw_invalidConfigurations_areRefusedWithS3sErrors() throws Exception {
        String b = bucket();
        assertThat(putRaw(b, doc(rule("<Expiration><Days>1</Days></Expiration>"))))
                .startsWith("HTTP/1.1 200");
        assertRefused(
                b,
                doc(rule("<Expiration><Days>0</Days></Expiration>")),
                400,
                "InvalidArgument",
                "'Days' for Expiration action must be a positive integer");
        assertRefused(
                b,
                doc(rule("<Expiration><Date>2030-01-01T01:00:00Z</Date></Expiration>")),
                400,
                "InvalidArgument",
                "'Date' must be at midnight GMT");
        assertRefused(
                b,
                doc(rule("<Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration>")),
                400,
                "MalformedXML",
                null);
        assertRefused(
                b,
                doc(rule("<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker>"
                        + "</Expiration>")),
                400,
                "MalformedXML",
                "ExpiredObjectDeleteMarker cannot be specified with Days or Date");
        assertRefused(
                b,
                doc(rule("<NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays>"
                        + "</NoncurrentVersionExpiration>")),
                400,
                "InvalidArgument",
                "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer");
        String twin = "<Expiration><Days>1</Days></Expiration>";
        assertRefused(b, doc(rule(twin) + rule(twin)), 400, "InvalidArgument", "Rule ID must be unique");
        assertRefused(
                b,
                doc(rule(twin).replace("<ID>r</ID>", "<ID>" + "x".repeat(256) + "</ID>")),
                400,
                "InvalidArgument",
                "ID length should not exceed allowed limit of 255");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= 1000; i++) {
            many.append(rule(twin).replace("<ID>r</ID>", "<ID>r" + i + "</ID>"));
        }
        assertRefused(b, doc(many.toString()), 400, "InvalidArgument", "1000");
        assertRefused(
                b,
                doc("<Rule><ID>t</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status>"
                        + "<AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation>"
                        + "</AbortIncompleteMultipartUpload></Rule>"),
                400,
                "InvalidRequest",
                "AbortIncompleteMultipartUpload cannot be specified with Tags.");
        assertRefused(b, doc(rule("")), 400, "InvalidRequest", "At least one action needs to be specified in a rule");
        assertRefused(b, doc(""), 400, "MalformedXML", null);
        assertRefused(
                b,
                doc(
                        "<Rule><ID>s</ID><Filter><Prefix>a</Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule>"),
                400,
                "MalformedXML",
                "Status");
        assertRefused(
                b,
                doc("<Rule><ID>p</ID><Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter>"
                        + "<Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>"),
                400,
                "MalformedXML",
                "And");
        assertRefused(
                b,
                doc(rule("<Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition>")),
                501,
                "NotImplemented",
                "Transition");
        assertRefused(b, "<LifecycleConfiguration><Rule>", 400, "MalformedXML", null);

        String noMd5 = SignedRaw.send(SERVER.port(), "PUT", "/" + b, "lifecycle", Map.of(), doc(rule(twin)));
        assertThat(noMd5).startsWith("HTTP/1.1 400").contains("InvalidRequest").contains("Content-MD5");

        // the configuration accepted first is still in place after every refusal
        assertThat(SERVER.s3().getBucketLifecycleConfiguration(r -> r.bucket(b)).rules())
                .singleElement()
                .satisfies(r -> assertThat(r.expiration().days()).isEqualTo(1));
    }

    @Test
    void raw_legacyTopLevelPrefix_andADateWithoutZone_areAccepted() throws Exception {
        String b = bucket();
        String legacy = doc("<Rule><ID>old</ID><Prefix>logs/</Prefix><Status>Enabled</Status>"
                + "<Expiration><Date>2031-05-01T00:00:00</Date></Expiration></Rule>");
        assertThat(putRaw(b, legacy)).startsWith("HTTP/1.1 200");
        LifecycleRule r = SERVER.s3()
                .getBucketLifecycleConfiguration(g -> g.bucket(b))
                .rules()
                .getFirst();
        assertThat(r.filter().prefix()).isEqualTo("logs/");
        assertThat(r.expiration().date()).isEqualTo(Instant.parse("2031-05-01T00:00:00Z"));
    }
}
