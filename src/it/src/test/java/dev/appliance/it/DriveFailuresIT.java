package dev.appliance.it;

import static dev.appliance.it.FaultMatrix.assertCleanFailure;
import static dev.appliance.it.FaultMatrix.assertEveryDriveHoldsShards;
import static dev.appliance.it.FaultMatrix.assertNoDriveHolds;
import static dev.appliance.it.FaultMatrix.assertSucceeded;
import static dev.appliance.it.FaultMatrix.random;
import static dev.appliance.it.FaultMatrix.timed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.appliance.it.FaultMatrix.Deployment;
import dev.appliance.it.FaultMatrix.Layout;
import dev.appliance.it.FaultMatrix.Timed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drive failures against real appliance processes (EC 2+2 on 4 drives, EC 4+4 on 8), with the fault injection layer
 * opted in (docs/testing.md).
 *
 * <p>The matrix: for a count of failed drives and a way of failing, reads return every byte while at least
 * {@code data} drives are good, writes succeed while the write quorum holds, and beyond that every request fails with
 * a clean {@code 503} within {@link FaultMatrix#REQUEST_BOUND}; once the drives are back, healing brings every object
 * onto every drive and reads are byte-identical. Ways of failing: the drive directory renamed away (as an unmounted
 * disk), reads failing with I/O errors (unreadable; root ignores {@code chmod}, so the injection layer does it), reads
 * and writes failing with I/O errors, and a stall of {@link FaultMatrix#STALL_MILLIS} per I/O operation (longer than
 * the drive timeout the processes run with). The default run takes a representative subset; {@code -Pfaults} runs
 * every count 0..n of every way on both layouts (docs/reliability.md).
 *
 * <p>Also: full drives (injected, and real small tmpfs mounts where mounting is allowed) refuse writes with a clean
 * {@code 507 InsufficientStorage} and leave nothing behind, while reads and deletes keep working and freeing space
 * makes writes work again; a drive stalling every I/O does not stall reads or writes, and is reported in the status.
 */
class DriveFailuresIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static final String BUCKET = "matrix";
    private static final Map<Layout, Deployment> DEPLOYMENTS = new EnumMap<>(Layout.class);

    enum Mode {
        REMOVED,
        UNREADABLE,
        IO_ERRORS,
        STALLED,
        /** Only commit points stall (renames of metadata into place, in-place rewrites, moves to trash). */
        STALLED_COMMIT
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        if ("full".equals(System.getProperty("faults.matrix"))) {
            // -Dfaults.modes=STALLED_COMMIT,... runs the full matrix of those ways only.
            String only = System.getProperty("faults.modes", "");
            for (Layout layout : Layout.values()) {
                for (Mode mode : Mode.values()) {
                    if (!only.isBlank()
                            && !java.util.Arrays.asList(only.split(",")).contains(mode.name())) {
                        continue;
                    }
                    for (int k = 0; k <= layout.drives; k++) {
                        out.add(Arguments.of(layout, mode, k));
                    }
                }
            }
            return out.stream();
        }
        // Default (sized for the suite's time budget): on 2+2, one failure (degraded write, healed afterwards), the
        // read edge (parity failed) for every way and one past it for the ways that fail fast; on 4+4, the read edge.
        // Past the edge for I/O errors and stalls, and 4+4 beyond its edge, are in the full matrix (-Pfaults).
        out.add(Arguments.of(Layout.EC_2_2, Mode.IO_ERRORS, 1));
        for (Mode mode : Mode.values()) {
            if (mode == Mode.STALLED_COMMIT) {
                continue;
            }
            out.add(Arguments.of(Layout.EC_2_2, mode, 2));
            if (mode == Mode.REMOVED || mode == Mode.UNREADABLE) {
                out.add(Arguments.of(Layout.EC_2_2, mode, 3));
            }
        }
        out.add(Arguments.of(Layout.EC_4_4, Mode.REMOVED, 4));
        return out.stream();
    }

    private static Deployment deployment(Layout layout) throws Exception {
        Deployment d = DEPLOYMENTS.get(layout);
        if (d == null) {
            d = Deployment.start(layout, tmp.resolve(layout.name()), LOGS);
            d.s3().createBucket(b -> b.bucket(BUCKET));
            DEPLOYMENTS.put(layout, d);
        }
        return d;
    }

    @AfterAll
    static void stop() {
        DEPLOYMENTS.values().forEach(Deployment::close);
    }

    @ParameterizedTest(name = "EC {0}, {2} drive(s) {1}")
    @MethodSource("cases")
    void failedDrives(Layout layout, Mode mode, int failed) throws Exception {
        Deployment d = deployment(layout);
        String prefix = mode.name().toLowerCase(java.util.Locale.ROOT) + "-" + failed + "/";
        long seed = layout.ordinal() * 1000L + mode.ordinal() * 100L + failed;
        byte[] small = random(20_000, seed);
        byte[] large = random(2_500_000, seed + 1);
        d.put(BUCKET, prefix + "small", small);
        d.put(BUCKET, prefix + "large", large);

        // Fail `failed` drives, starting at a position that moves from case to case.
        List<Integer> which = new ArrayList<>();
        for (int j = 0; j < failed; j++) {
            which.add((int) ((seed + j) % layout.drives));
        }
        for (int i : which) {
            fail(d, i, mode);
        }
        // Reads touch no commit point: a drive stalling only there serves them.
        boolean readable = mode == Mode.STALLED_COMMIT || layout.drives - failed >= layout.data();
        boolean writable = layout.drives - failed >= layout.writeQuorum();
        String during = prefix + "written-while-failed";
        byte[] duringData = random(1_500_000, seed + 2);
        try {
            String what = "EC " + layout + " with " + failed + " drive(s) " + mode + " " + which;
            Timed<byte[]> readSmall = timed(() -> d.get(BUCKET, prefix + "small"));
            Timed<byte[]> readLarge = timed(() -> d.get(BUCKET, prefix + "large"));
            Timed<?> head = timed(() -> d.s3().headObject(b -> b.bucket(BUCKET).key(prefix + "large")));
            Timed<?> write = timed(() -> {
                d.put(BUCKET, during, duringData);
                return null;
            });
            if (readable) {
                assertSucceeded(readSmall, what + ": GET small");
                assertSucceeded(readLarge, what + ": GET large");
                assertSucceeded(head, what + ": HEAD");
                assertThat(readSmall.value()).as(what).isEqualTo(small);
                assertThat(readLarge.value()).as(what).isEqualTo(large);
            } else {
                assertCleanFailure(readSmall, what + ": GET small", 503);
                assertCleanFailure(readLarge, what + ": GET large", 503);
                assertCleanFailure(head, what + ": HEAD", 503);
            }
            if (writable) {
                assertSucceeded(write, what + ": PUT");
            } else {
                assertCleanFailure(write, what + ": PUT", 503);
            }
        } finally {
            for (int i : which) {
                restore(d, i, mode);
            }
        }

        // Drives back (faulty ones after their probe): healing puts every object on every drive; reads are identical.
        d.admin().awaitDrivesInService(60);
        d.admin().awaitHealed(60);
        assertThat(d.get(BUCKET, prefix + "small")).isEqualTo(small);
        assertThat(d.get(BUCKET, prefix + "large")).isEqualTo(large);
        assertEveryDriveHoldsShards(d, BUCKET, prefix + "small", false);
        assertEveryDriveHoldsShards(d, BUCKET, prefix + "large", true);
        if (layout.drives - failed >= layout.writeQuorum()) {
            assertThat(d.get(BUCKET, during)).isEqualTo(duringData);
            assertEveryDriveHoldsShards(d, BUCKET, during, true);
        } else {
            assertThat(timed(() -> d.s3().headObject(b -> b.bucket(BUCKET).key(during)))
                            .error()
                            .statusCode())
                    .isEqualTo(404);
            assertNoDriveHolds(d, BUCKET, during);
        }
    }

    private static void fail(Deployment d, int drive, Mode mode) throws Exception {
        switch (mode) {
            case REMOVED -> Files.move(d.drive(drive), away(d, drive));
            case UNREADABLE -> d.admin().inject(drive, "{\"readErrors\":true}");
            case IO_ERRORS -> d.admin().inject(drive, "{\"readErrors\":true,\"writeErrors\":true}");
            case STALLED -> d.admin().inject(drive, "{\"latencyMillis\":" + FaultMatrix.STALL_MILLIS + "}");
            case STALLED_COMMIT ->
                d.admin().inject(drive, "{\"commitStallMillis\":" + FaultMatrix.COMMIT_STALL_MILLIS + "}");
        }
    }

    private static void restore(Deployment d, int drive, Mode mode) throws Exception {
        if (mode == Mode.REMOVED) {
            Files.move(away(d, drive), d.drive(drive));
        } else {
            d.admin().call("DELETE", "/api/v1/admin/test/faults/" + drive, null);
        }
    }

    private static Path away(Deployment d, int drive) {
        return d.drive(drive).resolveSibling("disk" + (drive + 1) + ".away");
    }

    @Test
    void fullDrives_refuseWritesWith507_readsAndDeletesWork_freedSpaceWritesAgain() throws Exception {
        Deployment d = deployment(Layout.EC_2_2);
        String bucket = "full";
        d.s3().createBucket(b -> b.bucket(bucket));
        byte[] before = random(2_500_000, 1);
        byte[] beforeSmall = random(5_000, 2);
        d.put(bucket, "before", before);
        d.put(bucket, "before-small", beforeSmall);
        d.put(bucket, "to-delete", random(300_000, 3));
        try {
            // One full drive of four: the write still reaches its quorum; nothing of it lands on the full drive.
            d.admin().inject(0, "{\"diskFull\":true}");
            byte[] oneFull = random(1_500_000, 4);
            assertSucceeded(
                    timed(() -> d.s3().putObject(
                                    b -> b.bucket(bucket).key("one-full"),
                                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(oneFull))),
                    "PUT with one full drive");
            assertThat(d.drive(0).resolve(bucket).resolve("one-full")).doesNotExist();
            assertNoStaging(d.drive(0));

            // Every drive full: writes of every kind are refused with 507, nothing is left anywhere.
            for (int i = 1; i < 4; i++) {
                d.admin().inject(i, "{\"diskFull\":true}");
            }
            Timed<?> large = timed(() -> {
                d.put(bucket, "refused-large", random(2_000_000, 5));
                return null;
            });
            Timed<?> small = timed(() -> {
                d.put(bucket, "refused-small", random(100, 6));
                return null;
            });
            assertCleanFailure(large, "PUT 2 MB, every drive full", 507);
            assertCleanFailure(small, "PUT 100 B, every drive full", 507);
            assertThat(large.error().awsErrorDetails().errorCode()).isEqualTo("InsufficientStorage");
            Timed<?> upload = timed(() -> {
                String id = d.s3().createMultipartUpload(b -> b.bucket(bucket).key("refused-mpu"))
                        .uploadId();
                try {
                    d.s3().uploadPart(
                                    b -> b.bucket(bucket)
                                            .key("refused-mpu")
                                            .uploadId(id)
                                            .partNumber(1),
                                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(random(5_300_000, 7)));
                } finally {
                    d.s3().abortMultipartUpload(
                                    b -> b.bucket(bucket).key("refused-mpu").uploadId(id));
                }
                return null;
            });
            assertCleanFailure(upload, "multipart upload, every drive full", 507);

            // Reads and deletes keep working; earlier objects are intact.
            assertThat(d.get(bucket, "before")).isEqualTo(before);
            assertThat(d.get(bucket, "before-small")).isEqualTo(beforeSmall);
            assertThat(d.get(bucket, "one-full")).isEqualTo(oneFull);
            assertSucceeded(
                    timed(() -> d.s3().deleteObject(b -> b.bucket(bucket).key("to-delete"))), "DELETE, drives full");
            assertThat(timed(() -> d.s3().headObject(b -> b.bucket(bucket).key("to-delete")))
                            .error()
                            .statusCode())
                    .isEqualTo(404);
            assertThat(d.s3().listObjectsV2(b -> b.bucket(bucket)).contents())
                    .extracting(o -> o.key())
                    .containsExactly("before", "before-small", "one-full");
            for (String key : List.of("refused-large", "refused-small", "refused-mpu")) {
                assertNoDriveHolds(d, bucket, key);
            }
            for (Path drive : d.drives()) {
                assertNoStaging(drive);
            }
        } finally {
            d.admin().clearFaults();
        }
        // Space again: writes work, and healing puts the object written with a full drive onto it.
        byte[] after = random(1_500_000, 8);
        d.put(bucket, "after", after);
        assertThat(d.get(bucket, "after")).isEqualTo(after);
        d.admin().awaitHealed(60);
        assertEveryDriveHoldsShards(d, bucket, "one-full", true);
        assertEveryDriveHoldsShards(d, bucket, "before", true);
    }

    @Test
    void stalledDrive_readsHedge_writesLeaveItOut_andItIsReported() throws Exception {
        Deployment d = deployment(Layout.EC_2_2);
        String bucket = "slow";
        d.s3().createBucket(b -> b.bucket(bucket));
        byte[] large = random(6_000_000, 11);
        byte[] small = random(30_000, 12);
        d.put(bucket, "large", large);
        d.put(bucket, "small", small);
        long slowBefore = slowCalls(d, 1);
        try {
            d.admin().inject(1, "{\"latencyMillis\":5000}");
            Timed<byte[]> readLarge = timed(() -> d.get(bucket, "large"));
            Timed<byte[]> readSmall = timed(() -> d.get(bucket, "small"));
            Timed<?> head = timed(() -> d.s3().headObject(b -> b.bucket(bucket).key("large")));
            assertSucceeded(readLarge, "GET 6 MB, one drive stalling 5 s");
            assertThat(readLarge.value()).isEqualTo(large);
            assertThat(readSmall.value()).isEqualTo(small);
            assertThat(readLarge.took()).as(readLarge.describe()).isLessThan(Duration.ofSeconds(2));
            assertThat(readSmall.took()).as(readSmall.describe()).isLessThan(Duration.ofSeconds(2));
            assertThat(head.took()).as(head.describe()).isLessThan(Duration.ofSeconds(2));

            byte[] written = random(4_000_000, 13);
            Timed<?> write = timed(() -> {
                d.put(bucket, "written", written);
                return null;
            });
            assertSucceeded(write, "PUT 4 MB, one drive stalling 5 s");
            // left out after the write straggler bound (2 s), never waited out (5 s per I/O)
            assertThat(write.took()).as(write.describe()).isLessThan(Duration.ofSeconds(4));
            System.out.printf(
                    "[it] one drive stalling 5 s per I/O: GET 6 MB %d ms, GET 30 KB %d ms, HEAD %d ms, PUT 4 MB %d ms%n",
                    readLarge.took().toMillis(),
                    readSmall.took().toMillis(),
                    head.took().toMillis(),
                    write.took().toMillis());
            assertThat(slowCalls(d, 1)).as("the stalled drive's slow calls").isGreaterThan(slowBefore);
            assertThat(slowCalls(d, 0)).isZero();
        } finally {
            d.admin().clearFaults();
        }
        assertThat(d.process().logs()).contains("is slow:");
        d.admin().awaitDrivesInService(60);
        d.admin().awaitHealed(60);
        assertThat(d.get(bucket, "written")).hasSize(4_000_000);
        assertEveryDriveHoldsShards(d, bucket, "written", true);
    }

    private static long slowCalls(Deployment d, int drive) {
        return d.admin().status().get("drives").get(drive).get("slowCalls").asLong();
    }

    private static void assertNoStaging(Path drive) throws IOException {
        Path staging = drive.resolve(".appliance.sys/tmp");
        try (Stream<Path> s = Files.list(staging)) {
            assertThat(s.toList()).as("staging left on " + drive).isEmpty();
        }
    }

    /**
     * Real full drives: four 6 MiB tmpfs mounts. Skipped where mounting is not allowed (it needs root or
     * {@code CAP_SYS_ADMIN}).
     */
    @Test
    void realFullTmpfsDrives_refuseWritesWith507_andWriteAgainAfterDeletes() throws Exception {
        Path work = tmp.resolve("tmpfs");
        Files.createDirectories(work);
        ApplianceProcess p =
                LOGS.watch(ApplianceProcess.withRootCredentials(work, "faultsadmin", "faults-secret-0123456789"));
        List<Path> mounted = new ArrayList<>();
        try {
            for (Path drive : p.drives()) {
                boolean ok = run("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", drive.toString());
                assumeTrue(ok, "cannot mount tmpfs here (needs root)");
                mounted.add(drive);
            }
            p.withJvmOptions("-Dappliance.faultInjection=true").start();
            var s3 = p.client(
                    p.accessKey(),
                    p.secretKey(),
                    b -> b.overrideConfiguration(
                            o -> o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry())));
            s3.createBucket(b -> b.bucket("fill"));
            byte[] first = random(1_000_000, 21);
            s3.putObject(
                    b -> b.bucket("fill").key("first"), software.amazon.awssdk.core.sync.RequestBody.fromBytes(first));
            // Each 1.5 MB object puts about 750 KB on every 6 MiB drive: the drives fill within a few objects.
            int stored = 0;
            Timed<?> refused = null;
            for (int i = 0; i < 30 && refused == null; i++) {
                byte[] data = random(1_500_000, 100 + i);
                String key = "fill-" + i;
                Timed<?> t = timed(() -> s3.putObject(
                        b -> b.bucket("fill").key(key), software.amazon.awssdk.core.sync.RequestBody.fromBytes(data)));
                if (t.ok()) {
                    stored++;
                } else {
                    refused = t;
                }
            }
            assertThat(refused).as("a write is eventually refused").isNotNull();
            assertCleanFailure(refused, "PUT on full tmpfs drives", 507);
            assertThat(refused.error().awsErrorDetails().errorCode()).isEqualTo("InsufficientStorage");
            String refusedKey = "fill-" + stored;
            assertThat(timed(() -> s3.headObject(b -> b.bucket("fill").key(refusedKey)))
                            .error()
                            .statusCode())
                    .isEqualTo(404);
            for (Path drive : p.drives()) {
                assertThat(drive.resolve("fill").resolve(refusedKey)).doesNotExist();
                assertNoStaging(drive);
            }
            assertThat(s3.getObjectAsBytes(b -> b.bucket("fill").key("first")).asByteArray())
                    .isEqualTo(first);
            for (int i = 0; i < stored; i++) {
                int n = i;
                assertThat(s3.getObjectAsBytes(b -> b.bucket("fill").key("fill-" + n))
                                .asByteArray())
                        .isEqualTo(random(1_500_000, 100 + n));
            }
            // Deleting frees the space (trash is purged in the background within seconds): writes work again.
            for (int i = 0; i < stored; i++) {
                int n = i;
                s3.deleteObject(b -> b.bucket("fill").key("fill-" + n));
            }
            byte[] again = random(1_500_000, 7);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            Timed<?> write;
            do {
                Thread.sleep(500);
                write = timed(() -> s3.putObject(
                        b -> b.bucket("fill").key("again"),
                        software.amazon.awssdk.core.sync.RequestBody.fromBytes(again)));
            } while (!write.ok() && System.nanoTime() < deadline);
            assertSucceeded(write, "PUT after deletes freed space");
            assertThat(s3.getObjectAsBytes(b -> b.bucket("fill").key("again")).asByteArray())
                    .isEqualTo(again);
            assertThat(s3.getObjectAsBytes(b -> b.bucket("fill").key("first")).asByteArray())
                    .isEqualTo(first);
            s3.close();
        } finally {
            p.close();
            for (Path m : mounted) {
                run("umount", m.toString());
            }
        }
    }

    private static boolean run(String... cmd) {
        Commands.Result r = Commands.run(tmp, List.of(cmd), Map.of(), 30);
        return r.status() == 0;
    }
}
