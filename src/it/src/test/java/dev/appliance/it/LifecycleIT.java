package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * Lifecycle end to end on a real process whose lifecycle day lasts 5 seconds ({@code --lifecycle-day 5s}): the AWS
 * SDK sets the rules, writes versions and starts a multipart upload, and the background scanner expires noncurrent
 * versions, puts a delete marker on an expired current version and aborts the stale upload, within seconds.
 */
class LifecycleIT {
    private static final Duration DAY = Duration.ofSeconds(5);

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "lifecycle-it", "lifecycle-it-" + UUID.randomUUID())
                        .withArgs("--lifecycle-day", "5s"))
                .start();
        s3 = appliance.client();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static List<ObjectVersion> versions(String bucket, String key) {
        return s3.listObjectVersions(b -> b.bucket(bucket).prefix(key)).versions().stream()
                .filter(v -> v.key().equals(key))
                .toList();
    }

    private static boolean isDeleteMarkerLatest(String bucket, String key) {
        return s3.listObjectVersions(b -> b.bucket(bucket).prefix(key)).deleteMarkers().stream()
                .anyMatch(m -> m.key().equals(key) && m.isLatest());
    }

    private static void awaitTrue(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            assertThat(Instant.now()).as("waiting for " + what).isBefore(deadline);
            Thread.sleep(250);
        }
    }

    @Test
    void noncurrentVersions_expiredCurrentVersions_andStaleUploads_goWithinDaysOfFiveSeconds() throws Exception {
        String bucket = "lifecycle-it";
        s3.createBucket(b -> b.bucket(bucket));
        s3.putBucketVersioning(
                b -> b.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        s3.putBucketLifecycleConfiguration(b -> b.bucket(bucket)
                .lifecycleConfiguration(c -> c.rules(
                        LifecycleRule.builder()
                                .id("noncurrent")
                                .status(ExpirationStatus.ENABLED)
                                .filter(f -> f.prefix(""))
                                .noncurrentVersionExpiration(n -> n.noncurrentDays(1))
                                .abortIncompleteMultipartUpload(a -> a.daysAfterInitiation(1))
                                .build(),
                        LifecycleRule.builder()
                                .id("scratch")
                                .status(ExpirationStatus.ENABLED)
                                .filter(f -> f.prefix("scratch/"))
                                .expiration(e -> e.days(1))
                                .build())));

        Instant began = Instant.now();
        for (int i = 0; i < 3; i++) {
            s3.putObject(b -> b.bucket(bucket).key("backup.vbk"), RequestBody.fromString("generation"));
        }
        String newest = versions(bucket, "backup.vbk").getFirst().versionId();
        var scratch = s3.putObject(b -> b.bucket(bucket).key("scratch/tmp"), RequestBody.fromString("scratch"));
        assertThat(scratch.expiration()).contains("rule-id=\"scratch\"");
        String upload =
                s3.createMultipartUpload(b -> b.bucket(bucket).key("big.vib")).uploadId();
        s3.uploadPart(
                b -> b.bucket(bucket).key("big.vib").uploadId(upload).partNumber(1),
                RequestBody.fromBytes(new byte[64 * 1024]));
        // nothing is due before a day has passed
        if (Duration.between(began, Instant.now()).compareTo(DAY) < 0) {
            assertThat(versions(bucket, "backup.vbk")).hasSize(3);
        }

        // a day (rounded up to the next "midnight", a multiple of 5 s) plus a few scanner cycles
        Duration timeout = DAY.multipliedBy(3).plusSeconds(10);
        awaitTrue(
                "the noncurrent versions to expire",
                timeout,
                () -> versions(bucket, "backup.vbk").size() == 1);
        assertThat(versions(bucket, "backup.vbk").getFirst().versionId()).isEqualTo(newest);
        awaitTrue("the stale upload to be aborted", timeout, () -> s3.listMultipartUploads(b -> b.bucket(bucket))
                .uploads()
                .isEmpty());
        awaitTrue("the scratch object to expire", timeout, () -> isDeleteMarkerLatest(bucket, "scratch/tmp"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("backup.vbk")).asUtf8String())
                .isEqualTo("generation");
        assertThat(Duration.between(began, Instant.now())).isLessThan(Duration.ofSeconds(60));

        // the scanner's figures, as the admin API shows them (SigV4-signed with the root credentials, as SosApiIT does)
        awaitTrue("a scanner cycle that saw the actions", timeout, () -> {
            String json = scannerJson();
            return json.contains("\"abortedUploads\":1") || json.contains("\"incompleteUploads\":0");
        });
        String json = scannerJson();
        assertThat(json)
                .contains("\"lifecycleDaySeconds\":5.0")
                .contains("\"maxVersionsPerKey\":10000")
                .contains("\"lifecycle-it\"")
                .contains("\"topKeys\"")
                .contains("\"key\":\"backup.vbk\"")
                .contains("\"incompleteUploads\":0");
    }

    private static String scannerJson() {
        try {
            Commands.Result r = Commands.run(
                    tmp,
                    List.of(
                            "curl",
                            "-sS",
                            "--aws-sigv4",
                            "aws:amz:us-east-1:s3",
                            "--user",
                            appliance.accessKey() + ":" + appliance.secretKey(),
                            appliance.consoleUri() + "/api/v1/admin/scanner"),
                    java.util.Map.of(),
                    30);
            return r.stdout();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
