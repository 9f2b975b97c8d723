package dev.appliance.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The server's logging as {@link ServiceLogging} sets it up: with a log directory, every record in {@code
 * appliance.log} rotated by size into compressed files (no more than the cap), the access log in {@code access.log}
 * only, standard output left with warnings, errors and the banner, generated credentials never in a file; without
 * one, everything on standard output. Every line starts with its UTC time and holds no escape code.
 */
class ServiceLoggingTest {
    /** {@code 2026-11-27T00:31:14.541Z LEVEL logger: message}. */
    private static final String LINE =
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR) \\S+: .*";

    @TempDir
    Path tmp;

    private PrintStream realOut;
    private PrintStream realErr;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void captureTheConsole() {
        realOut = System.out;
        realErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        ServiceLogging.stop();
        System.setOut(realOut);
        System.setErr(realErr);
        System.clearProperty("org.springframework.boot.logging.LoggingSystem");
    }

    @Test
    void withALogDirectory_filesGetTheRecords_rotatedCompressedAndCapped_theConsoleOnlyWhatMatters() throws Exception {
        Path dir = tmp.resolve("log/appliance"); // created when missing
        ServiceLogging.configure(new ServiceLogging.Settings(dir, 2048, 2, Duration.ZERO));
        var engine = LoggerFactory.getLogger("dev.appliance.core.SomeEngineClass");
        for (int i = 0; i < 200; i++) {
            engine.info("record {} of the engine, long enough that 2 KB hold about twenty of them", i);
        }
        // the engine and the S3 front end log through java.util.logging: bridged into the same file
        java.util.logging.Logger.getLogger("dev.appliance.s3.Jul").warning("a warning through JUL");
        var banner = LoggerFactory.getLogger(ServiceLogging.BANNER);
        banner.info("S3 API:   http://127.0.0.1:9000");
        LoggerFactory.getLogger(ServiceLogging.SHOWN_ONCE).info("  RootPassword: not-for-files");
        LoggerFactory.getLogger("org.springframework.Noise").info("a library says it started");
        Instant answered = Instant.parse("2026-11-27T01:02:03.456Z");
        ServiceLogging.accessWriter().write(answered, "remote=127.0.0.1 user=k method=GET status=200");
        ServiceLogging.stop(); // writes out the file's queue

        assertThat(dir.resolve("appliance.log")).isRegularFile();
        assertThat(dir.resolve("appliance.1.log.gz")).isRegularFile();
        assertThat(dir.resolve("appliance.2.log.gz")).isRegularFile();
        assertThat(dir.resolve("appliance.3.log.gz"))
                .as("two rotated files kept")
                .doesNotExist();
        assertThat(Files.size(dir.resolve("appliance.log"))).isLessThan(4096);
        List<String> current = Files.readAllLines(dir.resolve("appliance.log"));
        List<String> rotated = gunzip(dir.resolve("appliance.1.log.gz"));
        assertThat(current).isNotEmpty().allMatch(l -> l.matches(LINE), "every line: time, level, logger");
        assertThat(rotated).isNotEmpty().allMatch(l -> l.matches(LINE));
        List<String> latest = new java.util.ArrayList<>(rotated);
        latest.addAll(current);
        assertThat(latest)
                .anyMatch(l -> l.endsWith(" WARN  dev.appliance.s3.Jul: a warning through JUL"))
                .anyMatch(l -> l.endsWith(" INFO  appliance: S3 API:   http://127.0.0.1:9000"))
                .anyMatch(l -> l.contains("record 199 of the engine"));
        String files = String.join("\n", latest);
        assertThat(files)
                .doesNotContain("not-for-files")
                .doesNotContain("a library says it started")
                .doesNotContain("remote=127.0.0.1")
                .doesNotContain("\u001b");

        assertThat(Files.readAllLines(dir.resolve("access.log")))
                .containsExactly("2026-11-27T01:02:03.456Z remote=127.0.0.1 user=k method=GET status=200");

        String console = out.toString(StandardCharsets.UTF_8);
        assertThat(console.lines().toList())
                .allMatch(l -> l.matches(LINE))
                .anyMatch(l -> l.endsWith("appliance: S3 API:   http://127.0.0.1:9000"))
                .anyMatch(l -> l.endsWith("appliance.credentials:   RootPassword: not-for-files"))
                .anyMatch(l -> l.endsWith("a warning through JUL"))
                .noneMatch(l -> l.contains("record 199 of the engine"));
        assertThat(console).doesNotContain("\u001b");
    }

    @Test
    void withoutALogDirectory_everythingGoesToTheConsole_errorsToStandardError() {
        ServiceLogging.configure(ServiceLogging.Settings.CONSOLE);
        LoggerFactory.getLogger("dev.appliance.core.SomeEngineClass").info("formatted a drive");
        LoggerFactory.getLogger(ServiceLogging.BANNER).error("cannot start: drive /d1 is missing");
        ServiceLogging.accessWriter().write(Instant.parse("2026-11-27T01:02:03.456Z"), "remote=10.0.0.1 status=200");

        List<String> stdout = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(stdout)
                .allMatch(l -> l.matches(LINE))
                .anyMatch(l -> l.endsWith(" INFO  d.a.core.SomeEngineClass: formatted a drive")
                        || l.endsWith(" INFO  dev.appliance.core.SomeEngineClass: formatted a drive"))
                .contains("2026-11-27T01:02:03.456Z INFO  s3.access: remote=10.0.0.1 status=200")
                .noneMatch(l -> l.contains("cannot start"));
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                .singleElement()
                .asString()
                .matches(LINE)
                .endsWith(" ERROR appliance: cannot start: drive /d1 is missing");
    }

    @Test
    void aLogDirectoryThatCannotBeWrittenRefusesTheStart() throws IOException {
        Path file = Files.writeString(tmp.resolve("not-a-dir"), "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> ServiceLogging.configure(new ServiceLogging.Settings(file, 2048, 2, Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("log directory " + file);
    }

    private static List<String> gunzip(Path gz) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
