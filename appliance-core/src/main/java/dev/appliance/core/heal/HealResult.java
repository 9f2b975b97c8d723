package dev.appliance.core.heal;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What healing one version (or every version of a key) did.
 *
 * @param healedDrives roots of the drives whose shards or metadata were rewritten (or, for {@link
 *     Status#DANGLING_REMOVED}, from which the version was removed)
 * @param bytesWritten shard bytes written (checksums included), metadata files not counted
 * @param detail why nothing was done or what is still missing, for logs and the status page
 */
public record HealResult(Status status, List<String> healedDrives, long bytesWritten, String detail) {

    /** How a heal ended; {@link #retry()} tells the queue to keep the item. */
    public enum Status {
        /** Every drive already held the version intact: nothing written. */
        HEALTHY,
        /** Every drive that lacked or had damaged shards or metadata was repaired. */
        HEALED,
        /** Some drives were repaired, others could not be reached: to be retried. */
        PARTIAL,
        /** Held by too few drives to ever reach quorum while the others answered they lack it: removed. */
        DANGLING_REMOVED,
        /** No drive holds the version (deleted since it was reported). */
        NOT_FOUND,
        /** Nothing could be done now (drives unreachable, or the version changed meanwhile): to be retried. */
        RETRY,
        /** Cannot be healed from what the drives hold (too few intact shards, drives disagree). */
        FAILED;

        public boolean retry() {
            return this == PARTIAL || this == RETRY;
        }
    }

    public HealResult {
        requireNonNull(status, "status");
        healedDrives = List.copyOf(healedDrives);
        detail = detail == null ? "" : detail;
    }

    public static HealResult of(Status status, String detail) {
        return new HealResult(status, List.of(), 0, detail);
    }

    /** One result for several versions of a key: the most urgent status, every drive, every byte. */
    public static HealResult combine(List<HealResult> results) {
        if (results.isEmpty()) {
            return of(Status.NOT_FOUND, "no version of the key on any drive");
        }
        java.util.LinkedHashSet<String> drives = new java.util.LinkedHashSet<>();
        long bytes = 0;
        boolean failed = false;
        boolean retry = false;
        boolean healed = false;
        boolean dangling = false;
        boolean healthy = false;
        StringBuilder details = new StringBuilder();
        for (HealResult r : results) {
            drives.addAll(r.healedDrives());
            bytes += r.bytesWritten();
            switch (r.status()) {
                case FAILED -> failed = true;
                case RETRY -> retry = true;
                case PARTIAL -> {
                    retry = true;
                    healed = true;
                }
                case HEALED -> healed = true;
                case DANGLING_REMOVED -> dangling = true;
                case HEALTHY -> healthy = true;
                case NOT_FOUND -> {
                    // nothing to add
                }
            }
            if (!r.detail().isEmpty() && r.status() != Status.HEALTHY && details.length() < 1000) {
                details.append(details.isEmpty() ? "" : "; ").append(r.detail());
            }
        }
        Status s;
        if (failed) {
            s = Status.FAILED;
        } else if (retry) {
            s = healed || dangling ? Status.PARTIAL : Status.RETRY;
        } else if (healed) {
            s = Status.HEALED;
        } else if (dangling) {
            s = Status.DANGLING_REMOVED;
        } else if (healthy) {
            s = Status.HEALTHY;
        } else {
            s = Status.NOT_FOUND;
        }
        return new HealResult(s, List.copyOf(drives), bytes, details.toString());
    }
}
