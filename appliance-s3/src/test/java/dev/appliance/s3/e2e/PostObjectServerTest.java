package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * POST Object (browser-based uploads) against a real server: forms built here, policies signed with the SigV4
 * helpers, sent with the JDK's HTTP client; results read back with the SDK.
 */
class PostObjectServerTest {
    static final String BOUNDARY = "xYzZY-form-boundary";
    static final String BUCKET = "posts";
    static final String LOCK_BUCKET = "locked-posts";

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.authorizing(
            (ak, action, bucket, key) -> !(action.equals("s3:PutObject") && key != null && key.startsWith("denied/")));

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        // everything allowed except writes under "denied/"
        SERVER.s3().createBucket(b -> b.bucket(BUCKET));
        SERVER.s3().createBucket(b -> b.bucket(LOCK_BUCKET).objectLockEnabledForBucket(true));
    }

    /** A signed form: policy conditions plus the fields that must accompany them. */
    static final class Form {
        final Map<String, String> fields = new LinkedHashMap<>();
        final List<String> conditions = new ArrayList<>();
        Instant expiration = Instant.now().plusSeconds(600);
        String secret = S3TestServer.SECRET_KEY;
        String accessKey = S3TestServer.ACCESS_KEY;
        boolean coverAll = true;
        String bucket = BUCKET;

        Form field(String name, String value) {
            fields.put(name, value);
            return this;
        }

        Form condition(String json) {
            conditions.add(json);
            return this;
        }

        /** Builds the fields with credential, date, policy and signature; every field covered by an eq unless told. */
        Map<String, String> signed() {
            String date = DateTimeFormatter.ofPattern("yyyyMMdd")
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now());
            String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now());
            Map<String, String> all = new LinkedHashMap<>(fields);
            all.put("x-amz-algorithm", SigV4.ALGORITHM);
            all.put("x-amz-credential", accessKey + "/" + date + "/us-east-1/s3/aws4_request");
            all.put("x-amz-date", amzDate);
            List<String> conds = new ArrayList<>(conditions);
            conds.add("{\"bucket\": \"" + bucket + "\"}");
            if (coverAll) {
                for (Map.Entry<String, String> e : all.entrySet()) {
                    conds.add("[\"eq\", \"$" + e.getKey() + "\", " + json(e.getValue()) + "]");
                }
            } else {
                for (String n : List.of("x-amz-algorithm", "x-amz-credential", "x-amz-date")) {
                    conds.add("{\"" + n + "\": " + json(all.get(n)) + "}");
                }
            }
            String policy =
                    "{\"expiration\": \"" + expiration + "\", \"conditions\": [" + String.join(", ", conds) + "]}";
            String b64 = Base64.getEncoder().encodeToString(policy.getBytes(StandardCharsets.UTF_8));
            all.put("policy", b64);
            all.put("x-amz-signature", SigV4.signature(SigV4.signingKey(secret, date, "us-east-1", "s3"), b64));
            return all;
        }
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static byte[] body(Map<String, String> fields, String filename, byte[] file, Map<String, String> after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(file);
        out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, String> e : after.entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    static HttpResponse<String> post(String path, byte[] body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + SERVER.port() + path))
                        .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(Map<String, String> fields, String filename, byte[] file) throws Exception {
        return post("/" + BUCKET, body(fields, filename, file, Map.of()));
    }

    static String code(HttpResponse<String> r) {
        int a = r.body().indexOf("<Code>");
        return a < 0 ? "" : r.body().substring(a + 6, r.body().indexOf("</Code>"));
    }

    static String message(HttpResponse<String> r) {
        int a = r.body().indexOf("<Message>");
        String m = a < 0 ? "" : r.body().substring(a + 9, r.body().indexOf("</Message>"));
        return m.replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
    }

    static byte[] read(String key) {
        return SERVER.s3()
                .getObject(b -> b.bucket(BUCKET).key(key), ResponseTransformer.toBytes())
                .asByteArray();
    }

    static boolean exists(String key) {
        return catchThrowableOfType(NoSuchKeyException.class, () -> SERVER.s3()
                        .headObject(b -> b.bucket(BUCKET).key(key)))
                == null;
    }

    static String md5Hex(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
    }

    @Test
    void upload_default204_storesFileWithFieldsAsMetadata() throws Exception {
        byte[] data = "hello browser".getBytes(StandardCharsets.UTF_8);
        Map<String, String> f = new Form()
                .field("key", "docs/${filename}")
                .field("Content-Type", "text/plain")
                .field("Cache-Control", "max-age=60")
                .field("x-amz-meta-Color", "blue")
                .field("acl", "private")
                .field("tagging", "<Tagging><TagSet><Tag><Key>a</Key><Value>1</Value></Tag></TagSet></Tagging>")
                .signed();
        HttpResponse<String> r = post(f, "note.txt", data);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        assertThat(r.headers().firstValue("ETag")).contains("\"" + md5Hex(data) + "\"");
        assertThat(r.headers().firstValue("Location"))
                .contains("http://127.0.0.1:" + SERVER.port() + "/" + BUCKET + "/docs/note.txt");
        assertThat(read("docs/note.txt")).isEqualTo(data);
        var head = SERVER.s3().headObject(b -> b.bucket(BUCKET).key("docs/note.txt"));
        assertThat(head.contentType()).isEqualTo("text/plain");
        assertThat(head.cacheControl()).isEqualTo("max-age=60");
        assertThat(head.metadata()).containsEntry("color", "blue");
        assertThat(SERVER.s3()
                        .getObjectTagging(b -> b.bucket(BUCKET).key("docs/note.txt"))
                        .tagSet())
                .singleElement()
                .satisfies(t -> assertThat(t.key() + "=" + t.value()).isEqualTo("a=1"));
    }

    @Test
    void upload_201_answersPostResponse_200_answersEmpty_invalidStatusIs204() throws Exception {
        HttpResponse<String> r = post(
                new Form()
                        .field("key", "s201")
                        .field("success_action_status", "201")
                        .signed(),
                "f",
                new byte[] {1, 2, 3});
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body())
                .contains(
                        "<PostResponse><Location>http://127.0.0.1:" + SERVER.port() + "/" + BUCKET + "/s201</Location>")
                .contains("<Bucket>" + BUCKET + "</Bucket><Key>s201</Key><ETag>&quot;")
                .doesNotContain("xmlns");

        r = post(
                new Form()
                        .field("key", "s200")
                        .field("success_action_status", "200")
                        .signed(),
                "f",
                new byte[0]);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
        assertThat(read("s200")).isEmpty();

        r = post(
                new Form()
                        .field("key", "s999")
                        .field("success_action_status", "999")
                        .signed(),
                "f",
                new byte[1]);
        assertThat(r.statusCode()).isEqualTo(204);
    }

    @Test
    void upload_withRedirect_answers303WithBucketKeyAndEtag() throws Exception {
        byte[] data = {9, 9};
        HttpResponse<String> r = post(
                new Form()
                        .field("key", "r/a b")
                        .field("success_action_redirect", "https://example.com/done?x=1")
                        .signed(),
                "f",
                data);
        assertThat(r.statusCode()).isEqualTo(303);
        assertThat(r.headers().firstValue("Location"))
                .contains("https://example.com/done?x=1&bucket=" + BUCKET + "&key=r%2Fa%20b&etag=%22" + md5Hex(data)
                        + "%22");
        // a URL S3 cannot interpret is ignored
        r = post(new Form().field("key", "r2").field("redirect", "not a url").signed(), "f", data);
        assertThat(r.statusCode()).isEqualTo(204);
    }

    @Test
    void upload_largerThanTheBufferedHead_streamsAndIsStoredExactly() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(data);
        HttpResponse<String> r = post(
                new Form()
                        .field("key", "big")
                        .condition("[\"content-length-range\", 1, 4194304]")
                        .signed(),
                "f",
                data);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        assertThat(read("big")).isEqualTo(data);
        assertThat(r.headers().firstValue("ETag")).contains("\"" + md5Hex(data) + "\"");
    }

    @Test
    void contentLengthRange_outside_isRefusedAndNothingStored() throws Exception {
        HttpResponse<String> r = post(
                new Form()
                        .field("key", "small")
                        .condition("[\"content-length-range\", 10, 20]")
                        .signed(),
                "f",
                new byte[5]);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("EntityTooSmall");
        assertThat(exists("small")).isFalse();

        r = post(
                new Form()
                        .field("key", "large")
                        .condition("[\"content-length-range\", 0, 20]")
                        .signed(),
                "f",
                new byte[21]);
        assertThat(code(r)).isEqualTo("EntityTooLarge");
        assertThat(exists("large")).isFalse();

        // beyond the buffered head: refused by the stream, before the store commits
        r = post(
                new Form()
                        .field("key", "streamed-large")
                        .condition("[\"content-length-range\", 0, 1500000]")
                        .signed(),
                "f",
                new byte[2_000_000]);
        assertThat(code(r)).isEqualTo("EntityTooLarge");
        assertThat(exists("streamed-large")).isFalse();
    }

    @Test
    void fieldsAfterTheFile_areIgnored_andTheConnectionKeepsWorking() throws Exception {
        Map<String, String> f = new Form().field("key", "after").signed();
        HttpResponse<String> r =
                post("/" + BUCKET, body(f, "f", new byte[] {1}, Map.of("x-amz-meta-late", "1", "submit", "Upload")));
        assertThat(r.statusCode()).isEqualTo(204);
        assertThat(SERVER.s3().headObject(b -> b.bucket(BUCKET).key("after")).metadata())
                .doesNotContainKey("late");
        r = post(new Form().field("key", "after2").signed(), "f", new byte[] {2});
        assertThat(r.statusCode()).isEqualTo(204);
    }

    @Test
    void authentication_failures() throws Exception {
        Form wrong = new Form().field("key", "bad-sig");
        wrong.secret = "not-the-secret";
        HttpResponse<String> r = post(wrong.signed(), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(code(r)).isEqualTo("SignatureDoesNotMatch");

        Form unknown = new Form().field("key", "bad-ak");
        unknown.accessKey = "nobody";
        r = post(unknown.signed(), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(code(r)).isEqualTo("InvalidAccessKeyId");

        // a signed field changed after signing
        Map<String, String> tampered = new Form().field("key", "tamper").signed();
        tampered.put("policy", tampered.get("policy").replace('A', 'B'));
        r = post(tampered, "f", new byte[1]);
        assertThat(code(r)).isIn("SignatureDoesNotMatch");

        // anonymous: no policy / signature
        r = post(Map.of("key", "anon"), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(code(r)).isEqualTo("AccessDenied");

        // SigV2 form fields
        r = post(Map.of("key", "v2", "AWSAccessKeyId", "root", "policy", "e30=", "signature", "abc"), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("InvalidRequest");

        // the authorizer is asked for the key the form names
        r = post(new Form().field("key", "denied/x").signed(), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(code(r)).isEqualTo("AccessDenied");

        // Veeam's SOSAPI objects are read-only, also when the key comes from a form
        r = post(
                new Form()
                        .field("key", dev.appliance.s3.api.sosapi.SosApi.SYSTEM_XML)
                        .signed(),
                "f",
                new byte[] {'<'});
        assertThat(r.statusCode()).as(r.body()).isGreaterThanOrEqualTo(400);
        assertThat(exists(dev.appliance.s3.api.sosapi.SosApi.SYSTEM_XML)).isFalse();

        for (String k : List.of("bad-sig", "bad-ak", "tamper", "anon", "v2")) {
            assertThat(exists(k)).as(k).isFalse();
        }
        assertThat(catchThrowableOfType(NoSuchKeyException.class, () -> SERVER.s3()
                        .headObject(b -> b.bucket(BUCKET).key("denied/x"))))
                .isNotNull();
    }

    @Test
    void policy_failures_areAccessDeniedWithS3sMessages() throws Exception {
        Form expired = new Form().field("key", "expired");
        expired.expiration = Instant.now().minusSeconds(1);
        HttpResponse<String> r = post(expired.signed(), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(message(r)).isEqualTo("Invalid according to Policy: Policy expired.");

        Form extra = new Form().field("key", "extra").field("x-amz-meta-a", "1");
        extra.coverAll = false;
        extra.condition("[\"starts-with\", \"$key\", \"\"]");
        r = post(extra.signed(), "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(message(r)).isEqualTo("Invalid according to Policy: Extra input fields: x-amz-meta-a");

        Form failed = new Form().field("key", "other/k");
        failed.coverAll = false;
        failed.condition("[\"starts-with\", \"$Key\", \"uploads/\"]");
        r = post(failed.signed(), "f", new byte[1]);
        assertThat(message(r))
                .isEqualTo("Invalid according to Policy: Policy Condition failed: [\"starts-with\", \"$Key\", "
                        + "\"uploads/\"]");

        // the policy names another bucket
        Form bucket = new Form().field("key", "k");
        bucket.coverAll = false;
        bucket.condition("[\"starts-with\", \"$key\", \"\"]").condition("{\"bucket\": \"elsewhere\"}");
        r = post(bucket.signed(), "f", new byte[1]);
        assertThat(message(r)).contains("Policy Condition failed: [\"eq\", \"$bucket\", \"elsewhere\"]");

        // not a JSON policy, but correctly signed
        Map<String, String> garbage = new Form().field("key", "garbage").signed();
        String b64 = Base64.getEncoder().encodeToString("{nope".getBytes(StandardCharsets.UTF_8));
        garbage.put("policy", b64);
        String date = garbage.get("x-amz-credential").split("/")[1];
        garbage.put(
                "x-amz-signature",
                SigV4.signature(SigV4.signingKey(S3TestServer.SECRET_KEY, date, "us-east-1", "s3"), b64));
        r = post(garbage, "f", new byte[1]);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("InvalidPolicyDocument");
        for (String k : List.of("expired", "extra", "other/k", "k", "garbage")) {
            assertThat(exists(k)).as(k).isFalse();
        }
    }

    @Test
    void malformedForms() throws Exception {
        // no file part
        Map<String, String> f = new Form().field("key", "nofile").signed();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : f.entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "--").getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> r = post("/" + BUCKET, out.toByteArray());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(message(r)).isEqualTo("POST requires exactly one file upload per request.");

        // no key field
        r = post(new Form().signed(), "f", new byte[1]);
        assertThat(code(r)).isEqualTo("InvalidArgument");
        assertThat(message(r)).startsWith("Bucket POST must contain a field named 'key'.");

        // not multipart at all (header-signed requests only reach the operation with real credentials)
        r = post("/" + BUCKET, "garbage".getBytes(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("MalformedPOSTRequest");

        // fields before the file beyond 20 KiB
        Map<String, String> big =
                new LinkedHashMap<>(new Form().field("key", "big-fields").signed());
        big.put("x-ignore-padding", "p".repeat(25_000));
        r = post(big, "f", new byte[1]);
        assertThat(code(r)).isEqualTo("MaxPostPreDataLengthExceededError");

        // truncated in the middle of the file: nothing stored
        byte[] whole = body(new Form().field("key", "truncated").signed(), "f", new byte[5000], Map.of());
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 3000);
        r = post("/" + BUCKET, cut);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("MalformedPOSTRequest");
        assertThat(exists("truncated")).isFalse();

        // public ACLs are refused as on PUT
        r = post(new Form().field("key", "public").field("acl", "public-read").signed(), "f", new byte[1]);
        assertThat(code(r)).isEqualTo("AccessControlListNotSupported");
        assertThat(exists("public")).isFalse();
    }

    @Test
    void formPost_toAnotherSubresource_isNotAuthenticatedByTheForm() throws Exception {
        Map<String, String> f = new Form().field("key", "sub").signed();
        HttpResponse<String> r = post("/" + BUCKET + "?delete", body(f, "f", new byte[1], Map.of()));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(code(r)).isEqualTo("AccessDenied");
        // to an object path: not a form post either (header auth required)
        r = post("/" + BUCKET + "/obj", body(f, "f", new byte[1], Map.of()));
        assertThat(r.statusCode()).isEqualTo(403);
    }

    @Test
    void contentMd5Field_isChecked() throws Exception {
        byte[] data = "abc".getBytes(StandardCharsets.UTF_8);
        String good = Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("MD5").digest(data));
        HttpResponse<String> r = post(
                new Form().field("key", "md5-ok").field("Content-MD5", good).signed(), "f", data);
        assertThat(r.statusCode()).isEqualTo(204);
        String bad = Base64.getEncoder().encodeToString(new byte[16]);
        r = post(new Form().field("key", "md5-bad").field("Content-MD5", bad).signed(), "f", data);
        assertThat(code(r)).isEqualTo("BadDigest");
        assertThat(exists("md5-bad")).isFalse();
    }

    @Test
    void objectLockFields_lockTheUpload_withAnIntegrityFieldAndALockBucket() throws Exception {
        byte[] data = "immutable form upload".getBytes(StandardCharsets.UTF_8);
        String md5 = Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("MD5").digest(data));
        String until = Instant.now()
                .plusSeconds(86_400)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();
        Form form = new Form()
                .field("key", "locked-by-form")
                .field("Content-MD5", md5)
                .field("x-amz-object-lock-mode", "COMPLIANCE")
                .field("x-amz-object-lock-retain-until-date", until)
                .field("x-amz-object-lock-legal-hold", "ON");
        form.bucket = LOCK_BUCKET;
        HttpResponse<String> r = post("/" + LOCK_BUCKET, body(form.signed(), "f", data, Map.of()));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        var head = SERVER.s3().headObject(b -> b.bucket(LOCK_BUCKET).key("locked-by-form"));
        assertThat(head.objectLockModeAsString()).isEqualTo("COMPLIANCE");
        assertThat(head.objectLockRetainUntilDate()).isEqualTo(Instant.parse(until));
        assertThat(head.objectLockLegalHoldStatusAsString()).isEqualTo("ON");
        var deleteVersion =
                catchThrowableOfType(software.amazon.awssdk.services.s3.model.S3Exception.class, () -> SERVER.s3()
                        .deleteObject(
                                b -> b.bucket(LOCK_BUCKET).key("locked-by-form").versionId(head.versionId())));
        assertThat(deleteVersion.statusCode()).isEqualTo(403);

        // Without Content-MD5 or a checksum field: refused, as S3 refuses a lock PUT without one.
        Form noDigest = new Form()
                .field("key", "locked-no-digest")
                .field("x-amz-object-lock-mode", "GOVERNANCE")
                .field("x-amz-object-lock-retain-until-date", until);
        noDigest.bucket = LOCK_BUCKET;
        r = post("/" + LOCK_BUCKET, body(noDigest.signed(), "f", data, Map.of()));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(code(r)).isEqualTo("InvalidRequest");
        assertThat(message(r)).contains("Content-MD5 OR x-amz-checksum-");

        // Into a bucket without Object Lock: refused, nothing stored.
        r = post(
                new Form()
                        .field("key", "not-lockable")
                        .field("Content-MD5", md5)
                        .field("x-amz-object-lock-mode", "COMPLIANCE")
                        .field("x-amz-object-lock-retain-until-date", until)
                        .signed(),
                "f",
                data);
        assertThat(code(r)).isEqualTo("InvalidRequest");
        assertThat(message(r)).isEqualTo("Bucket is missing Object Lock Configuration");
        assertThat(exists("not-lockable")).isFalse();

        // A malformed mode is refused like the header of a PUT.
        Form badMode = new Form()
                .field("key", "bad-mode")
                .field("Content-MD5", md5)
                .field("x-amz-object-lock-mode", "FOREVER")
                .field("x-amz-object-lock-retain-until-date", until);
        badMode.bucket = LOCK_BUCKET;
        r = post("/" + LOCK_BUCKET, body(badMode.signed(), "f", data, Map.of()));
        assertThat(code(r)).isEqualTo("InvalidArgument");
    }
}
