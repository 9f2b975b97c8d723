package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.drive.FilesystemSync;
import dev.appliance.core.drive.SyncGroup;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Object writes made durable by group commit (one shared filesystem flush per batch) with part files written by direct
 * I/O (the fast path), and by forcing each file and directory with part files written through the page cache (the
 * reference path), leave the same objects: the same versions, sizes, ETags and bytes, for
 * inline objects, part-file objects of several blocks, overwrites and a key deep enough to have an archive, written
 * concurrently, then legal holds set concurrently (in-place rewrites through the metadata journal), and readable by a
 * store opened the other way. Nothing is left in staging either way.
 */
class GroupCommitStoreTest {
    private static final int[] SIZES = {0, 1, 4096, 200_000, 1 << 20, (3 << 20) + 17};

    @TempDir
    Path tmp;

    private static ErasureObjectStore open(Path dir, boolean fast) {
        return TestEngine.open(TestStore.on(dir)
                .driveSettings(DriveSettings.DEFAULTS.withGroupCommit(fast).withDirectIo(fast)));
    }

    private static byte[] body(String key, int size) {
        byte[] b = new byte[size];
        new Random(key.hashCode() * 31L + size).nextBytes(b);
        return b;
    }

    private List<ObjectInfo> run(Path dir, boolean groupCommit) throws Exception {
        List<String> keys = new ArrayList<>();
        try (ErasureObjectStore store = open(dir, groupCommit)) {
            SyncGroup group = store.drives().getFirst().syncGroup();
            assertThat(group != null).isEqualTo(groupCommit && FilesystemSync.available());
            assertThat(store.drives().getFirst().directIoAlignment() > 0).isEqualTo(groupCommit);
            long flushesBefore = group == null ? 0 : group.flushes();
            store.makeBucket("veeam", true);
            try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < SIZES.length * 3; i++) {
                    String key = "Veeam/blocks/" + i + ".blk";
                    keys.add(key);
                    int size = SIZES[i % SIZES.length];
                    done.add(pool.submit(() -> {
                        for (int round = 0; round < 2; round++) { // the second round overwrites (a new version)
                            byte[] b = body(key + round, size);
                            store.putObject(
                                    "veeam",
                                    key,
                                    new PutRequest(b.length, null, Map.of(), null),
                                    new ByteArrayInputStream(b));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            for (int v = 0; v < KeyFiles.HOT_MAX + 4; v++) { // moves older versions to xl.meta.archive
                byte[] b = body("deep" + v, 300_000);
                store.putObject(
                        "veeam", "deep", new PutRequest(b.length, null, Map.of(), null), new ByteArrayInputStream(b));
            }
            keys.add("deep");
            // In-place metadata rewrites (the metadata journal, forced by the group or per drive), concurrently.
            try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < keys.size(); i += 2) {
                    String key = keys.get(i);
                    done.add(pool.submit(() -> store.putObjectLegalHold("veeam", key, null, true)));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            if (group != null) {
                assertThat(group.flushes())
                        .as("writes awaited the group's flushes")
                        .isGreaterThan(flushesBefore);
            }
            for (Path drive : TestStore.on(dir).drives()) {
                try (Stream<Path> staged = Files.list(drive.resolve(".appliance.sys/tmp"))) {
                    assertThat(staged).as("staged files left on %s", drive).isEmpty();
                }
            }
        }
        List<ObjectInfo> state = new ArrayList<>();
        try (ErasureObjectStore store = open(dir, !groupCommit)) {
            for (String key : keys) {
                List<ObjectInfo> versions =
                        store.listObjectVersions("veeam", key, null, null, null, 1000).versions().stream()
                                .filter(v -> v.key().equals(key))
                                .toList();
                for (int i = 0; i < versions.size(); i++) {
                    ObjectInfo v = versions.get(i);
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try (var r = store.getObject("veeam", key, v.versionId(), 0, -1)) {
                        r.transferTo(out);
                    }
                    int size = key.equals("deep")
                            ? 300_000
                            : SIZES[Integer.parseInt(key.replaceAll("\\D", "")) % SIZES.length];
                    String seed = key.equals("deep") ? "deep" + (versions.size() - 1 - i) : key + (1 - i);
                    assertThat(out.toByteArray()).as("%s version %d", key, i).isEqualTo(body(seed, size));
                    assertThat(ObjectLock.legalHold(v.userMetadata()))
                            .as("legal hold of %s version %d", key, i)
                            .isEqualTo(i == 0 && keys.indexOf(key) % 2 == 0);
                    state.add(v);
                }
            }
        }
        return state;
    }

    @Test
    void theFastAndTheReferenceWritePathsLeaveTheSameObjects() throws Exception {
        List<ObjectInfo> grouped = run(tmp.resolve("grouped"), true);
        List<ObjectInfo> forced = run(tmp.resolve("forced"), false);
        assertThat(grouped).hasSameSizeAs(forced).hasSize(SIZES.length * 3 * 2 + KeyFiles.HOT_MAX + 4);
        for (int i = 0; i < grouped.size(); i++) {
            ObjectInfo g = grouped.get(i);
            ObjectInfo f = forced.get(i);
            assertThat(g.key()).isEqualTo(f.key());
            assertThat(g.size()).isEqualTo(f.size());
            assertThat(g.etag()).isEqualTo(f.etag());
            assertThat(g.latest()).isEqualTo(f.latest());
            assertThat(ObjectLock.legalHold(g.userMetadata()))
                    .as("legal hold of %s", g.key())
                    .isEqualTo(ObjectLock.legalHold(f.userMetadata()));
        }
    }
}
