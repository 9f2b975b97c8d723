package dev.appliance.core.heal;

import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.listing.DriveWalker;
import dev.appliance.core.listing.MergedKeyWalk;
import dev.appliance.core.naming.ObjectKeys;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The drive-heal agent: fills a replaced drive with every version its erasure set holds. One thread, one drive at a
 * time (queued drives wait), at low priority.
 *
 * <p>For each bucket in name order (bucket metadata first), the keys held by the set's other drives are walked in key
 * order (each drive's sorted walk, merged) and every key is healed as a whole ({@link ObjectHealer}, light: the other
 * drives' part files are checked for size, the new drive's shards are rebuilt and their checksums written as a write
 * writes them). Progress goes to a {@link HealTracker} on the drive itself, saved every few seconds and after each
 * bucket, so a restart continues after the last key saved. Before each key the agent waits while client requests are
 * busy ({@link ForegroundLoad}, at most {@code maxWaitMillis}), and after it pauses a fraction of the time it took.
 * Keys that cannot be healed onto the drive now are named in the tracker and handed to the MRF queue, which retries.
 */
public final class DriveHealer implements Agent {
    private static final Logger LOG = Logger.getLogger(DriveHealer.class.getName());

    /**
     * Timing of the agent; tests shorten it.
     *
     * @param stopAfterKeys tests only: the agent stops dead (no save) after this many keys in a run, as a crash would;
     *     -1 never
     * @param workers keys healed at once (a key's heal waits mostly on forces, which overlap well across keys)
     */
    public record Settings(
            long saveEveryMillis,
            int saveEveryKeys,
            long maxWaitMillis,
            double pauseFactor,
            int stopAfterKeys,
            int workers) {
        public static final Settings DEFAULTS = new Settings(2_000, 1_000, 1_000, 0.25, -1, 4);
    }

    /** What the agent needs from the store. */
    public interface Store {
        /** Every bucket, by name. */
        List<String> buckets();

        /** Writes a bucket's directory and metadata to one drive. */
        void restoreBucket(String bucket, LocalDrive drive) throws IOException;

        /** Keys the set is estimated to hold (0: unknown). */
        long estimatedKeys(int set);
    }

    /** One drive to fill and its progress. */
    private final class Job {
        final LocalDrive drive;
        final ReentrantLock lock = new ReentrantLock();
        final HealTracker tracker;
        volatile String state = "queued";
        long runStartNanos;
        /** When this run ended (done or stopped), 0 while it runs: a stopped fill keeps the rate of its last run. */
        long runEndNanos;

        long scannedAtRunStart;
        long bytesAtRunStart;
        int bucketsTotal;

        Job(LocalDrive drive, HealTracker tracker) {
            this.drive = drive;
            this.tracker = tracker;
        }
    }

    private final List<ObjectHealer> healers;
    private final HealQueue mrf;
    private final ForegroundLoad load;
    private final Store store;
    private final Clock clock;
    private final Map<LocalDrive, Job> jobs = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private volatile Settings settings = Settings.DEFAULTS;
    private volatile Job current;
    /** A job the idle wait took off the queue: the next duty cycle runs it. */
    private volatile Job woken;
    /** Drives queued or being filled (the idle wait may hold one off the queue). */
    private final java.util.concurrent.atomic.AtomicInteger outstanding =
            new java.util.concurrent.atomic.AtomicInteger();

    public DriveHealer(List<ObjectHealer> healers, HealQueue mrf, ForegroundLoad load, Store store, Clock clock) {
        this.healers = healers;
        this.mrf = mrf;
        this.load = load;
        this.store = store;
        this.clock = clock;
    }

    public void settings(Settings s) {
        this.settings = s;
    }

    @Override
    public String roleName() {
        return "drive-healer";
    }

    /** Waits for a queued drive, at most {@code max}. */
    @Override
    public void idle(Duration max) throws InterruptedException {
        if (woken == null) {
            woken = queue.poll(max.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** True while the drive is queued or being filled. */
    public boolean filling(LocalDrive drive) {
        Job j = jobs.get(drive);
        return j != null && !j.tracker.finished();
    }

    /** Queues a drive (already marked filling in its set's {@link ObjectHealer}) with its new or resumed tracker. */
    void submit(LocalDrive drive, HealTracker tracker) {
        Job job = new Job(drive, tracker);
        jobs.put(drive, job);
        outstanding.incrementAndGet();
        queue.add(job);
    }

    /** Waits until no drive is queued or being filled (tests); false on timeout. */
    public boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (outstanding.get() == 0) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    /** Keys walked since this run of the drive's heal started (tests: a resumed heal walks only what was left). */
    public long scannedThisRun(LocalDrive drive) {
        Job j = jobs.get(drive);
        return j == null ? 0 : j.tracker.objectsScanned - j.scannedAtRunStart;
    }

    /** Fills the next queued drive to the end (or until the store closes); returns the drives filled (0 or 1). */
    @Override
    public int doWork() {
        Job job = woken;
        woken = null;
        if (job == null) {
            job = queue.poll();
        }
        if (job == null) {
            return 0;
        }
        {
            current = job;
            try {
                fill(job);
            } catch (InterruptedException e) {
                if (!"stopped".equals(job.state)) {
                    // Closing the store: keep what was done (a crash would lose only the keys since the last save).
                    Thread.interrupted();
                    try {
                        save(job);
                    } catch (IOException io) {
                        LOG.log(Level.WARNING, "saving the heal tracker of " + job.drive.root() + " failed", io);
                    }
                }
                job.state = "stopped";
            } catch (RuntimeException | IOException e) {
                // The drive stays marked as filling; the drive check queues it again from its tracker.
                job.state = "stopped";
                jobs.remove(job.drive, job);
                LOG.log(Level.WARNING, "healing drive " + job.drive.root() + " stopped", e);
            } finally {
                job.lock.lock();
                try {
                    job.runEndNanos = System.nanoTime();
                } finally {
                    job.lock.unlock();
                }
                current = null;
                outstanding.decrementAndGet();
            }
        }
        return 1;
    }

    private void fill(Job job) throws IOException, InterruptedException {
        HealTracker t = job.tracker;
        ObjectHealer healer = healers.get(t.set);
        LocalDrive drive = job.drive;
        List<String> buckets = new ArrayList<>(store.buckets());
        buckets.sort(ObjectKeys::compare);
        job.lock.lock();
        try {
            job.state = "healing";
            job.runStartNanos = System.nanoTime();
            job.scannedAtRunStart = t.objectsScanned;
            job.bytesAtRunStart = t.bytesHealed;
            job.bucketsTotal = buckets.size();
        } finally {
            job.lock.unlock();
        }
        if (t.objectsEstimated == 0) {
            // Counting may walk whole buckets: the fill does not wait for it.
            Thread.ofVirtual().name("drive-heal-estimate").start(() -> {
                long keys = store.estimatedKeys(t.set);
                job.lock.lock();
                try {
                    t.objectsEstimated = keys;
                } finally {
                    job.lock.unlock();
                }
            });
        }
        LOG.info("healing drive " + drive.root() + " (set " + (t.set + 1) + ", slot " + (t.slot + 1) + "): "
                + (t.resumes > 0 ? "resuming after " + t.objectsScanned + " objects" : "starting"));
        long lastSave = System.nanoTime();
        int sinceSave = 0;
        int thisRun = 0;
        for (String bucket : buckets) {
            if (t.bucketsDone.contains(bucket)) {
                continue;
            }
            store.restoreBucket(bucket, drive);
            String after = bucket.equals(t.bucket) && t.lastKey != null ? t.lastKey : "";
            t.bucket = bucket;
            MergedKeyWalk walk = walk(healer, bucket, after);
            List<String> window = new ArrayList<>();
            for (String key = walk.next(); key != null; key = walk.next()) {
                Settings s = settings;
                int size = Math.max(1, s.workers());
                if (s.stopAfterKeys() >= 0) {
                    size = Math.max(1, Math.min(size, s.stopAfterKeys() - thisRun));
                }
                window.add(key);
                while (window.size() < size) {
                    String more = walk.next();
                    if (more == null) {
                        break;
                    }
                    window.add(more);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException("stopping");
                }
                if (!drive.isOnline()) {
                    // Gone again (pulled, unmounted): the drive check resumes or restarts the fill when it is back.
                    job.state = "stopped";
                    jobs.remove(drive, job);
                    LOG.warning("healing drive " + drive.root() + " stopped: the drive is out of service ("
                            + drive.offlineReason() + ")");
                    return;
                }
                if (s.stopAfterKeys() >= 0 && thisRun >= s.stopAfterKeys()) {
                    job.state = "stopped";
                    throw new InterruptedException("stopped as a crash would (test)");
                }
                load.awaitQuiet(s.maxWaitMillis());
                long started = System.nanoTime();
                healWindow(job, healer, bucket, window);
                thisRun += window.size();
                sinceSave += window.size();
                window.clear();
                if (sinceSave >= s.saveEveryKeys() || System.nanoTime() - lastSave > s.saveEveryMillis() * 1_000_000L) {
                    save(job);
                    lastSave = System.nanoTime();
                    sinceSave = 0;
                }
                long pauseNanos = (long) ((System.nanoTime() - started) * s.pauseFactor());
                if (pauseNanos > 0) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(pauseNanos, 1_000_000_000L));
                }
            }
            job.lock.lock();
            try {
                t.bucketsDone.add(bucket);
                t.bucket = null;
                t.lastKey = null;
            } finally {
                job.lock.unlock();
            }
            save(job);
            lastSave = System.nanoTime();
            sinceSave = 0;
        }
        job.lock.lock();
        try {
            t.state = HealTracker.DONE;
            t.finishedMillis = clock.millis();
        } finally {
            job.lock.unlock();
        }
        save(job);
        healer.filling(drive, false);
        job.state = HealTracker.DONE;
        LOG.info("healing drive " + drive.root() + " done: " + t.objectsScanned + " objects, " + t.objectsHealed
                + " healed, " + t.bytesHealed + " bytes, " + t.objectsSkipped + " skipped, " + t.objectsFailed
                + " failed");
    }

    /**
     * Heals a few consecutive keys at once; the tracker's resume point moves to the last of them only when all are
     * done, so a restart never skips a key.
     */
    private void healWindow(Job job, ObjectHealer healer, String bucket, List<String> keys)
            throws InterruptedException {
        if (keys.size() == 1) {
            healKey(job, healer, bucket, keys.getFirst());
        } else {
            List<Thread> threads = new ArrayList<>(keys.size());
            for (String key : keys) {
                threads.add(Thread.ofVirtual().name("drive-heal-key").start(() -> healKey(job, healer, bucket, key)));
            }
            boolean interrupted = false;
            for (Thread th : threads) {
                // Every key started finishes and is counted before the agent stops, so the saved figures stay exact.
                while (true) {
                    try {
                        th.join();
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                job.lock.lock();
                try {
                    job.tracker.lastKey = keys.getLast();
                } finally {
                    job.lock.unlock();
                }
                throw new InterruptedException("stopping");
            }
        }
        job.lock.lock();
        try {
            job.tracker.lastKey = keys.getLast();
        } finally {
            job.lock.unlock();
        }
    }

    private void healKey(Job job, ObjectHealer healer, String bucket, String key) {
        HealTracker t = job.tracker;
        String name = bucket + "/" + key;
        HealResult r;
        try {
            r = healer.heal(bucket, key, null, false);
        } catch (RuntimeException e) {
            r = HealResult.of(HealResult.Status.RETRY, String.valueOf(e));
        }
        long now = clock.millis();
        boolean healedHere = r.healedDrives().contains(job.drive.root().toString());
        job.lock.lock();
        try {
            t.objectsScanned++;
            t.updatedMillis = now;
            if (healedHere) {
                t.objectsHealed++;
                t.bytesHealed += r.bytesWritten();
            }
            switch (r.status()) {
                case HEALTHY, HEALED -> {
                    // on the drive now
                }
                case NOT_FOUND, DANGLING_REMOVED -> {
                    t.objectsSkipped++;
                    t.failures.add(new HealTracker.Failure(name, "skipped: " + r.status(), now));
                    while (t.failures.size() > HealTracker.MAX_FAILURES) {
                        t.failures.removeFirst();
                    }
                }
                default -> {
                    if (!healedHere) {
                        t.fail(name, r.status() + ": " + r.detail(), now);
                    }
                }
            }
        } finally {
            job.lock.unlock();
        }
        if (!healedHere && (r.status() == HealResult.Status.RETRY || r.status() == HealResult.Status.PARTIAL)) {
            // The MRF queue retries it with backoff, beyond this walk.
            mrf.report(bucket, key, "", "drive heal of " + job.drive.root() + ": " + r.detail());
        }
    }

    private void save(Job job) throws IOException {
        HealTracker copy;
        job.lock.lock();
        try {
            job.tracker.updatedMillis = clock.millis();
            copy = job.tracker.copy();
        } finally {
            job.lock.unlock();
        }
        copy.save(job.drive);
    }

    /** The keys of a bucket held by the set's drives that are in service and not being filled, merged in key order. */
    private static MergedKeyWalk walk(ObjectHealer healer, String bucket, String after) {
        List<DriveWalker> walkers = new ArrayList<>();
        for (LocalDrive d : healer.set().drives()) {
            if (d.isOnline() && !healer.isFilling(d)) {
                walkers.add(new DriveWalker(d.bucketDir(bucket), "", after, false));
            }
        }
        return new MergedKeyWalk(walkers);
    }

    public List<DriveHealStatus> status() {
        List<DriveHealStatus> out = new ArrayList<>();
        for (Job j : jobs.values()) {
            j.lock.lock();
            try {
                HealTracker t = j.tracker;
                boolean active = "healing".equals(j.state);
                boolean ran = j.runStartNanos != 0;
                long end = active || j.runEndNanos == 0 ? System.nanoTime() : j.runEndNanos;
                double rate;
                double byteRate;
                if (t.finished() && t.finishedMillis > 0) {
                    // Done: the rate of the whole fill, as its start and end are shown. Its last run may have walked
                    // nothing (stopped after the last key, resumed only to finish), which would read as 0 objects/s.
                    double whole = Math.max(1e-3, (t.finishedMillis - t.startedMillis) / 1e3);
                    rate = t.objectsScanned / whole;
                    byteRate = t.bytesHealed / whole;
                } else {
                    double seconds = ran ? Math.max(1e-3, (end - j.runStartNanos) / 1e9) : 0;
                    rate = ran ? (t.objectsScanned - j.scannedAtRunStart) / seconds : 0;
                    byteRate = ran ? (t.bytesHealed - j.bytesAtRunStart) / seconds : 0;
                }
                long left = t.objectsEstimated - t.objectsScanned;
                long eta = t.finished() ? 0 : active && rate > 0 && left >= 0 ? (long) Math.ceil(left / rate) : -1;
                out.add(new DriveHealStatus(
                        j.drive.root().toString(),
                        t.set,
                        t.slot,
                        t.finished() ? HealTracker.DONE : j.state,
                        Instant.ofEpochMilli(t.startedMillis),
                        Instant.ofEpochMilli(t.updatedMillis),
                        t.finishedMillis == 0 ? null : Instant.ofEpochMilli(t.finishedMillis),
                        t.bucketsDone.size(),
                        Math.max(j.bucketsTotal, t.bucketsDone.size()),
                        t.bucket,
                        t.lastKey,
                        t.objectsScanned,
                        t.objectsHealed,
                        t.objectsSkipped,
                        t.objectsFailed,
                        t.bytesHealed,
                        t.objectsEstimated,
                        rate,
                        byteRate,
                        eta,
                        t.resumes,
                        t.failures.stream()
                                .map(f -> new DriveHealStatus.Failure(
                                        f.name(), f.reason(), Instant.ofEpochMilli(f.timeMillis())))
                                .toList()));
            } finally {
                j.lock.unlock();
            }
        }
        out.sort(java.util.Comparator.comparingInt(DriveHealStatus::set).thenComparingInt(DriveHealStatus::slot));
        return out;
    }
}
