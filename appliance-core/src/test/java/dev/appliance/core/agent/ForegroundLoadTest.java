package dev.appliance.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ForegroundLoadTest {
    private static final long MS = 1_000_000L;

    private final AtomicLong now = new AtomicLong(-5_000 * MS); // nanoTime may be negative
    private final ForegroundLoad load = new ForegroundLoad(now::get);

    private List<ForegroundLoad.Ticket> enter(int n) {
        List<ForegroundLoad.Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tickets.add(load.enter());
        }
        return tickets;
    }

    @Test
    void aStoreThatWasNeverBusy_isQuiet() {
        assertThat(load.busy()).isFalse();
        List<ForegroundLoad.Ticket> three = enter(3);
        assertThat(load.busy())
                .as("three calls in flight are below the threshold")
                .isFalse();
        three.forEach(ForegroundLoad.Ticket::close);
        assertThat(load.busy()).isFalse();
        assertThat(load.active()).isZero();
    }

    @Test
    void fourCallsInFlight_keepTheStoreBusyForTheHoldAfterTheyEnd() {
        List<ForegroundLoad.Ticket> four = enter(4);
        assertThat(load.busy()).isTrue();
        now.addAndGet(10_000 * MS);
        assertThat(load.busy()).as("in flight, however long").isTrue();
        four.forEach(ForegroundLoad.Ticket::close);
        // The hold counts from the last moment the threshold was reached, the fourth call's start.
        assertThat(load.busy())
                .as("quiet at once: the busy moment was long ago")
                .isFalse();

        enter(4).forEach(ForegroundLoad.Ticket::close);
        assertThat(load.active()).isZero();
        assertThat(load.busy()).as("just after the moment").isTrue();
        now.addAndGet(ForegroundLoad.HOLD_NANOS - MS);
        assertThat(load.busy()).as("within the hold").isTrue();
        now.addAndGet(2 * MS);
        assertThat(load.busy()).as("after the hold").isFalse();
    }

    @Test
    void callsThatComeAndGo_keepTheStoreBusy_whileTheyReachTheThresholdWithinEachHold() {
        // As sixteen clients whose store calls are a fraction of their requests: four at once now and then.
        for (int step = 0; step < 40; step++) {
            List<ForegroundLoad.Ticket> tickets = enter(step % 10 == 0 ? 4 : 2);
            tickets.forEach(ForegroundLoad.Ticket::close);
            assertThat(load.busy()).as("step %d", step).isTrue();
            now.addAndGet(20 * MS);
        }
        now.addAndGet(ForegroundLoad.HOLD_NANOS);
        assertThat(load.busy()).isFalse();
    }

    @Test
    void aTicketClosedTwice_endsItsCallOnce() {
        ForegroundLoad.Ticket a = load.enter();
        ForegroundLoad.Ticket b = load.enter();
        a.close();
        a.close();
        assertThat(load.active()).isEqualTo(1);
        b.close();
        assertThat(load.active()).isZero();
    }
}
