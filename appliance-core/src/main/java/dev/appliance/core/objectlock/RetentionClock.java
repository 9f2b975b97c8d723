package dev.appliance.core.objectlock;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The trusted time Object Lock is evaluated against: moving the machine's clock backwards or forwards must not unlock
 * a version early.
 *
 * <h2>Policy</h2>
 *
 * <ul>
 *   <li><b>Never backwards.</b> The clock returns the newest time it ever returned. That time is persisted on the drives
 *       (every {@link #PERSIST_INTERVAL} and at shutdown) and read back at start (the newest copy wins), so a clock set
 *       back, even across a restart, only makes trusted time stand still until the wall clock catches up again. At
 *       most {@link #PERSIST_INTERVAL} of progress can be lost by a crash, which errs on the safe side (later expiry).
 *   <li><b>Forward jumps are believed only at a bounded rate.</b> At start the clock takes a base, {@code max(wall,
 *       persisted)}, and the monotonic clock ({@code System.nanoTime}) measures the time elapsed since. The wall clock is
 *       believed only up to {@code base + elapsed + elapsed * MAX_GAIN_PPM / 10^6 + FORWARD_ALLOWANCE}: it may gain on
 *       the monotonic clock by {@value #MAX_GAIN_PPM} ppm (more than any crystal drift or NTP slew, 500 ppm at most)
 *       plus one {@link #FORWARD_ALLOWANCE} for NTP's first step after boot. A jump of one day forward is therefore
 *       absorbed over 1000 days of uptime, i.e. it never unlocks anything early in practice; trusted time keeps
 *       following the monotonic clock meanwhile.
 *   <li><b>Across a restart</b> no monotonic reference survives. A wall clock found ahead of the persisted time at start
 *       is believed only when the kernel says the host clock is NTP-synchronized ({@link HostTimeSync}): then an
 *       outside time source vouches for it. Otherwise trusted time resumes from the persisted time plus the one
 *       {@link #FORWARD_ALLOWANCE} (which covers a quick restart), so a clock set forward while the appliance was down
 *       unlocks nothing; the cost is that a long stop on an unsynchronized host extends every retention by the time
 *       stopped. {@link #status()} reports both, for the health checks.
 * </ul>
 *
 * New retain-until dates computed here (bucket default retention) use {@link #latest()}, the later of trusted and wall
 * time, so neither clock error shortens a retention.
 */
public final class RetentionClock {
    /** How often the newest trusted time is written to the drives (also written at shutdown). */
    public static final Duration PERSIST_INTERVAL = Duration.ofSeconds(10);
    /** How much faster than the monotonic clock the wall clock may run and still be believed, in parts per million. */
    public static final long MAX_GAIN_PPM = 1_000;
    /** A fixed allowance for a forward step of the wall clock (NTP's first correction after boot). */
    public static final Duration FORWARD_ALLOWANCE = Duration.ofMinutes(1);

    /** Where the newest trusted time is kept between runs. */
    public interface Store {
        /** The newest persisted time in epoch milliseconds, or {@code Long.MIN_VALUE} when none was ever persisted. */
        long load();

        /** Persists {@code epochMillis}; best effort, failures are the implementation's to report. */
        void save(long epochMillis);
    }

    /**
     * What the health checks show.
     *
     * @param trusted the time Object Lock is evaluated against now
     * @param wall the machine's clock now
     * @param wallClockBelieved whether the two agree ({@link #wallClockBelieved()})
     * @param hostSync the kernel's view of NTP synchronization now
     * @param forwardJumpNotBelievedAtStart how far the wall clock was ahead of the persisted time at start beyond what
     *     was believed (zero when the start was ordinary)
     */
    public record Status(
            Instant trusted,
            Instant wall,
            boolean wallClockBelieved,
            HostTimeSync.State hostSync,
            Duration forwardJumpNotBelievedAtStart) {}

    private final Clock wall;
    private final LongSupplier nanoTime;
    private final Store store;
    private final Supplier<HostTimeSync.State> hostSync;
    private final long forwardJumpNotBelievedMillis;
    private final long baseMillis;
    private final long startNanos;
    private final AtomicLong newest;
    private volatile long lastSavedMillis;
    private volatile long lastSaveNanos;

    public RetentionClock(Clock wall, LongSupplier nanoTime, Store store) {
        this(wall, nanoTime, store, HostTimeSync::state);
    }

    public RetentionClock(Clock wall, LongSupplier nanoTime, Store store, Supplier<HostTimeSync.State> hostSync) {
        this.wall = requireNonNull(wall, "wall");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
        this.store = requireNonNull(store, "store");
        this.hostSync = requireNonNull(hostSync, "hostSync");
        long persisted = store.load();
        this.startNanos = nanoTime.getAsLong();
        long w = wall.millis();
        if (persisted == Long.MIN_VALUE || w <= persisted || hostSync.get() == HostTimeSync.State.SYNCHRONIZED) {
            this.baseMillis = Math.max(w, persisted);
            this.forwardJumpNotBelievedMillis = 0;
        } else {
            // Ahead of the persisted time with nothing to vouch for it: the ceiling still allows FORWARD_ALLOWANCE.
            this.baseMillis = persisted;
            this.forwardJumpNotBelievedMillis = Math.max(0, w - persisted - FORWARD_ALLOWANCE.toMillis());
        }
        this.newest = new AtomicLong(baseMillis);
        this.lastSavedMillis = persisted;
        this.lastSaveNanos = startNanos;
    }

    /** A clock that persists nothing, over the system's wall and monotonic clocks (tests, tools). */
    public static RetentionClock unpersisted(Clock wall) {
        return new RetentionClock(wall, System::nanoTime, new Store() {
            @Override
            public long load() {
                return Long.MIN_VALUE;
            }

            @Override
            public void save(long epochMillis) {}
        });
    }

    /** Trusted time: never earlier than a time returned before, never further ahead than the policy believes. */
    public Instant now() {
        long candidate = Math.min(wall.millis(), ceilingMillis());
        return Instant.ofEpochMilli(newest.accumulateAndGet(candidate, Math::max));
    }

    /** The later of trusted time and the wall clock: the start of a new retention period. */
    public Instant latest() {
        return Instant.ofEpochMilli(Math.max(now().toEpochMilli(), wall.millis()));
    }

    /** True while the wall clock agrees with trusted time (not behind it, not beyond what the policy believes). */
    public boolean wallClockBelieved() {
        long w = wall.millis();
        return w >= newest.get() && w <= ceilingMillis();
    }

    public Status status() {
        Instant trusted = now();
        return new Status(
                trusted,
                wall.instant(),
                wallClockBelieved(),
                hostSync.get(),
                Duration.ofMillis(forwardJumpNotBelievedMillis));
    }

    private long ceilingMillis() {
        long elapsedMillis = Math.max(0, (nanoTime.getAsLong() - startNanos) / 1_000_000);
        return baseMillis + elapsedMillis + elapsedMillis * MAX_GAIN_PPM / 1_000_000 + FORWARD_ALLOWANCE.toMillis();
    }

    /** Persists the newest trusted time when {@link #PERSIST_INTERVAL} has passed since the last save. */
    public void saveIfDue() {
        long n = nanoTime.getAsLong();
        if (n - lastSaveNanos >= PERSIST_INTERVAL.toNanos()) {
            save();
        }
    }

    /** Persists the newest trusted time now (at shutdown). */
    public void save() {
        long t = now().toEpochMilli();
        lastSaveNanos = nanoTime.getAsLong();
        if (t != lastSavedMillis) {
            store.save(t);
            lastSavedMillis = t;
        }
    }
}
