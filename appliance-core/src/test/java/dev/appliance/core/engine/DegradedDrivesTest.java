package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.HealQueue;
import dev.appliance.core.testing.LendingSink;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Takes up to {@code parity} drives away in every combination and every way (whole drive removed, files removed, files
 * replaced by something unreadable, shard bytes corrupted) and checks every byte still reads back; one more drive than
 * parity must fail cleanly.
 */
class DegradedDrivesTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    enum Fault {
        DRIVE_REMOVED,
        FILES_REMOVED,
        UNREADABLE,
        SHARD_CORRUPTED
    }

    static Stream<Arguments> cases() {
        List<Arguments> args = new ArrayList<>();
        int[][] topologies = {{4, 2}, {6, 2}};
        for (int[] t : topologies) {
            int drives = t[0];
            int parity = t[1];
            for (int size : new int[] {5_000, 1_200_000}) {
                for (Fault fault : Fault.values()) {
                    for (List<Integer> failed : subsets(drives, parity)) {
                        args.add(Arguments.of(drives, parity, size, fault, failed));
                    }
                }
            }
        }
        return args.stream();
    }

    private static List<List<Integer>> subsets(int n, int maxSize) {
        List<List<Integer>> out = new ArrayList<>();
        for (int mask = 0; mask < (1 << n); mask++) {
            if (Integer.bitCount(mask) <= maxSize) {
                List<Integer> s = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if ((mask & (1 << i)) != 0) {
                        s.add(i);
                    }
                }
                out.add(s);
            }
        }
        return out;
    }

    private ErasureObjectStore open(int drives, int parity) {
        store = TestEngine.open(TestStore.on(tmp).drives(drives).parity(parity));
        return store;
    }

    @ParameterizedTest(name = "{0} drives EC:{1}, {2} bytes, {3} on {4}")
    @MethodSource("cases")
    void read_withUpToParityDrivesDamaged_returnsEveryByte(
            int drives, int parity, int size, Fault fault, List<Integer> failed) throws Exception {
        open(drives, parity);
        store.makeBucket("bucket");
        store.setVersioning("bucket", VersioningState.ENABLED);
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        ObjectInfo info = store.putObject("bucket", "dir/key", PutRequest.of(size), new ByteArrayInputStream(data));

        var version = dev.appliance.core.meta.XlMeta.parse(
                        Files.readAllBytes(store.drives().get(0).metaFile("bucket", "dir/key")))
                .version(0);
        boolean dataShardDamaged = false;
        for (int d : failed) {
            dataShardDamaged |= version.shardIndexAt(d) <= version.dataShards();
            damage(store.drives().get(d), fault, "bucket", "dir/key");
        }
        assertThat(read("dir/key", null)).isEqualTo(data);
        assertThat(read("dir/key", info.versionId())).isEqualTo(data);
        assertThat(store.headObject("bucket", "dir/key", null).etag()).isEqualTo(info.etag());
        if (dataShardDamaged && fault != Fault.DRIVE_REMOVED) {
            assertThat(store.healQueue().snapshot())
                    .as("damage reported for healing")
                    .isNotEmpty();
        }
    }

    @Test
    void read_withMoreThanParityDrivesGone_failsWithReadQuorum() throws Exception {
        open(4, 2);
        store.makeBucket("bucket");
        byte[] data = new byte[3_000_000];
        store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        for (int d = 0; d < 3; d++) {
            damage(store.drives().get(d), Fault.SHARD_CORRUPTED, "bucket", "k");
        }
        assertThatThrownBy(() -> read("k", null))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.READ_QUORUM));
    }

    @Test
    void write_withOneDriveGone_succeedsAndIsReported() throws Exception {
        open(4, 2);
        store.makeBucket("bucket");
        LocalDrive gone = store.drives().get(1);
        LocalDrive.deleteTree(gone.root());
        byte[] data = new byte[1_500_000];
        new Random(1).nextBytes(data);
        store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        assertThat(read("k", null)).isEqualTo(data);
        assertThat(store.healQueue().snapshot()).extracting(HealQueue.Item::key).contains("k");
    }

    @Test
    void write_belowWriteQuorum_failsAndLeavesNothingVisible() throws Exception {
        open(4, 2);
        store.makeBucket("bucket");
        LocalDrive.deleteTree(store.drives().get(0).root());
        LocalDrive.deleteTree(store.drives().get(3).root());
        byte[] data = new byte[100_000];
        assertThatThrownBy(() ->
                        store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.WRITE_QUORUM));
        for (int d : new int[] {1, 2}) {
            assertThat(Files.exists(store.drives().get(d).metaFile("bucket", "k")))
                    .isFalse();
        }
    }

    /** Reads to a plain stream and to a sink lent the shard buffers, and checks both got the same bytes. */
    private byte[] read(String key, String versionId) throws Exception {
        return LendingSink.readBothWays(() -> store.getObject("bucket", key, versionId, 0, -1));
    }

    private static void damage(LocalDrive drive, Fault fault, String bucket, String key) throws IOException {
        Path objectDir = drive.objectDir(bucket, key);
        List<Path> files;
        try (Stream<Path> s = Files.walk(objectDir)) {
            files = s.filter(Files::isRegularFile).toList();
        }
        switch (fault) {
            case DRIVE_REMOVED -> LocalDrive.deleteTree(drive.root());
            case FILES_REMOVED -> {
                // Remove the shard data; keep xl.meta so the drive still claims the version.
                List<Path> parts = files.stream()
                        .filter(f -> f.getFileName().toString().startsWith("part."))
                        .toList();
                for (Path p : parts.isEmpty() ? files : parts) {
                    Files.delete(p);
                }
            }
            case UNREADABLE -> {
                // Root ignores permission bits, so make reads fail with an I/O error instead: a directory where the
                // file should be.
                for (Path f : files) {
                    Files.delete(f);
                    Files.createDirectory(f);
                }
            }
            case SHARD_CORRUPTED -> {
                List<Path> parts = files.stream()
                        .filter(f -> f.getFileName().toString().startsWith("part."))
                        .toList();
                Random r = new Random(drive.root().hashCode());
                for (Path p : parts.isEmpty() ? files : parts) {
                    try (RandomAccessFile raf = new RandomAccessFile(p.toFile(), "rw")) {
                        // Corrupt the end of the file, where the inline shard or the last block sits.
                        long len = raf.length();
                        for (int i = 0; i < 16; i++) {
                            long at = Math.max(0, len - 1 - r.nextInt((int) Math.min(len, 4096)));
                            raf.seek(at);
                            int b = raf.read();
                            raf.seek(at);
                            raf.write(b ^ 0x5a);
                        }
                    }
                }
            }
        }
    }
}
