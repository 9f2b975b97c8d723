package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.appliance.app.cli.HealCommand;
import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.BucketHealStatus;
import dev.appliance.s3.auth.Authorizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/admin/heal/buckets} and {@code GET /api/v1/admin/heal/buckets} over a real store on four temp
 * drives: a prefix heal started through the API rebuilds a deleted shard file under the prefix and not outside it, its
 * figures are listed, {@code appliance heal start} starts one the same way, and bad input is a problem naming the field.
 */
class BucketHealResourceTest {
    private static final String SECRET = "root-secret-for-the-bucket-heal-test";

    @TempDir
    Path tmp;

    private static void put(ApplianceStore store, String key) throws Exception {
        byte[] body = new byte[300_000]; // past the inline limit: shards in part files
        new Random(key.hashCode()).nextBytes(body);
        store.putObject("bkt", key, PutRequest.of(body.length), new ByteArrayInputStream(body));
    }

    private static Path partFile(LocalDrive d, String key) throws Exception {
        try (Stream<Path> files = Files.walk(d.objectDir("bkt", key))) {
            return files.filter(p -> p.getFileName().toString().startsWith("part."))
                    .findFirst()
                    .orElseThrow();
        }
    }

    @Test
    void aPrefixHeal_startedThroughTheApi_rebuildsUnderThePrefixOnly_andIsListed() throws Exception {
        ApplianceStore store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        for (String key : new String[] {"vm1/a", "vm1/b", "vm1/c", "vm2/a"}) {
            put(store, key);
        }
        Path inside = partFile(store.drives().get(1), "vm1/b");
        byte[] insideBytes = Files.readAllBytes(inside);
        Files.delete(inside);
        Path outside = partFile(store.drives().get(1), "vm2/a");
        Files.delete(outside);
        try (ConsoleTestAppliance app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {})) {
            JsonNode started = ok(
                    app.signed("POST", "/api/v1/admin/heal/buckets", "{\"bucket\":\"bkt\",\"prefix\":\"vm1/\"}"), 202);
            assertThat(started.path("bucket").asText()).isEqualTo("bkt");
            assertThat(started.path("prefix").asText()).isEqualTo("vm1/");
            assertThat(started.path("state").asText()).isIn("queued", "running", "done");
            BucketHealStatus end =
                    store.bucketHealEnd(started.path("id").asLong()).get(60, TimeUnit.SECONDS);
            assertThat(end.state()).isEqualTo("done");

            assertThat(Files.readAllBytes(inside)).isEqualTo(insideBytes);
            assertThat(outside).doesNotExist();
            JsonNode heals = ok(app.signed("GET", "/api/v1/admin/heal/buckets", null), 200)
                    .path("heals");
            assertThat(heals).hasSize(1);
            JsonNode h = heals.get(0);
            assertThat(h.path("id").asLong()).isEqualTo(started.path("id").asLong());
            assertThat(h.path("state").asText()).isEqualTo("done");
            assertThat(h.path("objectsScanned").asLong()).isEqualTo(3);
            assertThat(h.path("objectsHealed").asLong()).isEqualTo(1);
            assertThat(h.path("objectsFailed").asLong()).isZero();
            assertThat(h.path("bytesHealed").asLong()).isEqualTo(insideBytes.length);
            assertThat(h.path("objectsEstimated").asLong())
                    .as("a prefix has no estimate")
                    .isZero();
            assertThat(h.path("etaSeconds").asLong()).isZero();
            assertThat(h.path("lastKey").asText()).isEqualTo("vm1/c");
            assertThat(h.path("finished").asText()).isNotBlank();
            assertThat(h.path("failures")).isEmpty();
            assertThat(h.path("objectsPerSecond").isNumber()).isTrue();

            // the whole bucket: k and the four keys
            JsonNode whole = ok(app.signed("POST", "/api/v1/admin/heal/buckets", "{\"bucket\":\"bkt\"}"), 202);
            assertThat(whole.path("prefix").asText()).isEmpty();
            BucketHealStatus wholeEnd =
                    store.bucketHealEnd(whole.path("id").asLong()).get(60, TimeUnit.SECONDS);
            assertThat(wholeEnd.objectsScanned()).isEqualTo(5);
            assertThat(outside).as("now healed too").exists();

            // the CLI starts one the same way, signed with the root credentials
            var printed = new ByteArrayOutputStream();
            JsonNode fromCli = HealCommand.run(
                    HealCommand.parse(
                            List.of(
                                    "start",
                                    "bkt/vm2/",
                                    "--console",
                                    "127.0.0.1:" + app.console.port(),
                                    "--user",
                                    ConsoleTestAppliance.ACCESS_KEY,
                                    "--password",
                                    SECRET),
                            Map.of()),
                    new PrintStream(printed, true, StandardCharsets.UTF_8));
            assertThat(printed.toString(StandardCharsets.UTF_8))
                    .startsWith("Heal " + fromCli.path("id").asLong() + " of bkt/vm2/: ");
            assertThat(store.bucketHealEnd(fromCli.path("id").asLong())
                            .get(60, TimeUnit.SECONDS)
                            .objectsScanned())
                    .isEqualTo(1);
            // an unknown bucket: the server's problem, named
            var noSuch = HealCommand.parse(
                    List.of(
                            "start",
                            "nope",
                            "--console",
                            "127.0.0.1:" + app.console.port(),
                            "--user",
                            ConsoleTestAppliance.ACCESS_KEY,
                            "--password",
                            SECRET),
                    Map.of());
            assertThatThrownBy(() -> HealCommand.run(noSuch, new PrintStream(new ByteArrayOutputStream())))
                    .hasMessageContaining("answered 404")
                    .hasMessageContaining("bucket: nope does not exist");
        }
    }

    @Test
    void badInput_isAProblemNamingTheField() throws Exception {
        ApplianceStore store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        try (ConsoleTestAppliance app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {})) {
            problem(
                    app.signed("POST", "/api/v1/admin/heal/buckets", "{\"prefix\":\"a/\"}"),
                    400,
                    "InvalidInput",
                    "bucket");
            problem(
                    app.signed("POST", "/api/v1/admin/heal/buckets", "{\"bucket\":\"  \"}"),
                    400,
                    "InvalidInput",
                    "bucket");
            problem(
                    app.signed("POST", "/api/v1/admin/heal/buckets", "{\"bucket\":\"nope\"}"),
                    404,
                    "NoSuchEntity",
                    "bucket");
            problem(
                    app.signed("POST", "/api/v1/admin/heal/buckets", "{\"bucket\":\"bkt\",\"prefix\":\"a\\u0000b\"}"),
                    400,
                    "InvalidInput",
                    "prefix");
            problem(
                    app.signed(
                            "POST",
                            "/api/v1/admin/heal/buckets",
                            "{\"bucket\":\"bkt\",\"prefix\":\"" + "x".repeat(1025) + "\"}"),
                    400,
                    "InvalidInput",
                    "prefix");
            assertThat(store.bucketHeals()).as("nothing started").isEmpty();
            // unsigned: refused
            assertThat(app.send("GET", "/api/v1/admin/heal/buckets", null, null).statusCode())
                    .isIn(401, 403);
        }
    }
}
