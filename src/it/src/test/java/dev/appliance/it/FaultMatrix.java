package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Shared pieces of the drive failure tests: layouts, deployments with fault injection on, timed requests. */
final class FaultMatrix {
    private FaultMatrix() {}

    /** How long any request may take when drives fail or stall, success or clean failure: never a hang. */
    static final Duration REQUEST_BOUND = Duration.ofSeconds(15);
    /** The appliance gives up on a drive call after this (production default 30 s), so stalls fail in bounded time. */
    static final long DRIVE_TIMEOUT_MILLIS = 2_000;
    /** Injected stall per I/O operation: longer than the drive timeout. */
    static final long STALL_MILLIS = 3_000;
    /**
     * Injected stall of commit points only: longer than {@link #REQUEST_BOUND}, so a request that waited for such a
     * drive (instead of giving up on it at the drive timeout) fails the bound.
     */
    static final long COMMIT_STALL_MILLIS = REQUEST_BOUND.toMillis() + 5_000;

    /** An erasure layout: {@code drives} drives in one set with {@code parity} parity shards. */
    enum Layout {
        EC_2_2(4, 2),
        EC_4_4(8, 4);

        final int drives;
        final int parity;

        Layout(int drives, int parity) {
            this.drives = drives;
            this.parity = parity;
        }

        int data() {
            return drives - parity;
        }

        /** Data shards, plus one when data equals parity (as MinIO). */
        int writeQuorum() {
            return data() == parity ? data() + 1 : data();
        }

        @Override
        public String toString() {
            return data() + "+" + parity;
        }
    }

    /** A running appliance on one layout with fault injection opted in, its client and admin API. */
    record Deployment(Layout layout, ApplianceProcess process, S3Client s3, AdminApi admin) {
        static Deployment start(Layout layout, Path workDir, DumpLogsOnFailure logs) throws IOException {
            Files.createDirectories(workDir);
            ApplianceProcess p =
                    logs.watch(ApplianceProcess.withRootCredentials(workDir, "faultsadmin", "faults-secret-0123456789")
                            .withJvmOptions(
                                    "-Dappliance.faultInjection=true",
                                    "-Dappliance.drives.timeout=" + DRIVE_TIMEOUT_MILLIS + "ms",
                                    // drives come back at the next drive check: each case waits for one (10 s
                                    // by default) after its drives are restored
                                    "-Dappliance.drives.check-interval=1s")
                            .withArgs("--parity", Integer.toString(layout.parity)));
            p.start(List.of(workDir.resolve("disk{1..." + layout.drives + "}").toString()));
            S3Client s3 = p.client(
                    p.accessKey(),
                    p.secretKey(),
                    b -> b.overrideConfiguration(o ->
                            o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(Duration.ofSeconds(60))));
            return new Deployment(layout, p, s3, new AdminApi(p, workDir));
        }

        Path drive(int i) {
            return process.workDir().resolve("disk" + (i + 1));
        }

        List<Path> drives() {
            List<Path> out = new ArrayList<>();
            for (int i = 0; i < layout.drives; i++) {
                out.add(drive(i));
            }
            return out;
        }

        void put(String bucket, String key, byte[] data) {
            s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(data));
        }

        byte[] get(String bucket, String key) {
            return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
        }

        void close() {
            s3.close();
            process.close();
        }
    }

    /** What a timed request did: its value or its S3 error, and how long it took. */
    record Timed<T>(T value, S3Exception error, Duration took) {
        boolean ok() {
            return error == null;
        }

        String describe() {
            return (ok()
                            ? "succeeded"
                            : "failed " + error.statusCode() + " "
                                    + error.awsErrorDetails().errorCode()) + " in " + took.toMillis() + " ms";
        }
    }

    static <T> Timed<T> timed(Callable<T> call) {
        long t0 = System.nanoTime();
        try {
            T v = call.call();
            return new Timed<>(v, null, Duration.ofNanos(System.nanoTime() - t0));
        } catch (S3Exception e) {
            return new Timed<>(null, e, Duration.ofNanos(System.nanoTime() - t0));
        } catch (Exception e) {
            throw new AssertionError("not an S3 error answer", e);
        }
    }

    /** Asserts a clean S3 error with one of the given HTTP statuses, within {@link #REQUEST_BOUND}. */
    static void assertCleanFailure(Timed<?> t, String what, int... statuses) {
        assertThat(t.ok()).as(what + ": expected to fail, " + t.describe()).isFalse();
        List<Integer> allowed = new ArrayList<>();
        for (int s : statuses) {
            allowed.add(s);
        }
        assertThat(t.error().statusCode()).as(what + ": " + t.describe()).isIn(allowed);
        assertThat(t.took()).as(what + ": " + t.describe()).isLessThan(REQUEST_BOUND);
    }

    static void assertSucceeded(Timed<?> t, String what) {
        if (!t.ok()) {
            throw new AssertionError(what + ": expected to succeed, " + t.describe(), t.error());
        }
        assertThat(t.took()).as(what + ": " + t.describe()).isLessThan(REQUEST_BOUND);
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /**
     * Asserts that every drive holds the key's metadata and, for an object kept in part files, a data directory with
     * a part file of the same size as every other drive's: each drive holds its shard.
     */
    static void assertEveryDriveHoldsShards(Deployment d, String bucket, String key, boolean partFiles)
            throws IOException {
        long partSize = -1;
        for (Path drive : d.drives()) {
            Path dir = drive.resolve(bucket).resolve(key);
            assertThat(dir.resolve("xl.meta"))
                    .as("metadata of " + key + " on " + drive)
                    .isRegularFile();
            if (!partFiles) {
                continue;
            }
            List<Path> parts;
            try (Stream<Path> s = Files.list(dir)) {
                parts = s.filter(Files::isDirectory)
                        .map(p -> p.resolve("part.1"))
                        .filter(Files::isRegularFile)
                        .toList();
            }
            assertThat(parts).as("part files of " + key + " on " + drive).hasSize(1);
            long size = Files.size(parts.getFirst());
            if (partSize < 0) {
                partSize = size;
            }
            assertThat(size).as("shard size of " + key + " on " + drive).isEqualTo(partSize);
        }
    }

    /** Asserts no drive holds anything of the key (a refused write left nothing visible). */
    static void assertNoDriveHolds(Deployment d, String bucket, String key) {
        for (Path drive : d.drives()) {
            assertThat(drive.resolve(bucket).resolve(key))
                    .as("refused write of " + key + " on " + drive)
                    .doesNotExist();
        }
    }
}
