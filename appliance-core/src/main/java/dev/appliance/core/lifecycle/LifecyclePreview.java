package dev.appliance.core.lifecycle;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a set of lifecycle rules would do to a bucket if the scanner applied them now: a dry run that deletes nothing.
 * Counted by the scanner's own walk and {@link Lifecycle}'s evaluation, on the engine's clock (and the retention clock
 * for locks), over at most {@code versionCap} versions and delete markers.
 *
 * @param bucket the bucket walked
 * @param asOf the time the rules were evaluated at
 * @param keysExamined keys whose versions were walked
 * @param versionsExamined versions and delete markers walked
 * @param versionCap the most versions the walk examines
 * @param stopped whether the walk stopped at the cap (the counts then cover the keys before it)
 * @param expiredCurrent current versions that would expire (a delete marker placed in a versioned or suspended bucket,
 *     the object removed in an unversioned one)
 * @param removedNoncurrent noncurrent versions and noncurrent delete markers that would be removed
 * @param removedDeleteMarkers delete markers that would go because nothing is left behind them
 * @param abortedUploads incomplete multipart uploads that would be aborted (their sizes are not counted)
 * @param keptByLock versions a rule would remove but retention or a legal hold keeps
 * @param bytesFreed logical bytes of the object versions that would be removed
 */
public record LifecyclePreview(
        String bucket,
        Instant asOf,
        long keysExamined,
        long versionsExamined,
        int versionCap,
        boolean stopped,
        Action expiredCurrent,
        Action removedNoncurrent,
        Action removedDeleteMarkers,
        Action abortedUploads,
        Action keptByLock,
        long bytesFreed) {
    /** Versions a preview examines unless told otherwise. */
    public static final int DEFAULT_VERSION_CAP = 100_000;
    /** Sample keys kept per kind of action. */
    public static final int SAMPLES = 20;

    public LifecyclePreview {
        requireNonNull(bucket, "bucket");
        requireNonNull(asOf, "asOf");
    }

    /** How many of one kind, and the first {@link #SAMPLES} of them in walk order. */
    public record Action(long count, List<Sample> samples) {
        public Action {
            samples = List.copyOf(samples);
        }
    }

    /**
     * One version (or upload) a rule would act on.
     *
     * @param versionId the version's id ({@code null} for a null version; the upload id for an upload)
     * @param size its logical bytes (0 for a delete marker or an upload)
     * @param ruleId the rule that would act
     */
    public record Sample(String key, String versionId, long size, String ruleId) {}

    /** Counts one kind of action as a preview walks, keeping the first samples only (bounded memory). */
    public static final class Counter {
        private long count;
        private final List<Sample> samples = new ArrayList<>();

        public void add(Sample s) {
            count++;
            if (samples.size() < SAMPLES) {
                samples.add(s);
            }
        }

        public Action action() {
            return new Action(count, samples);
        }
    }
}
