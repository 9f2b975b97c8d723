package dev.appliance.installer.smart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process path: a stand-in {@code smartctl} script found through the directories searched, run for real. */
class SmartctlTest {
    @TempDir
    Path tmp;

    private Path script(Path dir, String body) throws IOException {
        Files.createDirectories(dir);
        Path s = dir.resolve("smartctl");
        Files.writeString(s, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwxr-xr-x"));
        return s;
    }

    private static String fixture(String name) throws IOException {
        try (InputStream in = SmartctlTest.class.getResourceAsStream("/smart/" + name + ".json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void theFirstSmartctlOnThePath_isRun_withTheJsonHealthAttributesAndErrorLogArguments() throws IOException {
        Path report = Files.writeString(tmp.resolve("report.json"), fixture("ata-reallocated"));
        Path args = tmp.resolve("args");
        // a failing disk makes smartctl exit non-zero with a full report: the JSON decides, not the status
        script(tmp.resolve("bin"), "echo \"$@\" > " + args + "\ncat " + report + "\nexit 64\n");
        script(tmp.resolve("later"), "exit 99\n");
        Smartctl smartctl = Smartctl.locate(
                List.of(
                        tmp.resolve("empty").toString(),
                        tmp.resolve("bin").toString(),
                        tmp.resolve("later").toString()),
                Duration.ofSeconds(20));
        assertThat(smartctl.command()).contains(tmp.resolve("bin/smartctl"));

        SmartReading r = smartctl.read("/dev/sdb");

        assertThat(Files.readString(args).strip()).isEqualTo("--json -H -A -l error /dev/sdb");
        assertThat(r).isInstanceOf(SmartReading.Read.class);
        SmartHealth h = ((SmartReading.Read) r).health();
        assertThat(h.passed()).contains(true);
        assertThat(h.reallocated()).hasValue(64);
        assertThat(h.pending()).hasValue(8);
        assertThat(h.protocol()).isEqualTo("ATA");
    }

    @Test
    void aSmartctlThatHangs_isKilledAtTheTimeout() throws IOException {
        Path pidFile = tmp.resolve("pid");
        script(tmp.resolve("bin"), "echo $$ > " + pidFile + "\nexec sleep 600\n");
        Smartctl smartctl = Smartctl.locate(List.of(tmp.resolve("bin").toString()), Duration.ofMillis(300));

        SmartReading r = smartctl.read("/dev/sdb");

        assertThat(r)
                .isEqualTo(
                        new SmartReading.Unreadable("smartctl did not answer within 300 ms (the disk may be hanging)"));
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        ProcessHandle.of(pid).ifPresent(p -> assertThat(p.onExit()).succeedsWithin(Duration.ofSeconds(10)));
    }

    @Test
    void withoutSmartctl_theReadingSaysWhereItLooked() {
        String empty = tmp.resolve("empty").toString();
        Smartctl smartctl = Smartctl.locate(List.of(empty), Duration.ofSeconds(1));
        assertThat(smartctl.command()).isEmpty();
        assertThat(smartctl.read("/dev/sdb")).isEqualTo(new SmartReading.NotInstalled(empty));
    }
}
