package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.appliance.core.MovableClock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/admin/buckets/{bucket}/lifecycle/preview} and the version counts of {@code GET .../usage}
 * through a real console over a real store whose clock the test moves: the preview answers what the engine's dry run
 * counts, refuses bad rules as the lifecycle PUT does (naming the rule), saves and removes nothing, and is a read an
 * auditor may make; the usage answer carries the last scanner cycle's versions-per-key classes.
 */
class LifecyclePreviewResourceTest {
    private static final String SECRET = "root-secret-for-the-preview-test";
    private static final String BUCKETS = "/api/v1/admin/buckets";
    private static final MovableClock WALL = new MovableClock();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        store = Stores.open(TestStore.on(tmp).clock(WALL).config().withIdentityKey(identityKey));
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static void put(String bucket, String key, String data) throws Exception {
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        store.putObject(bucket, key, PutRequest.of(bytes.length), new ByteArrayInputStream(bytes));
    }

    private static List<String> versions(String bucket) {
        List<String> all = new ArrayList<>();
        store.listObjectVersions(bucket, null, null, null, null, 1000)
                .versions()
                .forEach(v -> all.add(v.key() + "@" + v.versionId()));
        return all;
    }

    private static final String RULES = "{\"rules\":[{\"id\":\"logs\",\"status\":\"Enabled\","
            + "\"filter\":{\"prefix\":\"logs/\"},\"expiration\":{\"days\":2},"
            + "\"noncurrentVersionExpiration\":{\"noncurrentDays\":1}}]}";

    @Test
    void aPreview_answersWhatTheRulesWouldDoToday_andChangesNothing() throws Exception {
        store.makeBucket("pv-main");
        store.setVersioning("pv-main", VersioningState.ENABLED);
        put("pv-main", "logs/a", "first");
        put("pv-main", "logs/a", "second");
        put("pv-main", "keep/b", "kept");
        WALL.forwardDays(5);
        List<String> before = versions("pv-main");

        JsonNode p = ok(app.signed("POST", BUCKETS + "/pv-main/lifecycle/preview", RULES), 200);

        assertThat(p.get("bucket").asText()).isEqualTo("pv-main");
        assertThat(p.get("stopped").asBoolean()).isFalse();
        assertThat(p.get("versionCap").asInt()).isEqualTo(100_000);
        assertThat(p.get("versionsExamined").asLong()).isEqualTo(3);
        assertThat(p.get("expiredCurrent").get("count").asLong()).isEqualTo(1);
        assertThat(p.get("expiredCurrent").get("samples").get(0).get("key").asText())
                .isEqualTo("logs/a");
        assertThat(p.get("removedNoncurrent").get("count").asLong()).isEqualTo(1);
        JsonNode sample = p.get("removedNoncurrent").get("samples").get(0);
        assertThat(sample.get("ruleId").asText()).isEqualTo("logs");
        assertThat(sample.get("size").asLong()).isEqualTo(5);
        assertThat(p.get("removedDeleteMarkers").get("count").asLong()).isZero();
        assertThat(p.get("abortedUploads").get("count").asLong()).isZero();
        assertThat(p.get("keptByLock").get("count").asLong()).isZero();
        assertThat(p.get("bytesFreed").asLong()).isEqualTo(5);

        assertThat(versions("pv-main")).isEqualTo(before);
        assertThat(store.lifecycleConfiguration("pv-main")).isNull(); // previewed, never saved
    }

    @Test
    void badRules_areRefusedAsThePutRefusesThem_namingTheRule() throws Exception {
        store.makeBucket("pv-bad");
        assertThat(problem(
                                app.signed(
                                        "POST",
                                        BUCKETS + "/pv-bad/lifecycle/preview",
                                        "{\"rules\":[{\"id\":\"a\",\"status\":\"Enabled\","
                                                + "\"expiration\":{\"days\":0}}]}"),
                                400,
                                "InvalidArgument",
                                "rules[0]")
                        .get("detail")
                        .asText())
                .contains("'Days' for Expiration action must be a positive integer");
        problem(
                app.signed("POST", BUCKETS + "/pv-bad/lifecycle/preview", "{\"rules\":[{\"id\":\"a\"}]}"),
                400,
                "InvalidArgument",
                "rules[0].status");
        problem(
                app.signed("POST", BUCKETS + "/pv-bad/lifecycle/preview", "{\"rules\":[]}"),
                400,
                "InvalidArgument",
                "rules");
        problem(app.signed("POST", BUCKETS + "/no-such/lifecycle/preview", RULES), 404, "NoSuchBucket", "bucket");
    }

    @Test
    void anAuditor_mayPreview() throws Exception {
        store.makeBucket("pv-audit");
        IdentityStore identity = store.identity();
        identity.createUser("preview-auditor");
        identity.attachUserPolicy("preview-auditor", "arn:aws:iam::aws:policy/auditor");
        NewAccessKey key = identity.createAccessKey("preview-auditor");
        HttpResponse<String> answer = app.sendAs(
                "POST",
                BUCKETS + "/pv-audit/lifecycle/preview",
                RULES,
                key.key().accessKeyId(),
                key.secretAccessKey());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        // and it is still no way to change the rules
        assertThat(app.sendAs(
                                "PUT",
                                BUCKETS + "/pv-audit/lifecycle",
                                RULES,
                                key.key().accessKeyId(),
                                key.secretAccessKey())
                        .statusCode())
                .isEqualTo(403);
    }

    @Test
    void usage_carriesTheLastScansVersionsPerKey() throws Exception {
        store.makeBucket("counted");
        store.setVersioning("counted", VersioningState.ENABLED);
        for (int i = 0; i < 12; i++) {
            put("counted", "busy", "v" + i);
        }
        for (int i = 0; i < 3; i++) {
            put("counted", "some", "v" + i);
        }
        put("counted", "once", "x");
        store.deleteObject("counted", "once", null); // a delete marker counts as a version
        put("counted", "single", "x");
        assertThat(ok(app.signed("GET", BUCKETS + "/counted/usage", null), 200)
                        .get("versionCounts")
                        .isNull())
                .as("no scanner cycle has counted the bucket yet")
                .isTrue();

        store.scanNow();
        JsonNode counts =
                ok(app.signed("GET", BUCKETS + "/counted/usage", null), 200).get("versionCounts");

        assertThat(counts.get("asOf").asText())
                .isEqualTo(store.lastScan().finished().toString());
        assertThat(counts.get("keys").asLong()).isEqualTo(4);
        List<String> classes = new ArrayList<>();
        counts.get("classes")
                .forEach(c -> classes.add(c.get("minVersions").asLong() + "-"
                        + (c.get("maxVersions").isNull()
                                ? ""
                                : c.get("maxVersions").asLong()) + ":"
                        + c.get("keys").asLong()));
        assertThat(classes).containsExactly("1-1:1", "2-10:2", "11-100:1", "101-1000:0", "1001-10000:0", "10001-:0");
        assertThat(counts.get("mostVersions").get("key").asText()).isEqualTo("busy");
        assertThat(counts.get("mostVersions").get("versions").asLong()).isEqualTo(12);
    }
}
