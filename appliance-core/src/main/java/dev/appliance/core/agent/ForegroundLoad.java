package dev.appliance.core.agent;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts client requests in flight so background healing can step aside: foreground I/O first, healing when the drives
 * are quiet. A deliberately simple priority scheme (a counter and short waits); the per-drive queue depth of the
 * design notes is a later refinement.
 */
public final class ForegroundLoad {
    private final AtomicInteger active = new AtomicInteger();
    private volatile int busyAt = 4;

    /** A request in flight; closing it (once) ends it. */
    public interface Ticket extends AutoCloseable {
        @Override
        void close();
    }

    public Ticket enter() {
        active.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                active.decrementAndGet();
            }
        };
    }

    /** Client calls in flight now. */
    public int active() {
        return active.get();
    }

    /** Requests in flight from which background work counts the store as busy. */
    void busyAt(int requests) {
        this.busyAt = Math.max(1, requests);
    }

    public boolean busy() {
        return active.get() >= busyAt;
    }

    /** Waits while the store is busy, at most {@code maxMillis}; background work goes on afterwards so it never starves. */
    public void awaitQuiet(long maxMillis) throws InterruptedException {
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        while (busy() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
