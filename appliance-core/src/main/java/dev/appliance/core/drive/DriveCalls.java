package dev.appliance.core.drive;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Runs one call on every drive of a set at once and collects each drive's value or failure, by position; and keeps
 * each drive's health: a drive that stalls or keeps failing is taken out of service.
 *
 * <h2>Deadlines</h2>
 *
 * No call waits for a drive longer than the drive timeout ({@link DriveSettings#timeout}, 30 s by default as MinIO's).
 * {@link #onBounded} also stops waiting for drives that lag a grace behind the ones that answered: reads, and writes into
 * a write's private staging area, use it, so one slow drive does not slow requests that other drives can answer; a call
 * given up on is interrupted and its late value, if any, handed to a cleanup. {@link #on} waits for every drive, up to the
 * timeout: mutations of committed state (commits, deletes, metadata rewrites, heals) use it, and a drive that overruns
 * fails that call for the quorum decision like any failed drive, so the request answers from the drives that did answer
 * (or fails with the quorum error), never waits longer.
 *
 * <h2>A late change</h2>
 *
 * A mutation given up on at the deadline is not interrupted (a half-done commit helps nobody) and may still land. So the
 * drive is taken out of service ({@link LocalDrive#markFaulty}) before the caller hears of the timeout, and stays out
 * while any call given up on at the deadline still runs ({@link LocalDrive#stalledCalls}): no later change of the same key
 * can meet the late one on that drive, and the late one can only leave the drive holding what the healer converges when
 * the drive is back (a version the others also have, or one the quorum refused: a dangling version the heal removes).
 * The caller reports the key for healing either way ({@code ErasureSet#finishMutation}).
 *
 * <h2>Failing drives</h2>
 *
 * Every I/O error a call meets counts against its drive (not a full disk, a missing file or a timeout: those are
 * answers, not faults); {@link DriveSettings#errorLimit} errors within {@link DriveSettings#errorWindow} take the drive
 * out of service as faulty, as does one call that overran the deadline. While faulty, a drive is offline to every caller:
 * writes raise their parity for it and report the versions for healing, as for a removed drive. The drive monitor (in {@code erasure})
 * probes it ({@link #probe}) and brings it back once its stalled calls ended and a probe succeeded.
 */
public final class DriveCalls {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(DriveCalls.class.getName());
    private static final int RUNNING = 0;
    private static final int ANSWERED = 1;
    /** Given up on before the deadline (a straggler): interrupted, its late completion harms nothing. */
    private static final int GIVEN_UP = 2;
    /** Given up on at the deadline: counted in its drive's {@link LocalDrive#stalledCalls} until it ends. */
    private static final int STALLED = 3;

    private final ExecutorService executor;
    private final java.time.Clock clock;
    private final DriveSettings settings;
    private final long timeoutMillis;
    private final long stragglerMillis;
    private final long writeStragglerMillis;

    /**
     * @param clock times the error window
     * @param settings the deadlines and fault thresholds
     */
    public DriveCalls(ExecutorService executor, java.time.Clock clock, DriveSettings settings) {
        this.executor = executor;
        this.clock = clock;
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
        this.timeoutMillis = settings.timeout().toMillis();
        this.stragglerMillis = settings.straggler().toMillis();
        this.writeStragglerMillis = settings.writeStraggler().toMillis();
    }

    public DriveSettings settings() {
        return settings;
    }

    /** How long any call may take at most ({@link DriveSettings#timeout}). */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /** How long drives may lag a read once enough answered ({@link DriveSettings#straggler}). */
    public long stragglerMillis() {
        return stragglerMillis;
    }

    /** As {@link #stragglerMillis}, for a write's staging ({@link DriveSettings#writeStraggler}). */
    public long writeStragglerMillis() {
        return writeStragglerMillis;
    }

    public interface Call<T> {
        T call(int position, LocalDrive drive) throws Exception;
    }

    /** A drive's answer: a value, or the failure (an offline drive fails with {@link DriveOfflineException}). */
    public record Outcome<T>(T value, Throwable error) {
        public boolean ok() {
            return error == null;
        }
    }

    public static final class DriveOfflineException extends Exception {
        private static final long serialVersionUID = 1L;

        public DriveOfflineException(LocalDrive drive) {
            super("drive " + drive.root() + " is offline: " + drive.offlineReason(), null, false, false);
        }
    }

    /** A drive that did not answer a call in time; the call may go on in the background, its result unused. */
    public static final class DriveTimeoutException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        public DriveTimeoutException(LocalDrive drive, long waitedMillis) {
            super("drive " + drive.root() + " did not answer within " + waitedMillis + " ms (slow drive)");
        }
    }

    /** Runs one task on the drive executor (a virtual thread), for callers that wait for its answer themselves. */
    public <T> Future<T> submit(java.util.concurrent.Callable<T> task) {
        return executor.submit(task);
    }

    public <T> List<Outcome<T>> onAll(List<LocalDrive> drives, Call<T> call) {
        return on(drives, null, call);
    }

    /**
     * Like {@link #onAll} but only where {@code include[position]}; other positions answer null without error. Waits
     * for every drive up to the deadline; one that overruns fails with {@link DriveTimeoutException} and is taken out of
     * service while its call goes on (see the class comment).
     */
    public <T> List<Outcome<T>> on(List<LocalDrive> drives, boolean[] include, Call<T> call) {
        return run(drives, include, Integer.MAX_VALUE, 0, "a change", call, null, false, false);
    }

    /**
     * As {@link #on(List, boolean[], Call)}, handing a value that arrives after its drive was given up on to
     * {@code late}, which undoes it if the caller refuses the change ({@link LateChanges#refused}).
     */
    public <T> List<Outcome<T>> on(List<LocalDrive> drives, boolean[] include, Call<T> call, LateChanges<T> late) {
        return run(drives, include, Integer.MAX_VALUE, 0, "a change", call, late::arrived, false, false);
    }

    /**
     * As {@link #on(List, boolean[], Call)} for the steps around a change (change marks, cleanup, undo): {@code what}
     * names the step in the reason a drive is taken out for; a value that arrives after its drive was given up on goes
     * to {@code late} (null: dropped); {@code evenOffline} runs the call on drives out of service too (an undo that
     * must not be skipped).
     */
    public <T> List<Outcome<T>> onEach(
            List<LocalDrive> drives,
            boolean[] include,
            String what,
            boolean evenOffline,
            Call<T> call,
            java.util.function.BiConsumer<Integer, T> late) {
        return run(drives, include, Integer.MAX_VALUE, 0, what, call, late, false, evenOffline);
    }

    /**
     * Changes a drive applied after the caller gave up on it at the deadline. The caller decides once: accepted (they
     * stay; the drives that missed the change are healed as usual), or refused (each is undone, now or when it lands,
     * before its drive can return to service).
     */
    public static final class LateChanges<T> {
        private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        private final java.util.Map<Integer, T> arrived = new java.util.HashMap<>();
        private boolean decided;
        private java.util.function.BiConsumer<Integer, T> undo;

        public void arrived(int position, T change) {
            java.util.function.BiConsumer<Integer, T> now = null;
            lock.lock();
            try {
                if (!decided) {
                    arrived.put(position, change);
                } else {
                    now = undo;
                }
            } finally {
                lock.unlock();
            }
            if (now != null) {
                now.accept(position, change);
            }
        }

        public void accepted() {
            lock.lock();
            try {
                decided = true;
                arrived.clear();
            } finally {
                lock.unlock();
            }
        }

        public void refused(java.util.function.BiConsumer<Integer, T> undoChange) {
            java.util.Map<Integer, T> already;
            lock.lock();
            try {
                decided = true;
                undo = undoChange;
                already = new java.util.HashMap<>(arrived);
                arrived.clear();
            } finally {
                lock.unlock();
            }
            already.forEach(undoChange);
        }
    }

    /**
     * Like {@link #on}, but once {@code enough} drives answered without error the others get {@link #stragglerMillis}
     * more: a drive that has not answered by then fails with {@link DriveTimeoutException}, is recorded as slow
     * ({@link LocalDrive#recordSlow}), and its call is interrupted. Only for calls whose late completion harms nothing:
     * a value that arrives after its drive was given up on is passed to {@code late} (to close what it opened), or
     * dropped when {@code late} is null.
     */
    public <T> List<Outcome<T>> onBounded(
            List<LocalDrive> drives,
            boolean[] include,
            int enough,
            String what,
            Call<T> call,
            java.util.function.Consumer<? super T> late) {
        return onBounded(drives, include, enough, stragglerMillis, what, call, late);
    }

    /** As {@link #onBounded(List, boolean[], int, String, Call, java.util.function.Consumer)}, with its own grace. */
    public <T> List<Outcome<T>> onBounded(
            List<LocalDrive> drives,
            boolean[] include,
            int enough,
            long graceMillis,
            String what,
            Call<T> call,
            java.util.function.Consumer<? super T> late) {
        return run(
                drives,
                include,
                enough,
                graceMillis,
                what,
                call,
                late == null ? null : (p, v) -> late.accept(v),
                true,
                false);
    }

    private <T> List<Outcome<T>> run(
            List<LocalDrive> drives,
            boolean[] include,
            int enough,
            long graceMillis,
            String what,
            Call<T> call,
            java.util.function.BiConsumer<Integer, T> late,
            boolean interruptLate,
            boolean evenOffline) {
        int n = drives.size();
        List<Outcome<T>> outcomes = new ArrayList<>(java.util.Collections.nCopies(n, null));
        // Per drive: who moves it from RUNNING decides who owns the value (the caller, or the late cleanup).
        java.util.concurrent.atomic.AtomicIntegerArray state = new java.util.concurrent.atomic.AtomicIntegerArray(n);
        java.util.concurrent.atomic.AtomicReferenceArray<Outcome<T>> results =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(n);
        java.util.concurrent.atomic.AtomicReferenceArray<Thread> threads =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(n);
        java.util.concurrent.BlockingQueue<Integer> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        int waiting = 0;
        for (int i = 0; i < n; i++) {
            LocalDrive drive = drives.get(i);
            int position = i;
            if (include != null && !include[i]) {
                outcomes.set(i, new Outcome<>(null, null));
            } else if (!evenOffline && !drive.isOnline()) {
                outcomes.set(i, new Outcome<>(null, new DriveOfflineException(drive)));
            } else {
                try {
                    executor.execute(() -> {
                        threads.set(position, Thread.currentThread());
                        Outcome<T> o;
                        if (state.get(position) != RUNNING) {
                            // Given up on before it started (a busy executor): nothing to do.
                            o = new Outcome<>(null, new DriveTimeoutException(drive, 0));
                        } else {
                            long began = System.nanoTime();
                            try {
                                o = new Outcome<>(call.call(position, drive), null);
                            } catch (Throwable t) {
                                o = new Outcome<>(null, t);
                            }
                            drive.recordCall(System.nanoTime() - began);
                        }
                        if (!o.ok()) {
                            recordError(drive, o.error(), what);
                        }
                        results.set(position, o);
                        if (!state.compareAndSet(position, RUNNING, ANSWERED)) {
                            try {
                                if (o.ok() && o.value() != null && late != null) {
                                    late.accept(position, o.value());
                                }
                            } finally {
                                // Only after the late value was dealt with: the drive stays out of service until then.
                                if (state.get(position) == STALLED) {
                                    drive.stalledCallEnded();
                                }
                            }
                        }
                        answered.add(position);
                    });
                    waiting++;
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    state.set(i, ANSWERED);
                    outcomes.set(i, new Outcome<>(null, e));
                }
            }
        }
        long start = System.nanoTime();
        long timeoutAt = start + timeoutMillis * 1_000_000L;
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
                if (outcomes.get(pos) != null) {
                    continue;
                }
                Outcome<T> o = results.get(pos);
                outcomes.set(pos, o);
                if (o.ok() && ++good >= enough && graceAt == Long.MAX_VALUE) {
                    graceAt = System.nanoTime() + graceMillis * 1_000_000L;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long now = System.nanoTime();
        long waited = (now - start) / 1_000_000L;
        boolean deadline = now - timeoutAt >= 0;
        for (int i = 0; i < n; i++) {
            if (outcomes.get(i) != null) {
                continue;
            }
            LocalDrive drive = drives.get(i);
            if (deadline) {
                drive.stalledCallStarted(); // before the state changes: the call's end may follow at once
            }
            if (state.compareAndSet(i, RUNNING, deadline ? STALLED : GIVEN_UP)) {
                if (interruptLate) {
                    Thread t = threads.get(i);
                    if (t != null) {
                        t.interrupt();
                    }
                }
                drive.recordSlow(what, waited);
                if (deadline) {
                    takeOutOfService(drive, "stalled: " + what + " did not answer within " + timeoutMillis + " ms");
                }
                outcomes.set(i, new Outcome<>(null, new DriveTimeoutException(drive, waited)));
            } else {
                if (deadline) {
                    drive.stalledCallEnded();
                }
                outcomes.set(i, results.get(i)); // answered just now
            }
        }
        return outcomes;
    }

    /**
     * Writes, forces, reads back and deletes a small file on {@code drive} ({@link LocalDrive#probe}), within the
     * deadline; null when it worked, else why not. A probe that overruns counts as a stalled call of the drive.
     */
    public String probe(LocalDrive drive) {
        List<Outcome<Boolean>> o = run(
                List.of(drive),
                null,
                1,
                0,
                "a probe",
                (pos, d) -> {
                    d.probe();
                    return Boolean.TRUE;
                },
                null,
                false,
                true);
        return o.getFirst().ok() ? null : String.valueOf(o.getFirst().error().getMessage());
    }

    /** Counts an I/O error against its drive, and takes the drive out of service at the limit. */
    private void recordError(LocalDrive drive, Throwable error, String what) {
        if (!isDriveFault(error) || !java.nio.file.Files.isRegularFile(drive.formatFile())) {
            return; // a removed or unmounted drive: the drive check takes it out and brings it back
        }
        long windowMillis = settings.errorWindow().toMillis();
        if (drive.recordIoError(clock.millis(), settings.errorLimit(), windowMillis)) {
            takeOutOfService(
                    drive,
                    settings.errorLimit() + " I/O errors within " + windowMillis + " ms (the last: " + what + ": "
                            + error.getMessage() + ")");
        }
    }

    /**
     * Whether a call's failure says the drive is failing: an I/O error, but not a full disk, a missing file (a key
     * absent there, or a removed drive, which the drive check handles), a name that exists or a directory not empty
     * (races with other changes), nor an interrupt or a timeout of ours.
     */
    public static boolean isDriveFault(Throwable t) {
        if (t instanceof java.io.UncheckedIOException u) {
            t = u.getCause();
        }
        if (!(t instanceof java.io.IOException)
                || t instanceof java.nio.file.NoSuchFileException
                || t instanceof java.io.FileNotFoundException
                || t instanceof java.nio.file.FileAlreadyExistsException
                || t instanceof java.nio.file.DirectoryNotEmptyException
                || t instanceof java.nio.file.NotDirectoryException
                || t instanceof java.io.InterruptedIOException
                || t instanceof java.nio.channels.ClosedChannelException
                || t instanceof DriveTimeoutException) {
            return false;
        }
        return !isDiskFull(t);
    }

    public static void takeOutOfService(LocalDrive drive, String reason) {
        if (drive.markFaulty(reason)) {
            LOG.warning("drive " + drive.root() + " taken out of service as faulty: " + reason
                    + "; writes leave it out (and are healed onto it later) until a probe succeeds");
        }
    }

    /**
     * Fails with {@link dev.appliance.core.error.ErrorKind#WRITE_QUORUM} (or {@code STORAGE_FULL} when drives are full) unless
     * at least {@code quorum} of {@code outcomes} succeeded.
     */
    public static void requireQuorum(List<? extends Outcome<?>> outcomes, int quorum, String what) {
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
            boolean full = first != null && isDiskFull(first);
            throw new dev.appliance.core.error.StorageException(
                    full
                            ? dev.appliance.core.error.ErrorKind.STORAGE_FULL
                            : dev.appliance.core.error.ErrorKind.WRITE_QUORUM,
                    what + " reached " + ok + " drive(s), " + quorum + " needed" + (first == null ? "" : ": " + first));
        }
    }

    /** Whether {@code t} (or a cause) says the drive's file system is full. */
    public static boolean isDiskFull(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains("No space left on device")) {
                return true;
            }
        }
        return false;
    }
}
