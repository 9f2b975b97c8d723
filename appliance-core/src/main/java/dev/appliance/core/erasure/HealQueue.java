package dev.appliance.core.erasure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.logging.Logger;

/**
 * Versions found partially written or with missing or corrupt shards, newest report first, waiting for healing. For
 * now it is held in memory and bounded; the persisted per-drive journal and the healer that drains it come with the
 * resilience work.
 */
public final class HealQueue {
    private static final Logger LOG = Logger.getLogger(HealQueue.class.getName());
    private static final int CAPACITY = 100_000;

    /** One version to heal and why. */
    public record Item(String bucket, String key, String versionId, String reason) {}

    private final ConcurrentLinkedDeque<Item> items = new ConcurrentLinkedDeque<>();

    void report(String bucket, String key, String versionId, String reason) {
        LOG.warning(() -> "needs healing: " + bucket + "/" + key + " version " + versionId + ": " + reason);
        items.addFirst(new Item(bucket, key, versionId, reason));
        while (items.size() > CAPACITY) {
            items.pollLast();
        }
    }

    public List<Item> snapshot() {
        return new ArrayList<>(items);
    }
}
