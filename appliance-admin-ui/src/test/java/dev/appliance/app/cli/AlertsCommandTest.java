package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code appliance alerts}: arguments, bad input named, the listing as printed, and a server that is not there. */
class AlertsCommandTest {
    private static final Map<String, String> ENV =
            Map.of("APPLIANCE_ROOT_USER", "root", "APPLIANCE_ROOT_PASSWORD", "s3cret");

    @Test
    void parsesListingAndAck() {
        var list = AlertsCommand.parse(List.of("--all", "--json", "--console", "10.0.0.5:9101"), ENV);
        assertThat(list.ackId()).isNull();
        assertThat(list.all()).isTrue();
        assertThat(list.json()).isTrue();
        var ack = AlertsCommand.parse(List.of("ack", "VERSIONS_PER_KEY_HIGH:my.backups"), ENV);
        assertThat(ack.ackId()).isEqualTo("VERSIONS_PER_KEY_HIGH:my.backups");
        assertThat(AdminClient.segment("VERSIONS_PER_KEY_HIGH:my.backups"))
                .isEqualTo("VERSIONS_PER_KEY_HIGH%3Amy.backups");
    }

    @Test
    void badInput_isNamed() {
        assertThatThrownBy(() -> AlertsCommand.parse(List.of("ack"), ENV)).hasMessageContaining("missing the alert ID");
        assertThatThrownBy(() -> AlertsCommand.parse(List.of("ack", "bucket"), ENV))
                .hasMessageContaining("'bucket' is not an alert ID");
        // a health check's alert: its id names the check, underscores included
        assertThat(AlertsCommand.parse(List.of("ack", "HEALTH_CHECK_WARNING:net.ipv4.tcp_rmem"), ENV))
                .isNotNull();
        assertThatThrownBy(() -> AlertsCommand.parse(List.of("list"), ENV))
                .hasMessageContaining("unexpected argument 'list'");
        assertThatThrownBy(() -> AlertsCommand.parse(List.of("--since", "1h"), ENV))
                .hasMessageContaining("unknown option '--since'");
        assertThatThrownBy(() -> AlertsCommand.parse(List.of("--console", "ftp://x:1"), ENV))
                .hasMessageContaining("--console 'ftp://x:1'");
        assertThatThrownBy(() -> AlertsCommand.parse(List.of(), Map.of())).hasMessageContaining("no credentials");
    }

    @Test
    void aServerThatIsNotThere_isSaidSo() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        var o = AlertsCommand.parse(List.of("--console", "127.0.0.1:" + port), ENV);
        assertThatThrownBy(() -> AlertsCommand.run(o, new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(AdminClient.Unreachable.class)
                .hasMessageContaining("cannot reach the appliance console at http://127.0.0.1:" + port)
                .hasMessageContaining("is the server running?");
    }

    @Test
    void printsEachAlertWithCauseRemedyKeysAndHowToAcknowledge() throws Exception {
        String json = """
                {"active":1,"unacknowledged":1,"critical":0,"alerts":[{"id":"VERSIONS_PER_KEY_HIGH:sync",
                "code":"VERSIONS_PER_KEY_HIGH","severity":"WARNING","bucket":"sync","state":"active",
                "acknowledged":false,"raisedAt":"2026-11-21T15:00:00Z","summary":"Bucket 'sync': 2 key(s) over 20",
                "cause":"identical content re-uploaded 40 times in the last hour","remedy":"Add a rule",
                "figures":{"worstKeys":[{"key":"a","versions":31},{"key":"b","versions":25}]}}]}""";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        AlertsCommand.print(new ObjectMapper().readTree(json), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out)
                .contains("Alerts: 1 active (1 unacknowledged, 0 critical)")
                .contains("WARNING  VERSIONS_PER_KEY_HIGH:sync  raised 2026-11-21T15:00:00Z")
                .contains("Cause:  identical content re-uploaded 40 times")
                .contains("Remedy: Add a rule")
                .contains("Worst keys: a (31), b (25)")
                .contains(
                        "docs/alerts.md#versions_per_key_high; acknowledge: appliance alerts ack VERSIONS_PER_KEY_HIGH:sync");
    }
}
