package dev.appliance.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AgentTest {
    @Test
    void periodicAgent_runsOnlyWhenItsIntervalHasPassedOnTheInjectedClock() throws InterruptedException {
        MovableClock clock = new MovableClock();
        AtomicInteger runs = new AtomicInteger();
        Agent agent = Agent.every("purge", clock, Duration.ofSeconds(5), runs::incrementAndGet);

        assertThat(agent.doWork()).as("not due when made").isZero();
        clock.offset = clock.offset.plusSeconds(4);
        assertThat(agent.doWork()).isZero();
        clock.offset = clock.offset.plusSeconds(1);
        assertThat(agent.doWork()).isEqualTo(1);
        assertThat(agent.doWork()).as("the interval starts again").isZero();
        clock.offset = clock.offset.plusSeconds(5);
        assertThat(agent.doWork()).isEqualTo(1);
        assertThat(runs).hasValue(2);
    }

    @Test
    void periodicAgent_whenTheClockIsSetBack_runsAtOnceInsteadOfStalling() throws InterruptedException {
        MovableClock clock = new MovableClock();
        AtomicInteger runs = new AtomicInteger();
        Agent agent = Agent.every("checkpoint", clock, Duration.ofMinutes(1), runs::incrementAndGet);
        clock.offset = clock.offset.minusHours(1);

        assertThat(agent.doWork()).isEqualTo(1);
        assertThat(agent.doWork()).isZero();
        assertThat(runs).hasValue(1);
    }

    @Test
    void periodicAgent_refusesAnIntervalThatIsNotPositive() {
        assertThatThrownBy(() -> Agent.every("x", new MovableClock(), Duration.ZERO, () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x interval: PT0S");
    }

    @Test
    void runner_keepsRunningAfterAFailingCycle_andCloseStopsItsThread() throws Exception {
        CountDownLatch threeCycles = new CountDownLatch(3);
        AtomicInteger cycles = new AtomicInteger();
        Agent failingThenIdle = new Agent() {
            @Override
            public String roleName() {
                return "flaky";
            }

            @Override
            public int doWork() {
                threeCycles.countDown();
                if (cycles.incrementAndGet() == 1) {
                    throw new IllegalStateException("first cycle fails");
                }
                return 0;
            }

            @Override
            public void idle(Duration max) {
                // no wait: the test needs no time to pass
            }
        };
        AgentRunner runner = AgentRunner.start(failingThenIdle, Duration.ofMillis(1), Duration.ofMillis(2));
        assertThat(threeCycles.await(30, TimeUnit.SECONDS))
                .as("cycles go on after a failure")
                .isTrue();
        runner.close();
        assertThat(runner.stopped()).as("the agent's thread ended").isTrue();
    }

    @Test
    void runner_idlesAfterAnEmptyCycle_withAWaitThatBacksOffToTheMaximum() throws Exception {
        java.util.List<Duration> waits = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch fiveWaits = new CountDownLatch(5);
        Agent idleAgent = new Agent() {
            @Override
            public String roleName() {
                return "idle";
            }

            @Override
            public int doWork() {
                return 0;
            }

            @Override
            public void idle(Duration max) {
                waits.add(max);
                fiveWaits.countDown();
            }
        };
        try (AgentRunner runner = AgentRunner.start(idleAgent, Duration.ofMillis(10), Duration.ofMillis(40))) {
            assertThat(fiveWaits.await(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(waits.subList(0, 5))
                .containsExactly(
                        Duration.ofMillis(10),
                        Duration.ofMillis(20),
                        Duration.ofMillis(40),
                        Duration.ofMillis(40),
                        Duration.ofMillis(40));
    }

    @Test
    void runner_refusesIdleBoundsOutOfOrder() {
        Agent a = Agent.every("x", new MovableClock(), Duration.ofSeconds(1), () -> {});
        assertThatThrownBy(() -> AgentRunner.start(a, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idle: PT2S to PT1S");
    }
}
