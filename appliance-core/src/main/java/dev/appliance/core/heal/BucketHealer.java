package dev.appliance.core.heal;

import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.listing.DriveWalker;
import dev.appliance.core.listing.MergedKeyWalk;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The heal of a bucket, or of a prefix in it, started on request (the admin API, the console): walks every key under the
 * prefix on each set's drives in service (each drive's sorted walk, merged, so a key on any healthy drive is found;
 * lazily, so memory stays bounded whatever the bucket holds) and heals each key as a whole, every version of it,
 * through the set's {@link ObjectHealer}, deep: every shard block's checksum is verified and whatever is missing or
 * damaged is rebuilt, exactly as the background healer does. Keys that cannot be healed now are named in the status and
 * handed to the heal queue, which retries them with backoff.
 *
 * <p>One agent thread runs one heal at a time, at low priority (before each key it waits while client requests are
 * busy, at most a second); others wait as {@code queued}. Starting a heal of a bucket and prefix that is queued or
 * running answers that one. Progress is kept in memory only: a restart forgets the heals (a cancelled one is simply
 * started again). Rates and the ETA are taken on the store's clock.
 */
public final class BucketHealer implements Agent {
    private static final Logger LOG = Logger.getLogger(BucketHealer.class.getName());
    /** Failures kept by name per heal: the newest. */
    public static final int MAX_FAILURES = 20;
    /** Ended heals kept for the status, the newest. */
    static final int MAX_ENDED = 20;

    private static final long MAX_WAIT_MILLIS = 1_000;

    /** One requested heal and its progress; guarded by its own monitor. */
    private final class Job {
        final long id;
        final String bucket;
        final String prefix;
        final Instant started;
        final CompletableFuture<BucketHealStatus> done = new CompletableFuture<>();
        final Deque<BucketHealStatus.Failure> failures = new ArrayDeque<>();
        String state = "queued";
        long runStartMillis = -1;
        Instant finished;
        Instant updated;
        long scanned;
        long healed;
        long failed;
        long bytes;
        long estimated;
        String lastKey;
        String detail = "";

        Job(long id, String bucket, String prefix, Instant started) {
            this.id = id;
            this.bucket = bucket;
            this.prefix = prefix;
            this.started = started;
            this.updated = started;
        }

        synchronized BucketHealStatus status() {
            long now = finished == null ? clock.millis() : finished.toEpochMilli();
            double seconds = runStartMillis < 0 ? 0 : Math.max(0, now - runStartMillis) / 1000.0;
            double rate = seconds > 0 ? scanned / seconds : 0;
            double byteRate = seconds > 0 ? bytes / seconds : 0;
            long eta;
            if (finished != null) {
                eta = 0;
            } else if (estimated > 0 && rate > 0) {
                eta = (long) Math.ceil(Math.max(0, estimated - scanned) / rate);
            } else {
                eta = -1;
            }
            return new BucketHealStatus(
                    id,
                    bucket,
                    prefix,
                    state,
                    started,
                    finished,
                    updated,
                    scanned,
                    healed,
                    failed,
                    bytes,
                    estimated,
                    rate,
                    byteRate,
                    eta,
                    lastKey,
                    detail,
                    List.copyOf(failures));
        }

        synchronized void end(String endState, String why) {
            state = endState;
            detail = why;
            finished = clock.instant();
            updated = finished;
        }
    }

    private final List<ObjectHealer> healers;
    private final ToIntFunction<String> setOfKey;
    private final HealQueue mrf;
    private final ForegroundLoad load;
    private final Clock clock;
    private final ToLongFunction<String> estimatedKeys;
    /** Every heal still listed, oldest first: the queued and running ones, and the newest ended ones. */
    private final List<Job> jobs = new ArrayList<>();

    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private long lastId;
    /** A job the idle wait took off the queue: the next duty cycle runs it. */
    private volatile Job woken;

    private volatile Runnable afterEachKey = () -> {};

    /**
     * @param setOfKey the set each key is placed on (a copy found on another set is not that key's data)
     * @param estimatedKeys keys a bucket holds by its usage counts (0: unknown); called on the agent's thread
     */
    public BucketHealer(
            List<ObjectHealer> healers,
            ToIntFunction<String> setOfKey,
            HealQueue mrf,
            ForegroundLoad load,
            Clock clock,
            ToLongFunction<String> estimatedKeys) {
        this.healers = healers;
        this.setOfKey = setOfKey;
        this.mrf = mrf;
        this.load = load;
        this.clock = clock;
        this.estimatedKeys = estimatedKeys;
    }

    @Override
    public String roleName() {
        return "bucket-healer";
    }

    /** Tests: runs on the agent's thread after each key (they move their clock and read the status there). */
    public void afterEachKey(Runnable listener) {
        this.afterEachKey = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Starts a heal of {@code bucket} (which the caller checked exists) under {@code prefix} ("" the whole bucket), or
     * answers the one of the same bucket and prefix already queued or running.
     */
    public synchronized BucketHealStatus start(String bucket, String prefix) {
        for (Job j : jobs) {
            if (j.bucket.equals(bucket) && j.prefix.equals(prefix) && !j.done.isDone()) {
                return j.status();
            }
        }
        Job job = new Job(++lastId, bucket, prefix, clock.instant());
        jobs.add(job);
        trimEnded();
        queue.add(job);
        return job.status();
    }

    /** Every heal listed: queued, running and the newest ended ones, newest first. */
    public synchronized List<BucketHealStatus> status() {
        List<BucketHealStatus> out = new ArrayList<>(jobs.size());
        for (int i = jobs.size() - 1; i >= 0; i--) {
            out.add(jobs.get(i).status());
        }
        return out;
    }

    /** Completes with the heal's final status once it has ended; null for an id not listed. */
    public synchronized CompletableFuture<BucketHealStatus> completion(long id) {
        for (Job j : jobs) {
            if (j.id == id) {
                return j.done.copy(); // callers cannot complete it
            }
        }
        return null;
    }

    private void trimEnded() {
        int ended = 0;
        for (Job j : jobs) {
            ended += j.done.isDone() ? 1 : 0;
        }
        for (var it = jobs.iterator(); it.hasNext() && ended > MAX_ENDED; ) {
            if (it.next().done.isDone()) {
                it.remove();
                ended--;
            }
        }
    }

    @Override
    public void idle(Duration max) throws InterruptedException {
        if (woken == null) {
            woken = queue.poll(max.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Runs the next queued heal to its end; returns the heals run (0 or 1). */
    @Override
    public int doWork() throws InterruptedException {
        Job job = woken;
        woken = null;
        if (job == null) {
            job = queue.poll();
        }
        if (job == null) {
            return 0;
        }
        try {
            run(job);
            job.end("done", "");
        } catch (InterruptedException e) {
            job.end("cancelled", "the store is closing; start the heal again after the restart");
            finish(job);
            throw e;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "heal of " + job.bucket + "/" + job.prefix + " failed", e);
            job.end("failed", String.valueOf(e));
        }
        finish(job);
        return 1;
    }

    /** Ends what is still queued when the store closes. */
    public void cancelQueued() {
        for (Job j = queue.poll(); j != null; j = queue.poll()) {
            j.end("cancelled", "the store closed before it started");
            finish(j);
        }
        Job w = woken;
        if (w != null && !w.done.isDone()) {
            w.end("cancelled", "the store closed before it started");
            finish(w);
        }
    }

    private void finish(Job job) {
        BucketHealStatus end = job.status();
        job.done.complete(end);
        synchronized (this) {
            trimEnded();
        }
        LOG.info("heal of " + (job.bucket + "/" + job.prefix) + " " + end.state() + ": " + end.objectsScanned()
                + " objects, " + end.objectsHealed() + " healed, " + end.objectsFailed() + " failed, "
                + end.bytesHealed() + " bytes");
    }

    private void run(Job job) throws InterruptedException {
        long estimate = job.prefix.isEmpty() ? Math.max(0, estimatedKeys.applyAsLong(job.bucket)) : 0;
        synchronized (job) {
            job.state = "running";
            job.estimated = estimate;
            job.runStartMillis = clock.millis();
            job.updated = clock.instant();
        }
        LOG.info("heal of " + job.bucket + "/" + job.prefix + " starting");
        for (int s = 0; s < healers.size(); s++) {
            ObjectHealer healer = healers.get(s);
            MergedKeyWalk walk = walk(healer, job.bucket, job.prefix);
            for (String key = walk.next(); key != null; key = walk.next()) {
                if (setOfKey.applyAsInt(key) != s) {
                    continue; // a stray copy on the wrong set is not this key's data
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("stopping");
                }
                load.awaitQuiet(MAX_WAIT_MILLIS);
                healKey(job, healer, key);
                afterEachKey.run();
            }
        }
    }

    private void healKey(Job job, ObjectHealer healer, String key) {
        HealResult r;
        try {
            r = healer.heal(job.bucket, key, null, true);
        } catch (RuntimeException e) {
            r = HealResult.of(HealResult.Status.RETRY, String.valueOf(e));
        }
        Instant now = clock.instant();
        boolean wrote = !r.healedDrives().isEmpty();
        boolean failed =
                switch (r.status()) {
                    case HEALTHY, HEALED, DANGLING_REMOVED, NOT_FOUND -> false;
                    case PARTIAL, RETRY, FAILED -> true;
                };
        synchronized (job) {
            job.scanned++;
            job.lastKey = key;
            job.updated = now;
            job.bytes += r.bytesWritten();
            if (wrote) {
                job.healed++;
            }
            if (failed) {
                job.failed++;
                job.failures.addLast(new BucketHealStatus.Failure(key, r.status() + ": " + r.detail(), now));
                while (job.failures.size() > MAX_FAILURES) {
                    job.failures.removeFirst();
                }
            }
        }
        if (r.status().retry()) {
            // The heal queue retries it with backoff, beyond this walk.
            mrf.report(job.bucket, key, "", "heal of " + job.bucket + "/" + job.prefix + ": " + r.detail());
        }
    }

    /** The keys under the prefix held by the set's drives in service and not being filled, merged in key order. */
    private static MergedKeyWalk walk(ObjectHealer healer, String bucket, String prefix) {
        List<DriveWalker> walkers = new ArrayList<>();
        for (LocalDrive d : healer.set().drives()) {
            if (d.isOnline() && !healer.isFilling(d)) {
                walkers.add(new DriveWalker(d.bucketDir(bucket), prefix, "", false));
            }
        }
        return new MergedKeyWalk(walkers);
    }
}
