package dev.appliance.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HealCommandTest {
    private static final Map<String, String> ENV =
            Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "secret");

    @Test
    void parse_takesFlagsAndCredentialsFromTheEnvironment() {
        HealCommand.Options o = HealCommand.parse(List.of("status", "--json", "--console", "10.0.0.5:9101"), ENV);
        assertThat(o.json()).isTrue();
        assertThat(o.console()).isEqualTo(URI.create("http://10.0.0.5:9101"));
        assertThat(o.user()).isEqualTo("admin");
        assertThat(o.password()).isEqualTo("secret");
        HealCommand.Options flags = HealCommand.parse(List.of("status", "--user=u", "--password=p"), Map.of());
        assertThat(flags.user()).isEqualTo("u");
        assertThat(flags.console()).isEqualTo(URI.create("http://127.0.0.1:9001"));
        assertThat(flags.json()).isFalse();
    }

    @Test
    void parse_start_takesTheBucketAndPrefix() {
        HealCommand.Options prefix = HealCommand.parse(List.of("start", "backups/vm1/", "--json"), ENV);
        assertThat(prefix.start()).isTrue();
        assertThat(prefix.bucket()).isEqualTo("backups");
        assertThat(prefix.prefix()).isEqualTo("vm1/");
        assertThat(prefix.json()).isTrue();
        HealCommand.Options bucket = HealCommand.parse(List.of("start", "--console", "h:1", "backups"), ENV);
        assertThat(bucket.bucket()).isEqualTo("backups");
        assertThat(bucket.prefix()).isEmpty();
        assertThat(HealCommand.parse(List.of("status"), ENV).start()).isFalse();
        assertThatThrownBy(() -> HealCommand.parse(List.of("start", "/vm1/"), ENV))
                .hasMessageContaining("'start' needs BUCKET or BUCKET/PREFIX");
        assertThatThrownBy(() -> HealCommand.parse(List.of("start", "a", "b"), ENV))
                .hasMessageContaining("unexpected argument 'b'");
        assertThatThrownBy(() -> HealCommand.parse(List.of("status", "a"), ENV))
                .hasMessageContaining("unexpected argument 'a'");
    }

    @Test
    void parse_namesWhatIsWrong() {
        assertThatThrownBy(() -> HealCommand.parse(List.of(), ENV)).hasMessageContaining("missing subcommand");
        assertThatThrownBy(() -> HealCommand.parse(List.of("start"), ENV)).hasMessageContaining("'start'");
        assertThatThrownBy(() -> HealCommand.parse(List.of("status", "--bogus"), ENV))
                .hasMessageContaining("'--bogus'");
        assertThatThrownBy(() -> HealCommand.parse(List.of("status", "--console", "ftp://x:1"), ENV))
                .hasMessageContaining("--console 'ftp://x:1'");
        assertThatThrownBy(() -> HealCommand.parse(List.of("status", "--console", "http://h:1/api"), ENV))
                .hasMessageContaining("--console 'http://h:1/api'");
        assertThatThrownBy(() -> HealCommand.parse(List.of("status"), Map.of()))
                .hasMessageContaining("no credentials")
                .hasMessageContaining("APPLIANCE_ROOT_USER");
    }

    @Test
    void run_saysClearlyWhenNoServerAnswers() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        HealCommand.Options o = HealCommand.parse(List.of("status", "--console", "127.0.0.1:" + port), ENV);
        assertThatThrownBy(() -> HealCommand.run(o, new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(AdminClient.Unreachable.class)
                .hasMessageContaining("cannot reach the appliance console at http://127.0.0.1:" + port)
                .hasMessageContaining("is the server running?");
    }

    @Test
    void print_showsStatesProgressRateEtaAndFailures() throws Exception {
        String json = """
                {"drives": [
                   {"path": "/mnt/d1", "set": 1, "slot": 1, "state": "online", "problem": ""},
                   {"path": "/mnt/d2", "set": 1, "slot": 2, "state": "healing", "problem": ""},
                   {"path": "/mnt/d3", "set": 1, "slot": 3, "state": "offline", "problem": "directory does not exist"}],
                 "heals": [{"drive": "/mnt/d2", "set": 1, "slot": 2, "state": "healing",
                   "started": "2026-11-21T12:00:00Z", "updated": "2026-11-21T12:01:00Z", "finished": null,
                   "bucketsDone": 1, "bucketsTotal": 3, "bucket": "veeam", "lastKey": "vm1/blk-9",
                   "objectsScanned": 1200, "objectsHealed": 1190, "objectsSkipped": 2, "objectsFailed": 1,
                   "bytesHealed": 3221225472, "objectsEstimated": 5000, "objectsPerSecond": 20.0,
                   "bytesPerSecond": 52428800, "etaSeconds": 190, "resumes": 1,
                   "failures": [{"name": "veeam/vm1/blk-7", "reason": "RETRY: drives unreachable", "time": "x"}]}]}
                """;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        HealCommand.print(new ObjectMapper().readTree(json), new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        assertThat(out)
                .contains("Drives: 1 of 3 in service and whole")
                .contains("/mnt/d2 (set 1, slot 2): healing")
                .contains("/mnt/d3 (set 1, slot 3): offline: directory does not exist")
                .contains("Drive heal /mnt/d2 (set 1, slot 2): HEALING")
                .contains("1200 scanned of about 5000: 1190 healed, 2 skipped, 1 failed; 3.0 GiB written")
                .contains("buckets: 1 of 3 done; at veeam/vm1/blk-9")
                .contains("rate: 20.0 objects/s, 50.0 MiB/s; ETA 3m10s")
                .contains("resumed 1x after restarts")
                .contains("veeam/vm1/blk-7: RETRY: drives unreachable");
    }
}
