package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
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
        python = PythonSuite.pythonWithBoto3("Boto3IT");
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

    @Test
    void boto3Suite_passesEveryCheck() throws Exception {
        PythonSuite.Run run = PythonSuite.run(python, "/boto3_suite.py", appliance, tmp);
        run.assertPassed(CHECKS);
        JsonNode summary = run.summary("boto3 suite", CHECKS.size());
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
