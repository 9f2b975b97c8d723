package dev.appliance.it;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
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
        python = PythonSuite.pythonWithBoto3("PostObjectIT");
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

    @Test
    void postObjectSuite_passesEveryCheck() throws Exception {
        PythonSuite.Run run = PythonSuite.run(python, "/post_object_suite.py", appliance, tmp);
        run.assertPassed(CHECKS);
        run.summary("POST Object suite", CHECKS.size());
    }
}
