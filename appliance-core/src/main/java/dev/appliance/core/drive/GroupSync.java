package dev.appliance.core.drive;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit for one filesystem: many callers that each wrote files ask for them to be made durable, and one
 * filesystem-wide sync covers them all. A caller returns only after a sync that <em>started after it asked</em> has
 * finished, so everything it wrote before asking is on stable storage; while one sync runs, the callers that arrive
 * wait and are covered together by the next. One sync per batch instead of one file force and one directory force per
 * file is what lets metadata-only updates (PutObjectRetention on every live block, every ten days, for Veeam) run at
 * the disk's flush rate times the batch size.
 *
 * <p>A sync whose failure belongs to the caller's own path (the directory vanished or is unreadable: a failed drive
 * beside healthy ones on the same filesystem) fails only that caller; any other failure fails every caller the sync
 * was meant to cover.
 */
public final class GroupSync {
    /** Makes everything written on the filesystem holding a directory durable ({@link FilesystemSync#sync}). */
    @FunctionalInterface
    public interface Action {
        void sync(Path dir) throws IOException;
    }

    private static final ConcurrentHashMap<Object, GroupSync> BY_FILESYSTEM = new ConcurrentHashMap<>();

    private final Action action;
    /**
     * Runs the syncs: a platform thread, because a foreign call blocks (pins) the carrier of a virtual thread for its
     * whole duration, and the callers are the store's virtual drive-I/O threads.
     */
    private final java.util.concurrent.ExecutorService syncThread =
            java.util.concurrent.Executors.newSingleThreadExecutor(
                    Thread.ofPlatform().name("group-sync").daemon().factory());

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition finished = lock.newCondition();
    private long started; // generation of the newest sync started
    private long completed; // generation of the newest sync finished (successfully or not)
    private boolean running;
    private long failedGeneration = -1;
    private IOException failure;
    private long syncs;

    public GroupSync(Action action) {
        this.action = action;
    }

    /**
     * The shared group commit of the filesystem holding {@code dir} (drives on one filesystem share one, so one sync
     * covers all of them); null when this machine cannot sync a filesystem and callers must force each file.
     */
    public static GroupSync forFilesystemOf(Path dir) throws IOException {
        if (!FilesystemSync.available()) {
            return null;
        }
        Object device = Files.getAttribute(dir, "unix:dev");
        return BY_FILESYSTEM.computeIfAbsent(device, d -> new GroupSync(FilesystemSync::sync));
    }

    /** Returns once everything the caller wrote on this filesystem before the call is durable. */
    public void await(Path dir) throws IOException {
        lock.lock();
        try {
            long need = started + 1; // the sync in progress, if any, may have started before our writes
            while (completed < need) {
                if (running) {
                    finished.awaitUninterruptibly();
                    continue;
                }
                running = true;
                long generation = ++started;
                IOException error = null;
                boolean ownPath = false;
                lock.unlock();
                try {
                    runSync(dir);
                } catch (NoSuchFileException | AccessDeniedException e) {
                    error = e;
                    ownPath = true;
                } catch (IOException e) {
                    error = e;
                } catch (RuntimeException e) {
                    error = new IOException("filesystem sync failed", e);
                } finally {
                    lock.lock();
                }
                running = false;
                if (ownPath) {
                    // Not a sync at all: the next caller leads one, which covers the others.
                    finished.signalAll();
                    throw error;
                }
                completed = generation;
                syncs++;
                if (error != null) {
                    failedGeneration = generation;
                    failure = error;
                }
                finished.signalAll();
            }
            if (failedGeneration >= need) {
                // Conservative: a failure of the covering sync, or of a later one, fails this caller too.
                throw new IOException("filesystem sync failed: " + failure.getMessage(), failure);
            }
        } finally {
            lock.unlock();
        }
    }

    private void runSync(Path dir) throws IOException {
        var done = syncThread.submit(() -> {
            action.sync(dir);
            return null;
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // the sync runs on; its callers must learn how it ended
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("filesystem sync failed", e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Syncs run so far (each covering one batch of callers). */
    public long syncs() {
        lock.lock();
        try {
            return syncs;
        } finally {
            lock.unlock();
        }
    }
}
