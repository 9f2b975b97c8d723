package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * POST Object (browser-based uploads) against a real appliance process, with the policy built and signed by a third
 * party: boto3's {@code generate_presigned_post} (SigV4), the form posted with Python {@code requests} (or urllib when
 * requests is missing). The script {@code post_object_suite.py} (a test resource) prints {@code OK <check>} or {@code
 * FAIL <check>: ...} per check and a {@code SUMMARY <json>} line; this test asserts on both.
 */
class PostObjectIT {
    private static final List<String> CHECKS = List.of(
            "presigned_post_201_with_fields",
            "presigned_post_large_streamed_204",
            "content_length_range_refused",
            "tampered_signature_refused",
            "extra_field_refused",
            "expired_policy_refused",
            "redirect_303",
            "cleanup");

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static String python;

    @BeforeAll
    static void start() throws Exception {
        python = findPythonWithBoto3();
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "post-it-admin", "post-it-secret-" + UUID.randomUUID()))
                .start();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    /** The first of python3.11 / python3 / python that imports boto3; fails the class with a clear message if none. */
    private static String findPythonWithBoto3() throws Exception {
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
        fail("boto3 is needed for PostObjectIT but no Python interpreter here imports it (" + String.join("; ", tried)
                + "). Install it with 'python3 -m pip install boto3'.");
        return null;
    }

    @Test
    void postObjectSuite_passesEveryCheck() throws Exception {
        Path script = tmp.resolve("post_object_suite.py");
        try (InputStream in = PostObjectIT.class.getResourceAsStream("/post_object_suite.py")) {
            assertThat(in).as("test resource post_object_suite.py").isNotNull();
            Files.copy(in, script);
        }
        ProcessBuilder pb = new ProcessBuilder(python, script.toString());
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
        Path out = tmp.resolve("post.out");
        Path err = tmp.resolve("post.err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        boolean exited = p.waitFor(5, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out);
        String report = "stdout:\n" + stdout + "\nstderr:\n" + Files.readString(err);
        assertThat(exited).as("suite finished within 5 minutes%n%s", report).isTrue();

        List<String> lines = stdout.lines().toList();
        for (String check : CHECKS) {
            assertThat(lines).as("check %s passed%n%s", check, report).contains("OK " + check);
        }
        assertThat(lines).as(report).noneMatch(l -> l.startsWith("FAIL "));
        assertThat(p.exitValue()).as("exit status%n%s", report).isZero();
        String summaryLine = lines.stream()
                .filter(l -> l.startsWith("SUMMARY "))
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no SUMMARY line\n" + report));
        System.out.println("POST Object suite: " + summaryLine);
        JsonNode summary = new ObjectMapper().readTree(summaryLine.substring("SUMMARY ".length()));
        assertThat(summary.get("failed")).as(report).isEmpty();
        assertThat(summary.get("passed")).hasSize(CHECKS.size());
    }
}
