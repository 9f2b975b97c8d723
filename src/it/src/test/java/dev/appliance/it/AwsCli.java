package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real AWS CLI ({@code aws}, v1 or v2) pointed at one appliance, with the credentials in the environment as a
 * user's shell would have them, a config file of the test's choosing, and nothing from the machine's own AWS
 * configuration.
 */
final class AwsCli {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** urllib3's debug line for each response: {@code http://host:port "GET /b?x HTTP/1.1" 404 208}. */
    private static final Pattern STATUS_LINE = Pattern.compile("\"[A-Z]+ \\S+ HTTP/1\\.1\" (\\d{3}) ");

    private static final java.time.Duration COMMAND_TIMEOUT = java.time.Duration.ofSeconds(180);

    private static final Pattern ERROR_LINE = Pattern.compile("An error occurred \\(([^)]+)\\) when calling");

    /** The result of one CLI run. */
    record Result(int status, String stdout, String stderr) {}

    /** An S3 error as the CLI reported it: the code it printed and the HTTP status of the last response. */
    record S3Error(String code, int httpStatus) {}

    private final String executable;
    private final ApplianceProcess appliance;
    private final Path config;
    private final Path tmp;
    private final String accessKey;
    private final String secretKey;

    private AwsCli(String executable, ApplianceProcess appliance, Path config, Path tmp) {
        this(executable, appliance, config, tmp, appliance.accessKey(), appliance.secretKey());
    }

    private AwsCli(
            String executable, ApplianceProcess appliance, Path config, Path tmp, String accessKey, String secretKey) {
        this.executable = executable;
        this.appliance = appliance;
        this.config = config;
        this.tmp = tmp;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** The same CLI signing with another key (an IAM user's) instead of the root credential. */
    AwsCli withCredentials(String accessKey, String secretKey) {
        return new AwsCli(executable, appliance, config, tmp, accessKey, secretKey);
    }

    /** The CLI found on the PATH, writing its config file under {@code tmp}; fails the test class when missing. */
    static AwsCli onPath(ApplianceProcess appliance, Path tmp, String config) throws IOException {
        String aws = findOnPath("aws");
        if (aws == null) {
            fail("the AWS CLI ('aws') is not on the PATH (" + System.getenv("PATH") + "): install it with"
                    + " 'python3 -m pip install awscli' (./appliance test does this before running the tests)");
        }
        Path file = tmp.resolve("aws-config-" + UUID.randomUUID());
        Files.writeString(file, config);
        return new AwsCli(aws, appliance, file, tmp);
    }

    /** The same CLI with another config file. */
    AwsCli withConfig(String config) throws IOException {
        Path file = tmp.resolve("aws-config-" + UUID.randomUUID());
        Files.writeString(file, config);
        return new AwsCli(executable, appliance, file, tmp, accessKey, secretKey);
    }

    private static String findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                return pastPyenvShim(candidate, name);
            }
        }
        return null;
    }

    /**
     * The program a pyenv shim would run, found once, or the shim itself when pyenv cannot say. The suite runs the CLI
     * about 160 times, and a shim spends a quarter of a second of CPU per run finding the same program again.
     */
    private static String pastPyenvShim(Path candidate, String name) {
        Path shims = candidate.getParent();
        if (shims == null || !shims.endsWith(Path.of(".pyenv", "shims"))) {
            return candidate.toString();
        }
        Path pyenv = shims.getParent().resolve(Path.of("bin", "pyenv"));
        try {
            Process p = new ProcessBuilder(Files.isExecutable(pyenv) ? pyenv.toString() : "pyenv", "which", name)
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.isExecutable(Path.of(out))) {
                return out;
            }
        } catch (IOException e) {
            // pyenv is not runnable from here: the shim still works
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return candidate.toString();
    }

    /** Runs {@code aws --endpoint-url <appliance> args...}; fails the test when the CLI does not exit 0. */
    String run(String... args) {
        Result r = mayFail(args);
        assertThat(r.status())
                .as(
                        "aws %s exited with %d%nstdout:%n%s%nstderr:%n%s",
                        String.join(" ", args), r.status(), r.stdout(), r.stderr())
                .isZero();
        return r.stdout();
    }

    /** As {@link #run} with {@code --output json}, parsed; a command that prints nothing gives an empty object. */
    JsonNode json(String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--output", "json"));
        String out = run(all.toArray(String[]::new));
        return out.isBlank() ? JSON.createObjectNode() : JSON.readTree(out);
    }

    /**
     * Runs a command that must fail with an S3 error; returns the error code the CLI printed and the HTTP status of the
     * response (from the CLI's {@code --debug} log, since the CLI prints only the code).
     */
    S3Error error(String... args) {
        return errorOf(mayFail(withDebug(args)), args);
    }

    /** As {@link #error}, always as a separate {@code aws} process. */
    S3Error errorAsProcess(String... args) {
        return errorOf(mayFailAsProcess(withDebug(args)), args);
    }

    private static String[] withDebug(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--debug");
        return all.toArray(String[]::new);
    }

    private static S3Error errorOf(Result r, String... args) {
        String command = String.join(" ", args);
        assertThat(r.status())
                .as("aws %s was expected to fail%nstdout:%n%s", command, r.stdout())
                .isNotZero();
        Matcher code = ERROR_LINE.matcher(r.stderr());
        String lastCode = null;
        while (code.find()) {
            lastCode = code.group(1);
        }
        Matcher status = STATUS_LINE.matcher(r.stderr());
        int lastStatus = -1;
        while (status.find()) {
            lastStatus = Integer.parseInt(status.group(1));
        }
        assertThat(lastCode)
                .as("aws %s printed an S3 error code; stderr ends:%n%s", command, tail(r.stderr()))
                .isNotNull();
        return new S3Error(lastCode, lastStatus);
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : text.substring(text.length() - 4000);
    }

    Result mayFail(String... args) {
        return execute(AwsCliRunner.forCli(executable), args);
    }

    /** As {@link #mayFail}, always as a separate {@code aws} process: the reference the runner is checked against. */
    Result mayFailAsProcess(String... args) {
        return execute(null, args);
    }

    /** The {@code aws} program found on the PATH. */
    String executable() {
        return executable;
    }

    /** True when commands run in the {@link AwsCliRunner} rather than as processes. */
    boolean inRunner() {
        return AwsCliRunner.forCli(executable) != null;
    }

    private Result execute(AwsCliRunner runner, String... args) {
        List<String> all =
                new ArrayList<>(List.of("--endpoint-url", appliance.s3Endpoint().toString()));
        all.addAll(List.of(args));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_ACCESS_KEY_ID", accessKey);
        env.put("AWS_SECRET_ACCESS_KEY", secretKey);
        env.put("AWS_DEFAULT_REGION", ApplianceProcess.REGION);
        env.put("AWS_CONFIG_FILE", config.toString());
        env.put(
                "AWS_SHARED_CREDENTIALS_FILE",
                tmp.resolve("no-credentials-file").toString());
        env.put("AWS_EC2_METADATA_DISABLED", "true");
        env.put("AWS_PAGER", "");
        Path out = tmp.resolve("cli-" + UUID.randomUUID() + ".out");
        Path err = tmp.resolve("cli-" + UUID.randomUUID() + ".err");
        long started = System.nanoTime();
        try {
            int status =
                    runner != null ? runner.run(all, env, out, err, COMMAND_TIMEOUT) : runProcess(all, env, out, err);
            Result r = new Result(status, Files.readString(out), Files.readString(err));
            System.out.printf(
                    "[it] aws %s -> %d in %d ms%s%n",
                    String.join(" ", args),
                    r.status(),
                    (System.nanoTime() - started) / 1_000_000,
                    runner != null ? " (in the runner)" : "");
            Files.delete(out);
            Files.delete(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The CLI as its own process: {@code aws} is not a Python script (v2), or the runner is turned off. */
    private int runProcess(List<String> args, Map<String, String> env, Path out, Path err)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(executable));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        pb.environment().putAll(env);
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("aws " + String.join(" ", args) + " did not finish within " + COMMAND_TIMEOUT + "; stderr:\n"
                    + Files.readString(err));
        }
        return p.exitValue();
    }
}
