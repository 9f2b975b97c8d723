package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scanner cycle that meets a write still committing (its metadata renamed into place on some drives, not yet on the
 * others, the key's write lock held) on a real four-drive store: it must not take the half-done commit for a version
 * missing from a drive ("metadata present on 3 of 4 drives") and report it for healing.
 */
class ScannerInFlightWriteTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void setUp() throws IOException {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket("data");
        store.scannerHealChecks(0, null); // the scan of the keys alone, no sampled heal checks
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void aScanDuringACommit_waitsForTheCommit_andReportsNoHeal() throws Exception {
        byte[] body = "the first version of k".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        store.putObject("data", "k", new PutRequest(body.length, null, null, null), new ByteArrayInputStream(body));
        LocalDrive fourth = store.drives().get(3);
        Path meta = fourth.objectDir("data", "k").resolve(LocalDrive.META_FILE);
        Path notYetRenamed = meta.resolveSibling("xl.meta.committing");
        NamespaceLocks locks = store.keyLocks();
        AtomicReference<ScanReport> report = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread scan;
        try (var commit = locks.write("data", "k")) {
            // The commit in progress: its metadata is in place on three drives; the fourth's rename is still to come.
            Files.move(meta, notYetRenamed);
            scan = Thread.ofPlatform().name("scan").start(() -> {
                try {
                    report.set(store.scanNow());
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (scan.isAlive() && locks.users("data", "k") < 2 && System.nanoTime() < deadline) {
                scan.join(1); // until the scan has finished, or waits for the key
            }
            assertThat(store.healQueue().snapshot())
                    .as("reported for healing while the commit was still running")
                    .isEmpty();
            Files.move(notYetRenamed, meta); // the commit completes on the fourth drive, then lets go of the key
        }
        scan.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(scan.isAlive()).as("the scan ended once the commit did").isFalse();
        assertThat(failure.get()).isNull();
        assertThat(report.get().buckets().get("data").keys())
                .as("the key was scanned, after the commit")
                .isEqualTo(1);
        assertThat(store.healQueue().snapshot()).isEmpty();
        assertThat(store.healStatus().healed()).isZero();
    }
}
