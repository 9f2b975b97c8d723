package dev.appliance.installer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.appliance.installer.system.SystemView;
import dev.appliance.installer.testing.FakeHost;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code check --json}'s {@code node} object and {@code compare}: each node's report is made by the real {@code check
 * --json} over a fake host tree, saved to a file and handed to {@code compare}, as an operator would.
 */
class CompareCommandTest {
    @TempDir
    Path tmp;

    private static final Function<Path, SystemView> SYNCHRONISED =
            root -> new SystemView(root, () -> dev.appliance.core.objectlock.HostTimeSync.State.SYNCHRONIZED);

    private final ObjectMapper json = new ObjectMapper();
    private ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(InputStream in, String... args) {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
        return InstallerMain.run(
                List.of(args),
                in,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                SYNCHRONISED);
    }

    private int run(String... args) {
        return run(InputStream.nullInputStream(), args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A healthy node named {@code hostname}, changed by {@code change}, its check --json saved as hostname.json. */
    private Path report(String hostname, Consumer<FakeHost> change) throws IOException {
        FakeHost host = FakeHost.healthy(tmp.resolve(hostname))
                .file("/proc/sys/kernel/hostname", hostname + "\n")
                .file("/proc/sys/kernel/osrelease", "5.14.0-427.el9.x86_64\n");
        change.accept(host);
        run("check", "--json", "--root", host.root().toString());
        assertThat(err()).isEmpty();
        return Files.writeString(tmp.resolve(hostname + ".json"), out());
    }

    private Path report(String hostname) throws IOException {
        return report(hostname, h -> {});
    }

    /** compare --json's checks, id → the check. */
    private Map<String, JsonNode> compareJson(Path... files) throws IOException {
        String[] args = new String[files.length + 2];
        args[0] = "compare";
        args[1] = "--json";
        for (int i = 0; i < files.length; i++) {
            args[i + 2] = files[i].toString();
        }
        int exit = run(args);
        assertThat(err()).isEmpty();
        Map<String, JsonNode> checks = new LinkedHashMap<>();
        int worst = 0;
        for (JsonNode c : json.readTree(out()).get("checks")) {
            checks.put(c.get("id").asText(), c);
            worst = Math.max(
                    worst,
                    List.of("pass", "warn", "fail").indexOf(c.get("result").asText()));
        }
        assertThat(exit).as("exit status: the worst result").isEqualTo(worst);
        return checks;
    }

    private static Map<String, String> results(Map<String, JsonNode> checks) {
        Map<String, String> r = new LinkedHashMap<>();
        checks.forEach((id, c) -> r.put(id, c.get("result").asText()));
        return r;
    }

    @Test
    void checkJson_carriesTheNodesFacts_besideTheChecks() throws IOException {
        Path file = report("node-1", h -> h.cpus(1, 12, 2, "fpu sse4_2 avx2 aes", "Intel(R) Xeon(R)  Silver 4310")
                .memory(128L << 20, 0)
                .networkInterface("eth1", 1500, true)
                .networkInterface("docker0", 1500, false));
        JsonNode report = json.readTree(file.toFile());

        assertThat(report.properties()).extracting(Map.Entry::getKey).containsExactly("checks", "node");
        assertThat(report.get("checks").size()).isGreaterThan(20);
        JsonNode node = report.get("node");
        assertThat(node.properties())
                .extracting(Map.Entry::getKey)
                .containsExactly(
                        "hostname", "cpuModel", "cpuFlags", "cores", "ramBytes", "kernelRelease", "mtu", "version");
        assertThat(node.get("hostname").asText()).isEqualTo("node-1");
        assertThat(node.get("cpuModel").asText()).isEqualTo("Intel(R) Xeon(R) Silver 4310");
        // the flags of interest only, in a fixed order
        assertThat(node.get("cpuFlags").toString()).isEqualTo("[\"avx2\",\"aes\"]");
        assertThat(node.get("cores").asInt()).isEqualTo(12);
        assertThat(node.get("ramBytes").asLong()).isEqualTo(128L << 30);
        assertThat(node.get("kernelRelease").asText()).isEqualTo("5.14.0-427.el9.x86_64");
        // the interfaces net.mtu judges: hardware ones, so not docker0
        assertThat(node.get("mtu").toString()).isEqualTo("{\"eth0\":9000,\"eth1\":1500}");
        assertThat(node.get("version").isNull()).as("no packaged jar in a test").isTrue();
    }

    @Test
    void checkJson_onAnUnreadableHost_saysUnknownFactsAsNull() throws IOException {
        Files.createDirectories(tmp.resolve("empty"));
        run("check", "--json", "--root", tmp.resolve("empty").toString());
        JsonNode node = json.readTree(out()).get("node");
        assertThat(node.get("hostname").asText()).isEqualTo("unknown");
        assertThat(node.get("cpuFlags").isNull()).isTrue();
        assertThat(node.get("cores").isNull()).isTrue();
        assertThat(node.get("ramBytes").isNull()).isTrue();
        assertThat(node.get("mtu").size()).isZero();
    }

    @Test
    void equalNodes_passEveryRule_andExit0() throws IOException {
        Map<String, JsonNode> checks = compareJson(report("node-1"), report("node-2"), report("node-3"));
        assertThat(results(checks))
                .containsExactly(
                        Map.entry("nodes.count", "pass"),
                        Map.entry("nodes.cpu-model", "pass"),
                        Map.entry("nodes.cpu-flags", "pass"),
                        Map.entry("nodes.memory", "pass"),
                        Map.entry("nodes.kernel", "pass"),
                        Map.entry("nodes.mtu", "pass"));
        assertThat(checks.get("nodes.count").get("measured").asText()).isEqualTo("3 nodes: node-1, node-2, node-3");
        assertThat(checks.get("nodes.mtu").get("measured").asText()).startsWith("MTU 9000 on every node");

        assertThat(run(
                        "compare",
                        tmp.resolve("node-1.json").toString(),
                        tmp.resolve("node-2.json").toString()))
                .isZero();
        assertThat(out())
                .contains("PASS  nodes.cpu-model  Test CPU @ 3.00GHz on every node")
                .contains("pass (exit 0)");
    }

    @Test
    void differentCpuModels_warn_namingEachNodesModel() throws IOException {
        Map<String, JsonNode> checks = compareJson(
                report("node-1"),
                report("node-2", h -> h.cpus(2, 8, 2, "fpu sse4_2 avx avx2 aes sha_ni avx512f", "Other CPU @ 2.1GHz")),
                report("node-3"));
        JsonNode model = checks.get("nodes.cpu-model");
        assertThat(model.get("result").asText()).isEqualTo("warn");
        assertThat(model.get("measured").asText())
                .isEqualTo("Test CPU @ 3.00GHz (node-1, node-3); Other CPU @ 2.1GHz (node-2)");
        assertThat(model.get("remediation").asText()).contains("slowest node");
        assertThat(results(checks)).containsEntry("nodes.cpu-flags", "pass").containsEntry("nodes.mtu", "pass");
    }

    @Test
    void aNodeLackingAvx2TheOthersHave_fails() throws IOException {
        Map<String, JsonNode> checks = compareJson(
                report("node-1"),
                report("node-2", h -> h.cpus(2, 8, 2, "fpu sse4_2 aes sha_ni", "Test CPU @ 3.00GHz")));
        JsonNode flags = checks.get("nodes.cpu-flags");
        assertThat(flags.get("result").asText()).isEqualTo("fail");
        assertThat(flags.get("measured").asText())
                .contains("avx2: only node-1 (not node-2)")
                .contains("aes: every node");
        assertThat(flags.get("remediation").asText()).startsWith("node-2 lack AVX2 that node-1 have");
    }

    @Test
    void aesOrAvx512Differences_warnOrAreOnlyNoted() throws IOException {
        Path one = report("node-1");
        Path noAes = report("node-2", h -> h.cpus(2, 8, 2, "fpu sse4_2 avx avx2 sha_ni avx512f"));
        assertThat(compareJson(one, noAes).get("nodes.cpu-flags").get("result").asText())
                .isEqualTo("warn");
        Path noAvx512 = report("node-3", h -> h.cpus(2, 8, 2, "fpu sse4_2 avx avx2 aes sha_ni"));
        JsonNode flags = compareJson(one, noAvx512).get("nodes.cpu-flags");
        assertThat(flags.get("result").asText()).isEqualTo("pass");
        assertThat(flags.get("measured").asText()).contains("avx512f: only node-1 (not node-3)");
    }

    @Test
    void differentMtus_fail_namingTheOddNodeAndTheValues() throws IOException {
        Map<String, JsonNode> checks = compareJson(
                report("node-1"), report("node-2", h -> h.networkInterface("eth1", 1500, true)), report("node-3"));
        JsonNode mtu = checks.get("nodes.mtu");
        assertThat(mtu.get("result").asText()).isEqualTo("fail");
        assertThat(mtu.get("measured").asText())
                .isEqualTo("node-1: eth0 9000, eth1 9000; node-2: eth0 9000, eth1 1500; node-3: eth0 9000, eth1 9000");
        assertThat(mtu.get("remediation").asText())
                .startsWith("set node-2 (eth0 9000, eth1 1500) to the MTUs of node-1, node-3 (MTU 9000)");
        assertThat(run(
                        "compare",
                        tmp.resolve("node-1.json").toString(),
                        tmp.resolve("node-2.json").toString()))
                .isEqualTo(2);
        // two nodes, two sets: no majority, so both are named with their values
        assertThat(out())
                .contains("FAIL  nodes.mtu")
                .contains(
                        "fix: give the nodes one set of MTUs (node-1: eth0 9000, eth1 9000; node-2: eth0 9000, eth1 1500)")
                .contains("fail (exit 2)");
    }

    @Test
    void theSameMtusOnDifferentlyNamedInterfaces_pass() throws IOException {
        Path renamed = report("node-2", h -> {
            h.remove("/sys/class/net/eth0/mtu").remove("/sys/class/net/eth0/operstate");
            h.networkInterface("ens1f0", 9000, true);
        });
        JsonNode mtu = compareJson(report("node-1"), renamed).get("nodes.mtu");
        assertThat(mtu.get("result").asText()).isEqualTo("pass");
        assertThat(mtu.get("measured").asText()).contains("node-2: ens1f0 9000, eth1 9000");
    }

    @Test
    void ramApartByMoreThanTenPercent_warns_andWithinTenPercentPasses() throws IOException {
        Path big = report("node-1", h -> h.memory(100L << 20, 0));
        Path within = report("node-2", h -> h.memory(91L << 20, 0));
        Path below = report("node-3", h -> h.memory(89L << 20, 0));
        assertThat(compareJson(big, within).get("nodes.memory").get("result").asText())
                .isEqualTo("pass");
        JsonNode memory = compareJson(big, within, below).get("nodes.memory");
        assertThat(memory.get("result").asText()).isEqualTo("warn");
        assertThat(memory.get("remediation").asText()).startsWith("give node-3 RAM to match the largest node");
    }

    @Test
    void differentKernels_warn() throws IOException {
        Path newer = report("node-2", h -> h.file("/proc/sys/kernel/osrelease", "5.14.0-503.el9.x86_64\n"));
        JsonNode kernel = compareJson(report("node-1"), newer).get("nodes.kernel");
        assertThat(kernel.get("result").asText()).isEqualTo("warn");
        assertThat(kernel.get("measured").asText())
                .isEqualTo("5.14.0-427.el9.x86_64 (node-1); 5.14.0-503.el9.x86_64 (node-2)");
    }

    @Test
    void oneReport_warnsThatThereIsNothingToCompare() throws IOException {
        Map<String, JsonNode> checks = compareJson(report("node-1"));
        assertThat(results(checks)).containsExactly(Map.entry("nodes.count", "warn"));
        assertThat(checks.get("nodes.count").get("measured").asText()).isEqualTo("1 node (node-1): nothing to compare");
    }

    @Test
    void twoReportsOfOneHostName_fail_namingTheFiles() throws IOException {
        Path one = report("node-1");
        Path copy = Files.copy(one, tmp.resolve("copy.json"));
        JsonNode count = compareJson(one, copy).get("nodes.count");
        assertThat(count.get("result").asText()).isEqualTo("fail");
        assertThat(count.get("measured").asText())
                .isEqualTo("2 reports, one host name in several: node-1 in " + one + ", " + copy);
    }

    @Test
    void aReportOnStandardInput() throws IOException {
        Path one = report("node-1");
        Path two = report("node-2");
        int exit = run(new ByteArrayInputStream(Files.readAllBytes(two)), "compare", one.toString(), "-");
        assertThat(exit).isZero();
        assertThat(out()).contains("2 nodes: node-1, node-2");

        assertThat(run(
                        new ByteArrayInputStream("{\"checks\": []}".getBytes(StandardCharsets.UTF_8)),
                        "compare",
                        one.toString(),
                        "-"))
                .isEqualTo(64);
        assertThat(err()).startsWith("appliance-installer: compare: standard input: no \"node\" object");
    }

    @Test
    void aMissingFile_exits64_namingIt() throws IOException {
        Path one = report("node-1");
        assertThat(run("compare", one.toString(), tmp.resolve("node-9.json").toString()))
                .isEqualTo(64);
        assertThat(err())
                .isEqualTo("appliance-installer: compare: " + tmp.resolve("node-9.json") + ": no such file"
                        + System.lineSeparator());
        assertThat(out()).isEmpty();
    }

    @Test
    void aFileThatIsNotJson_exits64_namingIt() throws IOException {
        Path text = Files.writeString(tmp.resolve("node-2.txt"), "PASS  cpu.avx2  avx2\n");
        assertThat(run("compare", report("node-1").toString(), text.toString())).isEqualTo(64);
        assertThat(err()).startsWith("appliance-installer: compare: " + text + ": not JSON");
        assertThat(out()).isEmpty();
    }

    @Test
    void aReportWithoutNode_fromAnOlderInstaller_exits64_namingIt() throws IOException {
        Path one = report("node-1");
        ObjectNode old = (ObjectNode) json.readTree(report("node-2").toFile());
        old.remove("node");
        Path older = Files.writeString(tmp.resolve("older.json"), old.toString());
        assertThat(run("compare", one.toString(), older.toString())).isEqualTo(64);
        assertThat(err())
                .startsWith("appliance-installer: compare: " + older + ": no \"node\" object (written by an installer"
                        + " older than compare)");
        assertThat(out()).isEmpty();
    }

    @Test
    void aNodeWithAFieldOfTheWrongType_exits64_namingTheFileAndField() throws IOException {
        ObjectNode report = (ObjectNode) json.readTree(report("node-2").toFile());
        ((ObjectNode) report.get("node")).put("ramBytes", "a lot");
        Path edited = Files.writeString(tmp.resolve("edited.json"), report.toString());
        assertThat(run("compare", report("node-1").toString(), edited.toString()))
                .isEqualTo(64);
        assertThat(err())
                .startsWith("appliance-installer: compare: " + edited + ": node.ramBytes is not a whole number");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "compare | compare: no report given",
                "compare --json | compare: no report given",
                "compare --frobnicate a.json | unknown option '--frobnicate' for compare",
                "compare a.json a.json | compare: a.json given twice",
                "compare - - | compare: - given twice"
            })
    void aBadArgument_exits64_withTheUsage(String args, String message) {
        assertThat(run(args.split(" "))).isEqualTo(64);
        assertThat(err())
                .startsWith("appliance-installer: " + message)
                .contains("appliance-installer compare [--json] FILE...");
        assertThat(out()).isEmpty();
    }

    @Test
    void help_describesCompare() {
        assertThat(run("compare", "--help")).isZero();
        assertThat(out())
                .contains("appliance-installer compare [--json] FILE...")
                .contains("nodes.cpu-model", "nodes.cpu-flags", "nodes.memory", "nodes.kernel", "nodes.mtu")
                .contains("nodes.count")
                .contains("check --json > node-N.json");
    }
}
