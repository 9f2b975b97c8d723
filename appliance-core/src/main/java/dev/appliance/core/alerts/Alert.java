package dev.appliance.core.alerts;

import java.util.List;

/**
 * One alert as stored on the drives and shown to the operator. Times are ISO-8601 instants (null when not reached).
 *
 * @param id {@code CODE:bucket}, or {@code CODE:check} for a health alert ({@link AlertCode#perBucket()} false);
 *     stable: the same condition in the same bucket (of the same check) is the same alert
 * @param bucket the bucket; null for a health alert
 * @param state {@code active} or {@code cleared}
 * @param acknowledged whether an operator acknowledged it since it was last raised
 * @param timesRaised how often it was raised (a clear followed by a new raise counts again)
 * @param summary one line naming the bucket and what is wrong
 * @param cause the likely cause
 * @param remedy what to do, concretely
 * @param figures the numbers behind it, at {@code updatedAt}; null for a health alert (its summary and cause carry
 *     the check's measured and expected values)
 */
public record Alert(
        String id,
        AlertCode code,
        AlertCode.Severity severity,
        String bucket,
        String state,
        boolean acknowledged,
        String acknowledgedAt,
        String raisedAt,
        String updatedAt,
        String clearedAt,
        int timesRaised,
        String summary,
        String cause,
        String remedy,
        Figures figures) {
    public static final String ACTIVE = "active";
    public static final String CLEARED = "cleared";

    public boolean active() {
        return ACTIVE.equals(state);
    }

    /**
     * @param threshold the bucket's versions-per-key alert threshold
     * @param maxVersionsPerKey the hard cap
     * @param keysOverThreshold keys known to be over the threshold
     * @param worstKeys the keys with the most versions, most first
     * @param versionsPerHour new versions per hour in the bucket (PUT path, or the scanner's counts between cycles)
     * @param identicalLastHour new versions in the last hour whose ETag equals that of the version before them
     * @param newVersionsLastHour new versions in the last hour
     * @param boundingRule the lifecycle rule that bounds the worst key's versions, or null when none does
     * @param boundPerKey versions per key that rule keeps at the current rate (-1: unbounded)
     * @param horizonSeconds the projection's horizon: one lifecycle day
     * @param projectedWorstKeyVersions the worst key's versions after the horizon if nothing changes (the cap included)
     * @param projectedBucketVersions the bucket's versions after the horizon if nothing changes
     * @param metadataBytesPerVersion metadata bytes per version on one drive, measured on the worst key's files
     * @param projectedWorstKeyMetadataBytes metadata of the worst key on each drive of its set after the horizon
     * @param projectedBucketMetadataBytes metadata of the whole bucket after the horizon, summed over the drives
     * @param secondsToCap when the worst key reaches the hard cap at the current rate (-1: not at this rate)
     */
    public record Figures(
            long threshold,
            long maxVersionsPerKey,
            long keysOverThreshold,
            List<KeyFigure> worstKeys,
            double versionsPerHour,
            long identicalLastHour,
            long newVersionsLastHour,
            String boundingRule,
            long boundPerKey,
            long horizonSeconds,
            long projectedWorstKeyVersions,
            long projectedBucketVersions,
            long metadataBytesPerVersion,
            long projectedWorstKeyMetadataBytes,
            long projectedBucketMetadataBytes,
            long secondsToCap) {
        public Figures {
            worstKeys = worstKeys == null ? List.of() : List.copyOf(worstKeys);
        }
    }

    /**
     * @param versions versions and delete markers (the scanner's count plus versions added since)
     * @param versionsPerHour the key's new versions per hour
     * @param identicalRun consecutive newest versions with the same ETag as the version before them
     */
    public record KeyFigure(String key, long versions, double versionsPerHour, long identicalRun) {}

    Alert with(String newState, boolean ack, String ackAt, String raised, String updated, String cleared, int times) {
        return new Alert(
                id, code, severity, bucket, newState, ack, ackAt, raised, updated, cleared, times, summary, cause,
                remedy, figures);
    }

    /** This alert cleared at {@code at}, its acknowledgement and raise count kept. */
    Alert cleared(String at) {
        return with(CLEARED, acknowledged, acknowledgedAt, raisedAt, at, at, timesRaised);
    }

    Alert withText(String summaryText, String causeText, String remedyText, Figures newFigures, String updated) {
        return new Alert(
                id,
                code,
                severity,
                bucket,
                state,
                acknowledged,
                acknowledgedAt,
                raisedAt,
                updated,
                clearedAt,
                timesRaised,
                summaryText,
                causeText,
                remedyText,
                newFigures);
    }
}
