package dev.appliance.s3.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget of refusals at authentication the audit log takes: a burst, then a steady rate, the rest counted. */
class RefusalAuditBudgetTest {
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final RefusalAuditBudget budget = new RefusalAuditBudget(3, 2, nanos::get);

    @Test
    void aBurstIsTaken_thenRefusalsAreLeftOutAndCountedUntilTimeRefillsTheBudget() {
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isEqualTo(-1);
        assertThat(budget.take()).isEqualTo(-1);

        nanos.addAndGet(499_000_000); // not yet half a second: no event earned at two a second
        assertThat(budget.take()).isEqualTo(-1);
        nanos.addAndGet(1_000_000);
        // the next recorded refusal tells how many were left out before it
        assertThat(budget.take()).isEqualTo(3);
        assertThat(budget.take()).isEqualTo(-1);
        nanos.addAndGet(500_000_000);
        assertThat(budget.take()).isEqualTo(1);
    }

    @Test
    void aLongQuietSpell_refillsNoMoreThanTheBurst() {
        for (int i = 0; i < 3; i++) {
            budget.take();
        }
        nanos.addAndGet(3_600_000_000_000L);
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isZero();
        assertThat(budget.take()).isEqualTo(-1);
    }

    @Test
    void aBudgetOfNothing_isRefused() {
        assertThatThrownBy(() -> new RefusalAuditBudget(0, 1, nanos::get)).isInstanceOf(IllegalArgumentException.class);
    }
}
