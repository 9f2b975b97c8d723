package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IAM API of a real appliance process through the real AWS CLI ({@code aws iam ... --endpoint-url}) and boto3's
 * IAM client ({@code iam_suite.py}): a Veeam user with its key and the Veeam repository policy, listed and deleted
 * again, and IAM's errors as the clients report them.
 *
 * <p>That such a key signs S3 requests and is held to its policy: {@link VeeamLeastPrivilegeIT}.
 */
class IamApiIT {
    /** The Veeam repository policy for the bucket {@code veeam-backups}, as docs/iam.md renders it. */
    static final String VEEAM_POLICY = """
            {"Version":"2012-10-17","Statement":[\
            {"Sid":"VeeamListBuckets","Effect":"Allow","Action":["s3:ListAllMyBuckets"],"Resource":"*"},\
            {"Sid":"VeeamRepositoryBuckets","Effect":"Allow","Action":["s3:ListBucket","s3:GetBucketLocation",\
            "s3:GetBucketVersioning","s3:GetBucketObjectLockConfiguration","s3:ListBucketVersions"],\
            "Resource":["arn:aws:s3:::veeam-backups"]},\
            {"Sid":"VeeamRepositoryObjects","Effect":"Allow","Action":["s3:GetObject","s3:PutObject",\
            "s3:DeleteObject","s3:GetObjectVersion","s3:DeleteObjectVersion","s3:GetObjectRetention",\
            "s3:PutObjectRetention","s3:GetObjectLegalHold","s3:PutObjectLegalHold"],\
            "Resource":["arn:aws:s3:::veeam-backups/*"]}]}""";

    private static final List<String> BOTO3_CHECKS = List.of(
            "create_user",
            "create_access_key",
            "put_and_get_user_policy",
            "attach_builtin_policy",
            "list_users_paginator",
            "list_access_keys",
            "groups",
            "errors_by_code",
            "cleanup");

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static java.nio.file.Path tmp;

    private static ApplianceProcess appliance;
    private static AwsCli cli;

    @BeforeAll
    static void start() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "iam-it-admin", "iam-it-secret-" + UUID.randomUUID()))
                .start();
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                """);
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    @Test
    void awsCli_managesAVeeamUser() throws Exception {
        JsonNode user = cli.json("iam", "create-user", "--user-name", "veeam").get("User");
        assertThat(user.get("UserName").asText()).isEqualTo("veeam");
        assertThat(user.get("Arn").asText()).matches("arn:aws:iam::[0-9]{12}:user/veeam");
        assertThat(user.get("UserId").asText()).startsWith("AIDA");

        JsonNode key =
                cli.json("iam", "create-access-key", "--user-name", "veeam").get("AccessKey");
        String keyId = key.get("AccessKeyId").asText();
        assertThat(key.get("Status").asText()).isEqualTo("Active");
        String secret = key.get("SecretAccessKey").asText();
        assertThat(secret).hasSizeGreaterThanOrEqualTo(40);

        cli.run(
                "iam",
                "put-user-policy",
                "--user-name",
                "veeam",
                "--policy-name",
                "veeam-repository",
                "--policy-document",
                VEEAM_POLICY);
        // the CLI decodes IAM's percent-encoded document into JSON
        JsonNode doc = cli.json("iam", "get-user-policy", "--user-name", "veeam", "--policy-name", "veeam-repository")
                .get("PolicyDocument");
        assertThat(doc.get("Statement").get(2).get("Resource").get(0).asText())
                .isEqualTo("arn:aws:s3:::veeam-backups/*");
        cli.run(
                "iam",
                "attach-user-policy",
                "--user-name",
                "veeam",
                "--policy-arn",
                "arn:aws:iam::aws:policy/readonly");
        assertThat(cli.json("iam", "list-attached-user-policies", "--user-name", "veeam")
                        .get("AttachedPolicies")
                        .get(0)
                        .get("PolicyArn")
                        .asText())
                .isEqualTo("arn:aws:iam::aws:policy/readonly");

        assertThat(names(cli.json("iam", "list-users").get("Users"), "UserName"))
                .contains("veeam");
        assertThat(names(
                        cli.json("iam", "list-access-keys", "--user-name", "veeam")
                                .get("AccessKeyMetadata"),
                        "AccessKeyId"))
                .containsExactly(keyId);

        AwsCli.S3Error exists = cli.error("iam", "create-user", "--user-name", "veeam");
        assertThat(exists.code()).isEqualTo("EntityAlreadyExists");
        assertThat(exists.httpStatus()).isEqualTo(409);
        AwsCli.S3Error conflict = cli.error("iam", "delete-user", "--user-name", "veeam");
        assertThat(conflict.code()).isEqualTo("DeleteConflict");
        AwsCli.S3Error malformed = cli.error(
                "iam", "put-user-policy", "--user-name", "veeam", "--policy-name", "bad", "--policy-document", "{}");
        assertThat(malformed.code()).isEqualTo("MalformedPolicyDocument");
        assertThat(malformed.httpStatus()).isEqualTo(400);

        cli.run(
                "iam",
                "detach-user-policy",
                "--user-name",
                "veeam",
                "--policy-arn",
                "arn:aws:iam::aws:policy/readonly");
        cli.run("iam", "delete-user-policy", "--user-name", "veeam", "--policy-name", "veeam-repository");
        cli.run("iam", "delete-access-key", "--user-name", "veeam", "--access-key-id", keyId);
        cli.run("iam", "delete-user", "--user-name", "veeam");
        assertThat(names(cli.json("iam", "list-users").get("Users"), "UserName"))
                .doesNotContain("veeam");
        AwsCli.S3Error gone = cli.error("iam", "get-user", "--user-name", "veeam");
        assertThat(gone.code()).isEqualTo("NoSuchEntity");
        assertThat(gone.httpStatus()).isEqualTo(404);
        // the secret was in CreateAccessKey's answer only: not in the appliance's output after all that traffic
        assertThat(appliance.logs()).doesNotContain(secret);
    }

    @Test
    void boto3_managesUsersKeysPoliciesAndGroups() throws Exception {
        String python = PythonSuite.pythonWithBoto3("IamApiIT");
        PythonSuite.Run run = PythonSuite.run(python, "/iam_suite.py", appliance, tmp);
        run.assertPassed(BOTO3_CHECKS);
        run.summary("boto3 IAM suite", BOTO3_CHECKS.size());
    }

    private static List<String> names(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.get(field).asText()));
        return out;
    }
}
