package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.BucketHealStatus;
import dev.appliance.core.heal.DriveHealStatus;
import dev.appliance.core.policy.AdminAction;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/heal/drives} (SigV4-signed, as the rest of the admin API): every drive's state ({@code
 * online}, {@code offline} with the reason, or {@code healing} while a replaced drive is being filled) and the progress
 * of each drive heal since start: objects and bytes, rate, ETA, failures by name. {@code appliance heal status} reads
 * it; {@code GET /api/v1/status} carries the same figures in its {@code heal} object. Sets and slots count from 1.
 *
 * <p>{@code POST /api/v1/admin/heal/retry}: every heal waiting for its retry backoff (up to 10 minutes after a long
 * outage) is tried now, as after reattaching a drive. Answers {@code {"pending": n}}.
 *
 * <p>{@code POST /api/v1/admin/heal/buckets} with {@code {"bucket": "b", "prefix": "vm1/"}} (prefix optional: the whole
 * bucket) starts a heal of every version of every key under the prefix in the background and answers {@code 202} with
 * its status (the one already queued or running for the same bucket and prefix, if any); {@code GET
 * /api/v1/admin/heal/buckets} lists them (queued, running, the newest ended), newest first.
 */
@RestController
class HealController {
    private final ApplianceStore store;

    HealController(ApplianceStore store) {
        this.store = store;
    }

    /** The answer of a retry: heals still queued. */
    record Pending(int pending) {}

    /** Every drive's state and the drive heals. */
    record DriveStates(List<DriveView> drives, List<DriveHealView> heals) {}

    /**
     * One drive, with where it is and why it is out of service.
     *
     * @param state {@code online}, {@code offline}, {@code faulty} or {@code healing}
     * @param problem why it is offline or faulty, or null
     * @param ioErrors I/O errors its calls met since start
     */
    record DriveView(
            String path,
            int set,
            int slot,
            String state,
            boolean online,
            String problem,
            long slowCalls,
            long ioErrors,
            boolean faultsInjected) {}

    /** A replaced drive being filled (or filled): progress, rate, ETA and failures by name; times ISO-8601. */
    record DriveHealView(
            String drive,
            int set,
            int slot,
            String state,
            String started,
            String updated,
            String finished,
            int bucketsDone,
            int bucketsTotal,
            String bucket,
            String lastKey,
            long objectsScanned,
            long objectsHealed,
            long objectsSkipped,
            long objectsFailed,
            long bytesHealed,
            long objectsEstimated,
            double objectsPerSecond,
            long bytesPerSecond,
            long etaSeconds,
            int resumes,
            List<FailureView> failures) {}

    /** An object a drive heal could not write. */
    record FailureView(String name, String reason, String time) {}

    /** What to heal: a bucket, and optionally a key prefix in it. */
    record StartBucketHeal(String bucket, String prefix) {}

    /** The heals of buckets started on request, newest first. */
    record BucketHeals(List<BucketHealView> heals) {}

    /**
     * A heal of a bucket or prefix: state ({@code queued}, {@code running}, {@code done}, {@code failed}, {@code
     * cancelled}), progress, rate and ETA ({@code -1} unknown), failures by key; times ISO-8601, {@code finished} null
     * until it ends.
     */
    record BucketHealView(
            long id,
            String bucket,
            String prefix,
            String state,
            String started,
            String updated,
            String finished,
            long objectsScanned,
            long objectsHealed,
            long objectsFailed,
            long bytesHealed,
            long objectsEstimated,
            double objectsPerSecond,
            long bytesPerSecond,
            long etaSeconds,
            String lastKey,
            String detail,
            List<BucketHealFailureView> failures) {
        static BucketHealView of(BucketHealStatus s) {
            return new BucketHealView(
                    s.id(),
                    s.bucket(),
                    s.prefix(),
                    s.state(),
                    s.started().toString(),
                    s.updated().toString(),
                    s.finished() == null ? null : s.finished().toString(),
                    s.objectsScanned(),
                    s.objectsHealed(),
                    s.objectsFailed(),
                    s.bytesHealed(),
                    s.objectsEstimated(),
                    Math.round(s.objectsPerSecond() * 10) / 10.0,
                    Math.round(s.bytesPerSecond()),
                    s.etaSeconds(),
                    s.lastKey(),
                    s.detail(),
                    s.failures().stream()
                            .map(f -> new BucketHealFailureView(
                                    f.key(), f.reason(), f.time().toString()))
                            .toList());
        }
    }

    /** A key a bucket heal could not heal now (the heal queue retries it). */
    record BucketHealFailureView(String key, String reason, String time) {}

    @AdminOperation(AdminAction.START_HEAL)
    @PostMapping("/api/v1/admin/heal/buckets")
    ResponseEntity<BucketHealView> startBucketHeal(@RequestBody StartBucketHeal body) {
        if (body == null || body.bucket() == null || body.bucket().isBlank()) {
            throw new BadField(400, "bucket", "bucket: missing (expected the name of the bucket to heal)");
        }
        String prefix = body.prefix() == null ? "" : body.prefix();
        BucketHealStatus started;
        try {
            started = store.startBucketHeal(body.bucket(), prefix);
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.BUCKET_NOT_FOUND) {
                throw new BadField(404, "bucket", "bucket: " + body.bucket() + " does not exist");
            }
            if (e.kind() == ErrorKind.INVALID_ARGUMENT) {
                throw new BadField(400, "prefix", e.getMessage());
            }
            throw e;
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(BucketHealView.of(started));
    }

    @AdminOperation(AdminAction.GET_HEAL_STATUS)
    @GetMapping("/api/v1/admin/heal/buckets")
    BucketHeals bucketHeals() {
        return new BucketHeals(
                store.bucketHeals().stream().map(BucketHealView::of).toList());
    }

    @AdminOperation(AdminAction.START_HEAL)
    @PostMapping("/api/v1/admin/heal/retry")
    Pending retry() {
        return new Pending(store.retryHealsNow());
    }

    @AdminOperation(AdminAction.GET_HEAL_STATUS)
    @GetMapping("/api/v1/admin/heal/drives")
    DriveStates drives() {
        return new DriveStates(driveStates(store), driveHeals(store));
    }

    /** Every drive in topology order with its set, slot, state and (when out of service) why. */
    static List<DriveView> driveStates(ApplianceStore store) {
        List<DriveView> out = new ArrayList<>();
        List<LocalDrive> drives = store.drives();
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            out.add(new DriveView(
                    d.root().toString(),
                    i / store.drivesPerSet() + 1,
                    i % store.drivesPerSet() + 1,
                    store.driveState(d),
                    d.isOnline(),
                    d.offlineReason(),
                    d.slowCalls(),
                    d.ioErrors(),
                    d.faults() != null));
        }
        return out;
    }

    static List<DriveHealView> driveHeals(ApplianceStore store) {
        List<DriveHealView> out = new ArrayList<>();
        for (DriveHealStatus h : store.driveHeals()) {
            out.add(new DriveHealView(
                    h.drive(),
                    h.set() + 1,
                    h.slot() + 1,
                    h.state(),
                    h.started().toString(),
                    h.updated().toString(),
                    h.finished() == null ? null : h.finished().toString(),
                    h.bucketsDone(),
                    h.bucketsTotal(),
                    h.bucket(),
                    h.lastKey(),
                    h.objectsScanned(),
                    h.objectsHealed(),
                    h.objectsSkipped(),
                    h.objectsFailed(),
                    h.bytesHealed(),
                    h.objectsEstimated(),
                    Math.round(h.objectsPerSecond() * 10) / 10.0,
                    Math.round(h.bytesPerSecond()),
                    h.etaSeconds(),
                    h.resumes(),
                    h.failures().stream()
                            .map(f -> new FailureView(
                                    f.name(), f.reason(), f.time().toString()))
                            .toList()));
        }
        return out;
    }
}
