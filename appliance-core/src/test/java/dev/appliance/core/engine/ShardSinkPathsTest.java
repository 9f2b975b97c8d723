package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A body of known length is read straight into the data shards (the fast path); one of unknown length is read into a
 * block and copied into them (the reference path). Both must leave the same part file on every drive, byte for byte,
 * and the same ETag, whatever the length: one short block, exactly one block, one byte past it, several blocks with a
 * short last one. Drives write with direct I/O and group commit, as the appliance runs, so the part files are also
 * completed with the last block's append.
 */
class ShardSinkPathsTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private void open() throws IOException {
        store = TestEngine.open(TestStore.on(tmp)
                .parity(2)
                .driveSettings(DriveSettings.DEFAULTS.withGroupCommit(true).withDirectIo(true)));
        store.makeBucket(B);
    }

    /** Each drive's part file of {@code key} (the key decides which shard a drive holds: one key for both paths). */
    private List<byte[]> partFiles(String key) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> files = Files.walk(d.objectDir(B, key))) {
                Path part = files.filter(p -> p.getFileName().toString().equals("part.1"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no part file of " + key + " on " + d.root()));
                out.add(Files.readAllBytes(part));
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {300_001, 1 << 20, (1 << 20) + 1, 2_500_007, 3 << 20})
    void knownAndUnknownLengthsLeaveTheSamePartFiles(int size) throws Exception {
        open();
        byte[] data = random(size, size);
        ObjectInfo unknown = store.putObject(B, "k", PutRequest.of(-1), new ByteArrayInputStream(data));
        List<byte[]> reference = partFiles("k");
        assertThat(read(store, B, "k", null)).isEqualTo(data);

        ObjectInfo known = store.putObject(B, "k", PutRequest.of(size), new ByteArrayInputStream(data));
        List<byte[]> fast = partFiles("k");
        assertThat(known.etag()).isEqualTo(unknown.etag());
        for (int i = 0; i < fast.size(); i++) {
            assertThat(fast.get(i).length).as("part file on drive %d", i).isEqualTo(reference.get(i).length);
            assertThat(Arrays.equals(fast.get(i), reference.get(i)))
                    .as("part file on drive %d, byte for byte", i)
                    .isTrue();
        }
        assertThat(read(store, B, "k", null)).isEqualTo(data);
    }

    /**
     * Bodies of one block are hashed side by side with the other writes' bodies waiting then (dev.appliance.core.md5):
     * many writes at once, of lengths that split unevenly over the data shards, each get the MD5 of their own body as
     * ETag, while a write whose body overruns its length is refused and takes no other write's digest with it.
     */
    @Test
    void oneBlockBodiesWrittenAtOnce_eachGetTheMd5OfItsOwnBody() throws Exception {
        open();
        int writers = 24;
        java.util.Map<String, byte[]> written = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.Map<String, String> etags = new java.util.concurrent.ConcurrentHashMap<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofVirtual().start(() -> {
                for (int r = 0; r < 3; r++) {
                    String key = "k" + writer + "-" + r;
                    byte[] data = random(65_536 + 13_001 * (writer * 3 + r), writer * 10 + r);
                    try {
                        if (writer % 8 == 0 && r == 1) {
                            // a byte more than announced: refused once the block is hashing
                            byte[] longer = Arrays.copyOf(data, data.length + 1);
                            assertThatThrownBy(() -> store.putObject(
                                            B, key, PutRequest.of(data.length), new ByteArrayInputStream(longer)))
                                    .isInstanceOf(StorageException.class);
                            continue;
                        }
                        ObjectInfo info =
                                store.putObject(B, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
                        written.put(key, data);
                        etags.put(key, info.etag());
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
        assertThat(written).hasSize(writers * 3 - writers / 8);
        for (var e : written.entrySet()) {
            String md5 = java.util.HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("MD5").digest(e.getValue()));
            assertThat(etags.get(e.getKey())).as("ETag of %s", e.getKey()).isEqualTo(md5);
            assertThat(read(store, B, e.getKey(), null))
                    .as("body of %s", e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    /**
     * A body of one block is staged by the call that writes it (one call per drive fewer). A drive that fails in that
     * call keeps neither staging nor mark; the write goes on with the others.
     */
    @Test
    void aOneBlockBodyFailingOnOneDrive_leavesNothingThere() throws Exception {
        open();
        byte[] data = random(900_000, 7);
        LocalDrive failing = store.drives().get(1);
        failing.injectFaults(new DriveFaults(false, true, false, false, 0));
        try {
            store.putObject(B, "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        } finally {
            failing.injectFaults(null);
        }
        assertThat(read(store, B, "k", null)).isEqualTo(data);
        for (LocalDrive d : store.drives()) {
            assertThat(d.heldChangeMarks()).as("marks on %s", d.root()).isEmpty();
            // single .tmp files are metadata writes of background threads (the heal queue's journal) passing through
            try (Stream<Path> staging = Files.list(d.sysDir().resolve("tmp"))) {
                assertThat(staging.filter(p -> !p.getFileName().toString().endsWith(".tmp")))
                        .as("staging on %s", d.root())
                        .isEmpty();
            }
        }
    }

    /** The data directories of {@code key} on drive 0: one per version whose data is in part files. */
    private long dataDirs(String key) throws IOException {
        try (Stream<Path> entries = Files.list(store.drives().get(0).objectDir(B, key))) {
            return entries.filter(Files::isDirectory).count();
        }
    }

    @Test
    void aSmallBodyGoesToPartFilesOnceXlMetaHasNoRoomForIt() throws Exception {
        open();
        store.setVersioning(B, VersioningState.ENABLED);
        List<String> versions = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            byte[] data = random(12 * 1024, 100 + i);
            versions.add(store.putObject(B, "k", PutRequest.of(data.length), new ByteArrayInputStream(data))
                    .versionId());
            bodies.add(data);
            if (i == 0) {
                assertThat(dataDirs("k"))
                        .as("the first small version is inline")
                        .isZero();
            }
        }
        // xl.meta of a versioned key keeps at most 64 KiB inline: the later versions went to part files, sized in the
        // call that staged them and created in a second call
        assertThat(dataDirs("k")).isBetween(5L, 15L);
        for (int i = 0; i < versions.size(); i++) {
            assertThat(read(store, B, "k", versions.get(i))).as("version %d", i).isEqualTo(bodies.get(i));
        }
    }

    /**
     * A bucket never versioned skips the commit's second look at the room left in {@code xl.meta}: each write replaces
     * the key's only version. Even with versioning turned on while the largest inline bodies race versioned ones into
     * the same key, every write succeeds and reads back.
     */
    @Test
    void inlineWritesRacingAVersioningChange_allSucceedAndReadBack() throws Exception {
        open();
        int writers = 16;
        int rounds = 6;
        java.util.Map<String, byte[]> written = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.CountDownLatch halfway = new java.util.concurrent.CountDownLatch(writers * rounds / 2);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofVirtual().start(() -> {
                for (int r = 0; r < rounds; r++) {
                    // the largest body a never-versioned bucket inlines, or a small one that inlines when versioned
                    byte[] data = random(writer % 4 == 0 ? 250 * 1024 : 20 * 1024, writer * 100 + r);
                    try {
                        ObjectInfo info =
                                store.putObject(B, "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
                        written.put(info.versionId(), data);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                    halfway.countDown();
                }
            }));
        }
        halfway.await();
        store.setVersioning(B, VersioningState.ENABLED);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
        for (ObjectInfo v :
                store.listObjectVersions(B, "k", null, null, null, 1000).versions()) {
            assertThat(written).containsKey(v.versionId());
            assertThat(read(store, B, "k", v.versionId()))
                    .as("version %s", v.versionId())
                    .isEqualTo(written.get(v.versionId()));
        }
    }

    @Test
    void aBodyEndingBeforeItsLengthIsRefusedAndLeavesNothing() throws Exception {
        open();
        byte[] data = random(1_500_000, 3);
        assertThatThrownBy(() -> store.putObject(B, "short", PutRequest.of(2_000_000), new ByteArrayInputStream(data)))
                .isInstanceOf(StorageException.class)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INCOMPLETE_BODY);
        for (LocalDrive d : store.drives()) {
            assertThat(Files.exists(d.metaFile(B, "short"))).isFalse();
        }
    }
}
