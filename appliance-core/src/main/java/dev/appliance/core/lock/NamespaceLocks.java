package dev.appliance.core.lock;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Reference-counted read/write locks per {@code bucket/key}. Writers (commit, delete) take the write lock; readers of
 * metadata take the read lock. Entries disappear when no one holds or waits for them, so the map stays as large as the
 * set of keys in use. {@link ReentrantReadWriteLock} rather than {@code synchronized}: holders block on disk I/O, and
 * virtual threads must not pin their carrier while they do.
 */
public final class NamespaceLocks {
    private static final long TIMEOUT_SECONDS = 60;

    private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

    private static final class Entry {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        int users;
    }

    /** A held lock; closing releases it. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    public Held write(String bucket, String key) {
        return acquire(bucket + "/" + key, true);
    }

    public Held read(String bucket, String key) {
        return acquire(bucket + "/" + key, false);
    }

    private Held acquire(String name, boolean exclusive) {
        Entry e = locks.compute(name, (k, v) -> {
            Entry entry = v == null ? new Entry() : v;
            entry.users++;
            return entry;
        });
        var lock = exclusive ? e.lock.writeLock() : e.lock.readLock();
        boolean acquired = false;
        try {
            acquired = lock.tryLock(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        if (!acquired) {
            release(name);
            throw new StorageException(
                    ErrorKind.WRITE_QUORUM,
                    "timed out after " + TIMEOUT_SECONDS + " s waiting for the lock on " + name);
        }
        return () -> {
            lock.unlock();
            release(name);
        };
    }

    private void release(String name) {
        locks.computeIfPresent(name, (k, v) -> --v.users == 0 ? null : v);
    }

    /** Holders of and waiters for the lock on one key (for tests and diagnostics). */
    public int users(String bucket, String key) {
        int[] users = {0};
        locks.computeIfPresent(bucket + "/" + key, (k, v) -> {
            users[0] = v.users; // read where it is written, under the map's lock for this key
            return v;
        });
        return users[0];
    }

    /** Keys currently locked or waited for (for tests and diagnostics). */
    public int size() {
        return locks.size();
    }
}
