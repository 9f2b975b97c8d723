package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object browser's routes ({@link ObjectsController}) through a real console over a real store with its identity
 * state: listing by prefix in pages with delete markers, a key's versions with their Object Lock state, download of
 * the exact bytes, upload read back through the engine (with the bucket's default retention), deletes that Object
 * Lock refuses with the reason while the data stays, and the S3 decisions: a bucket-scoped Veeam user reaches their
 * bucket only, the auditor reads but changes nothing.
 */
class ObjectsResourceTest {
    private static final String SECRET = "root-secret-for-the-objects-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Versioned, no lock: folders, keys and a deleted key. */
    private static final String BROWSE = "browse";
    /** Object Lock, no default retention: versions locked one by one. */
    private static final String VAULT = "vault";
    /** Object Lock with a default COMPLIANCE retention of one day. */
    private static final String DEFAULTS = "defaults";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;
    private static NewAccessKey veeam;
    private static NewAccessKey auditor;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket(BROWSE);
        store.setVersioning(BROWSE, VersioningState.ENABLED);
        for (String key : List.of("a/1.txt", "a/2.txt", "b/c/3.txt", "top1", "top2", "top3", "gone")) {
            put(BROWSE, key, "data of " + key);
        }
        store.deleteObject(BROWSE, "gone", null);
        store.makeBucket(VAULT, true);
        store.makeBucket(DEFAULTS, true);
        store.setObjectLockConfiguration(DEFAULTS, new ObjectLockConfiguration(RetentionMode.COMPLIANCE, 1, 0));

        IdentityStore identity = store.identity();
        identity.createUser("veeam-one");
        var policy = identity.createPolicy(
                "veeam-veeam-one",
                BuiltinPolicies.veeamRepository(List.of(VAULT)).document().json());
        identity.attachUserPolicy("veeam-one", policy.arn());
        veeam = identity.createAccessKey("veeam-one");
        identity.createUser("watcher");
        identity.attachUserPolicy("watcher", "arn:aws:iam::aws:policy/auditor");
        auditor = identity.createAccessKey("watcher");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static ObjectInfo put(String bucket, String key, String data) throws Exception {
        return put(bucket, key, data.getBytes(StandardCharsets.UTF_8));
    }

    private static ObjectInfo put(String bucket, String key, byte[] bytes) throws Exception {
        return store.putObject(bucket, key, PutRequest.of(bytes.length), new ByteArrayInputStream(bytes));
    }

    private static String objects(String bucket) {
        return "/api/v1/admin/buckets/" + bucket + "/objects";
    }

    private static String q(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static HttpResponse<String> root(String method, String pathAndQuery) throws Exception {
        return app.signed(method, pathAndQuery, null);
    }

    private static HttpResponse<String> as(NewAccessKey key, String method, String pathAndQuery) throws Exception {
        return app.sendAs(method, pathAndQuery, null, key.key().accessKeyId(), key.secretAccessKey());
    }

    private static byte[] read(String bucket, String key, String versionId) throws Exception {
        try (ObjectReader reader = store.getObject(bucket, key, versionId, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            reader.transferTo(out);
            return out.toByteArray();
        }
    }

    private static List<String> texts(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(field == null ? n.asText() : n.get(field).asText()));
        return out;
    }

    @Test
    void listsFoldersAndKeysByPrefix_inPages_withDeletedKeysAsDeleteMarkers() throws Exception {
        JsonNode first = ok(root("GET", objects(BROWSE) + "?delimiter=/&limit=2"), 200);
        assertThat(texts(first.get("prefixes"), null)).containsExactly("a/", "b/");
        assertThat(first.get("objects")).isEmpty();
        assertThat(first.get("truncated").asBoolean()).isTrue();
        assertThat(first.get("nextMarker").asText()).isEqualTo("b/");

        JsonNode second = ok(root("GET", objects(BROWSE) + "?delimiter=/&limit=2&marker=b%2F"), 200);
        assertThat(second.get("prefixes")).isEmpty();
        assertThat(texts(second.get("objects"), "key")).containsExactly("gone", "top1");
        JsonNode gone = second.get("objects").get(0);
        assertThat(gone.get("deleteMarker").asBoolean()).isTrue();
        assertThat(gone.get("etag").isNull()).isTrue();
        JsonNode top1 = second.get("objects").get(1);
        assertThat(top1.get("deleteMarker").asBoolean()).isFalse();
        assertThat(top1.get("size").asLong()).isEqualTo("data of top1".length());
        assertThat(top1.get("etag").asText())
                .isEqualTo(store.headObject(BROWSE, "top1", null).etag());
        assertThat(top1.get("versionId").asText())
                .isEqualTo(store.headObject(BROWSE, "top1", null).versionId());
        assertThat(second.get("nextMarker").asText()).isEqualTo("top1");

        JsonNode last = ok(root("GET", objects(BROWSE) + "?delimiter=/&limit=2&marker=top1"), 200);
        assertThat(texts(last.get("objects"), "key")).containsExactly("top2", "top3");
        assertThat(last.get("truncated").asBoolean()).isFalse();
        assertThat(last.get("nextMarker").isNull()).isTrue();

        JsonNode folder = ok(root("GET", objects(BROWSE) + "?prefix=a%2F"), 200);
        assertThat(texts(folder.get("objects"), "key")).containsExactly("a/1.txt", "a/2.txt");
        JsonNode nested = ok(root("GET", objects(BROWSE) + "?prefix=b%2F"), 200);
        assertThat(texts(nested.get("prefixes"), null)).containsExactly("b/c/");
        JsonNode flat = ok(root("GET", objects(BROWSE) + "?delimiter=&limit=1000"), 200);
        assertThat(texts(flat.get("objects"), "key"))
                .containsExactly("a/1.txt", "a/2.txt", "b/c/3.txt", "gone", "top1", "top2", "top3");

        problem(root("GET", objects(BROWSE) + "?limit=0"), 400, "InvalidInput", "limit");
        problem(root("GET", objects(BROWSE) + "?limit=1001"), 400, "InvalidInput", "limit");
        problem(root("GET", objects(BROWSE) + "?limit=many"), 400, "InvalidInput", "limit");
        problem(root("GET", objects(BROWSE) + "?delimiter=-"), 400, "InvalidInput", "delimiter");
        problem(root("GET", objects("no-such-bucket")), 404, "NoSuchBucket", "bucket");
        problem(root("GET", objects("Bad_Name")), 400, "InvalidInput", "bucket");
    }

    @Test
    void aKeysVersions_showDeleteMarkers_retentionAndLegalHold() throws Exception {
        ObjectInfo held = put(VAULT, "v/report.bin", "first");
        store.putObjectLegalHold(VAULT, "v/report.bin", held.versionId(), true);
        ObjectInfo kept = put(VAULT, "v/report.bin", "second");
        Instant until = store.retentionNow().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        store.putObjectRetention(
                VAULT, "v/report.bin", kept.versionId(), new Retention(RetentionMode.COMPLIANCE, until), false);
        String marker = store.deleteObject(VAULT, "v/report.bin", null).versionId();

        JsonNode page = ok(root("GET", objects(VAULT) + "/versions?key=" + q("v/report.bin")), 200);
        assertThat(page.get("key").asText()).isEqualTo("v/report.bin");
        JsonNode versions = page.get("versions");
        assertThat(texts(versions, "versionId")).containsExactly(marker, kept.versionId(), held.versionId());
        JsonNode dm = versions.get(0);
        assertThat(dm.get("latest").asBoolean()).isTrue();
        assertThat(dm.get("deleteMarker").asBoolean()).isTrue();
        JsonNode compliance = versions.get(1);
        assertThat(compliance.get("latest").asBoolean()).isFalse();
        assertThat(compliance.get("retentionMode").asText()).isEqualTo("COMPLIANCE");
        assertThat(compliance.get("retainUntil").asText()).isEqualTo(ObjectLock.format(until));
        assertThat(compliance.get("retentionActive").asBoolean()).isTrue();
        assertThat(compliance.get("legalHold").asBoolean()).isFalse();
        assertThat(compliance.get("size").asLong()).isEqualTo(6);
        JsonNode hold = versions.get(2);
        assertThat(hold.get("legalHold").asBoolean()).isTrue();
        assertThat(hold.get("retentionMode").isNull()).isTrue();

        // paged one by one, resuming after the marker's version
        JsonNode one = ok(root("GET", objects(VAULT) + "/versions?key=" + q("v/report.bin") + "&limit=2"), 200);
        assertThat(one.get("truncated").asBoolean()).isTrue();
        assertThat(one.get("nextVersionIdMarker").asText()).isEqualTo(kept.versionId());
        JsonNode rest = ok(
                root(
                        "GET",
                        objects(VAULT) + "/versions?key=" + q("v/report.bin") + "&limit=2&versionIdMarker="
                                + kept.versionId()),
                200);
        assertThat(texts(rest.get("versions"), "versionId")).containsExactly(held.versionId());
        assertThat(rest.get("truncated").asBoolean()).isFalse();

        problem(root("GET", objects(VAULT) + "/versions?key=" + q("no/such")), 404, "NoSuchEntity", "key");
        problem(root("GET", objects(VAULT) + "/versions"), 400, "InvalidInput", "key");
        problem(root("GET", objects(VAULT) + "/versions?key=" + q("a/../b")), 400, "InvalidInput", "key");
        problem(root("GET", objects(VAULT) + "/versions?key=x&key=y"), 400, "InvalidInput", "key");
    }

    @Test
    void download_streamsTheExactBytesOfTheVersion_asAnAttachment() throws Exception {
        byte[] big = new byte[3 * 1024 * 1024 + 17];
        new Random(15).nextBytes(big);
        String key = "dl/we\"ird ü;name.bin";
        ObjectInfo old = put(BROWSE, key, big);
        put(BROWSE, key, "newer");

        HttpResponse<byte[]> latest = app.bytesAs(
                "GET", objects(BROWSE) + "/content?key=" + q(key), null, null, ConsoleTestAppliance.ACCESS_KEY, SECRET);
        assertThat(latest.statusCode()).isEqualTo(200);
        assertThat(new String(latest.body(), StandardCharsets.UTF_8)).isEqualTo("newer");
        assertThat(latest.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
        assertThat(latest.headers().firstValue("Content-Disposition"))
                .hasValue("attachment; filename=\"we_ird __name.bin\"; filename*=UTF-8''we%22ird%20%C3%BC%3Bname.bin");

        HttpResponse<byte[]> version = app.bytesAs(
                "GET",
                objects(BROWSE) + "/content?key=" + q(key) + "&versionId=" + old.versionId(),
                null,
                null,
                ConsoleTestAppliance.ACCESS_KEY,
                SECRET);
        assertThat(version.statusCode()).isEqualTo(200);
        assertThat(version.body()).isEqualTo(big);
        assertThat(version.headers().firstValueAsLong("Content-Length")).hasValue(big.length);
        assertThat(version.headers().firstValue("x-amz-version-id")).hasValue(old.versionId());

        problem(root("GET", objects(BROWSE) + "/content?key=gone"), 404, "NoSuchKey", "key");
        String marker = store.listObjectVersions(BROWSE, "gone", null, null, null, 1)
                .versions()
                .getFirst()
                .versionId();
        problem(
                root("GET", objects(BROWSE) + "/content?key=gone&versionId=" + marker),
                409,
                "DeleteMarker",
                "versionId");
    }

    @Test
    void upload_writesANewVersionThroughTheEngine_withTheBucketsDefaultRetention() throws Exception {
        byte[] data = "uploaded through the console".getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> r = app.bytesAs(
                "PUT",
                objects(BROWSE) + "/content?key=" + q("up/hello.txt"),
                data,
                "text/plain",
                ConsoleTestAppliance.ACCESS_KEY,
                SECRET);
        JsonNode made = JSON.readTree(r.body());
        assertThat(r.statusCode())
                .as(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        assertThat(made.get("key").asText()).isEqualTo("up/hello.txt");
        assertThat(made.get("size").asLong()).isEqualTo(data.length);
        ObjectInfo stored = store.headObject(BROWSE, "up/hello.txt", null);
        assertThat(made.get("versionId").asText()).isEqualTo(stored.versionId());
        assertThat(stored.contentType()).isEqualTo("text/plain");
        assertThat(read(BROWSE, "up/hello.txt", null)).isEqualTo(data);

        // into a lock bucket: the default retention applies as it does to an S3 PutObject
        HttpResponse<byte[]> locked = app.bytesAs(
                "PUT",
                objects(DEFAULTS) + "/content?key=backup.vbk",
                data,
                "application/octet-stream",
                ConsoleTestAppliance.ACCESS_KEY,
                SECRET);
        assertThat(locked.statusCode()).isEqualTo(200);
        Retention retention = ObjectLock.retention(
                store.headObject(DEFAULTS, "backup.vbk", null).userMetadata());
        assertThat(retention).isNotNull();
        assertThat(retention.mode()).isEqualTo(RetentionMode.COMPLIANCE);

        // and the bucket's quota, as for an S3 PutObject
        store.setBucketSettings(DEFAULTS, new BucketSettings(1L, null, null));
        HttpResponse<byte[]> over = app.bytesAs(
                "PUT",
                objects(DEFAULTS) + "/content?key=more.vbk",
                data,
                "application/octet-stream",
                ConsoleTestAppliance.ACCESS_KEY,
                SECRET);
        assertThat(over.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(over.body()).get("code").asText()).isEqualTo("QuotaExceeded");
        store.setBucketSettings(DEFAULTS, new BucketSettings(null, null, null));
        assertThat(store.listObjectVersions(DEFAULTS, "more", null, null, null, 10)
                        .versions())
                .isEmpty();

        problem(
                app.sendAs(
                        "PUT",
                        objects(BROWSE) + "/content?key=" + q("bad//key"),
                        "{}",
                        ConsoleTestAppliance.ACCESS_KEY,
                        SECRET),
                400,
                "InvalidInput",
                "key");
    }

    /** A console session of root, as the browser holds it: the session cookie and the CSRF token to echo. */
    private record Session(String cookies, String csrf) {
        static Session ofRoot() throws Exception {
            Map<String, String> jar = new LinkedHashMap<>();
            HttpResponse<String> token = app.http.send(
                    HttpRequest.newBuilder(URI.create(console("/api/v1/session/csrf")))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            keep(jar, token);
            HttpResponse<String> login = app.http.send(
                    HttpRequest.newBuilder(URI.create(console("/api/v1/session")))
                            .header("Content-Type", "application/json")
                            .header("Cookie", cookie(jar))
                            .header("X-XSRF-TOKEN", jar.get("XSRF-TOKEN"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"accessKey\":\""
                                    + ConsoleTestAppliance.ACCESS_KEY + "\",\"secretKey\":\"" + SECRET + "\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(login.statusCode()).as(login.body()).isLessThan(300);
            keep(jar, login);
            return new Session(cookie(jar), jar.get("XSRF-TOKEN"));
        }

        HttpRequest.Builder put(String pathAndQuery) {
            return HttpRequest.newBuilder(URI.create(console(pathAndQuery)))
                    .header("Cookie", cookies)
                    .header("X-XSRF-TOKEN", csrf)
                    .header("Content-Type", "application/octet-stream");
        }

        private static void keep(Map<String, String> jar, HttpResponse<?> r) {
            for (String set : r.headers().allValues("Set-Cookie")) {
                String pair = set.split(";", 2)[0];
                jar.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }

        private static String cookie(Map<String, String> jar) {
            return String.join(
                    "; ",
                    jar.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .toList());
        }

        private static String console(String pathAndQuery) {
            return "http://127.0.0.1:" + app.console.port() + pathAndQuery;
        }
    }

    @Test
    void aSessionUploadsPastTheSignedBodyLimit_andOneOverTheCapIsRefusedBeforeItsBodyIsRead() throws Exception {
        Session session = Session.ofRoot();
        byte[] data = new byte[200 * 1024]; // over the 64 KiB a signed admin request may carry
        new Random(16).nextBytes(data);
        HttpResponse<String> made = app.http.send(
                session.put(objects(BROWSE) + "/content?key=session/blob.bin")
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(data))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
        assertThat(read(BROWSE, "session/blob.bin", null)).isEqualTo(data);

        // 64 MiB + 1 declared: refused from the headers, before any of the body is sent or read
        long over = ObjectsController.DEFAULT_MAX_UPLOAD_BYTES + 1;
        String status;
        String body;
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", app.console.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(("PUT " + objects(BROWSE) + "/content?key=session/huge.bin HTTP/1.1\r\n"
                                    + "Host: 127.0.0.1:" + app.console.port() + "\r\n"
                                    + "Cookie: " + session.cookies() + "\r\n"
                                    + "X-XSRF-TOKEN: " + session.csrf() + "\r\n"
                                    + "Content-Type: application/octet-stream\r\n"
                                    + "Content-Length: " + over + "\r\n"
                                    + "Expect: 100-continue\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            java.io.BufferedReader in = new java.io.BufferedReader(
                    new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            while (line.startsWith("HTTP/1.1 100")) { // an interim answer, if the server sends one: skip it
                while (!in.readLine().isEmpty()) {}
                line = in.readLine();
            }
            status = line;
            while (!in.readLine().isEmpty()) {} // the headers
            // the problem, whole or as the one chunk of a chunked answer
            String json = in.readLine();
            while (!json.startsWith("{")) {
                json = in.readLine();
            }
            body = json;
        }
        assertThat(status).startsWith("HTTP/1.1 413");
        JsonNode p = JSON.readTree(body);
        assertThat(p.get("code").asText()).isEqualTo("EntityTooLarge");
        assertThat(p.get("detail").asText()).contains("64 MiB");
        assertThat(store.listObjectVersions(BROWSE, "session/huge", null, null, null, 10)
                        .versions())
                .isEmpty();
    }

    @Test
    void deletingALockedVersion_isRefusedWithTheReason_andTheVersionStays() throws Exception {
        Instant until = store.retentionNow().plus(2, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        ObjectInfo compliance = put(VAULT, "d/compliance", "kept");
        store.putObjectRetention(
                VAULT, "d/compliance", compliance.versionId(), new Retention(RetentionMode.COMPLIANCE, until), false);
        ObjectInfo held = put(VAULT, "d/held", "held");
        store.putObjectLegalHold(VAULT, "d/held", held.versionId(), true);
        ObjectInfo governance = put(VAULT, "d/governance", "gov");
        store.putObjectRetention(
                VAULT, "d/governance", governance.versionId(), new Retention(RetentionMode.GOVERNANCE, until), false);

        JsonNode p = problem(
                root("DELETE", objects(VAULT) + "?key=d/compliance&versionId=" + compliance.versionId()),
                409,
                "ObjectLocked",
                "versionId");
        assertThat(p.get("detail").asText())
                .contains("compliance retention until " + ObjectLock.format(until))
                .contains("no one, the root user included");
        // root asking for the bypass changes nothing for compliance
        problem(
                root(
                        "DELETE",
                        objects(VAULT) + "?key=d/compliance&bypassGovernance=true&versionId=" + compliance.versionId()),
                409,
                "ObjectLocked",
                "versionId");
        assertThat(read(VAULT, "d/compliance", compliance.versionId())).isEqualTo("kept".getBytes());
        // audited as every admin change, refused or not, with the version it named
        JsonNode audit = ok(
                root("GET", "/api/v1/admin/audit?outcome=status-409&action=" + q("admin:DELETE " + objects(VAULT))),
                200);
        assertThat(audit.get("events"))
                .anySatisfy(e ->
                        assertThat(e.path("details").path("query").asText()).contains(compliance.versionId()));

        JsonNode h = problem(
                root("DELETE", objects(VAULT) + "?key=d/held&versionId=" + held.versionId()),
                409,
                "ObjectLocked",
                "versionId");
        assertThat(h.get("detail").asText()).contains("legal hold is on");
        assertThat(read(VAULT, "d/held", held.versionId())).isEqualTo("held".getBytes());

        JsonNode g = problem(
                root("DELETE", objects(VAULT) + "?key=d/governance&versionId=" + governance.versionId()),
                409,
                "ObjectLocked",
                "versionId");
        assertThat(g.get("detail").asText())
                .contains("governance retention until " + ObjectLock.format(until))
                .contains("s3:BypassGovernanceRetention");
        // the Veeam user asking for the bypass is not allowed it (its policy grants no bypass): refused, told why
        JsonNode v = problem(
                as(
                        veeam,
                        "DELETE",
                        objects(VAULT) + "?key=d/governance&bypassGovernance=true&versionId=" + governance.versionId()),
                409,
                "ObjectLocked",
                "versionId");
        assertThat(v.get("detail").asText()).contains("not allowed s3:BypassGovernanceRetention");
        assertThat(read(VAULT, "d/governance", governance.versionId())).isEqualTo("gov".getBytes());

        // without a version id a delete marker goes on top; the locked version stays
        JsonNode marked = ok(root("DELETE", objects(VAULT) + "?key=d/compliance"), 200);
        assertThat(marked.get("deleteMarker").asBoolean()).isTrue();
        assertThat(read(VAULT, "d/compliance", compliance.versionId())).isEqualTo("kept".getBytes());

        // root may bypass governance when it asks
        JsonNode removed = ok(
                root(
                        "DELETE",
                        objects(VAULT) + "?key=d/governance&bypassGovernance=true&versionId=" + governance.versionId()),
                200);
        assertThat(removed.get("versionId").asText()).isEqualTo(governance.versionId());
        problem(
                root("GET", objects(VAULT) + "/content?key=d/governance&versionId=" + governance.versionId()),
                404,
                "NoSuchVersion",
                "versionId");
    }

    @Test
    void aBucketScopedUser_reachesTheirBucketOnly() throws Exception {
        ObjectInfo mine = put(VAULT, "scoped/mine.txt", "mine");
        assertThat(ok(as(veeam, "GET", objects(VAULT) + "?prefix=scoped%2F"), 200)
                        .get("objects"))
                .hasSize(1);
        assertThat(ok(as(veeam, "GET", objects(VAULT) + "/versions?key=scoped/mine.txt"), 200)
                        .get("versions"))
                .hasSize(1);
        assertThat(as(veeam, "GET", objects(VAULT) + "/content?key=scoped/mine.txt&versionId=" + mine.versionId())
                        .body())
                .isEqualTo("mine");

        problem(as(veeam, "GET", objects(BROWSE)), 403, "AccessDenied", null);
        problem(as(veeam, "GET", objects(BROWSE) + "/versions?key=top1"), 403, "AccessDenied", null);
        problem(as(veeam, "GET", objects(BROWSE) + "/content?key=top1"), 403, "AccessDenied", null);
        problem(as(veeam, "DELETE", objects(BROWSE) + "?key=top1"), 403, "AccessDenied", null);
        // an invalid bucket name is decided on no bucket, and refused as for any other bucket
        problem(as(veeam, "GET", objects("Bad_Name")), 403, "AccessDenied", null);
        assertThat(store.headObject(BROWSE, "top1", null).deleteMarker()).isFalse();
    }

    @Test
    void anAdminToken_isRefusedOnData_evenRoots() throws Exception {
        JsonNode token = ok(
                app.signed(
                        "POST",
                        "/api/v1/admin/tokens",
                        "{\"name\":\"objects\",\"policyArns\":[\"arn:aws:iam::aws:policy/admin\"],"
                                + "\"expiresInDays\":1}"),
                201);
        HttpResponse<String> r = app.http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.console.port() + objects(BROWSE)))
                        .header("Authorization", "Bearer " + token.get("secret").asText())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        problem(r, 403, "AccessDenied", null);
        // the same token is good for the appliance's own routes
        HttpResponse<String> buckets = app.http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.console.port() + "/api/v1/admin/buckets"))
                        .header("Authorization", "Bearer " + token.get("secret").asText())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(buckets.statusCode()).as(buckets.body()).isEqualTo(200);
    }

    @Test
    void theAuditor_readsAndDownloads_butNeitherUploadsNorDeletes() throws Exception {
        ObjectInfo top2 = store.headObject(BROWSE, "top2", null);
        JsonNode listing = ok(as(auditor, "GET", objects(BROWSE)), 200);
        assertThat(listing.get("prefixes")).isNotEmpty();
        // the page is told what it may offer: nothing that changes data, for an auditor
        assertThat(listing.get("mayUpload").asBoolean()).isFalse();
        JsonNode versions = ok(as(auditor, "GET", objects(BROWSE) + "/versions?key=top2"), 200);
        assertThat(versions.get("versions")).hasSize(1);
        assertThat(versions.get("may").toString())
                .isEqualTo("{\"deleteVersion\":false,\"placeDeleteMarker\":false,\"bypassGovernance\":false}");
        assertThat(ok(root("GET", objects(BROWSE)), 200).get("mayUpload").asBoolean())
                .isTrue();
        assertThat(ok(root("GET", objects(BROWSE) + "/versions?key=top2"), 200)
                        .get("may")
                        .toString())
                .isEqualTo("{\"deleteVersion\":true,\"placeDeleteMarker\":true,\"bypassGovernance\":true}");
        assertThat(as(auditor, "GET", objects(BROWSE) + "/content?key=top2").body())
                .isEqualTo("data of top2");

        problem(
                app.sendAs(
                        "PUT",
                        objects(BROWSE) + "/content?key=top2",
                        "{\"overwritten\":true}",
                        auditor.key().accessKeyId(),
                        auditor.secretAccessKey()),
                403,
                "AccessDenied",
                null);
        problem(as(auditor, "DELETE", objects(BROWSE) + "?key=top2"), 403, "AccessDenied", null);
        problem(
                as(auditor, "DELETE", objects(BROWSE) + "?key=top2&versionId=" + top2.versionId()),
                403,
                "AccessDenied",
                null);
        ObjectInfo after = store.headObject(BROWSE, "top2", null);
        assertThat(after.versionId()).isEqualTo(top2.versionId());
        assertThat(read(BROWSE, "top2", null)).isEqualTo("data of top2".getBytes());
    }
}
