package dev.appliance.core.agent;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Counts client requests in flight so background work (the scanner, healing) can step aside: foreground I/O first,
 * background work when the drives are quiet. A deliberately simple priority scheme (a counter and short waits); the
 * per-drive queue depth of the design notes is a later refinement.
 *
 * <p>The store is busy while {@link #busyAt} calls are in flight, and for {@link #HOLD_NANOS} after the last moment
 * they were. Why the hold: a store call is only part of a client request (the rest is the network, the signature, the
 * audit log), so sixteen clients kept busy may have fewer than four calls in the store at a given instant. Sampled
 * alone, that instant let the scanner walk at its full pace beside such loads: 12-15 % of the server's CPU under
 * PutObjectRetention and GET 4 KiB at concurrency 16 (docs/benchmarks.md, "The scanner beside client load").
 */
public final class ForegroundLoad {
    /** How long one moment of load keeps the store busy. */
    public static final long HOLD_NANOS = 250_000_000L;

    private final AtomicInteger active = new AtomicInteger();
    private final LongSupplier nanoTime;
    private volatile int busyAt = 4;
    /** {@link #nanoTime} when the store was last seen with {@link #busyAt} calls in flight (made: a hold ago). */
    private volatile long lastBusyNanos;

    public ForegroundLoad() {
        this(System::nanoTime);
    }

    /** With its own clock, for tests. */
    public ForegroundLoad(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.lastBusyNanos = nanoTime.getAsLong() - HOLD_NANOS;
    }

    /** A request in flight; closing it (once) ends it. */
    public interface Ticket extends AutoCloseable {
        @Override
        void close();
    }

    public Ticket enter() {
        if (active.incrementAndGet() >= busyAt) {
            markBusy();
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                active.decrementAndGet();
            }
        };
    }

    private void markBusy() {
        long now = nanoTime.getAsLong();
        // Stamped at most every few milliseconds: every request of a busy store writing one shared field is contention.
        if (now - lastBusyNanos > HOLD_NANOS / 64) {
            lastBusyNanos = now;
        }
    }

    /** Client calls in flight now. */
    public int active() {
        return active.get();
    }

    /** Requests in flight from which background work counts the store as busy. */
    void busyAt(int requests) {
        this.busyAt = Math.max(1, requests);
    }

    /** Whether {@link #busyAt} calls are in flight, or were within the last {@link #HOLD_NANOS}. */
    public boolean busy() {
        return active.get() >= busyAt || nanoTime.getAsLong() - lastBusyNanos < HOLD_NANOS;
    }

    /** Waits while the store is busy, at most {@code maxMillis}; background work goes on afterwards so it never starves. */
    public void awaitQuiet(long maxMillis) throws InterruptedException {
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        while (busy() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
