package dev.appliance.core.erasure;

import dev.appliance.core.drive.LocalDrive;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Runs one call on every drive of a set at once and collects each drive's value or failure, by position.
 *
 * <p>{@link #on} waits for every drive: mutations of committed state use it, since a drive's change that landed after
 * the caller gave up on it could undo a later write. {@link #onBounded} does not wait for a slow drive beyond a bound:
 * reads, and writes into a write's private staging area, use it, so one stalled drive does not stall requests that
 * other drives can answer.
 */
final class DriveCalls {
    /** How long drives that have not answered may lag once enough drives answered, before they are given up on. */
    static final long STRAGGLER_MILLIS = Long.getLong("appliance.driveStragglerMillis", 300);
    /**
     * As {@link #STRAGGLER_MILLIS}, for the staging writes of a write: longer, since leaving a merely busy drive out of
     * a write costs a heal afterwards, while leaving it out of a read costs nothing.
     */
    static final long WRITE_STRAGGLER_MILLIS = Long.getLong("appliance.driveWriteStragglerMillis", 2_000);
    /** How long any bounded call may take at most: a drive hung longer counts as failed for that call (MinIO: 30 s). */
    static final long TIMEOUT_MILLIS = Long.getLong("appliance.driveTimeoutMillis", 30_000);

    private final ExecutorService executor;

    DriveCalls(ExecutorService executor) {
        this.executor = executor;
    }

    interface Call<T> {
        T call(int position, LocalDrive drive) throws Exception;
    }

    /** A drive's answer: a value, or the failure (an offline drive fails with {@link DriveOfflineException}). */
    record Outcome<T>(T value, Throwable error) {
        boolean ok() {
            return error == null;
        }
    }

    static final class DriveOfflineException extends Exception {
        private static final long serialVersionUID = 1L;

        DriveOfflineException(LocalDrive drive) {
            super("drive " + drive.root() + " is offline: " + drive.offlineReason(), null, false, false);
        }
    }

    /** A drive that did not answer a bounded call in time; the call goes on in the background, its result unused. */
    static final class DriveTimeoutException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        DriveTimeoutException(LocalDrive drive, long waitedMillis) {
            super("drive " + drive.root() + " did not answer within " + waitedMillis + " ms (slow drive)");
        }
    }

    /** Runs one task on the drive executor (a virtual thread), for callers that wait for its answer themselves. */
    <T> Future<T> submit(java.util.concurrent.Callable<T> task) {
        return executor.submit(task);
    }

    <T> List<Outcome<T>> onAll(List<LocalDrive> drives, Call<T> call) {
        return on(drives, null, call);
    }

    /** Like {@link #onAll} but only where {@code include[position]}; other positions answer null without error. */
    <T> List<Outcome<T>> on(List<LocalDrive> drives, boolean[] include, Call<T> call) {
        List<Future<T>> futures = new ArrayList<>(drives.size());
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive drive = drives.get(i);
            int position = i;
            if (include != null && !include[i]) {
                futures.add(null);
            } else if (!drive.isOnline()) {
                futures.add(java.util.concurrent.CompletableFuture.failedFuture(new DriveOfflineException(drive)));
            } else {
                futures.add(executor.submit(() -> call.call(position, drive)));
            }
        }
        List<Outcome<T>> outcomes = new ArrayList<>(drives.size());
        for (Future<T> f : futures) {
            if (f == null) {
                outcomes.add(new Outcome<>(null, null));
                continue;
            }
            try {
                outcomes.add(new Outcome<>(f.get(), null));
            } catch (ExecutionException e) {
                outcomes.add(new Outcome<>(null, e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcomes.add(new Outcome<>(null, e));
            }
        }
        return outcomes;
    }

    /**
     * Like {@link #on}, but once {@code enough} drives answered without error the others get {@link #STRAGGLER_MILLIS}
     * more, and no call gets more than {@link #TIMEOUT_MILLIS}: a drive that has not answered by then fails with
     * {@link DriveTimeoutException}, is recorded as slow ({@link LocalDrive#recordSlow}), and its call is interrupted.
     * Only for calls whose late completion harms nothing: a value that arrives after its drive was given up on is
     * passed to {@code late} (to close what it opened), or dropped when {@code late} is null.
     */
    <T> List<Outcome<T>> onBounded(
            List<LocalDrive> drives,
            boolean[] include,
            int enough,
            String what,
            Call<T> call,
            java.util.function.Consumer<? super T> late) {
        return onBounded(drives, include, enough, STRAGGLER_MILLIS, what, call, late);
    }

    /** As {@link #onBounded(List, boolean[], int, String, Call, java.util.function.Consumer)}, with its own grace. */
    <T> List<Outcome<T>> onBounded(
            List<LocalDrive> drives,
            boolean[] include,
            int enough,
            long graceMillis,
            String what,
            Call<T> call,
            java.util.function.Consumer<? super T> late) {
        int n = drives.size();
        List<Future<T>> futures = new ArrayList<>(n);
        List<Outcome<T>> outcomes = new ArrayList<>(n);
        // Per drive: 0 running, 1 answered, 2 given up on. Whoever moves it from 0 decides who owns the value.
        java.util.concurrent.atomic.AtomicIntegerArray state = new java.util.concurrent.atomic.AtomicIntegerArray(n);
        java.util.concurrent.BlockingQueue<Integer> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        int waiting = 0;
        for (int i = 0; i < n; i++) {
            LocalDrive drive = drives.get(i);
            int position = i;
            outcomes.add(null);
            if (include != null && !include[i]) {
                futures.add(null);
                outcomes.set(i, new Outcome<>(null, null));
            } else if (!drive.isOnline()) {
                futures.add(null);
                outcomes.set(i, new Outcome<>(null, new DriveOfflineException(drive)));
            } else {
                waiting++;
                futures.add(executor.submit(() -> {
                    T value = null;
                    try {
                        value = call.call(position, drive);
                        return value;
                    } finally {
                        if (!state.compareAndSet(position, 0, 1) && value != null && late != null) {
                            late.accept(value);
                        }
                        answered.add(position);
                    }
                }));
            }
        }
        long start = System.nanoTime();
        long timeoutAt = start + TIMEOUT_MILLIS * 1_000_000L;
        long graceAt = Long.MAX_VALUE;
        int good = 0;
        try {
            while (waiting > 0) {
                long until = Math.min(timeoutAt, graceAt);
                Integer pos = answered.poll(until - System.nanoTime(), java.util.concurrent.TimeUnit.NANOSECONDS);
                if (pos == null) {
                    break;
                }
                waiting--;
                Outcome<T> o = outcome(futures.get(pos));
                outcomes.set(pos, o);
                if (o.ok() && ++good >= enough && graceAt == Long.MAX_VALUE) {
                    graceAt = System.nanoTime() + graceMillis * 1_000_000L;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long waited = (System.nanoTime() - start) / 1_000_000L;
        for (int i = 0; i < n; i++) {
            if (outcomes.get(i) != null) {
                continue;
            }
            if (state.compareAndSet(i, 0, 2)) {
                futures.get(i).cancel(true);
                drives.get(i).recordSlow(what, waited);
                outcomes.set(i, new Outcome<>(null, new DriveTimeoutException(drives.get(i), waited)));
            } else {
                outcomes.set(i, outcome(futures.get(i))); // answered just now
            }
        }
        return outcomes;
    }

    private static <T> Outcome<T> outcome(Future<T> f) {
        try {
            return new Outcome<>(f.get(), null);
        } catch (ExecutionException e) {
            return new Outcome<>(null, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome<>(null, e);
        }
    }

    /**
     * Fails with {@link dev.appliance.core.ErrorKind#WRITE_QUORUM} (or {@code STORAGE_FULL} when drives are full) unless
     * at least {@code quorum} of {@code outcomes} succeeded.
     */
    static void requireQuorum(List<? extends Outcome<?>> outcomes, int quorum, String what) {
        int ok = 0;
        Throwable first = null;
        for (var o : outcomes) {
            if (o.ok()) {
                ok++;
            } else if (first == null) {
                first = o.error();
            }
        }
        if (ok < quorum) {
            boolean full = first != null && ErasureSet.isDiskFull(first);
            throw new dev.appliance.core.StorageException(
                    full ? dev.appliance.core.ErrorKind.STORAGE_FULL : dev.appliance.core.ErrorKind.WRITE_QUORUM,
                    what + " reached " + ok + " drive(s), " + quorum + " needed" + (first == null ? "" : ": " + first));
        }
    }
}
