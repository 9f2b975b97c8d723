package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.ObjectLockLegalHoldStatus;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;

/**
 * The audit log of a real appliance process: S3 deletes and retention changes by the AWS SDK and an IAM user created
 * by the AWS CLI come back from the admin API's export (who, what, outcome) and the query, and every drive holds them;
 * the root secret appears nowhere in the audit or the process output.
 */
class AuditLogIT {

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;
    private static AwsCli cli;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "audit-it-admin", "audit-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                """);
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void deletesRetentionChangesAndIamChangesAreExportedAndOnTheDrives() throws Exception {
        s3.createBucket(b -> b.bucket("locked").objectLockEnabledForBucket(true));
        Instant until = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        String v1 = s3.putObject(
                        b -> b.bucket("locked")
                                .key("job.vbk")
                                .objectLockMode(ObjectLockMode.GOVERNANCE)
                                .objectLockRetainUntilDate(until),
                        RequestBody.fromString("backup"))
                .versionId();
        s3.putObjectRetention(
                b -> b.bucket("locked").key("job.vbk").versionId(v1).retention(r -> r.mode(
                                ObjectLockRetentionMode.GOVERNANCE)
                        .retainUntilDate(until.plusSeconds(3600))));
        s3.putObjectLegalHold(b ->
                b.bucket("locked").key("job.vbk").versionId(v1).legalHold(h -> h.status(ObjectLockLegalHoldStatus.ON)));
        s3.createBucket(b -> b.bucket("plain"));
        s3.putBucketVersioning(
                b -> b.bucket("plain").versioningConfiguration(c -> c.status(BucketVersioningStatus.ENABLED)));
        s3.putObject(b -> b.bucket("plain").key("old"), RequestBody.fromString("x"));
        s3.deleteObject(b -> b.bucket("plain").key("old"));
        s3.deleteObjects(b -> b.bucket("plain")
                .delete(d -> d.objects(ObjectIdentifier.builder().key("older").build())));
        s3.getObjectRetention(b -> b.bucket("locked").key("job.vbk").versionId(v1)); // a read: not audited
        cli.json("iam", "create-user", "--user-name", "auditor");

        AdminApi admin = new AdminApi(appliance, tmp);
        AdminApi.Answer export = admin.call("GET", "/api/v1/admin/audit/export", null);
        assertThat(export.status()).as(export.body()).isEqualTo(200);
        List<JsonNode> events = export.jsonLines();
        List<String> whatOn = events.stream()
                .map(e -> e.get("action").asText() + " " + e.get("resource").asText())
                .toList();
        assertThat(whatOn)
                .containsExactly(
                        "s3:CreateBucket locked",
                        "s3:PutObject locked/job.vbk",
                        "s3:PutObjectRetention locked/job.vbk?versionId=" + v1,
                        "s3:PutObjectLegalHold locked/job.vbk?versionId=" + v1,
                        "s3:PutBucketVersioning plain",
                        "s3:DeleteObject plain/old",
                        "s3:DeleteObject plain/older",
                        "iam:CreateUser UserName=auditor");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.get("principal").asText()).isEqualTo(appliance.accessKey());
            assertThat(e.get("outcome").asText()).isEqualTo("allowed");
            assertThat(e.get("source").asText()).isNotEmpty();
            assertThat(e.get("time").asText()).isNotEmpty();
        });

        AdminApi.Answer query = admin.call("GET", "/api/v1/admin/audit?action=iam%3A&limit=10", null);
        assertThat(query.status()).as(query.body()).isEqualTo(200);
        assertThat(query.json().get("count").asInt()).isEqualTo(1);
        assertThat(query.json().get("events").get(0).get("action").asText()).isEqualTo("iam:CreateUser");

        for (Path drive : appliance.drives()) {
            StringBuilder onDrive = new StringBuilder();
            try (Stream<Path> files = Files.list(drive.resolve(".appliance.sys").resolve("audit"))) {
                for (Path f : files.toList()) {
                    onDrive.append(Files.readString(f));
                }
            }
            assertThat(onDrive.toString())
                    .as("audit on " + drive)
                    .contains("\"action\":\"s3:PutObjectRetention\"")
                    .contains("\"action\":\"iam:CreateUser\"")
                    .doesNotContain(appliance.secretKey());
        }
        assertThat(appliance.logs()).doesNotContain(appliance.secretKey());
    }
}
