package dev.appliance.core.agent;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one {@link Agent} on its own low-priority daemon platform thread: duty cycles back to back while they find work,
 * and between empty ones an idle wait that backs off from {@code minIdle} to {@code maxIdle}. A failing cycle is logged
 * and the agent goes on; {@link #close} interrupts it and waits a bounded time, so a stuck agent never holds up a
 * shutdown.
 */
public final class AgentRunner implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(AgentRunner.class.getName());
    private static final long STOP_WAIT_MILLIS = 10_000;

    private final Agent agent;
    private final Duration minIdle;
    private final Duration maxIdle;
    private volatile boolean running = true;
    private final Thread thread;

    private AgentRunner(Agent agent, Duration minIdle, Duration maxIdle) {
        this.agent = requireNonNull(agent, "agent");
        this.minIdle = requireNonNull(minIdle, "minIdle");
        this.maxIdle = requireNonNull(maxIdle, "maxIdle");
        if (minIdle.isNegative() || minIdle.isZero() || maxIdle.compareTo(minIdle) < 0) {
            throw new IllegalArgumentException(
                    "idle: " + minIdle + " to " + maxIdle + " (expected 0 < minIdle <= maxIdle)");
        }
        this.thread = Thread.ofPlatform()
                .name(agent.roleName())
                .daemon()
                .priority(Thread.MIN_PRIORITY)
                .unstarted(this::run);
    }

    /** Starts {@code agent}; empty cycles are followed by waits from {@code minIdle}, doubling up to {@code maxIdle}. */
    public static AgentRunner start(Agent agent, Duration minIdle, Duration maxIdle) {
        AgentRunner runner = new AgentRunner(agent, minIdle, maxIdle);
        runner.thread.start();
        return runner;
    }

    public Agent agent() {
        return agent;
    }

    private void run() {
        Duration idle = minIdle;
        while (running) {
            try {
                if (agent.doWork() > 0) {
                    idle = minIdle;
                    continue;
                }
                agent.idle(idle);
                idle = idle.multipliedBy(2).compareTo(maxIdle) > 0 ? maxIdle : idle.multipliedBy(2);
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, agent.roleName() + ": duty cycle failed; the agent goes on", e);
                try {
                    agent.idle(maxIdle); // a cycle failing at once must not spin
                } catch (InterruptedException ie) {
                    if (!running) {
                        return;
                    }
                }
            }
        }
    }

    /** Stops the agent: interrupts a cycle in progress and waits up to 10 s for it to end. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the agent's thread has ended (after {@link #close}). */
    public boolean stopped() {
        return !thread.isAlive();
    }
}
