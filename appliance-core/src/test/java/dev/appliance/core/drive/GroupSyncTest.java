package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit: every caller is covered by a sync that started after it wrote, and callers share syncs. */
class GroupSyncTest {
    @TempDir
    Path tmp;

    /**
     * A model filesystem: callers mark writes dirty; a sync, when it starts, takes the dirty writes as the ones it will
     * make durable, and takes a while to finish.
     */
    static final class ModelFilesystem {
        final Set<Integer> dirty = ConcurrentHashMap.newKeySet();
        final Set<Integer> durable = ConcurrentHashMap.newKeySet();
        final AtomicInteger syncs = new AtomicInteger();
        final AtomicInteger concurrent = new AtomicInteger();
        volatile int maxConcurrent;

        void sync(Path dir) throws IOException {
            int running = concurrent.incrementAndGet();
            maxConcurrent = Math.max(maxConcurrent, running);
            List<Integer> covered = new ArrayList<>(dirty);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            durable.addAll(covered);
            syncs.incrementAndGet();
            concurrent.decrementAndGet();
        }
    }

    @Test
    void everyCallerReturnsOnlyAfterASyncThatCoversItsWrite_andCallersShareSyncs() throws Exception {
        ModelFilesystem fs = new ModelFilesystem();
        GroupSync group = new GroupSync(fs::sync);
        int threads = 32;
        int writesEach = 50;
        AtomicInteger notCovered = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < writesEach; i++) {
                        int write = thread * writesEach + i;
                        fs.dirty.add(write);
                        group.await(tmp);
                        if (!fs.durable.contains(write)) {
                            notCovered.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        int writes = threads * writesEach;
        assertThat(notCovered).as("writes not durable when await returned").hasValue(0);
        assertThat(fs.durable).hasSize(writes);
        assertThat(fs.maxConcurrent).as("syncs never overlap").isEqualTo(1);
        // 32 callers against 2 ms syncs: batches of many; a sync per write would be 1,600.
        assertThat(fs.syncs.get()).isLessThan(writes / 4);
        assertThat(group.syncs()).isEqualTo(fs.syncs.get());
    }

    @Test
    void aFailedSync_failsTheCallersItCovered_andTheNextSyncWorks() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        GroupSync group = new GroupSync(dir -> {
            if (calls.incrementAndGet() == 1) {
                throw new IOException("EIO");
            }
        });
        assertThatThrownBy(() -> group.await(tmp))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("EIO");
        group.await(tmp);
        assertThat(calls).hasValue(2);
    }

    @Test
    void aVanishedDirectory_failsOnlyItsOwnCaller() throws Exception {
        Path gone = tmp.resolve("failed-drive");
        ModelFilesystem fs = new ModelFilesystem();
        GroupSync group = new GroupSync(dir -> {
            if (dir.equals(gone)) {
                throw new NoSuchFileException(dir.toString());
            }
            fs.sync(dir);
        });
        int threads = 8;
        AtomicInteger healthyFailures = new AtomicInteger();
        AtomicInteger goneFailures = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean onGone = t % 2 == 0;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        try {
                            group.await(onGone ? gone : tmp);
                        } catch (NoSuchFileException e) {
                            goneFailures.incrementAndGet();
                        } catch (IOException e) {
                            healthyFailures.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        assertThat(healthyFailures)
                .as("healthy callers failed by another's missing directory")
                .hasValue(0);
        assertThat(goneFailures.get()).isPositive();
    }

    @Test
    void syncfs_isAvailableOnLinux_andSyncsARealFilesystem() throws IOException {
        if (System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            assertThat(FilesystemSync.available())
                    .as("syncfs binding: %s", FilesystemSync.unavailableReason())
                    .isTrue();
        }
        if (!FilesystemSync.available()) {
            return; // elsewhere the drives force each file; nothing to sync here
        }
        Files.writeString(tmp.resolve("f"), "x", StandardCharsets.UTF_8);
        FilesystemSync.sync(tmp);
        assertThatThrownBy(() -> FilesystemSync.sync(tmp.resolve("missing"))).isInstanceOf(NoSuchFileException.class);
        GroupSync shared = GroupSync.forFilesystemOf(tmp);
        assertThat(GroupSync.forFilesystemOf(Files.createDirectories(tmp.resolve("other-drive"))))
                .as("drives on one filesystem share one group commit")
                .isSameAs(shared);
        long before = shared.syncs();
        shared.await(tmp);
        assertThat(shared.syncs()).isGreaterThan(before);
    }
}
