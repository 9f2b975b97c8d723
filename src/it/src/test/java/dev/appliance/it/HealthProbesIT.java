package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The health probes of a real appliance process (EC 2+2 on 4 drives: writes need 3 drives in service, reads 2), as a
 * load balancer and monitoring poll them, unauthenticated: {@code /appliance/health/live|ready|cluster} on the S3 port
 * and {@code /actuator/health} on the console. Two drives are taken away as an unmounted disk is (the directory moved
 * away; everything runs as root, so permissions cannot do it); the process runs its drive check every second
 * ({@code -Dappliance.drives.check-interval=1s}), and the test polls with a deadline for the probes to flip. Also: the
 * bucket name {@code appliance} is refused to the AWS CLI and the SDK.
 */
class HealthProbesIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static final Duration FLIP_DEADLINE = Duration.ofSeconds(30);

    private static ApplianceProcess appliance;
    private static S3Client s3;
    private static AwsCli cli;
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws IOException {
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "health-it-admin", "health-it-secret-" + UUID.randomUUID())
                        .withJvmOptions("-Dappliance.drives.check-interval=1s")
                        .withArgs("--parity", "2"))
                .start();
        // no retries: a refused write must show as it is, at once
        s3 = appliance.client(
                appliance.accessKey(),
                appliance.secretKey(),
                b -> b.overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())));
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

    record Answer(int status, String body) {}

    private static Answer get(URI base, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    private static int head(URI base, String path) throws IOException, InterruptedException {
        return HTTP.send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .timeout(Duration.ofSeconds(10))
                                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static Answer probe(String name) throws IOException, InterruptedException {
        return get(appliance.s3Endpoint(), "/appliance/health/" + name);
    }

    private static Answer actuator() throws IOException, InterruptedException {
        return get(appliance.consoleUri(), "/actuator/health");
    }

    /** Polls the cluster probe until it answers {@code status}, at most {@link #FLIP_DEADLINE}; returns the answer. */
    private static Answer awaitCluster(int status) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + FLIP_DEADLINE.toNanos();
        Answer a = probe("cluster");
        while (a.status() != status && System.nanoTime() < deadline) {
            Thread.sleep(200); // polling interval, not a wait for an expected moment
            a = probe("cluster");
        }
        assertThat(a.status())
                .as("cluster probe within " + FLIP_DEADLINE + ": " + a.body())
                .isEqualTo(status);
        return a;
    }

    @Test
    void probesFlipTo503_whenWriteQuorumIsLost_andBackTo200_whenTheDrivesReturn() throws Exception {
        for (String p : List.of("live", "ready", "cluster")) {
            assertThat(probe(p)).as(p).isEqualTo(new Answer(200, "{\"status\":\"UP\"}\n"));
            assertThat(head(appliance.s3Endpoint(), "/appliance/health/" + p))
                    .as("HEAD " + p)
                    .isEqualTo(200);
        }
        assertThat(actuator()).isEqualTo(new Answer(200, "{\"status\":\"UP\"}"));
        s3.createBucket(b -> b.bucket("data"));
        s3.putObject(b -> b.bucket("data").key("before"), RequestBody.fromString("written with every drive"));

        Path disk1 = appliance.workDir().resolve("disk1");
        Path disk2 = appliance.workDir().resolve("disk2");
        Path away1 = tmp.resolve("disk1-away");
        Path away2 = tmp.resolve("disk2-away");
        Files.move(disk1, away1);
        Files.move(disk2, away2);
        try {
            Answer cluster = awaitCluster(503);
            assertThat(JSON.readTree(cluster.body()).get("status").asText()).isEqualTo("DOWN");
            assertThat(cluster.body()).contains("2 of 4 drives in service, writes need 3");
            assertThat(head(appliance.s3Endpoint(), "/appliance/health/cluster"))
                    .isEqualTo(503);

            Answer health = actuator();
            assertThat(health.status()).isEqualTo(503);
            assertThat(JSON.readTree(health.body()).get("status").asText()).isEqualTo("DOWN");
            assertThat(probe("live").status()).as("the process still serves").isEqualTo(200);
            assertThat(probe("ready").status()).as("2 of 4 drives still read").isEqualTo(200);

            // what the probes say is what clients get
            assertThatThrownBy(() ->
                            s3.putObject(b -> b.bucket("data").key("during"), RequestBody.fromString("no quorum")))
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(503));
            assertThat(s3.getObjectAsBytes(b -> b.bucket("data").key("before")).asUtf8String())
                    .isEqualTo("written with every drive");
        } finally {
            Files.move(away1, disk1);
            Files.move(away2, disk2);
        }

        awaitCluster(200);
        assertThat(actuator()).isEqualTo(new Answer(200, "{\"status\":\"UP\"}"));
        assertThat(probe("ready").status()).isEqualTo(200);
        s3.putObject(b -> b.bucket("data").key("after"), RequestBody.fromString("quorum is back"));
    }

    @Test
    void theBucketNameAppliance_isRefused_toTheCliAndTheSdk() {
        AwsCli.Result mb = cli.mayFail("s3", "mb", "s3://appliance");
        assertThat(mb.status()).as(mb.stderr()).isNotZero();
        assertThat(mb.stderr()).contains("AllAccessDisabled").contains("reserved for the health probes");

        assertThatThrownBy(() -> s3.createBucket(b -> b.bucket("appliance")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AllAccessDisabled");
                });
        assertThat(cli.run("s3", "ls")).doesNotContain("appliance");
    }
}
