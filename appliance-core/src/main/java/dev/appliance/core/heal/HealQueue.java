package dev.appliance.core.heal;

import dev.appliance.core.erasure.ErasureSet;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;
import java.util.logging.Logger;

/**
 * The most-recently-failed (MRF) queue: versions found partially written, or with missing or corrupt shards or
 * metadata, waiting for the healer. Writes that missed drives, reads that found damage and heals that must be retried
 * report here; each item is kept once (a repeated report of a pending item changes nothing on disk), persisted in the
 * set's {@link MrfJournal} and removed when healed. Items whose heal must wait for drives are retried with exponential
 * backoff (1 s doubling to 10 min).
 *
 * <p>No report is ever dropped. The queue holds at most {@link #CAPACITY} items in memory; a report beyond that is
 * written to the journal only (spilled) and counted. While a set has spilled reports its journal is never compacted
 * (a compaction writes the in-memory items only), healed items get done records instead, and once the queue has drained
 * to half its capacity the set's journal is read back and the spilled items are loaded into memory (as many as fit).
 * At start, likewise, the journals' items beyond the capacity stay spilled. A spilled report is as durable as any other:
 * a write that missed drives still waits for its record to be forced before it is acknowledged.
 *
 * <p>An empty version id stands for every version of the key (a corrupt {@code xl.meta} loses track of all of them).
 */
public final class HealQueue implements ErasureSet.HealReports {
    private static final Logger LOG = Logger.getLogger(HealQueue.class.getName());
    public static final int CAPACITY = 100_000;
    static final int FAILURES_KEPT = 20;
    private static final long MAX_BACKOFF_MILLIS = 10 * 60_000L;

    /** One version to heal and why. */
    public record Item(String bucket, String key, String versionId, String reason) {}

    /** A pending item and its schedule. */
    public static final class Entry {
        final Item item;
        final int set;
        final long reportedMillis;
        long dueMillis;
        int attempts;
        boolean inProgress;
        boolean reportedAgain;
        boolean deepNext;
        String lastError = "";

        Entry(Item item, int set, long reportedMillis) {
            this.item = item;
            this.set = set;
            this.reportedMillis = reportedMillis;
            this.dueMillis = reportedMillis;
        }

        public Item item() {
            return item;
        }

        public String name() {
            return item.bucket() + "/" + item.key()
                    + (item.versionId().isEmpty() ? "" : "?versionId=" + item.versionId());
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final java.util.concurrent.locks.Condition reported = lock.newCondition();
    private final Map<String, Entry> pending = new LinkedHashMap<>();
    private final Deque<HealQueueStatus.Failure> failures = new ArrayDeque<>();
    private final Clock clock;
    private final ToIntFunction<String> setOfKey;
    private MrfJournal journal;
    private long healed;
    private long failed;
    private int capacity = CAPACITY;
    /** Per set with spilled reports: how many (at most) are in its journal only. */
    private final Map<Integer, Long> spilled = new java.util.HashMap<>();
    /** Counts spills, so a refill can tell whether one happened while it read the journal. */
    private long spills;

    private final java.util.Set<Integer> refilling = new java.util.HashSet<>();

    public HealQueue(Clock clock, ToIntFunction<String> setOfKey) {
        this.clock = clock;
        this.setOfKey = setOfKey;
    }

    /** The most items held in memory from now on (tests make it small). */
    public void capacity(int items) {
        if (items < 2) {
            throw new IllegalArgumentException("capacity: " + items + " (expected at least 2)");
        }
        lock.lock();
        try {
            this.capacity = items;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Persists reports from now on; {@code loaded} items (from the journals at start) are pending again, those beyond
     * the capacity spilled (they stay in the journals).
     */
    public void attach(MrfJournal journal, List<List<MrfJournal.Entry>> loadedBySet) {
        lock.lock();
        try {
            this.journal = journal;
            for (int s = 0; s < loadedBySet.size(); s++) {
                for (MrfJournal.Entry e : loadedBySet.get(s)) {
                    Item item = new Item(e.bucket(), e.key(), e.versionId(), e.reason());
                    String id = id(item);
                    if (pending.containsKey(id)) {
                        continue;
                    }
                    if (pending.size() >= capacity) {
                        spilled.merge(s, 1L, Long::sum);
                    } else {
                        pending.put(id, new Entry(item, s, e.timeMillis()));
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void report(String bucket, String key, String versionId, String reason) {
        report(bucket, key, versionId, reason, false);
    }

    /**
     * Reports a version for healing. With {@code durable}, returns once the report is in the journal on stable
     * storage: writes that missed drives use it, so an acknowledged write is never forgotten by a crash.
     */
    @Override
    public void report(String bucket, String key, String versionId, String reason, boolean durable) {
        Item item = new Item(bucket, key, versionId == null ? "" : versionId, reason);
        String id = id(item);
        int set = setOfKey.applyAsInt(key);
        MrfJournal j;
        boolean added;
        boolean spill = false;
        long spilledNow = 0;
        lock.lock();
        try {
            j = journal;
            Entry existing = pending.get(id);
            added = existing == null;
            if (existing != null) {
                existing.reportedAgain |= existing.inProgress;
                // Something was seen again: the next attempt verifies every shard even if it is a retry.
                existing.deepNext = true;
            } else if (pending.size() >= capacity && j != null) {
                // Full: the report goes to the journal only, and is loaded back as the queue drains.
                spill = true;
                spilledNow = spilled.merge(set, 1L, Long::sum);
                spills++;
            } else {
                pending.put(id, new Entry(item, set, clock.millis()));
                reported.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (spill) {
            if (spilledNow % 10_000 == 1) {
                LOG.warning("heal queue full (" + capacity + " items in memory): " + spilledNow + " report(s) of set "
                        + (set + 1) + " kept in the heal journal only, loaded back as the queue drains");
            }
            j.append(
                    set,
                    new MrfJournal.Entry(MrfJournal.REPORT, clock.millis(), bucket, key, item.versionId(), reason),
                    durable);
            return;
        }
        if (!added) {
            // Already pending: its first report may still be on its way to the disks.
            if (durable && j != null) {
                j.flush();
            }
            return;
        }
        LOG.warning(() -> "needs healing: " + bucket + "/" + key + " version " + versionId + ": " + reason);
        if (j != null) {
            j.append(
                    set,
                    new MrfJournal.Entry(MrfJournal.REPORT, clock.millis(), bucket, key, item.versionId(), reason),
                    durable);
        }
    }

    /** Pending items, newest report first. */
    public List<Item> snapshot() {
        lock.lock();
        try {
            List<Item> out = new ArrayList<>(pending.size());
            for (Entry e : pending.values()) {
                out.addFirst(e.item);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    public HealQueueStatus status() {
        lock.lock();
        try {
            int retrying = 0;
            for (Entry e : pending.values()) {
                if (e.attempts > 0) {
                    retrying++;
                }
            }
            long spilledTotal = 0;
            for (long n : spilled.values()) {
                spilledTotal += n;
            }
            return new HealQueueStatus(
                    (int) Math.min(Integer.MAX_VALUE, pending.size() + spilledTotal),
                    retrying,
                    healed,
                    failed,
                    List.copyOf(failures),
                    spilledTotal);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The item due first among those reported at least {@code minAgeMillis} ago and due now (or every pending item,
     * {@code ignoreSchedule}), marked in progress; null when none.
     */
    public Entry take(long minAgeMillis, boolean ignoreSchedule) {
        return take(minAgeMillis, ignoreSchedule, java.util.Set.of());
    }

    /** As {@link #take(long, boolean)}, skipping {@code exclude}. */
    public Entry take(long minAgeMillis, boolean ignoreSchedule, java.util.Set<Entry> exclude) {
        long now = clock.millis();
        lock.lock();
        try {
            Entry best = null;
            for (Entry e : pending.values()) {
                if (e.inProgress || exclude.contains(e)) {
                    continue;
                }
                if (!ignoreSchedule && (e.dueMillis > now || e.reportedMillis > now - minAgeMillis)) {
                    continue;
                }
                if (best == null || e.dueMillis < best.dueMillis) {
                    best = e;
                }
            }
            if (best != null) {
                best.inProgress = true;
                best.reportedAgain = false;
            }
            return best;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the heal of {@code e} about to run should verify every shard: its first attempt, or after a new report
     * of it; retries otherwise check presence and size only.
     */
    public boolean deep(Entry e) {
        lock.lock();
        try {
            boolean deep = e.attempts == 0 || e.deepNext;
            e.deepNext = false;
            return deep;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Makes every pending item due now (its backoff ended) and wakes the healer; returns the number pending (spilled
     * ones included). Also loads
     * spilled reports back if there is room (after a refill that could not read the journal, no heal may end to
     * trigger the next one).
     */
    public int makeAllDue() {
        List<Integer> refill = new ArrayList<>();
        MrfJournal j;
        lock.lock();
        try {
            long now = clock.millis();
            for (Entry e : pending.values()) {
                e.dueMillis = Math.min(e.dueMillis, now);
            }
            reported.signalAll();
            j = journal;
            if (j != null && pending.size() <= capacity / 2) {
                for (int set : spilled.keySet()) {
                    if (refilling.add(set)) {
                        refill.add(set);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        for (int set : refill) {
            refill(set, j);
        }
        return status().pending();
    }

    /** Waits up to {@code millis} for a new report. */
    public void awaitReport(long millis) throws InterruptedException {
        lock.lock();
        try {
            reported.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }

    /** Records how the heal of {@code e} ended: done (removed, a done record journaled), or scheduled again. */
    public void finish(Entry e, HealResult result, Throwable error) {
        MrfJournal j;
        boolean drained;
        boolean compactForSize = false;
        boolean spill;
        boolean refill;
        lock.lock();
        try {
            e.inProgress = false;
            boolean retry = error != null || result.status().retry();
            String why = error != null ? String.valueOf(error) : result.detail();
            if (error != null || result.status() == HealResult.Status.FAILED) {
                failed++;
                failures.addFirst(new HealQueueStatus.Failure(e.name(), why, clock.instant()));
                while (failures.size() > FAILURES_KEPT) {
                    failures.removeLast();
                }
            }
            if (error == null
                    && (result.status() == HealResult.Status.HEALED
                            || result.status() == HealResult.Status.DANGLING_REMOVED)) {
                healed++;
            }
            if (retry) {
                e.attempts++;
                e.lastError = why;
                e.dueMillis = clock.millis() + backoffMillis(e.attempts);
                return;
            }
            if (e.reportedAgain) {
                // New damage was reported while this heal ran: look again soon.
                e.dueMillis = clock.millis();
                return;
            }
            pending.remove(id(e.item));
            j = journal;
            spill = spilled.containsKey(e.set);
            refill = spill && pending.size() <= capacity / 2 && !refilling.contains(e.set);
            if (refill) {
                refilling.add(e.set);
            }
            drained = pending.values().stream().noneMatch(x -> x.set == e.set);
            if (!drained && j != null) {
                int live = (int)
                        pending.values().stream().filter(x -> x.set == e.set).count();
                compactForSize = j.wantsCompaction(e.set, live);
            }
        } finally {
            lock.unlock();
        }
        if (j != null) {
            if (!spill && (drained || compactForSize)) {
                j.compact(e.set);
            } else {
                Item i = e.item;
                j.append(
                        e.set,
                        new MrfJournal.Entry(MrfJournal.DONE, clock.millis(), i.bucket(), i.key(), i.versionId(), ""),
                        false);
            }
        }
        if (refill) {
            refill(e.set, j);
        }
    }

    /**
     * Loads set {@code set}'s spilled reports back from its journal, as many as fit; the set stays spilled while any
     * does not fit, or when a report spilled while the journal was read (it may not be in what was read).
     */
    private void refill(int set, MrfJournal j) {
        long spillsBefore;
        lock.lock();
        try {
            spillsBefore = spills;
        } finally {
            lock.unlock();
        }
        List<MrfJournal.Entry> live = List.of();
        boolean read = false;
        try {
            j.flush(); // the done records of items healed so far, so they are not loaded again
            live = j.load(set);
            read = true;
        } catch (RuntimeException ex) {
            LOG.warning("heal queue: reading spilled reports of set " + (set + 1) + " back failed: " + ex);
        }
        lock.lock();
        try {
            refilling.remove(set);
            if (!read) {
                return;
            }
            long left = 0;
            int added = 0;
            for (MrfJournal.Entry x : live) {
                Item item = new Item(x.bucket(), x.key(), x.versionId(), x.reason());
                String id = id(item);
                if (pending.containsKey(id)) {
                    continue;
                }
                if (pending.size() >= capacity) {
                    left++;
                } else {
                    pending.put(id, new Entry(item, set, x.timeMillis()));
                    added++;
                }
            }
            if (left == 0 && spills == spillsBefore) {
                spilled.remove(set);
            } else {
                spilled.put(set, Math.max(1, left));
            }
            if (added > 0) {
                reported.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    public static long backoffMillis(int attempts) {
        return Math.min(MAX_BACKOFF_MILLIS, 1000L << Math.min(20, attempts - 1));
    }

    /**
     * The report records of set {@code set}'s pending items, for a journal compaction; null while the set has spilled
     * reports (they are in the journal only: it must not be compacted).
     */
    public List<MrfJournal.Entry> liveEntries(int set) {
        lock.lock();
        try {
            if (spilled.containsKey(set)) {
                return null;
            }
            List<MrfJournal.Entry> out = new ArrayList<>();
            for (Entry e : pending.values()) {
                if (e.set == set) {
                    Item i = e.item;
                    out.add(new MrfJournal.Entry(
                            MrfJournal.REPORT, e.reportedMillis, i.bucket(), i.key(), i.versionId(), i.reason()));
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    private static String id(Item item) {
        return MrfJournal.identity(item.bucket(), item.key(), item.versionId());
    }
}
