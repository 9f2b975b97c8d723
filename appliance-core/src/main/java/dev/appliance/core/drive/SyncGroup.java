package dev.appliance.core.drive;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit for one filesystem: {@link #await()} returns once everything its caller wrote before the call is on
 * stable storage, and many concurrent callers share one flush.
 *
 * <p>Why: a PUT used to force each file and directory it touched on each drive (five forces per drive for a new key,
 * twenty on a 2+2 set), and each force is a journal commit and a device cache flush. Concurrent writes now wait for
 * the same {@code syncfs(2)} of the drive's filesystem, which writes back and flushes everything dirty on it (data,
 * inodes, directory entries, the journal, the device cache) at once. Drives on one filesystem share one group.
 *
 * <p>Generations: a call needs the first flush that <em>starts after</em> it (one already running may have missed
 * the caller's writes). A single platform thread per group runs the flushes back to back while callers wait, so a
 * flush never pins a virtual thread's carrier. A failed flush fails every caller that needed it. Each flush opens the
 * directory of a drive waiting for it and closes it after: a descriptor kept open would pin the filesystem, and an
 * operator could not unmount a drive to replace it while the appliance runs. The kernel reports to that descriptor
 * the write-back errors raised from its opening on (Linux 5.8 and later), so the errors of the flush's own write-back;
 * part files, the bulk of a write, are written with direct I/O, whose errors come back from the write itself.
 */
public final class SyncGroup {
    /** Flushes the filesystem holding {@code dir}; a test replaces it to count or fail flushes. */
    @FunctionalInterface
    public interface Flusher {
        void flush(Path dir) throws IOException;
    }

    private static final Map<Object, SyncGroup> BY_FILESYSTEM = new ConcurrentHashMap<>();
    /** Failures kept for callers that have not woken yet; older generations are long answered. */
    private static final int FAILURES_KEPT = 1024;

    private final String name;
    private final Flusher flusher;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wanted = lock.newCondition();
    private final Condition flushed = lock.newCondition();
    private final Map<Long, IOException> failures = new HashMap<>();
    private final AtomicLong flushes = new AtomicLong();
    private int waiting; // callers inside await (tests)
    private Path target; // the directory the next flush opens
    private long requested; // the newest generation a caller needs
    private long started; // the generation of the flush running or last run
    private long finished; // the newest generation finished
    private Thread flusherThread;

    SyncGroup(String name, Flusher flusher) {
        this.name = name;
        this.flusher = flusher;
    }

    /**
     * The group of the filesystem holding {@code dir} (created at first use, kept for the life of the process), or null
     * when {@code syncfs} is not available here: callers then force each file and directory.
     */
    public static SyncGroup forFilesystemOf(Path dir) throws IOException {
        if (!FilesystemSync.available()) {
            return null;
        }
        Object device = Files.getAttribute(dir, "unix:dev");
        SyncGroup g = BY_FILESYSTEM.get(device);
        if (g != null) {
            return g;
        }
        SyncGroup fresh = new SyncGroup("fs-sync-" + device, FilesystemSync::sync);
        g = BY_FILESYSTEM.putIfAbsent(device, fresh);
        return g != null ? g : fresh;
    }

    /** A group flushing with {@code flusher}, shared by whichever drives are given it (tests record flushes so). */
    public static SyncGroup withFlusher(String name, Flusher flusher) {
        return new SyncGroup(name, flusher);
    }

    /**
     * Returns once a flush that started after this call has finished; throws if that flush failed. {@code dir} is a
     * directory on the filesystem (the caller's drive): a flush opens the latest one given.
     */
    public void await(Path dir) throws IOException {
        lock.lock();
        try {
            target = dir;
            long need = started + 1;
            if (requested < need) {
                requested = need;
                startFlusher();
                wanted.signal();
            }
            waiting++;
            try {
                while (finished < need) {
                    flushed.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for " + name);
            } finally {
                waiting--;
            }
            IOException failure = failures.get(need);
            if (failure != null) {
                throw new IOException(name + ": the flush failed: " + failure.getMessage(), failure);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Callers waiting for a flush now. */
    int waiting() {
        lock.lock();
        try {
            return waiting;
        } finally {
            lock.unlock();
        }
    }

    /** Flushes run so far (tests: many waiters, few flushes). */
    public long flushes() {
        return flushes.get();
    }

    private void startFlusher() {
        if (flusherThread == null) {
            flusherThread = Thread.ofPlatform().daemon().name(name).start(this::runFlushes);
        }
    }

    private void runFlushes() {
        while (true) {
            long generation;
            Path dir;
            lock.lock();
            try {
                while (requested <= started) {
                    wanted.awaitUninterruptibly();
                }
                generation = ++started;
                dir = target;
            } finally {
                lock.unlock();
            }
            IOException failure = null;
            try {
                flusher.flush(dir);
            } catch (IOException e) {
                failure = e;
            } catch (RuntimeException e) {
                failure = new IOException(e);
            }
            flushes.incrementAndGet();
            lock.lock();
            try {
                finished = generation;
                if (failure != null) {
                    failures.put(generation, failure);
                }
                failures.keySet().removeIf(g -> g < generation - FAILURES_KEPT);
                flushed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
