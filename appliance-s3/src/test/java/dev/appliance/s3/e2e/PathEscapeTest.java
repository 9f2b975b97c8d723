package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.e2e.RawSigner.Request;
import dev.appliance.s3.e2e.RawSigner.Style;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Keys, bucket names and listing parameters that try to leave the drive directories ({@code ../}, absolute paths,
 * encoded and double-encoded variants, backslashes, NUL, overlong and invalid UTF-8, {@code .}/{@code ..} segments,
 * the drive's {@code .appliance.sys}, long segments), sent raw through every request that names a key: PUT, GET, HEAD,
 * DELETE, CopyObject (as destination and as {@code x-amz-copy-source}), multipart uploads, DeleteObjects' XML keys,
 * POST Object's {@code key} field, and ListObjects prefixes and markers.
 *
 * <p>Each is either refused with an S3 client error, or (where S3 accepts such a key) stored inside the bucket's
 * directory and listed back exactly. Canary files outside the drives, beside them, in each drive's root and in each
 * drive's {@code .appliance.sys} must never change nor show up in a response; at the end no file may exist outside
 * the drive directories but the canaries.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PathEscapeTest {
    private static final String BUCKET = "victim";
    private static final String OTHER = "other";
    private static final String MARKER = "CANARY-" + UUID.randomUUID();
    /** What a refusal may be: the request is not valid, or names nothing (never a 5xx, never a success). */
    private static final Set<String> REFUSALS = Set.of(
            "InvalidObjectName",
            "InvalidURI",
            "KeyTooLongError",
            "InvalidBucketName",
            "NoSuchBucket",
            "NoSuchKey",
            "NoSuchUpload",
            "InvalidArgument",
            "InvalidRequest",
            "MalformedXML",
            // a key of ".." under a bucket of ".." with a bucket-only parameter: an object sub-resource not served
            "NotImplemented");

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    private static Path root;
    private static Path drivesDir;
    private static int port;
    private static S3Client s3;
    private static final Map<Path, String> canaries = new LinkedHashMap<>();
    private static final Map<Path, FileTime> canaryTimes = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        root = SERVER.root();
        drivesDir = SERVER.drives();
        port = SERVER.port();
        s3 = SERVER.s3();
        s3.createBucket(b -> b.bucket(BUCKET));
        s3.createBucket(b -> b.bucket(OTHER));
        s3.putObject(b -> b.bucket(BUCKET).key("existing"), RequestBody.fromString("existing content"));
        s3.putObject(b -> b.bucket(OTHER).key("secret-object"), RequestBody.fromString("other bucket's secret"));

        // what "../" reaches from the drives' parent, from a drive root, from a bucket, and from the bucket metadata
        canary(root.resolve("secret.txt"));
        canary(drivesDir.resolve("secret.txt"));
        for (int i = 1; i <= 4; i++) {
            Path drive = TestStore.on(drivesDir).drive(i - 1);
            canary(drive.resolve("secret.txt"));
            canary(drive.resolve(".appliance.sys").resolve("canary.json"));
            canary(drive.resolve(".appliance.sys").resolve("buckets").resolve("canary"));
        }
    }

    private static void canary(Path p) throws IOException {
        Files.writeString(p, MARKER + " " + p.getFileName());
        canaries.put(p, Files.readString(p));
        canaryTimes.put(p, Files.getLastModifiedTime(p));
    }

    @AfterEach
    void canariesAreUntouched() throws IOException {
        for (Map.Entry<Path, String> c : canaries.entrySet()) {
            assertThat(c.getKey()).as("canary").exists();
            assertThat(Files.readString(c.getKey())).isEqualTo(c.getValue());
            assertThat(Files.getLastModifiedTime(c.getKey())).isEqualTo(canaryTimes.get(c.getKey()));
        }
    }

    // ---- hostile keys -------------------------------------------------------------------------------------------

    /**
     * A key as sent in the URL path ({@code raw}, percent-encoded as on the wire) and as text ({@code key}, null when
     * it does not decode); {@code accepted} when S3 stores such a key (it must then be stored inside the bucket).
     */
    record KeyCase(String name, String raw, String key, boolean accepted) {
        @Override
        public String toString() {
            return name + " [" + raw + "]";
        }
    }

    static Stream<KeyCase> keys() {
        String longSegment = "a".repeat(300);
        String tooLong = "abcdefghi/".repeat(103);
        return Stream.of(
                new KeyCase("dot-dot slash", "../secret.txt", "../secret.txt", false),
                new KeyCase("nested escape", "a/../../secret.txt", "a/../../secret.txt", false),
                new KeyCase("escape to the drives' parent", "../../../secret.txt", "../../../secret.txt", false),
                new KeyCase("absolute path", "/etc/passwd", "/etc/passwd", false),
                new KeyCase("encoded dot-dot-slash", "%2e%2e%2fsecret.txt", "../secret.txt", false),
                new KeyCase("upper-case encoded, twice", "%2E%2E%2F%2E%2E%2Fsecret.txt", "../../secret.txt", false),
                new KeyCase("half encoded", "..%2fsecret.txt", "../secret.txt", false),
                new KeyCase("encoded leading slash", "%2F..%2Fsecret.txt", "/../secret.txt", false),
                new KeyCase("double encoded (a literal key)", "%252e%252e%252fsecret.txt", "%2e%2e%2fsecret.txt", true),
                new KeyCase("backslashes (a literal key)", "..%5C..%5Csecret.txt", "..\\..\\secret.txt", true),
                new KeyCase("raw backslashes (a literal key)", "..\\..\\secret.txt", "..\\..\\secret.txt", true),
                new KeyCase("NUL", "a%00b", "a\0b", false),
                new KeyCase("NUL before an escape", "%00/../secret.txt", "\0/../secret.txt", false),
                new KeyCase("overlong UTF-8 dots", "%C0%AE%C0%AE%2Fsecret.txt", null, false),
                new KeyCase("overlong UTF-8 slash", "..%C0%AFsecret.txt", null, false),
                new KeyCase("invalid UTF-8", "%FF%FEsecret.txt", null, false),
                new KeyCase("encoded surrogate (CESU-8)", "%ED%A0%80x", null, false),
                new KeyCase("bad percent escape", "%2G%2e", null, false),
                new KeyCase("dot", ".", ".", false),
                new KeyCase("dot-dot", "..", "..", false),
                new KeyCase("dot segment", "a/./b", "a/./b", false),
                new KeyCase("trailing dot-dot", "a/..", "a/..", false),
                new KeyCase("dot-dot folder", "../", "../", false),
                new KeyCase("empty segment", "a//b", "a//b", false),
                new KeyCase(
                        "system dir escape", "../.appliance.sys/format.json", "../.appliance.sys/format.json", false),
                new KeyCase(
                        "system dir name (a literal key)",
                        ".appliance.sys/format.json",
                        ".appliance.sys/format.json",
                        true),
                new KeyCase("hidden name", ".hidden", ".hidden", true),
                new KeyCase("three dots", ".../secret.txt", ".../secret.txt", true),
                new KeyCase("dots inside names", "a..b/..c/d..", "a..b/..c/d..", true),
                new KeyCase("one-dot-leader look-alike", "%E2%80%A4%E2%80%A4/x", "\u2024\u2024/x", true),
                new KeyCase("full-width solidus", "..%EF%BC%8Fsecret.txt", "..\uFF0Fsecret.txt", true),
                new KeyCase("drive-letter path", "C:%5Cwindows%5Csystem32", "C:\\windows\\system32", true),
                new KeyCase("reserved directory suffix", "a__XLDIR__", "a__XLDIR__", false),
                new KeyCase("segment over 255 bytes", longSegment, longSegment, false),
                new KeyCase("key over 1024 bytes", tooLong, tooLong, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    @Order(1)
    void hostileKey_isRefusedOrStoredInsideTheBucket(KeyCase c) throws Exception {
        byte[] content = ("content of " + c.name()).getBytes(StandardCharsets.UTF_8);
        String path = "/" + BUCKET + "/" + c.raw();

        RawHttp put = send(new Request("PUT", path, "", Map.of(), content));
        if (c.accepted()) {
            assertThat(put.status()).as("PUT: %s", put.body()).isEqualTo(200);
            assertThat(listKeys(BUCKET, "")).contains(c.key());
            RawHttp get = send(new Request("GET", path, ""));
            assertThat(get.status()).isEqualTo(200);
            assertThat(get.body()).isEqualTo(new String(content, StandardCharsets.UTF_8));
            assertStoredInside(BUCKET);
            // the same key through the other ways of naming one
            RawHttp copy = send(new Request(
                    "PUT", "/" + BUCKET + "/copy-target", "", Map.of("x-amz-copy-source", path), new byte[0]));
            assertThat(copy.status()).as("copy: %s", copy.body()).isEqualTo(200);
            assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("copy-target"))
                            .asByteArray())
                    .isEqualTo(content);
            s3.deleteObject(b -> b.bucket(BUCKET).key("copy-target"));
            assertThat(deleteObjects(c.key())).contains("<Deleted><Key>");
            assertThat(listKeys(BUCKET, "")).doesNotContain(c.key());
            assertThat(postForm(c.key(), content).status()).isEqualTo(204);
            assertThat(listKeys(BUCKET, "")).contains(c.key());
            assertThat(send(new Request("DELETE", path, "")).status()).isEqualTo(204);
            assertThat(listKeys(BUCKET, "")).doesNotContain(c.key());
            return;
        }
        refused("PUT", put);
        refused("GET", send(new Request("GET", path, "")));
        assertThat(send(new Request("HEAD", path, "")).status()).as("HEAD").isBetween(400, 499);
        refused("DELETE", send(new Request("DELETE", path, "")));
        refused(
                "CopyObject to",
                send(new Request(
                        "PUT", path, "", Map.of("x-amz-copy-source", "/" + BUCKET + "/existing"), new byte[0])));
        refused(
                "CopyObject from",
                send(new Request("PUT", "/" + BUCKET + "/copied", "", Map.of("x-amz-copy-source", path), new byte[0])));
        refused("CreateMultipartUpload", send(new Request("POST", path, "uploads")));
        refused(
                "UploadPart",
                send(new Request("PUT", path, "partNumber=1&uploadId=" + UUID.randomUUID(), Map.of(), content)));
        if (c.key() != null) {
            String result = deleteObjects(c.key());
            assertThat(result).as("DeleteObjects").doesNotContain("<Deleted>");
            assertThat(XmlText.all(result, "Code")).as(result).isNotEmpty().allMatch(REFUSALS::contains);
            RawHttp post = postForm(c.key(), content);
            refused("POST Object", post);
        }
        assertThat(listKeys(BUCKET, "")).containsExactly("existing");
        assertThat(listKeys(OTHER, "")).containsExactly("secret-object");
    }

    /** POST Object's {@code ${filename}}: the browser's file name becomes part of the key, and is refused the same. */
    @ParameterizedTest(name = "POST Object file name {0}")
    @MethodSource("fileNames")
    @Order(1)
    void hostileFileNameInPostObjectKey_isRefused(String filename) throws Exception {
        refused("POST Object", postForm("uploads/${filename}", filename, "x".getBytes(StandardCharsets.UTF_8)));
        assertThat(listKeys(BUCKET, "")).containsExactly("existing");
    }

    static Stream<String> fileNames() {
        return Stream.of("../../secret.txt", "../../../../secret.txt", "a/../../x", "./x", "..", "x\0y");
    }

    /**
     * A key with a segment named like the files of an object's directory ({@code parent/xl.meta} is where the key
     * {@code parent} keeps its metadata): refused or stored apart, in either order of writing, never a server error,
     * a phantom key in the listing, or damage to the other key.
     */
    @ParameterizedTest(name = "{0}, parent written first: {1}")
    @MethodSource("internalNames")
    @Order(2)
    void keyNamedLikeTheEnginesFiles_leavesOtherKeysIntact(String name, boolean parentFirst) throws Exception {
        String parent = "parent-" + (parentFirst ? "first-" : "second-") + Math.abs(name.hashCode());
        String full = parent + "/" + name;
        if (parentFirst) {
            s3.putObject(b -> b.bucket(BUCKET).key(parent), RequestBody.fromString("the parent"));
        }
        RawHttp put = send(new Request("PUT", "/" + BUCKET + "/" + full, "", Map.of(), "child".getBytes()));
        if (put.status() != 200) {
            refused("PUT " + full, put);
            // nothing appeared: no phantom "parent" from a half-made directory
            assertThat(listKeys(BUCKET, parent)).isEqualTo(parentFirst ? List.of(parent) : List.of());
        }
        if (!parentFirst) {
            s3.putObject(b -> b.bucket(BUCKET).key(parent), RequestBody.fromString("the parent"));
        }
        assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(parent)).asUtf8String())
                .isEqualTo("the parent");
        if (put.status() == 200) {
            assertThat(listKeys(BUCKET, parent)).containsExactly(parent, full);
            assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(full)).asUtf8String())
                    .isEqualTo("child");
            s3.deleteObject(b -> b.bucket(BUCKET).key(full));
        }
        assertThat(listKeys(BUCKET, parent)).containsExactly(parent);
        s3.deleteObject(b -> b.bucket(BUCKET).key(parent));
        assertThat(listKeys(BUCKET, "")).containsExactly("existing");
        assertStoredInside(BUCKET);
    }

    static Stream<Arguments> internalNames() {
        List<Arguments> out = new ArrayList<>();
        for (String name : List.of("xl.meta", "xl.meta.archive", "xl.meta/deeper", "part.1", "a__XLDIR__/x")) {
            out.add(Arguments.of(name, true));
            out.add(Arguments.of(name, false));
        }
        return out.stream();
    }

    // ---- hostile bucket names -----------------------------------------------------------------------------------

    static Stream<String> buckets() {
        return Stream.of(
                "..",
                "%2E%2E",
                "%2e%2e%2f%2e%2e",
                ".appliance.sys",
                "%2Eappliance.sys",
                "..%5C..",
                "a%00b",
                "%C0%AE%C0%AE",
                "Secret",
                "-bucket",
                "a".repeat(64),
                "127.0.0.1",
                "xn--bucket");
    }

    @ParameterizedTest(name = "bucket {0}")
    @MethodSource("buckets")
    @Order(3)
    void hostileBucketName_isRefusedEverywhere(String raw) throws Exception {
        String b = "/" + raw;
        refused("CreateBucket", send(new Request("PUT", b, "")));
        refused("HeadBucket-like GET", send(new Request("GET", b, "list-type=2")));
        refused("PutObject", send(new Request("PUT", b + "/key", "", Map.of(), "x".getBytes())));
        refused("GetObject", send(new Request("GET", b + "/secret.txt", "")));
        refused("DeleteBucket", send(new Request("DELETE", b, "")));
        refused(
                "CopyObject from",
                send(new Request(
                        "PUT",
                        "/" + BUCKET + "/copied",
                        "",
                        Map.of("x-amz-copy-source", b + "/secret.txt"),
                        new byte[0])));
        assertThat(s3.listBuckets().buckets()).extracting(x -> x.name()).containsExactly(OTHER, BUCKET);
    }

    // ---- listing parameters ---------------------------------------------------------------------------------------

    static Stream<String> listingValues() {
        return Stream.of(
                "..%2F",
                "..%2F..%2F",
                "..%2F" + OTHER + "%2F",
                "%2F",
                "%2Fetc%2F",
                "..",
                ".appliance.sys%2F",
                "..%2F.appliance.sys%2F",
                "%00",
                "a%00%2F..%2F",
                "%5C..%5C",
                "%C0%AE%C0%AE%2F");
    }

    @ParameterizedTest(name = "listing with {0}")
    @MethodSource("listingValues")
    @Order(4)
    void hostileListingParameters_listNothingOutsideTheBucket(String raw) throws Exception {
        for (String query : List.of(
                "list-type=2&prefix=" + raw,
                "list-type=2&start-after=" + raw,
                "list-type=2&delimiter=%2F&prefix=" + raw,
                "marker=" + raw,
                "prefix=" + raw + "&delimiter=%2F",
                "versions&prefix=" + raw,
                "versions&key-marker=" + raw,
                "uploads&prefix=" + raw)) {
            RawHttp r = send(new Request("GET", "/" + BUCKET, query));
            if (r.status() == 200) {
                // only keys of this bucket may appear: "existing", or nothing
                for (String k : XmlText.all(r.body(), "Key")) {
                    assertThat(k).as(query).isEqualTo("existing");
                }
                assertThat(r.body()).as(query).doesNotContain("secret-object", MARKER, "format.json", "xl.meta");
            } else {
                refused("GET ?" + query, r);
            }
        }
    }

    // ---- the drive tree at the end ------------------------------------------------------------------------------

    @Test
    @Order(5)
    void nothingExistsOutsideTheDrivesButTheCanaries() throws IOException {
        List<Path> stray = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return drivesDir.relativize(dir).toString().matches("drive\\d")
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (!canaries.containsKey(file)) {
                    stray.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertThat(stray).as("files outside the drive directories").isEmpty();
        assertStoredInside(BUCKET);
        assertStoredInside(OTHER);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static RawHttp send(Request r) throws Exception {
        RawHttp resp = RawSigner.send(port, Style.UNSIGNED_PAYLOAD, r);
        assertThat(resp.body()).as("%s %s", r.method(), r.path()).doesNotContain(MARKER);
        assertThat(resp.status() < 500 || resp.status() == 501)
                .as("no server error for %s %s: %s", r.method(), r.path(), resp.body())
                .isTrue();
        return resp;
    }

    private static void refused(String what, RawHttp r) {
        assertThat(r.status()).as("%s: %s", what, r.body()).isBetween(400, 501).isNotEqualTo(500);
        assertThat(XmlText.one(r.body(), "Code")).as(what).isIn(REFUSALS);
    }

    /** Every key of the bucket, decoded from {@code encoding-type=url} (so NUL or controls would show as they are). */
    private static List<String> listKeys(String bucket, String prefix) throws Exception {
        RawHttp r = send(new Request("GET", "/" + bucket, "list-type=2&encoding-type=url&prefix=" + encode(prefix)));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<String> keys = new ArrayList<>();
        for (String k : XmlText.all(r.body(), "Key")) {
            keys.add(URLDecoder.decode(k, StandardCharsets.UTF_8));
        }
        return keys;
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** DeleteObjects of one key; answers the result document. */
    private static String deleteObjects(String key) throws Exception {
        String xml = "<Delete><Object><Key>" + xmlEscape(key) + "</Key></Object></Delete>";
        byte[] body = xml.getBytes(StandardCharsets.UTF_8);
        RawHttp r = send(new Request("POST", "/" + BUCKET, "delete", Map.of("content-md5", RawSigner.md5(body)), body));
        assertThat(r.status()).as(r.body()).isIn(200, 400);
        return r.body();
    }

    private static String xmlEscape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** A POST Object form for {@code key}, signed with a policy that allows any key in the bucket. */
    private static RawHttp postForm(String key, byte[] file) throws Exception {
        return postForm(key, "f", file);
    }

    /** As above, with the file part's file name ({@code ${filename}} in the key is replaced by it). */
    private static RawHttp postForm(String key, String filename, byte[] file) throws Exception {
        Instant now = Instant.now();
        String date =
                DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC).format(now);
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(now);
        String credential = S3TestServer.ACCESS_KEY + "/" + date + "/us-east-1/s3/aws4_request";
        String policy = "{\"expiration\": \"" + now.plusSeconds(600).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                + "\", \"conditions\": [{\"bucket\": \"" + BUCKET + "\"}, [\"starts-with\", \"$key\", \"\"], "
                + "{\"x-amz-algorithm\": \"AWS4-HMAC-SHA256\"}, {\"x-amz-credential\": \"" + credential + "\"}, "
                + "{\"x-amz-date\": \"" + amzDate + "\"}]}";
        String b64 = Base64.getEncoder().encodeToString(policy.getBytes(StandardCharsets.UTF_8));
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("key", key);
        fields.put("x-amz-algorithm", "AWS4-HMAC-SHA256");
        fields.put("x-amz-credential", credential);
        fields.put("x-amz-date", amzDate);
        fields.put("policy", b64);
        fields.put(
                "x-amz-signature",
                SigV4.signature(SigV4.signingKey(S3TestServer.SECRET_KEY, date, "us-east-1", "s3"), b64));
        String boundary = "escape-boundary-31ab";
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        fields.forEach((k, v) -> body.writeBytes(
                ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + k + "\"\r\n\r\n" + v + "\r\n")
                        .getBytes(StandardCharsets.UTF_8)));
        body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                        + "\"\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.writeBytes(file);
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(("POST /" + BUCKET + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                        + "\r\nContent-Type: multipart/form-data; boundary=" + boundary + "\r\nContent-Length: "
                        + body.size() + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        req.writeBytes(body.toByteArray());
        RawHttp r = RawSigner.exchange(port, req.toByteArray(), false);
        assertThat(r.body()).doesNotContain(MARKER);
        assertThat(r.status()).as(r.body()).isLessThan(500);
        return r;
    }

    /** Every file of {@code bucket} on every drive lies inside {@code <drive>/<bucket>/} once resolved. */
    private static void assertStoredInside(String bucket) throws IOException {
        for (int i = 1; i <= 4; i++) {
            Path bucketDir =
                    TestStore.on(drivesDir).drive(i - 1).resolve(bucket).toRealPath();
            try (Stream<Path> all = Files.walk(bucketDir)) {
                for (Path p : (Iterable<Path>) all::iterator) {
                    assertThat(p.toRealPath().startsWith(bucketDir))
                            .as("%s inside %s", p, bucketDir)
                            .isTrue();
                    assertThat(Files.isSymbolicLink(p))
                            .as("symbolic link %s", p)
                            .isFalse();
                }
            }
        }
    }
}
