package dev.appliance.core.agent;

/**
 * The threads of the store's background agents (the heal queue's healer, the drive filler): one low-priority daemon
 * platform thread each, stopped by an interrupt and a bounded wait, so a stuck agent never holds up a shutdown.
 */
public final class AgentThreads {
    private static final long STOP_WAIT_MILLIS = 10_000;

    private AgentThreads() {}

    public static Thread start(String name, Runnable body) {
        return Thread.ofPlatform()
                .name(name)
                .daemon()
                .priority(Thread.MIN_PRIORITY)
                .start(body);
    }

    /** Interrupts {@code thread} (null: never started) and waits up to 10 s for it to end. */
    public static void stop(Thread thread) {
        if (thread == null) {
            return;
        }
        thread.interrupt();
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
