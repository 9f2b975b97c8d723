package dev.appliance.core.heal;

import java.time.Instant;
import java.util.List;

/**
 * The heal (MRF) queue's figures, as the status endpoint and {@code appliance heal status} show them.
 *
 * @param pending items waiting (including those retrying, and those spilled to the journal)
 * @param retrying pending items whose last heal could not finish (drives unreachable), waiting for their backoff
 * @param healed items healed (shards or metadata rewritten, or a dangling version removed) since start
 * @param failed heals that failed since start (data lost, drives disagreeing, or errors)
 * @param lastFailures the newest failures, newest first
 * @param spilled of {@code pending}, reports held in the journal only because the in-memory queue was full (an upper
 *     bound: a key reported again while spilled counts again), loaded back as the queue drains
 */
public record HealQueueStatus(
        int pending, int retrying, long healed, long failed, List<Failure> lastFailures, long spilled) {

    /** A heal that failed, for the operator. */
    public record Failure(String item, String reason, Instant time) {}
}
