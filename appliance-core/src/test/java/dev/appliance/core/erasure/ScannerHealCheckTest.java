package dev.appliance.core.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.drive.LocalDrive;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scanner's heal checks on a real four-drive store (EC 2+2): sampled light checks find a missing part file and
 * rebuild it, but only a deep scan reads the shards and so finds flipped bytes (bitrot); either way the repaired file
 * is byte for byte what was written, and the objects read back intact throughout.
 */
class ScannerHealCheckTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;
    private final List<byte[]> bodies = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        List<Path> drives = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            drives.add(Files.createDirectories(tmp.resolve("disk" + i)));
        }
        store = ErasureObjectStore.open(StoreConfig.of(drives));
        store.makeBucket("data");
        Random r = new Random(7);
        for (int k = 0; k < 6; k++) {
            byte[] body = new byte[3 << 20]; // several erasure blocks, stored in part files
            r.nextBytes(body);
            bodies.add(body);
            store.putObject(
                    "data", "k" + k, new PutRequest(body.length, null, null, null), new ByteArrayInputStream(body));
        }
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    /** The part files of one key on one drive. */
    private static List<Path> partFiles(LocalDrive d, String key) throws IOException {
        try (Stream<Path> files = Files.walk(d.objectDir("data", key))) {
            return files.filter(p -> p.getFileName().toString().startsWith("part."))
                    .toList();
        }
    }

    private void assertReadsBack() throws IOException {
        for (int k = 0; k < bodies.size(); k++) {
            var out = new java.io.ByteArrayOutputStream();
            try (var reader = store.getObject("data", "k" + k, null, 0, -1)) {
                reader.transferTo(out);
            }
            assertThat(out.toByteArray()).as("k%d", k).isEqualTo(bodies.get(k));
        }
    }

    @Test
    void sampledLightChecks_rebuildAMissingPartFile_deepScanFindsBitrot() throws Exception {
        LocalDrive d2 = store.drives().get(1);
        LocalDrive d3 = store.drives().get(2);
        Path missing = partFiles(d2, "k1").getFirst();
        byte[] missingBefore = Files.readAllBytes(missing);
        Files.delete(missing);
        Path rotten = partFiles(d3, "k4").getFirst();
        byte[] rottenBefore = Files.readAllBytes(rotten);
        byte[] flipped = rottenBefore.clone();
        flipped[flipped.length / 2] ^= 0x55; // inside a block: the file keeps its size
        Files.write(rotten, flipped);

        // Light checks of every key in every cycle: the missing file comes back, the flipped byte is not seen.
        store.scannerHealChecks(1, null);
        store.scanNow();
        assertThat(Files.readAllBytes(missing)).isEqualTo(missingBefore);
        assertThat(Files.readAllBytes(rotten))
                .as("a light check reads no shard data")
                .isEqualTo(flipped);
        var light = store.scannerHealFigures();
        assertThat(light.keysChecked()).isEqualTo(bodies.size());
        assertThat(light.keysDeepChecked()).isZero();
        assertThat(light.keysRepaired()).isEqualTo(1);

        // A deep scan is due at once (never run yet): every shard block is verified and the damaged one rebuilt.
        store.scannerHealChecks(1, Duration.ofDays(30));
        store.scanNow();
        assertThat(Files.readAllBytes(rotten)).isEqualTo(rottenBefore);
        var deep = store.scannerHealFigures();
        assertThat(deep.keysDeepChecked()).isEqualTo(bodies.size());
        assertThat(deep.keysRepaired()).isEqualTo(2);
        assertThat(deep.lastDeepScanStarted()).isNotNull();
        assertThat(deep.lastDeepScanFinished()).isAfterOrEqualTo(deep.lastDeepScanStarted());

        // The next cycle is light again (the deep one is 30 days away) and finds everything healthy.
        store.scanNow();
        var after = store.scannerHealFigures();
        assertThat(after.keysDeepChecked()).isEqualTo(bodies.size());
        assertThat(after.keysRepaired()).isEqualTo(2);
        assertReadsBack();
    }

    @Test
    void sampling_checksEachKeyOnceInNCycles_andZeroTurnsItOff() throws Exception {
        store.scannerHealChecks(3, null);
        for (int c = 0; c < 3; c++) {
            store.scanNow();
        }
        assertThat(store.scannerHealFigures().keysChecked()).isEqualTo(bodies.size());
        store.scannerHealChecks(0, null);
        store.scanNow();
        assertThat(store.scannerHealFigures().keysChecked()).isEqualTo(bodies.size());
    }
}
