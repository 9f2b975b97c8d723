package dev.appliance.app.console.health;

import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.admin.StoreAdmin;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@code quorum}: DOWN while any erasure set has fewer drives in service than a write needs (writes fail with 503
 * then), UP otherwise; the details give each set's drives in service against its read and write quorum. Read from the
 * drives' cached state ({@link StoreAdmin#setQuorums}): no drive I/O per check.
 */
@Component
class QuorumHealthIndicator implements HealthIndicator {
    private final StoreAdmin store;

    QuorumHealthIndicator(StoreAdmin store) {
        this.store = store;
    }

    /** One set as the details show it. */
    record SetView(
            int set, int drives, int online, int readQuorum, int writeQuorum, boolean readable, boolean writable) {
        static SetView of(SetQuorum q) {
            return new SetView(
                    q.set(), q.drives(), q.online(), q.readQuorum(), q.writeQuorum(), q.readable(), q.writable());
        }
    }

    @Override
    public Health health() {
        List<SetQuorum> sets = store.setQuorums();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("sets", sets.stream().map(SetView::of).toList());
        List<Integer> withoutWrites =
                sets.stream().filter(q -> !q.writable()).map(SetQuorum::set).toList();
        List<Integer> withoutReads =
                sets.stream().filter(q -> !q.readable()).map(SetQuorum::set).toList();
        if (!withoutWrites.isEmpty()) {
            details.put("writeQuorumLost", withoutWrites);
        }
        if (!withoutReads.isEmpty()) {
            details.put("readQuorumLost", withoutReads);
        }
        return (withoutWrites.isEmpty() ? Health.up() : Health.down())
                .withDetails(details)
                .build();
    }
}
