package dev.appliance.core.heal;

import java.time.Instant;
import java.util.List;

/**
 * A heal of one bucket, or of a prefix in it, that an operator started ({@link BucketHealer}), as the admin API and the
 * console show it.
 *
 * @param id this heal's number since start (a later heal of the same bucket and prefix gets a new one)
 * @param prefix the key prefix healed; empty: the whole bucket
 * @param state {@code queued} (another bucket heal is running), {@code running}, {@code done} (every key found under
 *     the prefix was healed or is named in {@code failures}), {@code failed} (the walk itself stopped: {@code detail}
 *     says why) or {@code cancelled} (the store closed first)
 * @param started when it was asked for
 * @param finished when it ended, or null while queued or running
 * @param updated when the last key was done (or the state last changed)
 * @param objectsScanned keys walked, each with all its versions
 * @param objectsHealed keys for which something was written to a drive (shards, metadata, or a dangling version removed)
 * @param objectsFailed keys that could not be healed now (handed to the heal queue, which retries them)
 * @param bytesHealed shard bytes written
 * @param objectsEstimated keys the bucket holds by its usage counts when the heal started; 0 when unknown (a prefix)
 * @param objectsPerSecond keys walked per second since it started running (overall once it ended)
 * @param etaSeconds estimated seconds left; 0 once ended, -1 when unknown
 * @param lastKey the last key walked, or null before the first
 * @param detail why it failed or was cancelled; empty otherwise
 * @param failures the newest failures by name, at most {@link BucketHealer#MAX_FAILURES}
 */
public record BucketHealStatus(
        long id,
        String bucket,
        String prefix,
        String state,
        Instant started,
        Instant finished,
        Instant updated,
        long objectsScanned,
        long objectsHealed,
        long objectsFailed,
        long bytesHealed,
        long objectsEstimated,
        double objectsPerSecond,
        double bytesPerSecond,
        long etaSeconds,
        String lastKey,
        String detail,
        List<Failure> failures) {

    /** A key that could not be healed, and why. */
    public record Failure(String key, String reason, Instant time) {}

    public BucketHealStatus {
        failures = List.copyOf(failures);
    }

    /** Whether it has ended (done, failed or cancelled). */
    public boolean ended() {
        return finished != null;
    }
}
