package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;

/**
 * Drive replacement on a real process: objects written, the appliance stopped, one drive's directory wiped (a new
 * empty disk in its place), the appliance started again; {@code appliance heal status} follows the heal until it is
 * done and reports its figures; every shard file is back on the new drive; then two other drives of the 2+2 set are
 * removed and every version still reads back byte for byte.
 */
class DriveReplacementIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String USER = "heal-it-admin";
    private static final String PASSWORD = "heal-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static Commands.Result heal(String... args) {
        List<String> cmd = new ArrayList<>(List.of("heal"));
        cmd.addAll(List.of(args));
        return Commands.run(
                tmp,
                ApplianceProcess.jarCommand(cmd.toArray(String[]::new)),
                Map.of("APPLIANCE_ROOT_USER", USER, "APPLIANCE_ROOT_PASSWORD", PASSWORD),
                60);
    }

    /** Relative path → size of every file of a bucket on one drive. */
    private static Map<String, Long> files(Path drive, String bucket) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        Path dir = drive.resolve(bucket);
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), Files.size(p));
            }
        }
        return out;
    }

    private static void wipe(Path drive) throws IOException {
        try (Stream<Path> files = Files.walk(drive)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Files.createDirectory(drive);
    }

    @Test
    void wipedDrive_isHealedWithProgressReported_andCarriesItsShare() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), USER, PASSWORD))
                .start();
        // bucket/key → versionId → bytes
        Map<String, Map<String, byte[]>> written = new LinkedHashMap<>();
        int[] sizes = {0, 1024, 100_000, (3 << 20) / 2, 3 << 20};
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(b -> b.bucket("backups"));
            s3.createBucket(b -> b.bucket("versions"));
            s3.putBucketVersioning(
                    b -> b.bucket("versions").versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
            for (int i = 0; i < 30; i++) {
                String key = "vm" + (i % 4) + "/blk-" + i;
                byte[] data = random(sizes[i % sizes.length], i);
                s3.putObject(b -> b.bucket("backups").key(key), RequestBody.fromBytes(data));
                written.computeIfAbsent("backups/" + key, k -> new LinkedHashMap<>())
                        .put("null", data);
            }
            for (int i = 0; i < 5; i++) {
                for (int v = 0; v < 3; v++) {
                    String key = "meta-" + i;
                    byte[] data = random(20_000 + v, 1000 + i * 10 + v);
                    String id = s3.putObject(b -> b.bucket("versions").key(key), RequestBody.fromBytes(data))
                            .versionId();
                    written.computeIfAbsent("versions/" + key, k -> new LinkedHashMap<>())
                            .put(id, data);
                }
            }
        }
        Path replaced = appliance.drives().get(1);
        Path reference = appliance.drives().get(3);
        Map<String, Long> backupsBefore = files(reference, "backups");
        appliance.stop();

        // Not running: the CLI says so, and names a bad value.
        Commands.Result down =
                heal("status", "--console", appliance.consoleUri().toString());
        assertThat(down.status()).as(down.stderr()).isEqualTo(1);
        assertThat(down.stderr()).contains("cannot reach the appliance console").contains("is the server running?");
        Commands.Result bad = heal("status", "--console", "ftp://nowhere");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.stderr()).contains("--console 'ftp://nowhere'");

        wipe(replaced);
        appliance.start();
        assertThat(appliance.stdout()).contains("is unformatted (a new or replaced drive)");

        JsonNode done = null;
        List<JsonNode> seen = new ArrayList<>();
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline) {
            Commands.Result r =
                    heal("status", "--json", "--console", appliance.consoleUri().toString());
            assertThat(r.status()).as(r.stderr()).isZero();
            JsonNode status = JSON.readTree(r.stdout());
            seen.add(status);
            JsonNode h = status.path("heals").path(0);
            assertThat(h.path("drive").asText())
                    .isEqualTo(replaced.toAbsolutePath().normalize().toString());
            // Never claims a drive is whole while it is being filled.
            String driveState = status.path("drives").path(1).path("state").asText();
            if (!"done".equals(h.path("state").asText())) {
                assertThat(driveState).as("%s", status).isEqualTo("healing");
            } else {
                assertThat(driveState).isEqualTo("online");
                done = h;
                break;
            }
            Thread.sleep(300);
        }
        assertThat(done)
                .as("the heal finished; last status seen: %s", seen.getLast())
                .isNotNull();
        long healingPolls = seen.stream()
                .filter(st ->
                        "healing".equals(st.path("heals").path(0).path("state").asText()))
                .count();
        System.out.println(
                "[it] drive heal: " + seen.size() + " polls (" + healingPolls + " while healing); final " + done);
        int keys = written.size();
        assertThat(done.path("set").asInt()).isEqualTo(1);
        assertThat(done.path("slot").asInt()).isEqualTo(2);
        assertThat(done.path("objectsScanned").asLong()).isEqualTo(keys);
        // Most keys are healed by the fill; a few may already have been healed by the scanner's heal checks or the
        // heal queue meanwhile (the fill then finds them whole). Every file is checked on the drive below.
        assertThat(done.path("objectsHealed").asLong()).isBetween(keys * 3L / 4, (long) keys);
        assertThat(done.path("objectsFailed").asLong()).isZero();
        // a drive's share of 2+2: half of the ~28 MiB written (data and parity alike)
        assertThat(done.path("bytesHealed").asLong()).isGreaterThan(10L << 20);
        assertThat(done.path("bucketsDone").asInt()).isEqualTo(2);
        assertThat(done.path("started").asText()).isNotBlank();
        assertThat(done.path("finished").asText()).isNotBlank();
        assertThat(done.path("failures")).isEmpty();

        Commands.Result human =
                heal("status", "--console", appliance.consoleUri().toString());
        assertThat(human.status()).as(human.stderr()).isZero();
        assertThat(human.stdout())
                .contains("Drives: 4 of 4 in service and whole")
                .contains("(set 1, slot 2): DONE")
                .contains(keys + " scanned")
                .contains(done.path("objectsHealed").asLong() + " healed, 0 skipped, 0 failed");
        // Unsigned, the admin endpoint refuses.
        Commands.Result unsigned = Commands.run(
                tmp,
                List.of(
                        "curl",
                        "-sS",
                        "-o",
                        "/dev/null",
                        "-w",
                        "%{http_code}",
                        appliance.consoleUri() + "/api/v1/admin/heal/drives"),
                Map.of(),
                30);
        assertThat(unsigned.stdout().strip()).isEqualTo("401");

        // Every shard file is back, at the same path and size as on a drive that never left.
        assertThat(files(replaced, "backups")).isEqualTo(backupsBefore);
        assertThat(files(replaced, "versions").keySet())
                .isEqualTo(files(reference, "versions").keySet());

        // Two other drives go: the refilled drive carries its share.
        appliance.stop();
        for (int i : List.of(0, 2)) {
            Path d = appliance.drives().get(i);
            Files.move(d, d.resolveSibling(d.getFileName() + ".away"));
        }
        appliance.start();
        try (S3Client s3 = appliance.client()) {
            for (var e : written.entrySet()) {
                String bucket = e.getKey().substring(0, e.getKey().indexOf('/'));
                String key = e.getKey().substring(e.getKey().indexOf('/') + 1);
                for (var v : e.getValue().entrySet()) {
                    byte[] got = s3.getObjectAsBytes(b -> {
                                b.bucket(bucket).key(key);
                                if (!v.getKey().equals("null")) {
                                    b.versionId(v.getKey());
                                }
                            })
                            .asByteArray();
                    assertThat(got).as(e.getKey() + "?" + v.getKey()).isEqualTo(v.getValue());
                }
            }
        }
    }
}
