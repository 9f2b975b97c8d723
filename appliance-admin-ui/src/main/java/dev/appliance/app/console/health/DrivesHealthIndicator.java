package dev.appliance.app.console.health;

import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.drive.LocalDrive;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@code drives}: each drive's set, slot, path and state ({@code online}, {@code offline}, {@code faulty} or {@code
 * healing}). DOWN while any set has lost write quorum; UP otherwise, with {@code degraded: true} while any drive is out
 * of service or being filled (the data has less redundancy than the parity promises until healing catches up).
 */
@Component
class DrivesHealthIndicator implements HealthIndicator {
    private final StoreAdmin store;

    DrivesHealthIndicator(StoreAdmin store) {
        this.store = store;
    }

    record DriveView(int set, int slot, String path, String state, String reason) {}

    @Override
    public Health health() {
        List<LocalDrive> drives = store.drives();
        int perSet = store.drivesPerSet();
        List<DriveView> views = new ArrayList<>(drives.size());
        int notOnline = 0;
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            String state = store.driveState(d);
            if (!state.equals("online")) {
                notOnline++;
            }
            views.add(new DriveView(
                    i / perSet + 1,
                    i % perSet + 1,
                    d.root().toString(),
                    state,
                    d.offlineReason().isEmpty() ? null : d.offlineReason()));
        }
        boolean writable = store.setQuorums().stream().allMatch(SetQuorum::writable);
        return (writable ? Health.up() : Health.down())
                .withDetail("degraded", notOnline > 0)
                .withDetail("notOnline", notOnline)
                .withDetail("drives", views)
                .build();
    }
}
