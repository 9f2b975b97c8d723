package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Veeam SOSAPI on a real process: switched on and given a quota through the SigV4-signed admin API (with curl's
 * {@code --aws-sigv4}, as an operator would), then read by the AWS SDK as Veeam reads it.
 */
class SosApiIT {
    private static final String CAPACITY = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/capacity.xml";
    private static final String SYSTEM = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/system.xml";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                        tmp.resolve("appliance"), "sos-it-admin", "sos-it-secret-" + UUID.randomUUID()))
                .start();
        s3 = appliance.client();
        s3.createBucket(b -> b.bucket("veeam"));
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static Commands.Result curl(String user, String method, String path, String json) throws Exception {
        Path body = Files.writeString(tmp.resolve("body-" + UUID.randomUUID() + ".json"), json == null ? "" : json);
        List<String> cmd = new java.util.ArrayList<>(
                List.of("curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method, appliance.consoleUri() + path));
        if (user != null) {
            cmd.addAll(List.of("--aws-sigv4", "aws:amz:us-east-1:s3", "--user", user));
        }
        if (json != null) {
            cmd.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", "@" + body));
        }
        return Commands.run(tmp, cmd, Map.of(), 30);
    }

    private static int status(Commands.Result r) {
        String out = r.stdout().strip();
        return Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1));
    }

    @Test
    void adminApi_turnsSosapiOn_andSetsTheQuotaVeeamSees() throws Exception {
        String root = appliance.accessKey() + ":" + appliance.secretKey();
        String path = "/api/v1/admin/buckets/veeam/settings";
        // off by default for a bucket without Object Lock
        assertThat(catchStatus(() -> s3.getObjectAsBytes(b -> b.bucket("veeam").key(SYSTEM))))
                .isEqualTo(404);
        // unsigned and wrongly signed admin requests are refused and change nothing
        assertThat(status(curl(null, "PUT", path, "{\"sosapi\":true}"))).isEqualTo(401);
        assertThat(status(curl(appliance.accessKey() + ":wrong-secret", "PUT", path, "{\"sosapi\":true}")))
                .isEqualTo(403);
        // nor does spelling the path another way get past the check: ambiguous spellings are refused outright, and a
        // path the router does not know is still not public
        for (String other : List.of(
                "/api/v1/%61dmin/buckets/veeam/settings",
                "/api/v1/admin;x=y/buckets/veeam/settings",
                "/api/v1//admin/buckets/veeam/settings",
                "/api/v1/admin/buckets/veeam/settings/")) {
            assertThat(status(curl(null, "PUT", other, "{\"sosapi\":true}")))
                    .as(other)
                    .isEqualTo(400);
        }
        assertThat(status(curl(null, "PUT", "/api/v1/Admin/buckets/veeam/settings", "{\"sosapi\":true}")))
                .isEqualTo(401);
        assertThat(catchStatus(() -> s3.getObjectAsBytes(b -> b.bucket("veeam").key(SYSTEM))))
                .isEqualTo(404);

        Commands.Result set = curl(root, "PUT", path, "{\"sosapi\":true,\"quotaBytes\":1073741824}");
        assertThat(status(set)).as(set.stdout() + set.stderr()).isEqualTo(200);
        assertThat(set.stdout()).contains("\"quotaBytes\":1073741824", "\"sosapi\":true");

        s3.putObject(b -> b.bucket("veeam").key("Veeam/Backup/blk"), RequestBody.fromBytes(new byte[123_456]));
        String system = s3.getObjectAsBytes(b -> b.bucket("veeam").key(SYSTEM)).asUtf8String();
        assertThat(system).contains("<SystemInfo>", "<CapacityInfo>true</CapacityInfo>");
        String capacity =
                s3.getObjectAsBytes(b -> b.bucket("veeam").key(CAPACITY)).asUtf8String();
        assertThat(capacity).contains("<Capacity>1073741824</Capacity>");
        assertThat(s3.listObjectsV2(b -> b.bucket("veeam")).contents())
                .extracting(o -> o.key())
                .containsExactly("Veeam/Backup/blk");

        // usage is recounted in the background after writes: current within seconds
        Commands.Result get = curl(root, "GET", path, null);
        for (int i = 0; i < 50 && !get.stdout().contains("\"bytes\":123456"); i++) {
            Thread.sleep(200);
            get = curl(root, "GET", path, null);
        }
        assertThat(status(get)).isEqualTo(200);
        assertThat(get.stdout()).contains("\"bytes\":123456");
        assertThat(status(curl(root, "PUT", path, "{\"quotaBytes\":-5}"))).isEqualTo(400);
        assertThat(status(curl(root, "GET", "/api/v1/admin/buckets/no-such-bucket/settings", null)))
                .isEqualTo(404);
    }

    /**
     * The AWS CLI's delete-objects on the SOSAPI keys of a versioned bucket: refused per key as a single DELETE is, no
     * delete marker listed under them; and capacity.xml without a quota adds up (Capacity = Used + Available).
     */
    @Test
    void awsCli_deleteObjectsOfTheVirtualKeys_isRefusedPerKey_andCapacityAddsUp() throws Exception {
        String root = appliance.accessKey() + ":" + appliance.secretKey();
        s3.createBucket(b -> b.bucket("veeam-versioned"));
        s3.putBucketVersioning(b -> b.bucket("veeam-versioned").versioningConfiguration(v -> v.status("Enabled")));
        assertThat(status(curl(root, "PUT", "/api/v1/admin/buckets/veeam-versioned/settings", "{\"sosapi\":true}")))
                .isEqualTo(200);
        s3.putObject(b -> b.bucket("veeam-versioned").key("blk"), RequestBody.fromBytes(new byte[4096]));
        AwsCli cli = AwsCli.onPath(appliance, tmp, "[default]\nregion = us-east-1\n");

        var result = cli.json(
                "s3api",
                "delete-objects",
                "--bucket",
                "veeam-versioned",
                "--delete",
                "{\"Objects\":[{\"Key\":\"" + SYSTEM + "\"},{\"Key\":\"" + CAPACITY + "\"}]}");
        assertThat(result.path("Errors")).hasSize(2);
        result.path("Errors").forEach(e -> assertThat(e.path("Code").asText()).isEqualTo("AccessDenied"));
        var versions = cli.json("s3api", "list-object-versions", "--bucket", "veeam-versioned");
        assertThat(versions.path("DeleteMarkers")).isEmpty();

        String capacity = s3.getObjectAsBytes(b -> b.bucket("veeam-versioned").key(CAPACITY))
                .asUtf8String();
        assertThat(number(capacity, "Capacity")).isEqualTo(number(capacity, "Used") + number(capacity, "Available"));
        assertThat(number(capacity, "Available")).isPositive();
    }

    private static long number(String xml, String element) {
        int start = xml.indexOf("<" + element + ">") + element.length() + 2;
        return Long.parseLong(xml.substring(start, xml.indexOf("</" + element + ">")));
    }

    /** Drive fault injection is test-only: without {@code -Dappliance.faultInjection=true} its endpoints are absent. */
    @Test
    void faultInjection_isRefusedWithoutTheOptIn() throws Exception {
        String root = appliance.accessKey() + ":" + appliance.secretKey();
        Commands.Result put = curl(root, "PUT", "/api/v1/admin/test/faults/0", "{\"gone\":true}");
        assertThat(status(put)).as(put.stdout()).isEqualTo(404);
        assertThat(put.stdout()).contains("fault injection is off");
        assertThat(status(curl(root, "GET", "/api/v1/admin/test/faults", null))).isEqualTo(404);
        assertThat(status(curl(root, "DELETE", "/api/v1/admin/test/faults", null)))
                .isEqualTo(404);
        // unsigned requests never reach it, opt-in or not
        assertThat(status(curl(null, "PUT", "/api/v1/admin/test/faults/0", "{\"gone\":true}")))
                .isEqualTo(401);
        Commands.Result status = curl(null, "GET", "/api/v1/status", null);
        assertThat(status.stdout())
                .contains("\"faultsInjected\":false")
                .doesNotContain("\"faultsInjected\":true")
                .doesNotContain(appliance.drives().getFirst().toString());
        s3.createBucket(b -> b.bucket("faults-off"));
        s3.putObject(b -> b.bucket("faults-off").key("k"), RequestBody.fromString("intact"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket("faults-off").key("k")).asUtf8String())
                .isEqualTo("intact");
    }

    private static int catchStatus(Runnable call) {
        try {
            call.run();
            return 200;
        } catch (S3Exception e) {
            return e.statusCode();
        }
    }
}
