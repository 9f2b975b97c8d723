package dev.appliance.it;

import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One Python process per test JVM that runs AWS CLI v1 commands one after another ({@code aws_cli_runner.py}): the
 * CLI's own driver with each command's arguments, environment and output files, so what is sent and printed is the
 * CLI's, while the interpreter's start and the CLI's imports are paid once instead of per command (docs/testing.md).
 *
 * <p>Used when {@code aws} is a Python script (v1 installs one; v2 is a bundled binary), unless {@code
 * -Dit.awscli.runner=false}; otherwise {@link AwsCli} starts {@code aws} per command as before.
 */
final class AwsCliRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MARKER = "@@aws-cli-runner ";
    private static final String EOF = "\u0000eof";
    private static final Map<String, Optional<AwsCliRunner>> BY_EXECUTABLE = new HashMap<>();

    private final List<String> command;
    private final Path stderr;
    private Process process;
    private OutputStream requests;
    private BlockingQueue<String> lines;

    private AwsCliRunner(List<String> command, Path stderr) {
        this.command = command;
        this.stderr = stderr;
    }

    /** The runner for the CLI at {@code executable}, started on first use; null when the CLI runs per process. */
    static synchronized AwsCliRunner forCli(String executable) {
        if ("false".equals(System.getProperty("it.awscli.runner"))) {
            return null;
        }
        return BY_EXECUTABLE
                .computeIfAbsent(executable, e -> Optional.ofNullable(start(e)))
                .orElse(null);
    }

    private static AwsCliRunner start(String executable) {
        AwsCliRunner runner = null;
        try {
            List<String> interpreter = pythonOf(Path.of(executable));
            if (interpreter == null) {
                return null;
            }
            Path dir = Files.createTempDirectory("aws-cli-runner");
            dir.toFile().deleteOnExit(); // after the files below (the hooks run in reverse order)
            Path script = dir.resolve("aws_cli_runner.py");
            for (String name : List.of("aws_cli_runner.py", "runner.err", "probe.out", "probe.err")) {
                dir.resolve(name).toFile().deleteOnExit();
            }
            try (InputStream in = AwsCliRunner.class.getResourceAsStream("/aws_cli_runner.py")) {
                if (in == null) {
                    throw new IOException("the test resource aws_cli_runner.py is missing");
                }
                Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            }
            List<String> command = new java.util.ArrayList<>(interpreter);
            command.add(script.toString());
            runner = new AwsCliRunner(command, dir.resolve("runner.err"));
            runner.launch();
            // the CLI answers its version from the runner as from the script: else the runner is not used
            Path out = dir.resolve("probe.out");
            Path err = dir.resolve("probe.err");
            int status = runner.run(List.of("--version"), Map.of(), out, err, Duration.ofSeconds(60));
            String version = Files.readString(out) + Files.readString(err);
            if (status != 0 || !version.contains("aws-cli/")) {
                System.err.printf(
                        "[it] the AWS CLI runs per command: the runner answered --version with %d: %s%n",
                        status, version);
                runner.process.destroyForcibly();
                return null;
            }
            return runner;
        } catch (IOException | AssertionError e) {
            System.err.println("[it] the AWS CLI runs per command: " + e);
            if (runner != null && runner.process != null) {
                runner.process.destroyForcibly();
            }
            return null;
        }
    }

    /** The interpreter named by the script's {@code #!} line when it is a Python, or null. */
    private static List<String> pythonOf(Path executable) throws IOException {
        String first;
        try (BufferedReader r = Files.newBufferedReader(executable, StandardCharsets.ISO_8859_1)) {
            first = r.readLine();
        }
        if (first == null || !first.startsWith("#!") || !first.contains("python")) {
            return null;
        }
        return List.of(first.substring(2).trim().split("\\s+"));
    }

    private void launch() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        process = pb.start();
        requests = process.getOutputStream();
        lines = new LinkedBlockingQueue<>();
        BufferedReader replies =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BlockingQueue<String> queue = lines;
        Thread.ofVirtual().name("aws-cli-runner-replies").start(() -> {
            try {
                for (String line; (line = replies.readLine()) != null; ) {
                    queue.add(line);
                }
            } catch (IOException e) {
                // the process ended: EOF below
            }
            queue.add(EOF);
        });
        Process p = process;
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    }

    /** Runs one command ({@code aws ARGS}) with {@code env} as its AWS_* environment; its exit status. */
    synchronized int run(List<String> args, Map<String, String> env, Path out, Path err, Duration timeout)
            throws IOException {
        if (!process.isAlive()) {
            launch(); // an earlier command's timeout ended it
        }
        Map<String, Object> request =
                Map.of("args", args, "env", env, "stdout", out.toString(), "stderr", err.toString());
        requests.write((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
        requests.flush();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    process.destroyForcibly();
                    fail("aws " + String.join(" ", args) + " did not finish within " + timeout + "; stderr:\n"
                            + (Files.exists(err) ? Files.readString(err) : ""));
                }
                if (line.equals(EOF)) {
                    fail("the AWS CLI runner ended during aws " + String.join(" ", args) + ": "
                            + Files.readString(stderr));
                }
                if (line.startsWith(MARKER)) {
                    return JSON.readTree(line.substring(MARKER.length()))
                            .path("status")
                            .asInt(-1);
                }
                // anything else the CLI wrote to the runner's own stdout is not an answer
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException(e);
        }
    }
}
