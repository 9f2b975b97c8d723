package dev.appliance.core.heal;

import java.time.Instant;
import java.util.List;

/**
 * The fill of one replaced drive, as the status endpoint and {@code appliance heal status} show it.
 *
 * @param state {@code queued} (formatted, waiting for another drive's heal to finish), {@code healing} (being filled:
 *     objects not yet reached are missing from it), {@code done} (every version found at the walk was healed onto it or
 *     is listed in {@code failures}), {@code stopped} (the store closed midway; a restart resumes)
 * @param objectsScanned keys walked (each key with all its versions), across restarts
 * @param objectsHealed keys for which something was written to the drive
 * @param objectsSkipped keys gone by the time the heal reached them
 * @param objectsFailed keys that could not be healed onto the drive (retried by the MRF queue)
 * @param objectsEstimated keys the set was estimated to hold when the heal started (from the bucket usage counts);
 *     0 when unknown
 * @param objectsPerSecond keys walked per second since this run of the heal started; once done, over the whole fill
 *     (started to finished)
 * @param etaSeconds estimated seconds left, or -1 when unknown
 * @param resumes how often the heal continued from its tracker after a restart
 * @param failures the newest failures by name, at most 20
 */
public record DriveHealStatus(
        String drive,
        int set,
        int slot,
        String state,
        Instant started,
        Instant updated,
        Instant finished,
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
        double bytesPerSecond,
        long etaSeconds,
        int resumes,
        List<Failure> failures) {

    /** An object that could not be healed onto the drive, or was skipped, and why. */
    public record Failure(String name, String reason, Instant time) {}

    public DriveHealStatus {
        failures = List.copyOf(failures);
    }
}
