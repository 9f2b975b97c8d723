package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Python script from the test resources with boto3 against a running appliance, the credentials in the
 * environment as a user's shell would have them (and nothing from the machine's own AWS configuration), and checks its
 * {@code OK <check>} lines.
 */
final class PythonSuite {
    /** What a suite printed; {@code lines} is stdout by line, {@code report} both streams for failure messages. */
    record Run(int exitStatus, List<String> lines, String report) {
        /** Every named check printed {@code OK <check>}, none printed {@code FAIL}, and the script exited 0. */
        void assertPassed(List<String> checks) {
            for (String check : checks) {
                assertThat(lines).as("check %s passed%n%s", check, report).contains("OK " + check);
            }
            assertThat(lines).as(report).noneMatch(l -> l.startsWith("FAIL "));
            assertThat(exitStatus).as("exit status%n%s", report).isZero();
        }

        /**
         * The suite's last {@code SUMMARY <json>} line, printed under {@code title}, after checking that its
         * {@code failed} list is empty and its {@code passed} list names {@code checks} checks.
         */
        com.fasterxml.jackson.databind.JsonNode summary(String title, int checks) throws IOException {
            String line = lines.stream()
                    .filter(l -> l.startsWith("SUMMARY "))
                    .reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("no SUMMARY line\n" + report));
            System.out.println(title + ": " + line);
            var summary =
                    new com.fasterxml.jackson.databind.ObjectMapper().readTree(line.substring("SUMMARY ".length()));
            assertThat(summary.get("failed")).as(report).isEmpty();
            assertThat(summary.get("passed")).hasSize(checks);
            return summary;
        }
    }

    private PythonSuite() {}

    /** The first of python3.11 / python3 / python that imports boto3; fails the test class with a clear message. */
    static String pythonWithBoto3(String forTest) throws Exception {
        List<String> tried = new ArrayList<>();
        for (String candidate : List.of("python3.11", "python3", "python")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import boto3, botocore; print(boto3.__version__)")
                        .redirectErrorStream(true)
                        .start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
                tried.add(candidate + ": " + out.lines().reduce((a, b) -> b).orElse("exit " + p.exitValue()));
            } catch (IOException e) {
                tried.add(candidate + ": not found");
            }
        }
        fail("boto3 is needed for " + forTest + " but no Python interpreter here imports it ("
                + String.join("; ", tried) + "). Install it with 'python3 -m pip install boto3'.");
        return null;
    }

    /** Runs resource {@code script} (e.g. {@code /boto3_suite.py}) for at most 5 minutes. */
    static Run run(String python, String script, ApplianceProcess appliance, Path tmp) throws Exception {
        return run(python, script, appliance, tmp, Map.of());
    }

    /** As {@link #run(String, String, ApplianceProcess, Path)}, with {@code extraEnv} added to the environment. */
    static Run run(String python, String script, ApplianceProcess appliance, Path tmp, Map<String, String> extraEnv)
            throws Exception {
        String name = script.substring(script.lastIndexOf('/') + 1);
        Path copy = tmp.resolve(name);
        for (String resource : List.of(script, "/suite_checks.py")) { // the suite and the runner it imports
            try (InputStream in = PythonSuite.class.getResourceAsStream(resource)) {
                assertThat(in).as("test resource " + resource).isNotNull();
                Files.copy(
                        in,
                        resource.equals(script) ? copy : tmp.resolve("suite_checks.py"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        ProcessBuilder pb = new ProcessBuilder(python, copy.toString());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("AWS_"));
        env.put("S3_ENDPOINT", appliance.s3Endpoint().toString());
        env.put("AWS_ACCESS_KEY_ID", appliance.accessKey());
        env.put("AWS_SECRET_ACCESS_KEY", appliance.secretKey());
        env.put("AWS_DEFAULT_REGION", ApplianceProcess.REGION);
        env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        env.put("AWS_EC2_METADATA_DISABLED", "true");
        env.put("PYTHONUNBUFFERED", "1");
        env.putAll(extraEnv);
        Path out = tmp.resolve(name + ".out");
        Path err = tmp.resolve(name + ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        boolean exited = p.waitFor(5, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out);
        String report = "stdout:\n" + stdout + "\nstderr:\n" + Files.readString(err);
        assertThat(exited).as("%s finished within 5 minutes%n%s", name, report).isTrue();
        return new Run(p.exitValue(), stdout.lines().toList(), report);
    }
}
