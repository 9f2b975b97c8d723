package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;

/**
 * One deployment through its life: first start with generated credentials, restart, a start with the drives in the
 * wrong order (refused), a start with a drive missing (served from the remaining drives). The steps build on each
 * other and run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProcessLifecycleIT {
    private static final String BUCKET = "lifecycle";

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static String accessKey;
    private static String secretKey;
    private static String deploymentId;
    private static final Map<String, byte[]> OBJECTS = new LinkedHashMap<>();

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static S3Client client() {
        return appliance.client(
                accessKey,
                secretKey,
                b -> b.requestChecksumCalculation(
                        software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED));
    }

    /** The signed, detailed status: the deployment id and the drive paths are not public. */
    private static JsonNode status() {
        return new AdminApi(appliance, tmp).status();
    }

    private static void assertObjectsIntact(S3Client s3) {
        for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
            byte[] got =
                    s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(e.getKey())).asByteArray();
            assertThat(got).as("content of %s", e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(s3.listObjectsV2(b -> b.bucket(BUCKET)).contents())
                .extracting(o -> o.key())
                .containsExactlyInAnyOrderElementsOf(OBJECTS.keySet());
    }

    private static int occurrences(String text, String needle) {
        return text.split(Pattern.quote(needle), -1).length - 1;
    }

    @Test
    @Order(1)
    void firstStartGeneratesCredentialsPrintsThemOnceAndTheyWork() throws Exception {
        appliance = LOGS.watch(ApplianceProcess.withGeneratedCredentials(tmp.resolve("appliance")))
                .start();
        String out = appliance.stdout();
        accessKey = appliance.accessKey();
        secretKey = appliance.secretKey();
        assertThat(accessKey).matches("[A-Z0-9]{20}");
        assertThat(secretKey).hasSize(40);
        assertThat(occurrences(out, "RootUser:")).as("stdout:%n%s", out).isEqualTo(1);
        assertThat(occurrences(out, "RootPassword:")).isEqualTo(1);
        assertThat(occurrences(out, secretKey))
                .as("the secret is printed exactly once")
                .isEqualTo(1);
        assertThat(appliance.stderr()).doesNotContain(secretKey);

        JsonNode status = status();
        deploymentId = status.path("deploymentId").asText();
        assertThat(deploymentId).isNotBlank();
        // The retention clock's health: trusted time agrees with the system clock on a fresh start; the kernel's NTP
        // state is read (this process is on Linux).
        JsonNode clock = status.path("retentionClock");
        assertThat(clock.path("systemClockBelieved").asBoolean())
                .as("%s", clock)
                .isTrue();
        assertThat(clock.path("ntp").asText()).isIn("SYNCHRONIZED", "UNSYNCHRONIZED");
        assertThat(java.time.Duration.between(
                                java.time.Instant.parse(
                                        clock.path("trustedTime").asText()),
                                java.time.Instant.now())
                        .abs())
                .isLessThan(java.time.Duration.ofMinutes(1));
        assertThat(clock.path("forwardJumpNotBelievedAtStartSeconds").asLong()).isZero();

        OBJECTS.put("small.bin", TestData.bytes(1, 1000));
        OBJECTS.put("dir/medium.bin", TestData.bytes(2, 2 * 1024 * 1024 + 5));
        OBJECTS.put("dir/empty", new byte[0]);
        try (S3Client s3 = client()) {
            s3.createBucket(b -> b.bucket(BUCKET));
            for (Map.Entry<String, byte[]> e : OBJECTS.entrySet()) {
                s3.putObject(b -> b.bucket(BUCKET).key(e.getKey()), RequestBody.fromBytes(e.getValue()));
            }
            assertThat(s3.listBuckets().buckets()).extracting(Bucket::name).contains(BUCKET);
            assertObjectsIntact(s3);
        }
    }

    @Test
    @Order(2)
    void storedCredentialsAreEncryptedOnEveryDriveWithTheKeyOutsideTheDrives() throws IOException {
        assertThat(secretKey).as("set by the first step").isNotNull();
        List<String> forbidden = List.of(
                secretKey,
                Base64.getEncoder().encodeToString(secretKey.getBytes(StandardCharsets.UTF_8)),
                Base64.getEncoder().encodeToString((accessKey + "\n" + secretKey).getBytes(StandardCharsets.UTF_8)));
        for (Path drive : appliance.drives()) {
            Path enc = drive.resolve(".appliance.sys/config/root-credentials.enc");
            assertThat(enc).as("credentials blob on %s", drive).isRegularFile();
            String content = Files.readString(enc, StandardCharsets.ISO_8859_1);
            for (String f : forbidden) {
                assertThat(content)
                        .as("%s must not contain the secret in plain text", enc)
                        .doesNotContain(f);
            }
            try (Stream<Path> files = Files.walk(drive)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertThat(Files.readString(f, StandardCharsets.ISO_8859_1))
                            .as("no file on the drives holds the secret in plain text: %s", f)
                            .doesNotContain(secretKey);
                }
            }
        }
        Path key = appliance.configDir().resolve("keys").resolve(deploymentId + ".key");
        assertThat(key).as("the encryption key lives in APPLIANCE_CONFIG_DIR").isRegularFile();
        assertThat(Files.getPosixFilePermissions(key))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }

    @Test
    @Order(3)
    void restartLoadsTheStoredCredentialsWithoutPrintingTheSecret() throws Exception {
        assertThat(appliance.stop())
                .as("the appliance stops within 10 s of SIGTERM")
                .isTrue();
        appliance.start();
        String out = appliance.stdout();
        assertThat(out).as("stdout of the restart").doesNotContain(secretKey).doesNotContain("RootPassword");
        assertThat(appliance.stderr()).doesNotContain(secretKey);
        assertThat(out).contains("Root user: " + accessKey + " (credentials stored (encrypted) on the drives)");
        assertThat(status().path("deploymentId").asText()).isEqualTo(deploymentId);
        try (S3Client s3 = client()) {
            assertObjectsIntact(s3);
        }
    }

    @Test
    @Order(4)
    void drivesInAnotherOrderAreRefused() {
        assertThat(appliance.stop()).isTrue();
        List<Path> drives = appliance.drives();
        List<String> swapped = new ArrayList<>(List.of(
                drives.get(1).toString(),
                drives.get(0).toString(),
                drives.get(2).toString(),
                drives.get(3).toString()));
        ApplianceProcess.Exit exit = appliance.runUntilExit(swapped, Duration.ofSeconds(90));
        assertThat(exit.status()).as("exit status; stderr:%n%s", exit.stderr()).isEqualTo(1);
        assertThat(exit.stderr())
                .contains("appliance: cannot start:")
                .contains("original order")
                .containsAnyOf(drives.get(0).toString(), drives.get(1).toString());
        assertThat(exit.stdout()).doesNotContain("S3 API:");
    }

    @Test
    @Order(5)
    void missingDriveStillStartsAndServesReads() throws Exception {
        assertThat(appliance.isAlive()).isFalse();
        Path removed = appliance.drives().get(2);
        try (Stream<Path> files = Files.walk(removed)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        appliance.start();

        JsonNode status = status();
        assertThat(status.path("deploymentId").asText()).isEqualTo(deploymentId);
        JsonNode drives = status.path("drives");
        assertThat(drives.size()).isEqualTo(ApplianceProcess.DRIVES);
        for (JsonNode d : drives) {
            Path path = Path.of(d.path("path").asText());
            boolean expectOnline = !path.endsWith(removed.getFileName());
            assertThat(d.path("online").asBoolean())
                    .as("online flag of %s in %s", path, status)
                    .isEqualTo(expectOnline);
        }
        try (S3Client s3 = client()) {
            assertObjectsIntact(s3);
        }
    }
}
