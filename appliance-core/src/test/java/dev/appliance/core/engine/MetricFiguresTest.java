package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.MovableClock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.scanner.ScanReport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The figures the metrics read from the engine (docs/metrics.md), on a real four-drive store: drive calls counted and
 * timed per drive, and the scanner's distribution of versions per key.
 */
class MetricFiguresTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void open() throws IOException {
        List<Path> drives =
                IntStream.rangeClosed(1, 4).mapToObj(i -> tmp.resolve("d" + i)).toList();
        for (Path d : drives) {
            Files.createDirectories(d);
        }
        store = ErasureObjectStore.open(new StoreConfig(drives, 0, -1, true, new MovableClock()));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void put(String bucket, String key, int size) throws IOException {
        store.putObject(
                bucket,
                key,
                new PutRequest(size, null, java.util.Map.of(), null),
                new ByteArrayInputStream(new byte[size]));
    }

    @Test
    void everyDriveCountsAndTimesItsCalls() throws IOException {
        store.makeBucket("bkt");
        long[] before = store.drives().stream().mapToLong(LocalDrive::calls).toArray();
        put("bkt", "k", 100_000);
        for (int i = 0; i < store.drives().size(); i++) {
            LocalDrive d = store.drives().get(i);
            assertThat(d.calls()).as("calls of %s", d).isGreaterThan(before[i]);
            assertThat(d.callNanos()).as("time of %s", d).isPositive();
        }
    }

    @Test
    void scanCountsKeysByVersionClass() throws IOException {
        store.makeBucket("vbkt");
        store.setVersioning("vbkt", VersioningState.ENABLED);
        put("vbkt", "once", 1);
        for (int i = 0; i < 3; i++) {
            put("vbkt", "thrice", 1);
        }
        for (int i = 0; i < 12; i++) {
            put("vbkt", "twelve", 1);
        }
        ScanReport.BucketScan scan = store.scanNow().buckets().get("vbkt");
        List<Long> expected = new java.util.ArrayList<>(
                java.util.Collections.nCopies(ScanReport.VERSION_COUNT_BOUNDS.size() + 1, 0L));
        expected.set(ScanReport.versionClass(1), 1L); // <= 1
        expected.set(ScanReport.versionClass(3), 1L); // <= 5
        expected.set(ScanReport.versionClass(12), 1L); // <= 100
        assertThat(scan.keysByVersions()).containsExactlyElementsOf(expected);
        assertThat(ScanReport.versionClass(3)).isEqualTo(2);
        assertThat(ScanReport.versionClass(12)).isEqualTo(4);
        assertThat(ScanReport.versionClass(10_001)).isEqualTo(ScanReport.VERSION_COUNT_BOUNDS.size());
    }
}
