package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.auth.Authorizer;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v1/admin/sets} and {@code GET /api/v1/admin/drives} over a real store on four temp drives: each
 * figure is the engine's (quorums, state, call counts, the scanner's space, a replaced drive's fill), absent ones are
 * null, and taking drives out of service shows in the answers.
 */
class DrivesAndSetsTest {
    private static final String SECRET = "root-secret-for-the-drives-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void setsAndDrives_showTheEnginesFigures_andNullWhereItHasNone() throws Exception {
        ApplianceStore store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        try (ConsoleTestAppliance app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {})) {
            JsonNode sets = get(app, "/api/v1/admin/sets").path("sets");
            assertThat(sets).hasSize(1);
            JsonNode set = sets.get(0);
            SetQuorum quorum = store.setQuorums().getFirst();
            assertThat(set.path("index").asInt()).isEqualTo(1);
            assertThat(set.path("drives").asInt()).isEqualTo(4);
            assertThat(set.path("parityShards").asInt()).isEqualTo(store.parity());
            assertThat(set.path("dataShards").asInt()).isEqualTo(4 - store.parity());
            assertThat(set.path("online").asInt()).isEqualTo(4);
            assertThat(set.path("readQuorum").asInt()).isEqualTo(quorum.readQuorum());
            assertThat(set.path("writeQuorum").asInt()).isEqualTo(quorum.writeQuorum());
            assertThat(set.path("readQuorumHeld").asBoolean()).isTrue();
            assertThat(set.path("writeQuorumHeld").asBoolean()).isTrue();

            // before the scanner's first cycle nothing has measured the drives' space
            JsonNode drives = get(app, "/api/v1/admin/drives").path("drives");
            assertThat(drives).hasSize(4);
            List<LocalDrive> engineDrives = store.drives();
            for (int i = 0; i < 4; i++) {
                JsonNode d = drives.get(i);
                LocalDrive drive = engineDrives.get(i);
                assertThat(d.path("set").asInt()).isEqualTo(1);
                assertThat(d.path("index").asInt()).isEqualTo(i + 1);
                assertThat(d.path("path").asText()).isEqualTo(drive.root().toString());
                assertThat(d.path("state").asText()).isEqualTo("online");
                assertThat(d.path("problem").isNull()).as(d.toString()).isTrue();
                assertThat(d.path("space").path("totalBytes").isNull()).isTrue();
                assertThat(d.path("space").path("measuredAt").isNull()).isTrue();
                // the object written at start went through every drive's calls
                JsonNode latency = d.path("latency");
                assertThat(latency.path("calls").asLong()).isPositive().isLessThanOrEqualTo(drive.calls());
                assertThat(latency.path("meanMillisSinceStart").isNumber()).isTrue();
                assertThat(latency.path("meanMillisSinceStart").asDouble()).isGreaterThanOrEqualTo(0);
                assertThat(latency.path("recentMeanMillis").isNull()).isTrue();
                assertThat(latency.path("p99Millis").isNull()).isTrue();
                assertThat(d.path("errors").path("ioErrors").asLong()).isEqualTo(drive.ioErrors());
                assertThat(d.path("errors").path("slowCalls").asLong()).isEqualTo(drive.slowCalls());
                assertThat(d.path("errors").path("stalledCalls").asInt()).isZero();
                assertThat(d.path("heal").isNull()).isTrue();
                assertThat(d.path("healObjectsRemaining").isNull()).isTrue();
            }

            ScanReport scan = store.scanNow();
            drives = get(app, "/api/v1/admin/drives").path("drives");
            for (int i = 0; i < 4; i++) {
                JsonNode space = drives.get(i).path("space");
                ScanReport.DriveScan measured = scan.drives().get(i);
                assertThat(space.path("totalBytes").asLong()).isEqualTo(measured.totalBytes());
                assertThat(space.path("freeBytes").asLong()).isEqualTo(measured.freeBytes());
                assertThat(space.path("usedBytes").asLong()).isEqualTo(measured.totalBytes() - measured.freeBytes());
                assertThat(space.path("inodesTotal").isNull()).isTrue();
                assertThat(space.path("inodesFree").isNull()).isTrue();
                assertThat(space.path("measuredAt").asText())
                        .isEqualTo(scan.finished().toString());
            }

            // two of four drives out: reads still have their quorum, writes do not
            engineDrives.get(1).markOffline("pulled for the test");
            engineDrives.get(3).markOffline("pulled for the test");
            set = get(app, "/api/v1/admin/sets").path("sets").get(0);
            SetQuorum degraded = store.setQuorums().getFirst();
            assertThat(set.path("online").asInt()).isEqualTo(2);
            assertThat(set.path("readQuorumHeld").asBoolean()).isEqualTo(degraded.readable());
            assertThat(set.path("writeQuorumHeld").asBoolean()).isEqualTo(degraded.writable());
            assertThat(set.path("readQuorumHeld").asBoolean()).isTrue();
            assertThat(set.path("writeQuorumHeld").asBoolean()).isFalse();
            JsonNode pulled = get(app, "/api/v1/admin/drives").path("drives").get(1);
            assertThat(pulled.path("state").asText()).isEqualTo("offline");
            assertThat(pulled.path("online").asBoolean()).isFalse();
            assertThat(pulled.path("problem").asText()).contains("pulled for the test");

            // an admin only
            assertThat(app.send("GET", "/api/v1/admin/drives", null, null).statusCode())
                    .isIn(401, 403);
            assertThat(app.send("GET", "/api/v1/admin/sets", null, null).statusCode())
                    .isIn(401, 403);
        }
    }

    @Test
    void replacedDrive_showsItsFill_withTheHealControllersProgress() throws Exception {
        TestStore layout = TestStore.on(tmp).drives(4).parity(2);
        ApplianceStore first = layout.open();
        first.makeBucket("bkt");
        for (int i = 0; i < 20; i++) {
            byte[] data = ("object " + i).getBytes(StandardCharsets.UTF_8);
            first.putObject("bkt", "k" + i, PutRequest.of(data.length), new ByteArrayInputStream(data));
        }
        first.close();
        Path replaced = layout.drive(1);
        LocalDrive.deleteTree(replaced);
        Files.createDirectory(replaced); // a new, empty disk in slot 2: formatted and filled at open

        ApplianceStore store = layout.open();
        try (ConsoleTestAppliance app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {})) {
            JsonNode drives = get(app, "/api/v1/admin/drives").path("drives");
            JsonNode heals = get(app, "/api/v1/admin/heal/drives").path("heals");
            JsonNode filled = drives.get(1);
            assertThat(filled.path("path").asText())
                    .isEqualTo(store.drives().get(1).root().toString());
            JsonNode heal = filled.path("heal");
            assertThat(heal.isObject()).as(filled.toString()).isTrue();
            assertThat(heal.path("set").asInt()).isEqualTo(1);
            assertThat(heal.path("slot").asInt()).isEqualTo(2);
            assertThat(heal.path("state").asText()).isIn("queued", "healing", "done");
            // the same record as the heal controller's: the same fields
            assertThat(names(heal)).containsExactlyInAnyOrderElementsOf(names(heals.get(0)));
            long estimated = heal.path("objectsEstimated").asLong();
            JsonNode remaining = filled.path("healObjectsRemaining");
            if (heal.path("state").asText().equals("done")) {
                assertThat(remaining.asLong()).isZero();
            } else if (estimated > 0) {
                assertThat(remaining.asLong())
                        .isEqualTo(Math.max(
                                0, estimated - heal.path("objectsScanned").asLong()));
            } else {
                assertThat(remaining.isNull()).isTrue();
            }
            for (int i : new int[] {0, 2, 3}) {
                assertThat(drives.get(i).path("heal").isNull()).isTrue();
            }
        }
    }

    private static List<String> names(JsonNode node) {
        List<String> out = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static JsonNode get(ConsoleTestAppliance app, String path) throws Exception {
        HttpResponse<String> r = app.signed("GET", path, null);
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }
}
