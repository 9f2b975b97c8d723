package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3 Object Lock through the two clients users script with: boto3 (the test resource {@code object_lock_suite.py}, run
 * by {@link PythonSuite}) and the AWS CLI's {@code s3api} and {@code s3} commands, against one real appliance process.
 * Both leave their checksum behaviour at the default, so the integrity headers S3 requires on lock calls are whatever
 * the client sends on its own. Errors are checked by code and HTTP status as docs/object-lock.md lists them (the AWS
 * answers).
 */
class ObjectLockClientsIT {
    private static final List<String> BOTO3_CHECKS = List.of(
            "short_retention_locked_while_active",
            "create_bucket_with_object_lock",
            "object_lock_configuration",
            "put_object_lock_headers_on_head_and_get",
            "lock_headers_refused",
            "compliance_retention_by_version",
            "governance_retention_and_bypass",
            "legal_hold_by_version",
            "delete_locked_version_and_delete_marker",
            "delete_objects_with_version_ids",
            "default_retention_applied",
            "multipart_upload_with_lock_headers",
            "copy_object_with_lock_headers",
            "expired_retention_deletable");
    private static final int MIB = 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static String python;
    private static AwsCli cli;

    @BeforeAll
    static void start() throws Exception {
        python = PythonSuite.pythonWithBoto3("ObjectLockClientsIT");
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                tmp.resolve("appliance"), "lock-clients-admin", "lock-clients-secret-" + UUID.randomUUID()));
        // one attempt per command: a refused call must show its own answer, not a retry's
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                max_attempts = 1
                """);
        appliance.start();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    // ------------------------------------------------------------------------------------------------------- boto3

    @Test
    void boto3Suite_passesEveryCheck() throws Exception {
        PythonSuite.Run run = PythonSuite.run(python, "/object_lock_suite.py", appliance, tmp);
        run.assertPassed(BOTO3_CHECKS);
        JsonNode summary = run.summary("Object Lock boto3 suite", BOTO3_CHECKS.size());
        // boto3 put an integrity header on each call S3 requires one for, and the appliance took it
        JsonNode sent = summary.get("integrity_headers");
        for (String op : List.of(
                "PutObject",
                "PutObjectRetention",
                "PutObjectLegalHold",
                "PutObjectLockConfiguration",
                "DeleteObjects")) {
            assertThat(sent.path(op).isArray() && !sent.path(op).isEmpty())
                    .as("integrity header boto3 sent with %s: %s", op, sent)
                    .isTrue();
        }
    }

    // ------------------------------------------------------------------------------------------------------ AWS CLI

    private static Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.SECONDS);
    }

    private static void assertError(AwsCli.S3Error error, String code, int status) {
        assertThat(error).isEqualTo(new AwsCli.S3Error(code, status));
    }

    private static Path file(String name, byte[] content) throws IOException {
        Path f = tmp.resolve("cli-files").resolve(name);
        Files.createDirectories(f.getParent());
        Files.write(f, content);
        return f;
    }

    private static String json(Object value) throws IOException {
        return JSON.writeValueAsString(value);
    }

    private static String retention(String mode, Instant until) throws IOException {
        return json(Map.of("Mode", mode, "RetainUntilDate", until.toString()));
    }

    /** A date as the CLI prints it: S3's text as received (v1) or reformatted with an offset (v2). */
    private static Instant instant(JsonNode text) {
        assertThat(text.isTextual()).as("a date: %s", text).isTrue();
        return OffsetDateTime.parse(text.asText()).toInstant();
    }

    /** The three lock fields of a head-object or get-object answer, absent ones as null. */
    private static List<Object> lockFields(JsonNode head) {
        JsonNode until = head.path("ObjectLockRetainUntilDate");
        return Arrays.asList(
                head.path("ObjectLockMode").asText(null),
                until.isMissingNode() ? null : instant(until),
                head.path("ObjectLockLegalHoldStatus").asText(null));
    }

    private static JsonNode head(String bucket, String key, String versionId) throws IOException {
        return cli.json("s3api", "head-object", "--bucket", bucket, "--key", key, "--version-id", versionId);
    }

    private static JsonNode getRetention(String bucket, String key, String versionId) throws IOException {
        return cli.json("s3api", "get-object-retention", "--bucket", bucket, "--key", key, "--version-id", versionId)
                .path("Retention");
    }

    private static String putLocked(String bucket, String key, String mode, Instant until, String... extra)
            throws IOException {
        Path body = file(key.replace('/', '_'), ("body of " + key).getBytes());
        List<String> args = new ArrayList<>(List.of(
                "s3api",
                "put-object",
                "--bucket",
                bucket,
                "--key",
                key,
                "--body",
                body.toString(),
                "--object-lock-mode",
                mode,
                "--object-lock-retain-until-date",
                until.toString()));
        args.addAll(List.of(extra));
        return cli.json(args.toArray(String[]::new)).path("VersionId").asText();
    }

    private static boolean versionExists(String bucket, String key, String versionId) {
        AwsCli.Result r =
                cli.mayFail("s3api", "head-object", "--bucket", bucket, "--key", key, "--version-id", versionId);
        if (r.status() != 0) {
            assertThat(r.stderr()).as("head-object of a missing version").contains("(404)");
        }
        return r.status() == 0;
    }

    /** The ListObjectVersions entry of one version (its LastModified has milliseconds, HEAD's only seconds). */
    private static JsonNode listed(String bucket, String key, String versionId) throws IOException {
        for (JsonNode v : cli.json("s3api", "list-object-versions", "--bucket", bucket, "--prefix", key)
                .path("Versions")) {
            if (v.path("Key").asText().equals(key)
                    && v.path("VersionId").asText().equals(versionId)) {
                return v;
            }
        }
        throw new AssertionError("version " + versionId + " of " + key + " not listed");
    }

    @Test
    void awsCli_lockBucketsAndTheirConfiguration() throws IOException {
        String bucket = "cli-lock-config";
        cli.run("s3api", "create-bucket", "--bucket", bucket, "--object-lock-enabled-for-bucket");
        assertThat(cli.json("s3api", "get-bucket-versioning", "--bucket", bucket)
                        .path("Status")
                        .asText())
                .isEqualTo("Enabled");
        assertThat(cli.json("s3api", "get-object-lock-configuration", "--bucket", bucket))
                .isEqualTo(JSON.readTree("{\"ObjectLockConfiguration\": {\"ObjectLockEnabled\": \"Enabled\"}}"));

        for (Map<String, Object> rule : List.<Map<String, Object>>of(
                Map.of("Mode", "GOVERNANCE", "Days", 3), Map.of("Mode", "COMPLIANCE", "Years", 2))) {
            String config = json(
                    Map.of("ObjectLockEnabled", "Enabled", "Rule", Map.of("DefaultRetention", new TreeMap<>(rule))));
            cli.run(
                    "s3api",
                    "put-object-lock-configuration",
                    "--bucket",
                    bucket,
                    "--object-lock-configuration",
                    config);
            assertThat(cli.json("s3api", "get-object-lock-configuration", "--bucket", bucket)
                            .path("ObjectLockConfiguration"))
                    .as("read back as written")
                    .isEqualTo(JSON.readTree(config));
        }
        assertError(
                cli.error(
                        "s3api",
                        "put-bucket-versioning",
                        "--bucket",
                        bucket,
                        "--versioning-configuration",
                        "Status=Suspended"),
                "InvalidBucketState",
                409);

        String plain = "cli-lock-later";
        cli.run("s3api", "create-bucket", "--bucket", plain);
        assertError(
                cli.error("s3api", "get-object-lock-configuration", "--bucket", plain),
                "ObjectLockConfigurationNotFoundError",
                404);
        String enable = "{\"ObjectLockEnabled\": \"Enabled\"}";
        assertError(
                cli.error(
                        "s3api",
                        "put-object-lock-configuration",
                        "--bucket",
                        plain,
                        "--object-lock-configuration",
                        enable),
                "InvalidBucketState",
                409);
        // once versioning is on, lock can be enabled on an existing bucket (AWS since 2023)
        cli.run("s3api", "put-bucket-versioning", "--bucket", plain, "--versioning-configuration", "Status=Enabled");
        cli.run("s3api", "put-object-lock-configuration", "--bucket", plain, "--object-lock-configuration", enable);
        assertThat(cli.json("s3api", "get-object-lock-configuration", "--bucket", plain)
                        .path("ObjectLockConfiguration"))
                .isEqualTo(JSON.readTree(enable));
    }

    @Test
    void awsCli_retentionLegalHoldAndDeletesByVersion() throws IOException {
        String bucket = "cli-lock-versions";
        cli.run("s3api", "create-bucket", "--bucket", bucket, "--object-lock-enabled-for-bucket");

        // put-object with all three lock options; HEAD and GET return them
        Instant until = inDays(10);
        byte[] content = TestData.bytes(7, 200_000);
        Path body = file("locked.bin", content);
        String v = cli.json(
                        "s3api",
                        "put-object",
                        "--bucket",
                        bucket,
                        "--key",
                        "c/locked",
                        "--body",
                        body.toString(),
                        "--object-lock-mode",
                        "COMPLIANCE",
                        "--object-lock-retain-until-date",
                        until.toString(),
                        "--object-lock-legal-hold-status",
                        "ON")
                .path("VersionId")
                .asText();
        assertThat(lockFields(cli.json("s3api", "head-object", "--bucket", bucket, "--key", "c/locked")))
                .containsExactly("COMPLIANCE", until, "ON");
        Path down = tmp.resolve("cli-files/locked-down.bin");
        JsonNode got = cli.json(
                "s3api", "get-object", "--bucket", bucket, "--key", "c/locked", "--version-id", v, down.toString());
        assertThat(lockFields(got)).containsExactly("COMPLIANCE", until, "ON");
        assertThat(Files.readAllBytes(down)).isEqualTo(content);
        JsonNode retention = getRetention(bucket, "c/locked", v);
        assertThat(retention.path("Mode").asText()).isEqualTo("COMPLIANCE");
        assertThat(instant(retention.path("RetainUntilDate"))).isEqualTo(until);
        assertThat(cli.json(
                                "s3api",
                                "get-object-legal-hold",
                                "--bucket",
                                bucket,
                                "--key",
                                "c/locked",
                                "--version-id",
                                v)
                        .path("LegalHold")
                        .path("Status")
                        .asText())
                .isEqualTo("ON");

        // COMPLIANCE: extend yes; shorten or change mode no, bypass or not
        Instant later = until.plus(Duration.ofDays(5));
        cli.run(
                "s3api",
                "put-object-retention",
                "--bucket",
                bucket,
                "--key",
                "c/locked",
                "--version-id",
                v,
                "--retention",
                retention("COMPLIANCE", later));
        assertThat(instant(getRetention(bucket, "c/locked", v).path("RetainUntilDate")))
                .isEqualTo(later);
        for (List<String> refused : List.of(
                List.of("--retention", retention("COMPLIANCE", until)),
                List.of("--retention", retention("COMPLIANCE", until), "--bypass-governance-retention"),
                List.of("--retention", retention("GOVERNANCE", later.plus(Duration.ofDays(1)))))) {
            List<String> args = new ArrayList<>(List.of(
                    "s3api", "put-object-retention", "--bucket", bucket, "--key", "c/locked", "--version-id", v));
            args.addAll(refused);
            assertError(cli.error(args.toArray(String[]::new)), "AccessDenied", 403);
        }
        assertThat(instant(getRetention(bucket, "c/locked", v).path("RetainUntilDate")))
                .as("unchanged by the refused calls")
                .isEqualTo(later);

        // legal hold off; the retention still refuses a versioned delete; a plain delete adds a marker
        cli.run(
                "s3api",
                "put-object-legal-hold",
                "--bucket",
                bucket,
                "--key",
                "c/locked",
                "--version-id",
                v,
                "--legal-hold",
                "Status=OFF");
        assertThat(lockFields(head(bucket, "c/locked", v))).containsExactly("COMPLIANCE", later, "OFF");
        assertError(
                cli.error("s3api", "delete-object", "--bucket", bucket, "--key", "c/locked", "--version-id", v),
                "AccessDenied",
                403);
        JsonNode marker = cli.json("s3api", "delete-object", "--bucket", bucket, "--key", "c/locked");
        assertThat(marker.path("DeleteMarker").asBoolean()).isTrue();
        assertThat(versionExists(bucket, "c/locked", v))
                .as("the locked version stays")
                .isTrue();
        assertError(
                cli.error(
                        "s3api",
                        "get-object-retention",
                        "--bucket",
                        bucket,
                        "--key",
                        "c/locked",
                        "--version-id",
                        marker.path("VersionId").asText()),
                "MethodNotAllowed",
                405);

        // GOVERNANCE: shorten and delete only with --bypass-governance-retention
        String g = putLocked(bucket, "g/doc", "GOVERNANCE", until);
        Instant shorter = until.minus(Duration.ofDays(3));
        assertError(
                cli.error(
                        "s3api",
                        "put-object-retention",
                        "--bucket",
                        bucket,
                        "--key",
                        "g/doc",
                        "--version-id",
                        g,
                        "--retention",
                        retention("GOVERNANCE", shorter)),
                "AccessDenied",
                403);
        cli.run(
                "s3api",
                "put-object-retention",
                "--bucket",
                bucket,
                "--key",
                "g/doc",
                "--version-id",
                g,
                "--bypass-governance-retention",
                "--retention",
                retention("GOVERNANCE", shorter));
        assertThat(instant(getRetention(bucket, "g/doc", g).path("RetainUntilDate")))
                .isEqualTo(shorter);
        assertError(
                cli.error("s3api", "delete-object", "--bucket", bucket, "--key", "g/doc", "--version-id", g),
                "AccessDenied",
                403);
        cli.run(
                "s3api",
                "delete-object",
                "--bucket",
                bucket,
                "--key",
                "g/doc",
                "--version-id",
                g,
                "--bypass-governance-retention");
        assertThat(versionExists(bucket, "g/doc", g)).isFalse();

        // delete-objects by version id: a per-key AccessDenied for each locked version, the others deleted
        String held = cli.json(
                        "s3api",
                        "put-object",
                        "--bucket",
                        bucket,
                        "--key",
                        "b/held",
                        "--body",
                        file("held", new byte[] {1}).toString(),
                        "--object-lock-legal-hold-status",
                        "ON")
                .path("VersionId")
                .asText();
        String free = cli.json(
                        "s3api",
                        "put-object",
                        "--bucket",
                        bucket,
                        "--key",
                        "b/free",
                        "--body",
                        file("free", new byte[] {2}).toString())
                .path("VersionId")
                .asText();
        Map<String, String> ids = Map.of("c/locked", v, "b/held", held, "b/free", free);
        ObjectNode delete = JSON.createObjectNode();
        ArrayNode objects = delete.putArray("Objects");
        ids.forEach((key, id) -> objects.addObject().put("Key", key).put("VersionId", id));
        JsonNode batch = cli.json("s3api", "delete-objects", "--bucket", bucket, "--delete", json(delete));
        Map<String, String> errors = new TreeMap<>();
        batch.path("Errors")
                .forEach(e -> errors.put(
                        e.path("Key").asText(),
                        e.path("Code").asText() + " " + e.path("VersionId").asText()));
        assertThat(errors)
                .as("per-key errors in %s", batch)
                .isEqualTo(Map.of("c/locked", "AccessDenied " + v, "b/held", "AccessDenied " + held));
        assertThat(batch.path("Deleted")).hasSize(1);
        assertThat(batch.path("Deleted").get(0).path("Key").asText()).isEqualTo("b/free");
        assertThat(versionExists(bucket, "b/free", free)).isFalse();
        assertThat(versionExists(bucket, "b/held", held)).isTrue();

        // legal hold released: the version can go
        cli.run(
                "s3api",
                "put-object-legal-hold",
                "--bucket",
                bucket,
                "--key",
                "b/held",
                "--version-id",
                held,
                "--legal-hold",
                "Status=OFF");
        cli.run("s3api", "delete-object", "--bucket", bucket, "--key", "b/held", "--version-id", held);
        assertThat(versionExists(bucket, "b/held", held)).isFalse();

        // lock options on a bucket without lock
        cli.run("s3api", "create-bucket", "--bucket", "cli-no-lock");
        assertError(
                cli.error(
                        "s3api",
                        "put-object",
                        "--bucket",
                        "cli-no-lock",
                        "--key",
                        "k",
                        "--body",
                        body.toString(),
                        "--object-lock-mode",
                        "GOVERNANCE",
                        "--object-lock-retain-until-date",
                        until.toString()),
                "InvalidRequest",
                400);
    }

    @Test
    void awsCli_defaultRetentionMultipartCopyAndExpiry() throws Exception {
        String bucket = "cli-lock-default";
        cli.run("s3api", "create-bucket", "--bucket", bucket, "--object-lock-enabled-for-bucket");

        // Short retentions first, checked for expiry at the end. Long enough for the refused delete to come before
        // the end even when each CLI run takes seconds on a loaded machine.
        Map<String, String> shortVersions = new TreeMap<>();
        Instant shortUntil = Instant.EPOCH;
        for (String mode : List.of("GOVERNANCE", "COMPLIANCE")) {
            String key = "short/" + mode;
            shortUntil = Instant.now().plusSeconds(15).truncatedTo(ChronoUnit.SECONDS);
            String id = putLocked(bucket, key, mode, shortUntil);
            shortVersions.put(key, id);
            assertError(
                    cli.error("s3api", "delete-object", "--bucket", bucket, "--key", key, "--version-id", id),
                    "AccessDenied",
                    403);
        }

        cli.run(
                "s3api",
                "put-object-lock-configuration",
                "--bucket",
                bucket,
                "--object-lock-configuration",
                "{\"ObjectLockEnabled\": \"Enabled\", \"Rule\": {\"DefaultRetention\":"
                        + " {\"Mode\": \"GOVERNANCE\", \"Days\": 1}}}");

        // aws s3 cp of a plain file and of a file above the CLI's 8 MiB multipart threshold: both get the default
        Path small = file("small.txt", "default retention".getBytes());
        Path large = tmp.resolve("cli-files/large.bin");
        String largeMd5 = TestData.writeRandomFile(large, 9L * MIB + 3, 99);
        cli.run("s3", "cp", small.toString(), "s3://" + bucket + "/cp/small.txt");
        cli.run("s3", "cp", large.toString(), "s3://" + bucket + "/cp/large.bin");
        JsonNode largeHead = cli.json("s3api", "head-object", "--bucket", bucket, "--key", "cp/large.bin");
        assertThat(largeHead.path("ETag").asText()).as("a multipart upload").endsWith("-2\"");
        for (String key : List.of("cp/small.txt", "cp/large.bin")) {
            JsonNode h = cli.json("s3api", "head-object", "--bucket", bucket, "--key", key);
            String id = h.path("VersionId").asText();
            Instant created = instant(listed(bucket, key, id).path("LastModified"));
            assertThat(h.path("ObjectLockMode").asText()).isEqualTo("GOVERNANCE");
            // S3 counts the period from the version's creation
            assertThat(instant(h.path("ObjectLockRetainUntilDate")))
                    .as("default retention of %s created %s", key, created)
                    .isBetween(
                            created.plus(Duration.ofDays(1)),
                            created.plus(Duration.ofDays(1)).plusSeconds(2));
            assertError(
                    cli.error("s3api", "delete-object", "--bucket", bucket, "--key", key, "--version-id", id),
                    "AccessDenied",
                    403);
        }
        Path largeDown = tmp.resolve("cli-files/large-down.bin");
        cli.run("s3", "cp", "s3://" + bucket + "/cp/large.bin", largeDown.toString());
        assertThat(TestData.md5Hex(largeDown)).isEqualTo(largeMd5);

        // s3api multipart upload with lock options on create-multipart-upload: they win over the default
        Instant until = inDays(4);
        String uploadId = cli.json(
                        "s3api",
                        "create-multipart-upload",
                        "--bucket",
                        bucket,
                        "--key",
                        "mp/locked",
                        "--object-lock-mode",
                        "COMPLIANCE",
                        "--object-lock-retain-until-date",
                        until.toString(),
                        "--object-lock-legal-hold-status",
                        "ON")
                .path("UploadId")
                .asText();
        Path part1 = tmp.resolve("cli-files/part1.bin");
        TestData.writeRandomFile(part1, 5L * MIB, 1);
        Path part2 = file("part2.bin", "the last part".getBytes());
        ArrayNode parts = JSON.createArrayNode();
        int n = 1;
        for (Path part : List.of(part1, part2)) {
            String etag = cli.json(
                            "s3api",
                            "upload-part",
                            "--bucket",
                            bucket,
                            "--key",
                            "mp/locked",
                            "--upload-id",
                            uploadId,
                            "--part-number",
                            Integer.toString(n),
                            "--body",
                            part.toString())
                    .path("ETag")
                    .asText();
            parts.addObject().put("PartNumber", n++).put("ETag", etag);
        }
        ObjectNode completion = JSON.createObjectNode();
        completion.set("Parts", parts);
        String mp = cli.json(
                        "s3api",
                        "complete-multipart-upload",
                        "--bucket",
                        bucket,
                        "--key",
                        "mp/locked",
                        "--upload-id",
                        uploadId,
                        "--multipart-upload",
                        json(completion))
                .path("VersionId")
                .asText();
        JsonNode mpHead = head(bucket, "mp/locked", mp);
        assertThat(mpHead.path("ETag").asText()).endsWith("-2\"");
        assertThat(lockFields(mpHead)).containsExactly("COMPLIANCE", until, "ON");
        assertError(
                cli.error(
                        "s3api",
                        "delete-object",
                        "--bucket",
                        bucket,
                        "--key",
                        "mp/locked",
                        "--version-id",
                        mp,
                        "--bypass-governance-retention"),
                "AccessDenied",
                403);

        // copy-object with lock options: the copy takes them, never the source's
        Instant copyUntil = inDays(6);
        JsonNode copy = cli.json(
                "s3api",
                "copy-object",
                "--bucket",
                bucket,
                "--key",
                "copy/of-mp",
                "--copy-source",
                bucket + "/mp/locked?versionId=" + mp,
                "--object-lock-mode",
                "GOVERNANCE",
                "--object-lock-retain-until-date",
                copyUntil.toString());
        assertThat(copy.path("CopySourceVersionId").asText()).isEqualTo(mp);
        assertThat(lockFields(head(bucket, "copy/of-mp", copy.path("VersionId").asText())))
                .containsExactly("GOVERNANCE", copyUntil, null);

        // the short retentions have run out by now (waited for if not): the versions can be deleted
        long wait = Duration.between(Instant.now(), shortUntil).toMillis() + 500;
        if (wait > 0) {
            Thread.sleep(wait);
        }
        for (Map.Entry<String, String> e : shortVersions.entrySet()) {
            JsonNode deleted = cli.json(
                    "s3api", "delete-object", "--bucket", bucket, "--key", e.getKey(), "--version-id", e.getValue());
            assertThat(deleted.path("VersionId").asText()).isEqualTo(e.getValue());
            assertThat(versionExists(bucket, e.getKey(), e.getValue()))
                    .as("%s gone after its retention ran out", e.getKey())
                    .isFalse();
        }
    }
}
