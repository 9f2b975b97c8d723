package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.testing.TestStore;
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
        store = TestEngine.open(TestStore.on(tmp));
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

    /** The position of a drive holding a data shard ({@code parity} false) or a parity shard of the key. */
    private int position(String key, boolean parity) throws Exception {
        var v = dev.appliance.core.meta.XlMeta.parse(
                        Files.readAllBytes(store.drives().getFirst().metaFile("data", key)))
                .version(0);
        for (int pos = 0; pos < store.drives().size(); pos++) {
            if ((v.shardIndexAt(pos) > v.dataShards()) == parity) {
                return pos;
            }
        }
        throw new AssertionError("no such shard");
    }

    private static byte[] flipOneByte(Path file) throws IOException {
        byte[] before = Files.readAllBytes(file);
        byte[] flipped = before.clone();
        flipped[flipped.length / 2] ^= 0x55; // inside a block: the file keeps its size
        Files.write(file, flipped);
        return before;
    }

    /**
     * Reads and the light checks of data shards read no parity, and the deep scan is off by default: the light checks
     * verify parity shards block by block, for a bounded number of keys per cycle, going on where the last cycle
     * stopped.
     */
    @Test
    void lightChecks_verifyParityShards_aBoundedNumberOfKeysPerCycle() throws Exception {
        Path k2 = partFiles(store.drives().get(position("k2", true)), "k2").getFirst();
        Path k5 = partFiles(store.drives().get(position("k5", true)), "k5").getFirst();
        byte[] k2Before = flipOneByte(k2);
        byte[] k5Before = flipOneByte(k5);
        assertReadsBack(); // a read needs only the data shards: nothing noticed

        store.scannerHealChecks(1, null);
        store.scannerParityChecks(4); // k0..k3 this cycle
        store.scanNow();
        assertThat(Files.readAllBytes(k2)).isEqualTo(k2Before);
        assertThat(Files.readAllBytes(k5)).as("beyond this cycle's budget").isNotEqualTo(k5Before);
        assertThat(store.scannerHealFigures().keysRepaired()).isEqualTo(1);

        store.scanNow(); // k4, k5, and the budget left starts over at k0 next time
        assertThat(Files.readAllBytes(k5)).isEqualTo(k5Before);
        assertThat(store.scannerHealFigures().keysRepaired()).isEqualTo(2);
        assertThat(store.scannerHealFigures().keysDeepChecked()).isZero();
        assertReadsBack();
    }

    @Test
    void sampledLightChecks_rebuildAMissingPartFile_deepScanFindsBitrot() throws Exception {
        LocalDrive d2 = store.drives().get(1);
        // a data shard: light checks verify parity shards block by block, but not data shards (reads do)
        LocalDrive d3 = store.drives().get(position("k4", false));
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
