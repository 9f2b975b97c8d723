package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit: one flush serves every caller waiting when it starts, a caller never takes a flush that was already
 * running when it called, and a failed flush fails exactly the callers that needed it.
 */
class SyncGroupTest {
    @TempDir
    Path tmp;

    /** A flusher that blocks each flush until the test lets it finish, counting flushes started. */
    private static final class GatedFlusher implements SyncGroup.Flusher {
        final Semaphore started = new Semaphore(0);
        final Semaphore release = new Semaphore(0);
        final AtomicInteger count = new AtomicInteger();
        volatile IOException failNext;

        @Override
        public void flush(Path dir) throws IOException {
            count.incrementAndGet();
            started.release();
            release.acquireUninterruptibly();
            IOException f = failNext;
            failNext = null;
            if (f != null) {
                throw f;
            }
        }
    }

    @Test
    void callersWaitingTogetherShareOneFlush() throws Exception {
        GatedFlusher flusher = new GatedFlusher();
        SyncGroup group = new SyncGroup("test", flusher);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            // the first caller starts flush 1 and holds it open; 20 callers arrive during it
            Future<?> first = pool.submit(() -> {
                group.await(tmp);
                return null;
            });
            assertThat(flusher.started.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            List<Future<?>> later = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                later.add(pool.submit(() -> {
                    group.await(tmp);
                    return null;
                }));
            }
            while (group.waiting() < 21) { // all 20 inside, with the first
                Thread.onSpinWait();
            }
            flusher.release.release(); // flush 1 ends: it started before the 20 called, so it answers only the first
            first.get(10, TimeUnit.SECONDS);
            assertThat(flusher.started.tryAcquire(10, TimeUnit.SECONDS)).isTrue(); // flush 2, for the 20
            assertThat(later).noneMatch(Future::isDone);
            flusher.release.release();
            for (Future<?> f : later) {
                f.get(10, TimeUnit.SECONDS);
            }
        }
        assertThat(flusher.count).hasValue(2);
        assertThat(group.flushes()).isEqualTo(2);
    }

    @Test
    void aFailedFlushFailsItsCallersAndTheNextFlushServesLaterOnes() throws Exception {
        GatedFlusher flusher = new GatedFlusher();
        SyncGroup group = new SyncGroup("test", flusher);
        flusher.failNext = new IOException("EIO");
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> failing = pool.submit(() -> {
                group.await(tmp);
                return null;
            });
            assertThat(flusher.started.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            flusher.release.release();
            assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IOException.class)
                    .hasMessageContaining("the flush failed: EIO");
            flusher.release.release(); // the next flush succeeds at once
            group.await(tmp);
        }
        assertThat(flusher.count).hasValue(2);
    }

    @Test
    void drivesOnOneFilesystemShareAGroupAndItReallyFlushes() throws Exception {
        SyncGroup a = SyncGroup.forFilesystemOf(tmp);
        if (!FilesystemSync.available()) {
            assertThat(a).as("no syncfs here: callers force each file").isNull();
            return;
        }
        Path other = java.nio.file.Files.createDirectory(tmp.resolve("other"));
        assertThat(SyncGroup.forFilesystemOf(other)).isSameAs(a);
        long before = a.flushes();
        a.await(tmp);
        assertThat(a.flushes()).isGreaterThan(before);
    }
}
