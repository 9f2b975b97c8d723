package dev.appliance.core.heal;

import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.naming.VersionIds;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The healer agent: one low-priority thread that drains the {@link HealQueue}, one item at a time.
 *
 * <p>Priority below foreground I/O: before each item it waits while client requests are busy ({@link ForegroundLoad},
 * at most {@code maxWait}); the healer itself steps aside between blocks while they are; after each item it pauses
 * for as long as the item took (at most {@code maxPause}), so healing takes at most about half of the drives' time.
 * Items are healed once they are {@code minAge} old (a burst of reports for one object coalesces, and writes in flight
 * finish first); items that could not finish wait for their backoff.
 */
public final class BackgroundHealer implements Agent {
    private static final Logger LOG = Logger.getLogger(BackgroundHealer.class.getName());

    /** Timing of the agent; tests shorten it. */
    public record Settings(
            boolean enabled, long startDelayMillis, long minAgeMillis, long maxPauseMillis, long maxWaitMillis) {
        static final Settings DEFAULTS = new Settings(true, 3_000, 1_000, 1_000, 1_000);
    }

    private final HealQueue queue;
    private final List<ObjectHealer> healers;
    private final ToIntFunction<String> setOfKey;
    private final ForegroundLoad load;
    private final Clock clock;
    private final long startedMillis;
    private volatile Settings settings = Settings.DEFAULTS;

    public BackgroundHealer(
            HealQueue queue,
            List<ObjectHealer> healers,
            ToIntFunction<String> setOfKey,
            ForegroundLoad load,
            Clock clock) {
        this.queue = queue;
        this.healers = healers;
        this.setOfKey = setOfKey;
        this.load = load;
        this.clock = clock;
        this.startedMillis = clock.millis();
    }

    @Override
    public String roleName() {
        return "healer";
    }

    public void settings(Settings s) {
        this.settings = s;
    }

    public Settings settings() {
        return settings;
    }

    /** Waits for a new report, at most {@code max}. */
    @Override
    public void idle(Duration max) throws InterruptedException {
        queue.awaitReport(max.toMillis());
    }

    /** Heals the next due item, if any, with the pauses of a background agent; returns the items handled (0 or 1). */
    @Override
    public int doWork() throws InterruptedException {
        Settings s = settings;
        // Started only a while after the store opened (on the engine's clock): the first reports after a restart
        // are often drives still coming up.
        if (!s.enabled() || clock.millis() - startedMillis < s.startDelayMillis()) {
            return 0;
        }
        HealQueue.Entry e = queue.take(s.minAgeMillis(), false);
        if (e == null) {
            return 0;
        }
        long started = System.nanoTime();
        try {
            load.awaitQuiet(s.maxWaitMillis());
        } catch (InterruptedException ie) {
            queue.finish(e, HealResult.of(HealResult.Status.RETRY, "interrupted"), null);
            throw ie;
        }
        healOne(e);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        Thread.sleep(Math.min(s.maxPauseMillis(), tookMillis));
        return 1;
    }

    /** Heals every pending item once, now, whatever its schedule (tests and operators); returns how many. */
    public int drain() {
        int n = 0;
        java.util.Set<HealQueue.Entry> seen = new java.util.HashSet<>();
        // Items that must be retried stay pending; each is tried once per drain.
        for (HealQueue.Entry e = queue.take(0, true, seen); e != null; e = queue.take(0, true, seen)) {
            seen.add(e);
            healOne(e);
            n++;
        }
        return n;
    }

    private void healOne(HealQueue.Entry e) {
        HealQueue.Item item = e.item();
        HealResult result = null;
        Throwable error = null;
        try {
            UUID id = item.versionId().isEmpty() ? null : VersionIds.parse(item.versionId());
            // The first attempt verifies every shard; retries (drives away) check presence and size only.
            boolean deep = queue.deep(e);
            result = healers.get(setOfKey.applyAsInt(item.key())).heal(item.bucket(), item.key(), id, deep);
            if (result.status() != HealResult.Status.HEALTHY && result.status() != HealResult.Status.NOT_FOUND) {
                LOG.info("heal " + e.name() + ": " + result.status() + " " + result.healedDrives() + " "
                        + result.bytesWritten() + " bytes " + result.detail());
            }
        } catch (RuntimeException ex) {
            error = ex;
            LOG.log(Level.WARNING, "heal " + e.name() + " failed", ex);
        }
        queue.finish(e, result, error);
    }
}
