package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.api.S3Dispatcher.Operation;
import dev.appliance.s3.metrics.S3Metrics;
import dev.appliance.s3.metrics.S3Metrics.AuthFailure;
import dev.appliance.s3.testing.AccountTestServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Every failed authentication is counted once under its reason, whichever way it is answered: S3 refusals on the event
 * loop, audited ones by their worker, IAM calls answered in IAM's XML, POST forms.
 */
class AuthFailureMetricsTest {
    /** What the server told: authentication failures, and the operation and status of each request answered. */
    private static final class Recorded implements S3Metrics {
        final List<AuthFailure> failures = new ArrayList<>();
        final List<String> completed = new ArrayList<>();

        @Override
        public synchronized void requestCompleted(Operation operation, int status, long nanos) {
            completed.add((operation == null ? "Unknown" : operation.name()) + " " + status);
            notifyAll();
        }

        @Override
        public void bytesReceived(long bytes) {}

        @Override
        public void bytesSent(long bytes) {}

        @Override
        public synchronized void authenticationFailed(AuthFailure reason) {
            failures.add(reason);
            notifyAll();
        }

        /** Waits (bounded) until {@code n} requests were recorded: recording follows the answer. */
        synchronized void awaitCompleted(int n) throws InterruptedException {
            await(() -> completed.size() >= n);
        }

        /** Waits (bounded) until {@code n} failures were counted (each after its request's completion). */
        synchronized void awaitFailures(int n) throws InterruptedException {
            await(() -> failures.size() >= n);
        }

        private void await(java.util.function.BooleanSupplier done) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    private final Recorded metrics = new Recorded();
    private AccountTestServer account;

    @BeforeEach
    void start() throws Exception {
        account = AccountTestServer.start("auth-metrics", metrics);
        account.root().createBucket(b -> b.bucket("repo"));
        account.root().putObject(b -> b.bucket("repo").key("k"), RequestBody.fromString("x"));
        metrics.awaitCompleted(2); // the set-up's own requests, recorded once answered
    }

    @AfterEach
    void stop() throws Exception {
        account.close();
    }

    @Test
    void iamCallsRefusedAtAuthentication_areCountedUnderTheirReason() throws Exception {
        var forged = account.iam(AccountTestServer.ROOT_KEY, "not-the-root-secret");
        assertThatThrownBy(() -> forged.createUser(b -> b.userName("eve"))).isNotNull();
        var unknown = account.iam("AKIDNOBODY", "whatever");
        assertThatThrownBy(unknown::listUsers).isNotNull();
        metrics.awaitFailures(2);

        synchronized (metrics) {
            assertThat(metrics.failures)
                    .containsExactlyInAnyOrder(AuthFailure.SIGNATURE_MISMATCH, AuthFailure.UNKNOWN_KEY);
        }
    }

    @Test
    void s3RefusalsAtAuthentication_audited_orNot_areCountedOnceWithoutAnOperation() throws Exception {
        int before = completedCount();
        RawSigner.Spoil wrong = new RawSigner.Spoil();
        wrong.accessKey = AccountTestServer.ROOT_KEY;
        wrong.secret = "forged";
        // audited (answered by a worker once recorded) and not audited (answered on the event loop)
        assertThat(RawSigner.send(
                                account.port(),
                                RawSigner.Style.UNSIGNED_PAYLOAD,
                                new RawSigner.Request("DELETE", "/repo/k", ""),
                                wrong)
                        .status())
                .isEqualTo(403);
        assertThat(RawSigner.send(
                                account.port(),
                                RawSigner.Style.UNSIGNED_PAYLOAD,
                                new RawSigner.Request(
                                        "PUT", "/repo/k", "", Map.of(), "y".getBytes(StandardCharsets.UTF_8)),
                                wrong)
                        .status())
                .isEqualTo(403);
        metrics.awaitFailures(2);

        synchronized (metrics) {
            assertThat(metrics.failures)
                    .containsExactly(AuthFailure.SIGNATURE_MISMATCH, AuthFailure.SIGNATURE_MISMATCH);
            assertThat(metrics.completed.subList(before, metrics.completed.size()))
                    .containsExactly("Unknown 403", "Unknown 403");
        }
    }

    private int completedCount() {
        synchronized (metrics) {
            return metrics.completed.size();
        }
    }
}
