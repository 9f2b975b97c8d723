package dev.appliance.s3.audit;

import java.util.function.LongSupplier;

/**
 * How many requests refused at authentication the audit log takes: a token bucket of {@code burst} events refilled at
 * {@code perSecond}. Anyone can send unauthenticated requests, and each recorded one costs drive space and a share of a
 * forced write, so without a bound a flood of forged deletes would rotate the genuine history out of the log (docs/
 * audit.md). A refusal over the budget is answered as before but not recorded; the next recorded one tells how many
 * were left out since the previous recorded one.
 *
 * <p>Asked on the event loop: a few arithmetic operations under the object's monitor, no I/O.
 */
public final class RefusalAuditBudget {
    /** The events taken at once by {@link #standard()}. */
    public static final int STANDARD_BURST = 100;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long burst;
    private final long nanosPerToken;
    private final LongSupplier nanoTime;
    private double tokens;
    private long refilledAt;
    private long leftOut;

    /**
     * @param burst the most events recorded at once
     * @param perSecond events recorded a second once the burst is spent
     * @param nanoTime the clock ({@link System#nanoTime} but in tests)
     */
    public RefusalAuditBudget(int burst, int perSecond, LongSupplier nanoTime) {
        if (burst < 1 || perSecond < 1) {
            throw new IllegalArgumentException("burst and perSecond must be at least 1");
        }
        this.burst = burst;
        this.nanosPerToken = NANOS_PER_SECOND / perSecond;
        this.nanoTime = nanoTime;
        this.tokens = burst;
        this.refilledAt = nanoTime.getAsLong();
    }

    /** 100 at once, then one a second: at about 500 bytes an event (3 KiB at most), some 43 MB a day. */
    public static RefusalAuditBudget standard() {
        return new RefusalAuditBudget(STANDARD_BURST, 1, System::nanoTime);
    }

    /**
     * Takes one event from the budget: the number of refusals left out since the previous event taken (0 and more), or
     * -1 when the budget is spent (this refusal is then counted as left out).
     */
    public synchronized long take() {
        long now = nanoTime.getAsLong();
        long elapsed = now - refilledAt;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + (double) elapsed / nanosPerToken);
            refilledAt = now;
        }
        if (tokens < 1) {
            leftOut++;
            return -1;
        }
        tokens--;
        long before = leftOut;
        leftOut = 0;
        return before;
    }

    /**
     * The details of an audited refusal: why it was refused ({@code authentication}) and, when the budget left some
     * out before it, how many ({@code unrecordedBefore}). A new map the caller may add to.
     *
     * @param leftOut what {@link #take} answered (0 and more)
     */
    public static java.util.Map<String, String> refusalDetails(String authentication, long leftOut) {
        java.util.Map<String, String> details = new java.util.LinkedHashMap<>();
        details.put("authentication", authentication);
        if (leftOut > 0) {
            details.put("unrecordedBefore", Long.toString(leftOut));
        }
        return details;
    }
}
