package dev.appliance.app.console.health;

import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.objectlock.RetentionClock;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@code clock}: the retention clock Object Lock is evaluated against (docs/object-lock.md). Always UP: retention
 * stays safe whatever the system clock does, because trusted time never runs ahead of what the policy believes. The
 * details carry a {@code warning} when the system clock is not believed now, when the host says NTP is not
 * synchronised, or when a forward jump of the system clock was not believed at start (retention then counts from the
 * persisted time until the clocks meet).
 */
@Component
class ClockHealthIndicator implements HealthIndicator {
    private final StoreAdmin store;

    ClockHealthIndicator(StoreAdmin store) {
        this.store = store;
    }

    @Override
    public Health health() {
        RetentionClock.Status s = store.retentionClock().status();
        Health.Builder h = Health.up()
                .withDetail("trustedTime", s.trusted().toString())
                .withDetail("systemTime", s.wall().toString())
                .withDetail("systemClockBelieved", s.wallClockBelieved())
                .withDetail("ntp", s.hostSync().name())
                .withDetail(
                        "forwardJumpNotBelievedAtStartSeconds",
                        s.forwardJumpNotBelievedAtStart().toSeconds());
        String warning = warning(s);
        if (warning != null) {
            h.withDetail("warning", warning);
        }
        return h.build();
    }

    static String warning(RetentionClock.Status s) {
        if (!s.forwardJumpNotBelievedAtStart().isZero()) {
            return "the system clock was " + s.forwardJumpNotBelievedAtStart().toSeconds()
                    + " s ahead of the persisted trusted time at start, with nothing to vouch for it: retention"
                    + " counts from trusted time until the clocks meet; check NTP";
        }
        if (!s.wallClockBelieved()) {
            return "the system clock disagrees with trusted time (stepped back, or running ahead faster than"
                    + " believed); Object Lock uses trusted time; check NTP";
        }
        if (s.hostSync() == HostTimeSync.State.UNSYNCHRONIZED) {
            return "the host reports its clock is not synchronised by NTP";
        }
        return null;
    }
}
