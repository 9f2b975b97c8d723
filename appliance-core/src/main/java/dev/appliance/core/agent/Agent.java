package dev.appliance.core.agent;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;

/**
 * A background service of the engine (healer, drive filler, scanner, trash purger, journal checkpoints, drive checks):
 * a role name and a duty cycle. {@link #doWork} does what is due now and returns how much it did; an {@link
 * AgentRunner} calls it on its own thread and idles between empty cycles. Whether work is due is decided on the
 * engine's injected {@link Clock}, never on the wall clock or by sleeping, so a test moves time and calls {@code
 * doWork()} itself.
 */
public interface Agent {
    /** A short name: the thread's name and the subject of log lines. */
    String roleName();

    /** Does the work due now; returns the units done, 0 when nothing was due (the runner then idles). */
    int doWork() throws InterruptedException;

    /**
     * Waits after an empty duty cycle, at most {@code max}; an agent that can be woken (a queue) returns early when work
     * arrives. Real time: only how soon the next cycle looks, never whether work is due.
     */
    default void idle(Duration max) throws InterruptedException {
        Thread.sleep(max);
    }

    /**
     * An agent that runs {@code work} once every {@code interval} of {@code clock}, first one interval after it is made.
     * A clock set back (an NTP step) makes the work due at once rather than stalling it until the clock catches up.
     */
    static Agent every(String roleName, Clock clock, Duration interval, Runnable work) {
        return new PeriodicAgent(roleName, clock, interval, work);
    }

    /** See {@link #every}. */
    final class PeriodicAgent implements Agent {
        private final String roleName;
        private final Clock clock;
        private final Duration interval;
        private final Runnable work;
        private long lastMillis;

        private PeriodicAgent(String roleName, Clock clock, Duration interval, Runnable work) {
            this.roleName = requireNonNull(roleName, "roleName");
            this.clock = requireNonNull(clock, "clock");
            this.interval = requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException(roleName + " interval: " + interval + " (expected > 0)");
            }
            this.work = requireNonNull(work, "work");
            this.lastMillis = clock.millis();
        }

        @Override
        public String roleName() {
            return roleName;
        }

        @Override
        public synchronized int doWork() {
            long now = clock.millis();
            boolean due = now < lastMillis || now - lastMillis >= interval.toMillis();
            if (!due) {
                return 0;
            }
            lastMillis = now;
            work.run();
            return 1;
        }

        @Override
        public String toString() {
            return roleName + " every " + interval;
        }
    }
}
