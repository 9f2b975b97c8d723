package dev.appliance.s3.http;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission control shared by all connections: a cap on open connections, a cap on requests in flight (handed to a
 * worker and not yet answered), and a cap on requests waiting for admission.
 *
 * <p>A request that finds no free slot waits: its connection stops reading (TCP back-pressure reaches the client) and
 * registers a wake-up. Each release wakes one waiter, which simply tries again on its event loop; a waiter that finds
 * the slots taken again registers again. Only when more than {@code maxWaiting} requests wait is a request refused
 * ({@code 503 SlowDown}).
 *
 * <p>No wake-up is lost: a waiter checks for a free slot after registering and wakes someone itself if there is one;
 * a release frees its slot before it looks for a waiter. Spurious wake-ups are harmless (the woken request retries).
 */
final class Admission {
    /** What to do with a request. */
    enum Decision {
        ADMITTED,
        WAIT,
        REFUSED
    }

    private final int maxConnections;
    private final int maxInFlight;
    private final int maxWaiting;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();
    /** Set once the server stops: every request from then on is refused (see {@link #stopAdmitting}). */
    private volatile boolean stopping;
    /**
     * Responses a worker handed to its connection's event loop that are not yet written out (nor failed); also the
     * monitor {@link #awaitResponsesWritten} waits on.
     */
    private final AtomicInteger unwrittenResponses = new AtomicInteger();

    Admission(int maxConnections, int maxInFlight, int maxWaiting) {
        this.maxConnections = maxConnections;
        this.maxInFlight = maxInFlight;
        this.maxWaiting = maxWaiting;
    }

    /** A connection opened; false when it is over the cap (it still counts until {@link #connectionClosed}). */
    boolean connectionOpened() {
        return connections.incrementAndGet() <= maxConnections;
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    /**
     * Takes a slot for a request, or registers {@code wakeUp} (run from any thread when a slot may be free) and
     * answers {@link Decision#WAIT}, or refuses when too many wait already.
     *
     * @param alreadyWaiting the request was counted as waiting by an earlier call that answered WAIT
     */
    Decision admit(Runnable wakeUp, boolean alreadyWaiting) {
        if (tryAcquire()) {
            if (alreadyWaiting) {
                waiting.decrementAndGet();
            }
            return Decision.ADMITTED;
        }
        if (!alreadyWaiting && waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return Decision.REFUSED;
        }
        waiters.add(wakeUp);
        if (inFlight.get() < maxInFlight) {
            wakeOne();
        }
        return Decision.WAIT;
    }

    /**
     * The server is stopping: requests not yet admitted are refused from now on, and every waiting request is woken
     * to be refused too; requests already admitted run to their end.
     */
    void stopAdmitting() {
        stopping = true;
        Runnable r;
        while ((r = waiters.poll()) != null) {
            r.run();
        }
    }

    /** True once {@link #stopAdmitting} was called. */
    boolean stopping() {
        return stopping;
    }

    /** A worker begins to write a response (from its thread: the event loop does the writing later). */
    void responseWriting() {
        unwrittenResponses.incrementAndGet();
    }

    /** A response counted by {@link #responseWriting} is written out, or its write failed. Any thread. */
    void responseWritten() {
        if (unwrittenResponses.decrementAndGet() == 0) {
            synchronized (unwrittenResponses) {
                unwrittenResponses.notifyAll();
            }
        }
    }

    /**
     * Waits until every response counted by {@link #responseWriting} is written out, or until {@code deadlineNanos}
     * ({@link System#nanoTime}); answers whether they all were.
     */
    boolean awaitResponsesWritten(long deadlineNanos) throws InterruptedException {
        synchronized (unwrittenResponses) {
            while (unwrittenResponses.get() > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(unwrittenResponses, left);
            }
        }
        return true;
    }

    int unwrittenResponses() {
        return unwrittenResponses.get();
    }

    /** A waiting request gave up (its connection closed). */
    void abandonWait() {
        waiting.decrementAndGet();
        wakeOne(); // it may have been woken and swallowed a wake-up meant for someone else
    }

    /** Frees the slot of an admitted request. */
    void release() {
        inFlight.decrementAndGet();
        wakeOne();
    }

    private boolean tryAcquire() {
        int n;
        do {
            n = inFlight.get();
            if (n >= maxInFlight) {
                return false;
            }
        } while (!inFlight.compareAndSet(n, n + 1));
        return true;
    }

    /** A woken request that no longer waits hands the wake-up on. */
    void wakeUpPassedOn() {
        wakeOne();
    }

    private void wakeOne() {
        Runnable r = waiters.poll();
        if (r != null) {
            r.run();
        }
    }

    int connections() {
        return connections.get();
    }

    int inFlight() {
        return inFlight.get();
    }

    int waiting() {
        return waiting.get();
    }
}
