package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real AWS CLI ({@code aws}, v1 here) against a real appliance process, with the CLI's default transfer settings:
 * files under 8 MiB go up as single PUTs, larger ones as multipart uploads in 8 MiB parts.
 */
class AwsCliIT {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static AwsCli cli;

    @BeforeAll
    static void start() throws IOException {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                tmp.resolve("appliance"), "cli-it-admin", "cli-it-secret-" + UUID.randomUUID()));
        cli = AwsCli.onPath(appliance, tmp, """
                [default]
                region = us-east-1
                """);
        appliance.start();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static String aws(String... args) {
        return cli.run(args);
    }

    private static AwsCli.Result awsMayFail(String... args) {
        return cli.mayFail(args);
    }

    private static JsonNode awsJson(String... args) throws IOException {
        return cli.json(args);
    }

    /**
     * The runner ({@link AwsCliRunner}) against {@code aws} as its own process, command by command: the same exit
     * status, the same output, the same S3 error and HTTP status from {@code --debug}. And where {@code aws} is a Python
     * script, the runner is what the other tests use.
     */
    @Test
    void theRunnerAnswersAsASeparateAwsProcessDoes() throws IOException {
        String first = Files.readAllLines(Path.of(cli.executable())).getFirst();
        assertThat(cli.inRunner())
                .as("the runner is used when aws is a Python script (#!: %s)", first)
                .isEqualTo(first.startsWith("#!") && first.contains("python"));
        String bucket = "cli-agree";
        aws("s3", "mb", "s3://" + bucket);
        Path file = tmp.resolve("agree/object.txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "the same bytes either way");
        aws("s3api", "put-object", "--bucket", bucket, "--key", "k", "--body", file.toString());
        for (String[] command : List.of(
                new String[] {"s3api", "head-object", "--bucket", bucket, "--key", "k", "--output", "json"},
                new String[] {"s3", "ls", "s3://" + bucket},
                new String[] {"s3api", "get-object-tagging", "--bucket", bucket, "--key", "k", "--output", "json"},
                new String[] {"s3api", "head-object", "--bucket", bucket, "--key", "missing", "--output", "json"})) {
            AwsCli.Result inRunner = cli.mayFail(command);
            AwsCli.Result asProcess = cli.mayFailAsProcess(command);
            assertThat(inRunner.status())
                    .as("exit status of aws %s", String.join(" ", command))
                    .isEqualTo(asProcess.status());
            assertThat(inRunner.stdout())
                    .as("stdout of aws %s", String.join(" ", command))
                    .isEqualTo(asProcess.stdout());
            assertThat(inRunner.stderr().strip())
                    .as("stderr of aws %s", String.join(" ", command))
                    .isEqualTo(asProcess.stderr().strip());
        }
        String[] refused = {"s3api", "get-object-retention", "--bucket", bucket, "--key", "k"};
        assertThat(cli.error(refused)).isEqualTo(cli.errorAsProcess(refused));
    }

    @Test
    void makeBucketCopyUpAndDownListAndRemove() throws IOException {
        String bucket = "cli-cp";
        assertThat(aws("s3", "mb", "s3://" + bucket)).contains("make_bucket: " + bucket);
        assertThat(aws("s3", "ls")).as("aws s3 ls lists the bucket").contains(bucket);

        Path up = tmp.resolve("cp/upload.bin");
        TestData.writeRandomFile(up, 3L * MIB + 17, 1);
        assertThat(aws("s3", "cp", up.toString(), "s3://" + bucket + "/dir/upload.bin"))
                .contains("upload:");
        Path down = tmp.resolve("cp/download.bin");
        assertThat(aws("s3", "cp", "s3://" + bucket + "/dir/upload.bin", down.toString()))
                .contains("download:");
        assertThat(Files.size(down)).isEqualTo(Files.size(up));
        assertThat(Files.mismatch(up, down))
                .as("downloaded copy differs at byte")
                .isEqualTo(-1L);

        Path empty = tmp.resolve("cp/empty.txt");
        Files.write(empty, new byte[0]);
        aws("s3", "cp", empty.toString(), "s3://" + bucket + "/empty.txt");
        Path emptyDown = tmp.resolve("cp/empty-down.txt");
        aws("s3", "cp", "s3://" + bucket + "/empty.txt", emptyDown.toString());
        assertThat(emptyDown).isEmptyFile();

        String ls = aws("s3", "ls", "--recursive", "s3://" + bucket);
        assertThat(lsRecursive(ls)).isEqualTo(Map.of("dir/upload.bin", 3L * MIB + 17, "empty.txt", 0L));
        assertThat(aws("s3", "ls", "s3://" + bucket + "/")).contains("PRE dir/").contains("empty.txt");

        assertThat(aws("s3", "rm", "s3://" + bucket + "/dir/upload.bin")).contains("delete:");
        assertThat(lsRecursive(aws("s3", "ls", "--recursive", "s3://" + bucket)))
                .containsOnlyKeys("empty.txt");
        AwsCli.Result rbNotEmpty = awsMayFail("s3", "rb", "s3://" + bucket);
        assertThat(rbNotEmpty.status()).as("rb of a non-empty bucket fails").isNotZero();
        assertThat(rbNotEmpty.stderr()).contains("BucketNotEmpty");
        aws("s3", "rm", "s3://" + bucket + "/empty.txt");
        assertThat(aws("s3", "rb", "s3://" + bucket)).contains("remove_bucket: " + bucket);
        assertThat(aws("s3", "ls")).doesNotContain(bucket);
    }

    @Test
    void syncDirectoryTreeUpAndDown() throws IOException {
        String bucket = "cli-sync";
        aws("s3", "mb", "s3://" + bucket);
        Path source = tmp.resolve("sync-source");
        int[] sizes = {0, 1, 1000, 64 * KIB, 300 * KIB, MIB + 7, 3 * MIB};
        int n = 0;
        for (String dir : List.of("", "a", "a/b", "a/b/c", "d", "d/e f", "g/h/i/j")) {
            for (int i = 0; i < 4 + (n % 2); i++) {
                int size = sizes[(n * 5 + i) % sizes.length];
                String name = (dir.isEmpty() ? "" : dir + "/") + "file-" + i + (i % 2 == 0 ? ".bin" : ".txt");
                TestData.writeRandomFile(source.resolve(name), size, n * 100L + i);
            }
            n++;
        }
        Map<String, Long> expected = tree(source);
        assertThat(expected).hasSizeBetween(28, 40);

        String upload = aws("s3", "sync", source.toString(), "s3://" + bucket + "/backup");
        assertThat(upload.lines().filter(l -> l.startsWith("upload:"))).hasSize(expected.size());

        Map<String, Long> listed = new TreeMap<>();
        lsRecursive(aws("s3", "ls", "--recursive", "s3://" + bucket)).forEach((k, v) -> {
            assertThat(k).startsWith("backup/");
            listed.put(k.substring("backup/".length()), v);
        });
        assertThat(listed).as("aws s3 ls --recursive: keys and sizes").isEqualTo(expected);

        assertThat(aws("s3", "sync", source.toString(), "s3://" + bucket + "/backup"))
                .as("a second sync finds nothing to upload (sizes and dates listed correctly)")
                .doesNotContain("upload:");

        Path target = tmp.resolve("sync-target");
        String download = aws("s3", "sync", "s3://" + bucket + "/backup", target.toString());
        assertThat(download.lines().filter(l -> l.startsWith("download:"))).hasSize(expected.size());
        assertThat(tree(target)).isEqualTo(expected);
        for (String rel : expected.keySet()) {
            assertThat(Files.mismatch(source.resolve(rel), target.resolve(rel)))
                    .as("%s differs at byte", rel)
                    .isEqualTo(-1L);
        }

        // a deletion propagates with --delete
        Files.delete(source.resolve("a/b/file-0.bin"));
        assertThat(aws("s3", "sync", "--delete", source.toString(), "s3://" + bucket + "/backup"))
                .contains("delete: s3://" + bucket + "/backup/a/b/file-0.bin");
        assertThat(lsRecursive(aws("s3", "ls", "--recursive", "s3://" + bucket)))
                .hasSize(expected.size() - 1)
                .doesNotContainKey("backup/a/b/file-0.bin");

        aws("s3", "rm", "--recursive", "s3://" + bucket);
        assertThat(aws("s3", "ls", "--recursive", "s3://" + bucket)).isBlank();
        aws("s3", "rb", "s3://" + bucket);
    }

    @Test
    void versioningAndListObjectVersions() throws IOException {
        String bucket = "cli-versions";
        aws("s3", "mb", "s3://" + bucket);
        aws("s3api", "put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled");
        assertThat(awsJson("s3api", "get-bucket-versioning", "--bucket", bucket)
                        .path("Status")
                        .asText())
                .isEqualTo("Enabled");

        Path file = tmp.resolve("versions/report.txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "first version\n");
        String firstMd5 = TestData.md5Hex(file);
        aws("s3", "cp", file.toString(), "s3://" + bucket + "/reports/report.txt");
        aws("s3", "cp", file.toString(), "s3://" + bucket + "/reports/other.txt");
        Files.writeString(file, "second, longer version\n");
        String secondMd5 = TestData.md5Hex(file);
        aws("s3", "cp", file.toString(), "s3://" + bucket + "/reports/report.txt");

        JsonNode listing =
                awsJson("s3api", "list-object-versions", "--bucket", bucket, "--prefix", "reports/report.txt");
        JsonNode versions = listing.path("Versions");
        assertThat(versions.size())
                .as("versions of reports/report.txt in %s", listing)
                .isEqualTo(2);
        JsonNode newest = versions.get(0);
        JsonNode oldest = versions.get(1);
        assertThat(newest.path("Key").asText()).isEqualTo("reports/report.txt");
        assertThat(newest.path("IsLatest").asBoolean())
                .as("newest first, IsLatest")
                .isTrue();
        assertThat(oldest.path("IsLatest").asBoolean()).isFalse();
        assertThat(newest.path("Size").asLong()).isEqualTo("second, longer version\n".length());
        assertThat(oldest.path("Size").asLong()).isEqualTo("first version\n".length());
        assertThat(TestData.unquote(newest.path("ETag").asText())).isEqualTo(secondMd5);
        assertThat(TestData.unquote(oldest.path("ETag").asText())).isEqualTo(firstMd5);
        String oldVersion = oldest.path("VersionId").asText();
        assertThat(oldVersion)
                .isNotBlank()
                .isNotEqualTo(newest.path("VersionId").asText());
        assertThat(listing.path("DeleteMarkers").isMissingNode()
                        || listing.path("DeleteMarkers").isEmpty())
                .isTrue();

        Path old = tmp.resolve("versions/old.txt");
        aws(
                "s3api",
                "get-object",
                "--bucket",
                bucket,
                "--key",
                "reports/report.txt",
                "--version-id",
                oldVersion,
                old.toString());
        assertThat(old).hasContent("first version");

        // aws s3 rm on a versioned bucket leaves a delete marker
        aws("s3", "rm", "s3://" + bucket + "/reports/report.txt");
        assertThat(aws("s3", "ls", "--recursive", "s3://" + bucket))
                .contains("reports/other.txt")
                .doesNotContain("reports/report.txt");
        JsonNode afterRm =
                awsJson("s3api", "list-object-versions", "--bucket", bucket, "--prefix", "reports/report.txt");
        assertThat(afterRm.path("DeleteMarkers").size()).isEqualTo(1);
        assertThat(afterRm.path("DeleteMarkers").get(0).path("IsLatest").asBoolean())
                .isTrue();
        assertThat(afterRm.path("Versions").size()).isEqualTo(2);
        AwsCli.Result missing = awsMayFail("s3api", "head-object", "--bucket", bucket, "--key", "reports/report.txt");
        assertThat(missing.status()).isNotZero();
        assertThat(missing.stderr()).contains("404");
    }

    /** {@code aws s3 ls --recursive} output as key -> size. */
    private static Map<String, Long> lsRecursive(String output) {
        Map<String, Long> m = new TreeMap<>();
        for (String line : output.lines().filter(l -> !l.isBlank()).toList()) {
            // 2026-11-21 06:41:52    3145745 dir/upload.bin
            String[] parts = line.strip().split("\\s+", 4);
            assertThat(parts).as("ls line '%s'", line).hasSize(4);
            m.put(parts[3], Long.parseLong(parts[2]));
        }
        return m;
    }

    /** Regular files under {@code root} as relative path ('/'-separated) -> size. */
    private static Map<String, Long> tree(Path root) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                m.put(root.relativize(f).toString().replace(File.separatorChar, '/'), Files.size(f));
            }
        }
        return m;
    }

    @Test
    void largeCopiesUseTheCliDefaultMultipartPath() throws IOException {
        aws("s3", "mb", "s3://cli-multipart");
        Path up = tmp.resolve("multipart-up.bin");
        long size = 23L * MIB + 5;
        String md5 = TestData.writeRandomFile(up, size, 4242);
        aws("s3", "cp", up.toString(), "s3://cli-multipart/large.bin");
        JsonNode head = awsJson("s3api", "head-object", "--bucket", "cli-multipart", "--key", "large.bin");
        // the CLI's defaults: a multipart upload above 8 MiB, in parts of 8 MiB
        long parts = (size + 8 * MIB - 1) / (8 * MIB);
        assertThat(head.path("ETag").asText())
                .as("a multipart ETag ends in -<parts>")
                .matches("\"[0-9a-f]{32}-" + parts + "\"");
        assertThat(head.path("ContentLength").asLong()).isEqualTo(size);
        Path down = tmp.resolve("multipart-down.bin");
        aws("s3", "cp", "s3://cli-multipart/large.bin", down.toString());
        assertThat(TestData.md5Hex(Files.readAllBytes(down))).isEqualTo(md5);
        aws("s3", "cp", "s3://cli-multipart/large.bin", "s3://cli-multipart/large-copy.bin");
        Path copyDown = tmp.resolve("multipart-copy-down.bin");
        aws("s3", "cp", "s3://cli-multipart/large-copy.bin", copyDown.toString());
        assertThat(TestData.md5Hex(Files.readAllBytes(copyDown))).isEqualTo(md5);
    }
}
