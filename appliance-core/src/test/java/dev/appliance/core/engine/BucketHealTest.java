package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.PutRequest;
import dev.appliance.core.SteppedClock;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.BucketHealStatus;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heal of a bucket or of a prefix started on request, on a real engine of two sets of four drives (EC 2+2): shard
 * files and metadata deleted on one drive under the prefix are rebuilt byte for byte, the same damage outside the prefix
 * is left alone, and the figures (objects scanned and healed, bytes, rate and ETA on the store's clock) are exact.
 */
class BucketHealTest {
    @TempDir
    Path tmp;

    private final SteppedClock clock = new SteppedClock(Instant.parse("2026-11-26T12:00:00Z"));
    private ErasureObjectStore store;

    @AfterEach
    void tearDown() {
        if (store != null) {
            store.close();
        }
    }

    private TestStore layout() {
        return TestStore.on(tmp).drives(8).setDriveCount(4).clock(clock);
    }

    /** Writes {@code keys}, each 300 kB (shards in part files: past the inline limit), and returns key → body. */
    private Map<String, byte[]> write(String bucket, List<String> keys) throws IOException {
        Map<String, byte[]> bodies = new LinkedHashMap<>();
        Random r = new Random(bucket.hashCode());
        for (String key : keys) {
            byte[] body = new byte[300_000];
            r.nextBytes(body);
            store.putObject(bucket, key, new PutRequest(body.length, null, null, null), new ByteArrayInputStream(body));
            bodies.put(key, body);
        }
        return bodies;
    }

    private static List<String> keys(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(prefix + "blk-" + i);
        }
        return out;
    }

    /** The index of the set the key is placed on. */
    private int setIndex(String key) {
        return store.drives().indexOf(store.setFor(key).drives().getFirst()) / 4;
    }

    /** The drive of the key's set at {@code slot} (0-based). */
    private LocalDrive driveOf(String key, int slot) {
        return store.setFor(key).drives().get(slot);
    }

    private static Path partFile(LocalDrive d, String bucket, String key) throws IOException {
        try (Stream<Path> files = Files.walk(d.objectDir(bucket, key))) {
            return files.filter(p -> p.getFileName().toString().startsWith("part."))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no part file of " + key + " on " + d.root()));
        }
    }

    @Test
    void prefixHeal_rebuildsWhatIsMissingUnderThePrefix_andLeavesTheRestAlone() throws Exception {
        store = TestEngine.open(layout());
        store.makeBucket("data");
        Map<String, byte[]> bodies = write("data", keys("vm1/", 10));
        bodies.putAll(write("data", keys("vm2/", 4)));

        // under the prefix: a part file of three keys and the whole xl.meta of a fourth, each on one drive
        Map<Path, byte[]> removed = new LinkedHashMap<>();
        for (String key : List.of("vm1/blk-1", "vm1/blk-4", "vm1/blk-7")) {
            Path part = partFile(driveOf(key, 1), "data", key);
            removed.put(part, Files.readAllBytes(part));
            Files.delete(part);
        }
        Path meta = driveOf("vm1/blk-9", 2).metaFile("data", "vm1/blk-9");
        removed.put(meta, Files.readAllBytes(meta));
        Files.delete(meta);
        // outside it: the same damage must still be there afterwards
        Path outside = partFile(driveOf("vm2/blk-2", 0), "data", "vm2/blk-2");
        Files.delete(outside);

        List<BucketHealStatus> seen = new ArrayList<>();
        store.bucketHealer().afterEachKey(() -> {
            clock.advance(Duration.ofSeconds(2)); // as if each key took 2 s
            seen.add(store.bucketHeals().getFirst());
        });
        BucketHealStatus started = store.startBucketHeal("data", "vm1/");
        assertThat(started.bucket()).isEqualTo("data");
        assertThat(started.prefix()).isEqualTo("vm1/");
        assertThat(started.ended()).isFalse();
        BucketHealStatus end = store.bucketHealer().completion(started.id()).get(60, TimeUnit.SECONDS);

        assertThat(end.state()).isEqualTo("done");
        assertThat(end.objectsScanned()).isEqualTo(10);
        assertThat(end.objectsHealed()).isEqualTo(4);
        assertThat(end.objectsFailed()).isZero();
        assertThat(end.failures()).isEmpty();
        // three rebuilt part files (each a shard with its checksums); the xl.meta alone is no shard bytes
        long partBytes = 0;
        for (var e : removed.entrySet()) {
            assertThat(e.getKey()).as("rebuilt").exists();
            if (e.getKey().getFileName().toString().startsWith("part.")) {
                assertThat(Files.readAllBytes(e.getKey())).as("%s", e.getKey()).isEqualTo(e.getValue());
                partBytes += e.getValue().length;
            }
        }
        assertThat(end.bytesHealed()).isEqualTo(partBytes);
        assertThat(outside).as("outside the prefix: untouched").doesNotExist();
        // 10 keys, the clock moved 2 s after each: 20 s; a prefix has no estimate, so no ETA while it ran
        assertThat(end.finished()).isEqualTo(end.started().plusSeconds(20));
        assertThat(end.objectsPerSecond()).isEqualTo(0.5);
        assertThat(end.bytesPerSecond()).isEqualTo(partBytes / 20.0);
        assertThat(end.etaSeconds()).isZero();
        // sets are walked in order, each in key order: the last key is the greatest of the last set holding any
        String last = keys("vm1/", 10).stream()
                .max(java.util.Comparator.comparingInt(this::setIndex)
                        .thenComparing(java.util.Comparator.naturalOrder()))
                .orElseThrow();
        assertThat(end.lastKey()).isEqualTo(last);
        assertThat(seen).hasSize(10);
        assertThat(seen.get(4).state()).isEqualTo("running");
        assertThat(seen.get(4).objectsScanned()).isEqualTo(5);
        assertThat(seen.get(4).objectsEstimated()).isZero();
        assertThat(seen.get(4).etaSeconds()).isEqualTo(-1);
        assertThat(store.bucketHeals()).containsExactly(end);

        for (var e : bodies.entrySet()) {
            var out = new java.io.ByteArrayOutputStream();
            try (var reader = store.getObject("data", e.getKey(), null, 0, -1)) {
                reader.transferTo(out);
            }
            assertThat(out.toByteArray()).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    void bucketHeal_estimatesFromTheUsageCounts_andGivesAnEta() throws Exception {
        store = TestEngine.open(layout());
        store.makeBucket("data");
        write("data", keys("a/", 6));
        write("data", keys("b/", 6));
        List<BucketHealStatus> seen = new ArrayList<>();
        store.bucketHealer().afterEachKey(() -> {
            clock.advance(Duration.ofSeconds(4));
            seen.add(store.bucketHeals().getFirst());
        });
        BucketHealStatus started = store.startBucketHeal("data", "");
        BucketHealStatus end = store.bucketHealer().completion(started.id()).get(60, TimeUnit.SECONDS);

        assertThat(end.state()).isEqualTo("done");
        assertThat(end.objectsScanned()).isEqualTo(12);
        assertThat(end.objectsEstimated()).isEqualTo(12);
        assertThat(end.objectsHealed()).as("nothing was damaged").isZero();
        assertThat(end.bytesHealed()).isZero();
        // after the third key: 3 keys in 12 s, 0.25 keys/s, 9 left: 36 s
        BucketHealStatus third = seen.get(2);
        assertThat(third.objectsScanned()).isEqualTo(3);
        assertThat(third.objectsPerSecond()).isEqualTo(0.25);
        assertThat(third.etaSeconds()).isEqualTo(36);
        assertThat(seen.getLast().etaSeconds()).as("nothing left").isZero();
        assertThat(end.objectsPerSecond()).isEqualTo(0.25);
    }

    @Test
    void theSameHealAgain_answersTheOneUnderWay_andAnUnknownBucketIsRefused() throws Exception {
        store = TestEngine.openStopped(layout()); // the agents do not run: the test runs the heal
        store.makeBucket("data");
        write("data", keys("vm1/", 3));

        BucketHealStatus first = store.startBucketHeal("data", "vm1/");
        BucketHealStatus again = store.startBucketHeal("data", "vm1/");
        BucketHealStatus other = store.startBucketHeal("data", "");
        assertThat(first.state()).isEqualTo("queued");
        assertThat(again.id()).isEqualTo(first.id());
        assertThat(other.id()).isNotEqualTo(first.id());
        assertThat(store.bucketHeals()).extracting(BucketHealStatus::id).containsExactly(other.id(), first.id());

        assertThat(store.bucketHealer().doWork()).isEqualTo(1);
        BucketHealStatus done = store.bucketHealer().completion(first.id()).getNow(null);
        assertThat(done).isNotNull();
        assertThat(done.state()).isEqualTo("done");
        assertThat(done.objectsScanned()).isEqualTo(3);
        // ended: the same request starts a new heal
        assertThat(store.startBucketHeal("data", "vm1/").id()).isGreaterThan(other.id());

        assertThatThrownBy(() -> store.startBucketHeal("nope", ""))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BUCKET_NOT_FOUND));
        assertThatThrownBy(() -> store.startBucketHeal("data", "a\0b"))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
    }
}
