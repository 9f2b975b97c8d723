package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys that share a parent directory are written and deleted under their own locks: a delete prunes the parents it
 * leaves empty while another key's write creates its directory beneath one of them. The write must not fail because
 * the parent it found vanished before it created its own (found by the crash test: a PUT answered 503, "write reached 2
 * drive(s), 3 needed: NoSuchFileException" for the key's directory, on a drive a sibling's delete had just pruned).
 */
class CreateDirectoriesRaceTest {
    @TempDir
    Path tmp;

    @Test
    void aKeyDirectoryIsCreatedWhileSiblingsPruneTheSharedParents() throws Exception {
        LocalDrive drive = new LocalDrive(tmp.resolve("disk1"));
        Files.createDirectories(drive.root());
        drive.prepare();
        Path bucket = drive.root().resolve("bucket");
        Files.createDirectories(bucket);
        int threads = 4;
        int rounds = 3000;
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                done.add(pool.submit(() -> {
                    start.await();
                    int created = 0;
                    for (int i = 0; i < rounds; i++) {
                        Path key = bucket.resolve("dir1/dir2/key-" + me + "-" + i);
                        drive.createDirectories(key, false);
                        assertThat(key).isDirectory();
                        created++;
                        Files.delete(key); // as the key's delete, then the prune of what it left empty
                        drive.pruneEmptyParents(key.getParent(), bucket);
                    }
                    return created;
                }));
            }
            start.countDown();
            for (Future<Integer> f : done) {
                assertThat(f.get()).isEqualTo(rounds);
            }
        }
        assertThat(bucket.resolve("dir1")).doesNotExist(); // the last prune left nothing behind
    }
}
