package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.s3.auth.Authorizer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /actuator/health} on a real console over a real store on four drives (EC 2+2: writes need 3 drives in
 * service): DOWN with 503 while the set has lost write quorum, the drives, quorum and clock indicators' details for
 * signed admins only. Drives are taken out of service as the drive check does ({@link LocalDrive#markOffline}).
 */
class ConsoleHealthTest {
    private static final String SECRET = "root-secret-for-the-health-test";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;
    private static ApplianceStore store;

    @BeforeAll
    static void start() throws Exception {
        store = ConsoleTestAppliance.openStore(tmp, "bkt", "k");
        app = ConsoleTestAppliance.start(store, SECRET, Authorizer.allowAll(), c -> {});
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        } else if (store != null) {
            store.close();
        }
    }

    @AfterEach
    void drivesBack() {
        store.drives().forEach(LocalDrive::markOnline);
    }

    @Test
    void anonymous_getsTheStatusOnly_upWhileWritesHaveQuorum() throws Exception {
        HttpResponse<String> health = app.send("GET", "/actuator/health", null, null);
        assertThat(health.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(health.body());
        assertThat(names(body)).containsExactly("status");
        assertThat(body.get("status").asText()).isEqualTo("UP");

        // a component's own path is not public
        assertThat(app.send("GET", "/actuator/health/quorum", null, null).statusCode())
                .isEqualTo(401);
    }

    @Test
    void signedAdmins_seeTheDrivesQuorumAndClock() throws Exception {
        HttpResponse<String> health = app.signed("GET", "/actuator/health", null);
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        JsonNode components = JSON.readTree(health.body()).get("components");
        assertThat(names(components)).contains("drives", "quorum", "clock");

        JsonNode drives = components.get("drives");
        assertThat(drives.get("status").asText()).isEqualTo("UP");
        assertThat(drives.at("/details/degraded").asBoolean()).isFalse();
        assertThat(drives.at("/details/drives")).hasSize(4);
        assertThat(drives.at("/details/drives/0/state").asText()).isEqualTo("online");
        assertThat(drives.at("/details/drives/3/slot").asInt()).isEqualTo(4);

        JsonNode set = components.at("/quorum/details/sets/0");
        assertThat(set.get("online").asInt()).isEqualTo(4);
        assertThat(set.get("writeQuorum").asInt()).isEqualTo(3);
        assertThat(set.get("readQuorum").asInt()).isEqualTo(2);

        JsonNode clock = components.get("clock");
        assertThat(clock.get("status").asText()).isEqualTo("UP");
        assertThat(names(clock.get("details"))).contains("trustedTime", "systemTime", "systemClockBelieved", "ntp");
    }

    @Test
    void oneDriveOut_isDegradedButUp() throws Exception {
        store.drives().get(3).markOffline("taken away by the test");
        assertThat(app.send("GET", "/actuator/health", null, null).statusCode()).isEqualTo(200);

        JsonNode components = JSON.readTree(
                        app.signed("GET", "/actuator/health", null).body())
                .get("components");
        assertThat(components.at("/drives/status").asText()).isEqualTo("UP");
        assertThat(components.at("/drives/details/degraded").asBoolean()).isTrue();
        assertThat(components.at("/drives/details/drives/3/state").asText()).isEqualTo("offline");
        assertThat(components.at("/drives/details/drives/3/reason").asText()).isEqualTo("taken away by the test");
        assertThat(components.at("/quorum/status").asText()).isEqualTo("UP");
    }

    @Test
    void writeQuorumLost_isDown503_andComesBackUp() throws Exception {
        store.drives().get(0).markOffline("taken away by the test");
        store.drives().get(1).markFaulty("I/O errors");

        HttpResponse<String> anonymous = app.send("GET", "/actuator/health", null, null);
        assertThat(anonymous.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(anonymous.body()).get("status").asText()).isEqualTo("DOWN");
        assertThat(names(JSON.readTree(anonymous.body()))).containsExactly("status");

        HttpResponse<String> signed = app.signed("GET", "/actuator/health", null);
        assertThat(signed.statusCode()).isEqualTo(503);
        JsonNode components = JSON.readTree(signed.body()).get("components");
        assertThat(components.at("/quorum/status").asText()).isEqualTo("DOWN");
        assertThat(components.at("/quorum/details/writeQuorumLost/0").asInt()).isEqualTo(1);
        assertThat(components.at("/quorum/details/readQuorumLost").isMissingNode())
                .as("2 of 4 still read")
                .isTrue();
        assertThat(components.at("/drives/status").asText()).isEqualTo("DOWN");
        assertThat(components.at("/drives/details/drives/1/state").asText()).isEqualTo("faulty");
        assertThat(components.at("/clock/status").asText()).isEqualTo("UP");

        store.drives().forEach(LocalDrive::markOnline);
        assertThat(app.send("GET", "/actuator/health", null, null).statusCode()).isEqualTo(200);
    }

    @Test
    void aBadSignature_onThePublicHealthCheck_isRefused() throws Exception {
        HttpResponse<String> health = app.send("GET", "/actuator/health", null, "not-the-secret");
        assertThat(health.statusCode()).isEqualTo(403);
        assertThat(health.body()).contains("SignatureDoesNotMatch");
    }

    private static List<String> names(JsonNode node) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }
}
