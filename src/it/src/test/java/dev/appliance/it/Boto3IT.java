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
 * boto3 (Python) against a real appliance process, with boto3's default checksum behaviour (CRC32 on uploads and on
 * DeleteObjects). The script {@code boto3_suite.py} (a test resource) runs every check, prints {@code OK <check>} or
 * {@code FAIL <check>: ...} per check and a {@code SUMMARY <json>} line; this test asserts on both.
 */
class Boto3IT {
    private static final List<String> CHECKS = List.of(
            "put_get_head_delete",
            "upload_download_fileobj",
            "put_sends_crc32",
            "list_objects_v2_paginator",
            "delete_objects",
            "versioning_and_list_object_versions",
            "multipart_transfer_checksum",
            "multipart_sha256_composite",
            "list_multipart_uploads_delimiter",
            "errors_by_code",
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
                        tmp.resolve("appliance"), "boto3-it-admin", "boto3-it-secret-" + UUID.randomUUID()))
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
        fail("boto3 is needed for Boto3IT but no Python interpreter here imports it (" + String.join("; ", tried)
                + "). Install it with 'python3 -m pip install boto3'.");
        return null;
    }

    @Test
    void boto3Suite_passesEveryCheck() throws Exception {
        Path script = tmp.resolve("boto3_suite.py");
        try (InputStream in = Boto3IT.class.getResourceAsStream("/boto3_suite.py")) {
            assertThat(in).as("test resource boto3_suite.py").isNotNull();
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
        Path out = tmp.resolve("boto3.out");
        Path err = tmp.resolve("boto3.err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        boolean exited = p.waitFor(5, TimeUnit.MINUTES);
        if (!exited) {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out);
        String stderr = Files.readString(err);
        String report = "stdout:\n" + stdout + "\nstderr:\n" + stderr;
        assertThat(exited)
                .as("boto3 suite finished within 5 minutes%n%s", report)
                .isTrue();

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
        System.out.println("boto3 suite: " + summaryLine);
        JsonNode summary = new ObjectMapper().readTree(summaryLine.substring("SUMMARY ".length()));
        assertThat(summary.get("failed")).as(report).isEmpty();
        assertThat(summary.get("passed")).hasSize(CHECKS.size());
        // boto3's defaults put a CRC32 on the wire: as a header, or as an aws-chunked trailer
        JsonNode put = summary.get("put_object_wire").get(0);
        boolean crcHeader = put.get("checksum_headers").toString().contains("x-amz-checksum-crc32");
        boolean crcTrailer = "x-amz-checksum-crc32".equals(put.get("trailer").asText(null));
        assertThat(crcHeader || crcTrailer)
                .as("CRC32 sent with PutObject: %s", put)
                .isTrue();
        JsonNode delete = summary.get("delete_objects_wire").get(0);
        assertThat(delete.get("checksum_headers").toString().contains("x-amz-checksum-")
                        || delete.get("content_md5").asBoolean())
                .as("integrity header sent with DeleteObjects: %s", delete)
                .isTrue();
    }
}
