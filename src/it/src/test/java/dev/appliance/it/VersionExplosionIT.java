package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * The seed incident end to end on a real process with a 4-second lifecycle day: a sync client re-uploads the same 100
 * files as fast as every second (every few seconds on a loaded machine) into a versioned (Object Lock) bucket
 * whose alert threshold is 10 versions per key. With no
 * rule, versions pile up and the version-explosion alerts fire with the right cause (identical content re-uploaded),
 * read and acknowledged through {@code appliance alerts}; once a NoncurrentVersionExpiration rule with
 * NewerNoncurrentVersions is set, the counts stay bounded over several days, the alerts clear, the locked version
 * survives and AbortIncompleteMultipartUpload removes the abandoned upload. A longer variant runs with
 * {@code -Dseed.days=N} (docs/alerts.md).
 */
class VersionExplosionIT {
    private static final String BUCKET = "seed";
    private static final int FILES = 100;
    private static final int THRESHOLD = 10;
    private static final int KEEP_NONCURRENT = 3;
    private static final Duration DAY = Duration.ofSeconds(4);
    private static final Duration ROUND = Duration.ofSeconds(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static S3Client s3;

    @BeforeAll
    static void start() {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "seed-it", "seed-it-" + UUID.randomUUID())
                        .withArgs("--lifecycle-day", DAY.toSeconds() + "s", "--scanner-interval", "1s"))
                .start();
        s3 = appliance.client();
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    private static String file(int i) {
        return String.format("home/docs/file-%03d.txt", i);
    }

    /** The customer's sync script: every round, all files again, unchanged. */
    private static final class SyncClient implements AutoCloseable {
        // three connections: the scanner counts the store busy from four requests in flight and steps aside
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong rounds = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final Future<?> loop;

        SyncClient() {
            loop = Executors.newSingleThreadExecutor().submit(() -> {
                while (running.get()) {
                    Instant began = Instant.now();
                    List<Future<?>> puts = new ArrayList<>();
                    for (int i = 0; i < FILES; i++) {
                        int n = i;
                        puts.add(pool.submit(() -> {
                            try {
                                s3.putObject(
                                        b -> b.bucket(BUCKET).key(file(n)),
                                        RequestBody.fromString("the unchanged content of file " + n));
                            } catch (RuntimeException e) {
                                failures.incrementAndGet();
                            }
                        }));
                    }
                    for (Future<?> f : puts) {
                        f.get();
                    }
                    rounds.incrementAndGet();
                    Duration left = ROUND.minus(Duration.between(began, Instant.now()));
                    if (!left.isNegative()) {
                        Thread.sleep(left);
                    }
                }
                return null;
            });
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            loop.get();
            pool.shutdown();
        }
    }

    private static Commands.Result cli(String... args) {
        List<String> cmd = new ArrayList<>(List.of(args));
        cmd.addAll(List.of("--console", appliance.consoleUri().toString()));
        return Commands.run(
                tmp,
                ApplianceProcess.jarCommand(cmd.toArray(String[]::new)),
                Map.of("APPLIANCE_ROOT_USER", appliance.accessKey(), "APPLIANCE_ROOT_PASSWORD", appliance.secretKey()),
                60);
    }

    private static JsonNode alertsJson(String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("alerts", "--json"));
        args.addAll(List.of(extra));
        Commands.Result r = cli(args.toArray(String[]::new));
        assertThat(r.status()).as(r.stdout() + r.stderr()).isZero();
        return JSON.readTree(r.stdout());
    }

    private static JsonNode alert(JsonNode root, String id) {
        for (JsonNode a : root.path("alerts")) {
            if (a.path("id").asText().equals(id)) {
                return a;
            }
        }
        return null;
    }

    /**
     * The alerts' summary with ids in the signed GET /api/v1/admin/status (cheap to poll: no JVM started per poll,
     * unlike the CLI).
     */
    private static JsonNode statusAlerts() {
        return new AdminApi(appliance, tmp).status().path("alerts");
    }

    /**
     * Polls the status summary until {@code condition} holds, then answers the full listing, read from the API the CLI
     * prints with {@code alerts --json --all} (no JVM started for it; the CLI's own listings are read below).
     */
    private static JsonNode awaitAlerts(String what, Duration timeout, Predicate<JsonNode> condition) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        JsonNode summary = statusAlerts();
        while (!condition.test(summary)) {
            assertThat(Instant.now())
                    .as("waiting for " + what + "; last summary: " + summary)
                    .isBefore(deadline);
            Thread.sleep(500);
            summary = statusAlerts();
        }
        AdminApi.Answer listing = new AdminApi(appliance, tmp).call("GET", "/api/v1/admin/alerts?all=true", null);
        assertThat(listing.status()).as(listing.body()).isEqualTo(200);
        return listing.json();
    }

    /** Active version-explosion alerts in a listing (the health alerts about the test host are not this test's). */
    private static long activeVersionAlerts(JsonNode listing) {
        long n = 0;
        for (JsonNode a : listing.path("alerts")) {
            if (a.path("state").asText().equals("active")
                    && a.path("code").asText().startsWith("VERSIONS_")) {
                n++;
            }
        }
        return n;
    }

    private static boolean lists(JsonNode summary, String id) {
        for (JsonNode i : summary.path("ids")) {
            if (i.asText().equals(id)) {
                return true;
            }
        }
        return false;
    }

    private static List<ObjectVersion> versions(String key) {
        return s3.listObjectVersions(b -> b.bucket(BUCKET).prefix(key)).versions().stream()
                .filter(v -> v.key().equals(key))
                .toList();
    }

    private static Commands.Result setThreshold(int versions) throws IOException {
        Path body = Files.writeString(
                tmp.resolve("settings-" + UUID.randomUUID() + ".json"), "{\"versionAlertThreshold\":" + versions + "}");
        return Commands.run(
                tmp,
                List.of(
                        "curl",
                        "-sS",
                        "-o",
                        "-",
                        "-w",
                        "\n%{http_code}",
                        "-X",
                        "PUT",
                        appliance.consoleUri() + "/api/v1/admin/buckets/" + BUCKET + "/settings",
                        "--aws-sigv4",
                        "aws:amz:us-east-1:s3",
                        "--user",
                        appliance.accessKey() + ":" + appliance.secretKey(),
                        "-H",
                        "Content-Type: application/json",
                        "--data-binary",
                        "@" + body),
                Map.of(),
                30);
    }

    @Test
    void seedScenario_alertsWhileNoRuleExists_clearsOnceTheRuleIsSet_andVersionsStayBounded() throws Exception {
        Instant began = Instant.now();
        StringBuilder timings = new StringBuilder();
        int days = Integer.getInteger("seed.days", 3);
        s3.createBucket(b -> b.bucket(BUCKET).objectLockEnabledForBucket(true));
        Commands.Result set = setThreshold(THRESHOLD);
        assertThat(set.stdout())
                .as(set.stdout() + set.stderr())
                .contains("\"versionAlertThreshold\":" + THRESHOLD)
                .endsWith("200");
        // a version under retention, which no lifecycle rule may remove, and an upload the client abandoned
        String locked = s3.putObject(
                        b -> b.bucket(BUCKET)
                                .key(file(0))
                                .objectLockMode(ObjectLockMode.GOVERNANCE)
                                .objectLockRetainUntilDate(Instant.now().plus(Duration.ofHours(1))),
                        RequestBody.fromString("the locked first version"))
                .versionId();
        String upload = s3.createMultipartUpload(b -> b.bucket(BUCKET).key("home/abandoned.iso"))
                .uploadId();
        s3.uploadPart(
                b -> b.bucket(BUCKET).key("home/abandoned.iso").uploadId(upload).partNumber(1),
                RequestBody.fromBytes(new byte[256 * 1024]));

        String high = "VERSIONS_PER_KEY_HIGH:" + BUCKET;
        String identical = "VERSIONS_IDENTICAL_REUPLOADS:" + BUCKET;
        try (SyncClient client = new SyncClient()) {
            // no rule: the identical re-uploads are noticed first, then the keys pass the threshold
            JsonNode root = awaitAlerts(
                    "both version-explosion alerts",
                    Duration.ofSeconds(75),
                    r -> lists(r, high) && lists(r, identical));
            Duration toAlert = Duration.between(began, Instant.now());
            long roundsAtAlert = client.rounds.get();
            JsonNode h = alert(root, high);
            assertThat(h.path("state").asText()).isEqualTo("active");
            assertThat(h.path("bucket").asText()).isEqualTo(BUCKET);
            assertThat(h.path("summary").asText())
                    .contains("Bucket 'seed'", "over 10 versions; worst 'home/docs/file-");
            assertThat(h.path("cause").asText())
                    .contains("identical content re-uploaded")
                    .contains("No lifecycle rule with NoncurrentVersionExpiration applies to 'seed'");
            assertThat(h.path("remedy").asText())
                    .contains("\"NewerNoncurrentVersions\":2", "--bucket seed", "fix the client");
            JsonNode f = h.path("figures");
            assertThat(f.path("threshold").asInt()).isEqualTo(THRESHOLD);
            assertThat(f.path("worstKeys").size()).isEqualTo(5);
            assertThat(f.path("worstKeys").get(0).path("versions").asLong()).isGreaterThan(THRESHOLD);
            assertThat(f.path("versionsPerHour").asDouble()).isGreaterThan(1_000);
            assertThat(f.path("projectedWorstKeyVersions").asLong()).isGreaterThan(THRESHOLD);
            assertThat(f.path("metadataBytesPerVersion").asLong()).isBetween(50L, 4096L);
            assertThat(f.path("projectedBucketMetadataBytes").asLong()).isPositive();
            JsonNode i = alert(root, identical);
            assertThat(i.path("cause").asText())
                    .containsPattern("identical content re-uploaded \\d+ times in the last hour");
            assertThat(i.path("figures").path("identicalLastHour").asLong()).isGreaterThan(FILES * 3L);
            String worst = f.path("worstKeys").get(0).path("key").asText();
            assertThat(versions(worst).size()).isGreaterThan(THRESHOLD);

            // the operator reads the alert and acknowledges it
            Commands.Result text = cli("alerts");
            assertThat(text.status()).as(text.stderr()).isZero();
            assertThat(text.stdout())
                    // the appliance's health alerts (about the test host) are listed too: not counted here
                    .containsPattern("Alerts: [0-9]+ active")
                    .contains("WARNING  " + high)
                    .contains("WARNING  " + identical)
                    .contains("Cause:  identical content re-uploaded")
                    .contains("acknowledge: appliance alerts ack " + high);
            Commands.Result ack = cli("alerts", "ack", high);
            assertThat(ack.status()).as(ack.stdout() + ack.stderr()).isZero();
            assertThat(ack.stdout()).contains(high + " acknowledged at");
            Commands.Result unknown = cli("alerts", "ack", "VERSIONS_PER_KEY_HIGH:no-such-bucket");
            assertThat(unknown.status()).isEqualTo(1);
            assertThat(unknown.stderr()).contains("404", "NO_SUCH_ALERT");
            assertThat(alert(alertsJson(), high).path("acknowledged").asBoolean())
                    .isTrue();
            assertThat(client.rounds.get()).isGreaterThanOrEqualTo(THRESHOLD);

            // the remedy: keep the newest noncurrent versions, abort stale uploads
            s3.putBucketLifecycleConfiguration(b -> b.bucket(BUCKET)
                    .lifecycleConfiguration(c -> c.rules(LifecycleRule.builder()
                            .id("keep-" + KEEP_NONCURRENT)
                            .status(ExpirationStatus.ENABLED)
                            .filter(x -> x.prefix(""))
                            .noncurrentVersionExpiration(n -> n.newerNoncurrentVersions(KEEP_NONCURRENT))
                            .abortIncompleteMultipartUpload(a -> a.daysAfterInitiation(1))
                            .build())));
            Instant ruleSet = Instant.now();
            timings.append(String.format("alerts after %s (%d rounds of %d files)", toAlert, roundsAtAlert, FILES));
            root = awaitAlerts(
                    "the alerts to clear", Duration.ofSeconds(30), r -> !lists(r, high) && !lists(r, identical));
            timings.append(", cleared " + Duration.between(ruleSet, Instant.now()) + " after the rule");
            assertThat(alert(root, high).path("state").asText()).isEqualTo("cleared");
            assertThat(alert(root, identical).path("state").asText()).isEqualTo("cleared");

            // several days of the same workload: every key stays bounded
            long maxSeen = 0;
            Instant end = ruleSet.plus(DAY.multipliedBy(days));
            while (Instant.now().isBefore(end)) {
                for (int n : new int[] {1, 37, 99}) {
                    maxSeen = Math.max(maxSeen, versions(file(n)).size());
                }
                Thread.sleep(500);
            }
            // 1 current + 3 noncurrent + what arrives between two scanner passes (about one a second)
            assertThat(maxSeen).as("most versions of a key after the rule").isLessThanOrEqualTo(10);
            // the CLI's --all listing: none active, the cleared one still shown
            JsonNode last = alertsJson("--all");
            assertThat(activeVersionAlerts(last)).isZero();
            assertThat(alert(last, high).path("state").asText()).isEqualTo("cleared");
            assertThat(client.failures.get()).isZero();
        }
        // the locked version survived every pass; the abandoned upload is gone
        assertThat(versions(file(0))).extracting(ObjectVersion::versionId).contains(locked);
        assertThat(versions(file(0)).size()).isLessThanOrEqualTo(10);
        assertThat(s3.listMultipartUploads(b -> b.bucket(BUCKET)).uploads()).isEmpty();
        assertThat(statusAlerts().path("ids")).noneMatch(id -> id.asText().startsWith("VERSIONS_"));
        System.out.printf(
                "VersionExplosionIT: seed scenario over %d days of %s in %s: %s%n",
                days, DAY, Duration.between(began, Instant.now()), timings);
    }
}
