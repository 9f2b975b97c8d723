package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14's proof on a real appliance process: a bucket policy granting anonymous read, set with the real AWS CLI,
 * lets an unsigned {@code curl} read an object only once the bucket's public access block is lifted; before, and
 * again once the block is deleted (back to the default, blocked), the same request is 403.
 */
class BucketPolicyIT {
    private static final String BUCKET = "public-reports";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static AwsCli cli;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "policy-it-admin", "policy-it-secret-" + UUID.randomUUID()))
                .start();
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                s3 =
                    addressing_style = path
                """);
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    /** An unsigned request with curl; returns the HTTP status, the body in {@code body} when given. */
    private static int curl(String method, String path, Path body) {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}"));
        if (body != null) {
            cmd.set(cmd.indexOf("/dev/null"), body.toString());
        }
        cmd.addAll(List.of("-X", method, appliance.s3Endpoint() + path));
        Commands.Result r = Commands.run(tmp, cmd, Map.of(), 60);
        return Integer.parseInt(r.stdout().strip());
    }

    @Test
    void anonymousRead_worksOnlyOncePublicAccessIsUnblocked() throws Exception {
        Path report = tmp.resolve("report.txt");
        Files.writeString(report, "quarterly numbers");
        cli.run("s3api", "create-bucket", "--bucket", BUCKET);
        cli.run("s3api", "put-object", "--bucket", BUCKET, "--key", "q3/report.txt", "--body", report.toString());
        Path policy = tmp.resolve("policy.json");
        Files.writeString(policy, """
                {"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow","Principal":"*",\
                "Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/*"}]}""".formatted(BUCKET));

        // blocked by default: the block reads all true, the public policy is refused, curl gets 403
        JsonNode block =
                cli.json("s3api", "get-public-access-block", "--bucket", BUCKET).get("PublicAccessBlockConfiguration");
        for (String flag :
                List.of("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")) {
            assertThat(block.get(flag).asBoolean()).as(flag).isTrue();
        }
        AwsCli.S3Error refused =
                cli.error("s3api", "put-bucket-policy", "--bucket", BUCKET, "--policy", "file://" + policy);
        assertThat(refused.code()).isEqualTo("AccessDenied");
        assertThat(refused.httpStatus()).isEqualTo(403);
        assertThat(curl("GET", "/" + BUCKET + "/q3/report.txt", null)).isEqualTo(403);

        // unblocked and granted: curl reads it, and nothing more
        cli.run(
                "s3api",
                "put-public-access-block",
                "--bucket",
                BUCKET,
                "--public-access-block-configuration",
                "BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=false,RestrictPublicBuckets=false");
        assertThat(curl("GET", "/" + BUCKET + "/q3/report.txt", null))
                .as("unblocked, no policy yet")
                .isEqualTo(403);
        cli.run("s3api", "put-bucket-policy", "--bucket", BUCKET, "--policy", "file://" + policy);
        assertThat(cli.json("s3api", "get-bucket-policy-status", "--bucket", BUCKET)
                        .at("/PolicyStatus/IsPublic")
                        .asBoolean())
                .isTrue();
        Path fetched = tmp.resolve("fetched.txt");
        assertThat(curl("GET", "/" + BUCKET + "/q3/report.txt", fetched)).isEqualTo(200);
        assertThat(Files.readString(fetched)).isEqualTo("quarterly numbers");
        assertThat(curl("PUT", "/" + BUCKET + "/q3/report.txt", null)).isEqualTo(403);
        assertThat(curl("DELETE", "/" + BUCKET + "/q3/report.txt", null)).isEqualTo(403);
        assertThat(curl("GET", "/" + BUCKET + "?list-type=2", null)).isEqualTo(403);
        assertThat(curl("GET", "/" + BUCKET + "?policy", null)).isEqualTo(403);

        // the block deleted: back to the default, blocked
        cli.run("s3api", "delete-public-access-block", "--bucket", BUCKET);
        assertThat(curl("GET", "/" + BUCKET + "/q3/report.txt", null)).isEqualTo(403);
        assertThat(cli.json("s3api", "get-bucket-policy", "--bucket", BUCKET)
                        .get("Policy")
                        .asText())
                .contains("PublicRead");
    }
}
