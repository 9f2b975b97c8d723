package dev.appliance.installer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.installer.check.Result;
import dev.appliance.installer.system.SystemView;
import dev.appliance.installer.testing.FakeHost;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InstallerMainTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Function<Path, SystemView> views, String... args) {
        return InstallerMain.run(
                List.of(args),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                views);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The fake host under --root, its time state as given. */
    private static Function<Path, SystemView> fake(HostTimeSync.State state) {
        return root -> new SystemView(root, () -> state);
    }

    @Test
    void checkJson_onThisMachine_listsEveryCheck_andExitsWithTheWorstResult() throws IOException {
        Path drive = Files.createDirectories(tmp.resolve("drive1"));
        int exit = run(SystemView::under, "check", "--json", "--drives", drive.toString());
        JsonNode json = new ObjectMapper().readTree(out());
        List<Result> results = new ArrayList<>();
        for (JsonNode c : json.get("checks")) {
            assertThat(c.properties())
                    .extracting(e -> e.getKey())
                    .containsExactly("id", "result", "measured", "expected", "remediation");
            Result r = Result.valueOf(c.get("result").asText().toUpperCase(java.util.Locale.ROOT));
            results.add(r);
            assertThat(c.get("measured").asText()).as(c.toString()).isNotBlank();
            assertThat(c.get("expected").asText()).as(c.toString()).isNotBlank();
            assertThat(c.get("remediation").asText().isBlank()).as(c.toString()).isEqualTo(r == Result.PASS);
        }
        assertThat(results).hasSizeGreaterThan(20);
        int worst = results.stream().mapToInt(Result::exitCode).max().orElseThrow();
        assertThat(exit).isEqualTo(worst);
        assertThat(err()).isEmpty();
    }

    @Test
    void check_onAHealthyHostWithoutDrives_warnsOnlyThatTheDrivesWereNotChecked() throws IOException {
        FakeHost.healthy(tmp);
        int exit = run(fake(HostTimeSync.State.SYNCHRONIZED), "check", "--json", "--root", tmp.toString());
        assertThat(exit).isEqualTo(1);
        List<String> notPassing = new ArrayList<>();
        new ObjectMapper().readTree(out()).get("checks").forEach(c -> {
            if (!c.get("result").asText().equals("pass")) {
                notPassing.add(c.get("id").asText() + "=" + c.get("result").asText());
            }
        });
        assertThat(notPassing).containsExactly("drives=warn");
    }

    @Test
    void check_anUnsynchronisedClock_exits2_andTheReportSaysWhy() {
        FakeHost.healthy(tmp);
        int exit = run(fake(HostTimeSync.State.UNSYNCHRONIZED), "check", "--root", tmp.toString());
        assertThat(exit).isEqualTo(2);
        assertThat(out())
                .contains("FAIL  time.sync")
                .contains("expected: synchronised by chrony or another NTP client")
                .contains("fix: dnf install chrony")
                .contains("fail (exit 2): ")
                .doesNotContain("\u001b"); // no escape codes
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "check --capacity 10XB | --capacity: '10XB' (expected a size",
                "check --capacity | --capacity: no value given",
                "check --concurrency 0 | --concurrency: '0' (expected a whole number >= 1)",
                "check --concurrency many | --concurrency: 'many'",
                "check --drives | --drives: no directory given",
                "check --drives --json | --drives: no directory given",
                "check --frobnicate | unknown option '--frobnicate' for check",
                "check --root /no/such/dir | --root: '/no/such/dir' is not a directory",
                "tune --apply --dry-run | --apply and --dry-run together",
                "tune --force | unknown option '--force' for tune",
                "install | unknown command 'install'"
            })
    void aBadArgument_exits64_namingIt(String args, String message) {
        int exit = run(fake(HostTimeSync.State.SYNCHRONIZED), args.split(" "));
        assertThat(exit).isEqualTo(64);
        assertThat(err()).startsWith("appliance-installer: " + message).contains("usage: appliance-installer check");
        assertThat(out()).isEmpty();
    }

    @Test
    void noArguments_printsTheUsage_andExits64() {
        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED))).isEqualTo(64);
        assertThat(err()).startsWith("usage: appliance-installer check");
    }

    @Test
    void help_explainsEveryOptionAndTheExitStatus() {
        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED), "--help")).isZero();
        assertThat(out())
                .contains("--json", "--drives", "--capacity", "--concurrency", "--root", "--dry-run", "--apply")
                .contains("--probe", "prepare-drives", "--format", "--yes", "--force", "--label-prefix", "--mount-base")
                .contains("--no-mount", "smartctl", "tuned")
                .contains("exit status: 0 every check passed, 1 a warning, 2 a failure");
    }

    @Test
    void checkProbe_probesEachDrive_andWithoutItNoDriveIsWritten() throws IOException {
        FakeHost.healthy(tmp.resolve("root"));
        List<String> args = new ArrayList<>(
                List.of("check", "--json", "--root", tmp.resolve("root").toString()));
        args.add("--drives");
        for (int i = 1; i <= 4; i++) {
            args.add(Files.createDirectories(tmp.resolve("d" + i)).toString());
        }
        run(fake(HostTimeSync.State.SYNCHRONIZED), args.toArray(String[]::new));
        assertThat(new ObjectMapper().readTree(out()).get("checks").findValuesAsText("id"))
                .contains("drives.count", "smart")
                .doesNotContain("drives.probe");

        out.reset();
        args.add("--probe");
        run(fake(HostTimeSync.State.SYNCHRONIZED), args.toArray(String[]::new));
        JsonNode probe = null;
        for (JsonNode c : new ObjectMapper().readTree(out()).get("checks")) {
            if (c.get("id").asText().equals("drives.probe")) {
                probe = c;
            }
        }
        assertThat(probe).isNotNull();
        // measured, or (on a filesystem without O_DIRECT, such as some container overlays) said so
        assertThat(probe.get("measured").asText()).containsAnyOf("median of 4 drives", "refuses O_DIRECT");
        try (var files = Files.list(tmp.resolve("d1"))) {
            assertThat(files).as("the probe file is deleted").isEmpty();
        }
    }

    @Test
    void tune_isADryRunByDefault_andApplyWritesOnlyUnderTheRoot() throws IOException {
        FakeHost.healthy(tmp).sysctl("net.core.rmem_max", "212992");
        Path file = tmp.resolve("etc/sysctl.d/90-appliance.conf");

        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED), "tune", "--root", tmp.toString()))
                .isZero();
        assertThat(out())
                .contains("+net.core.rmem_max = 67108864")
                .contains("+++ " + tmp.resolve("etc/tuned/appliance/tuned.conf") + " (tuned)")
                .contains("+net.core.rmem_max=67108864")
                .contains("Dry run: nothing written");
        assertThat(file).doesNotExist();
        assertThat(tmp.resolve("etc/tuned")).doesNotExist();

        out.reset();
        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED), "tune", "--apply", "--root", tmp.toString()))
                .isZero();
        assertThat(out())
                .contains("Wrote " + file)
                .contains("Wrote " + tmp.resolve("etc/tuned/appliance/tuned.conf") + ". Use it with: tuned-adm"
                        + " profile appliance");
        assertThat(Files.readString(file)).contains("net.core.rmem_max = 67108864\n");
        assertThat(Files.readString(tmp.resolve("etc/tuned/appliance/tuned.conf")))
                .contains("net.core.rmem_max=67108864\n");

        out.reset();
        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED), "tune", "--root", tmp.toString()))
                .isZero();
        assertThat(out())
                .isEqualTo(file + " is up to date: nothing to change." + System.lineSeparator()
                        + tmp.resolve("etc/tuned/appliance/tuned.conf") + " is up to date: nothing to change."
                        + System.lineSeparator());
    }

    @Test
    void tune_aFileThatCannotBeWritten_exits74() throws IOException {
        FakeHost.healthy(tmp);
        Files.writeString(tmp.resolve("etc"), "a file where the directory should be");
        assertThat(run(fake(HostTimeSync.State.SYNCHRONIZED), "tune", "--apply", "--root", tmp.toString()))
                .isEqualTo(74);
        assertThat(err())
                .startsWith("appliance-installer: cannot write " + tmp.resolve("etc/sysctl.d/90-appliance.conf"));
    }

    @Test
    void resultsAreSpelledInLowerCase() {
        assertThat(Set.of(Result.values())).extracting(Result::label).containsExactlyInAnyOrder("pass", "warn", "fail");
    }
}
