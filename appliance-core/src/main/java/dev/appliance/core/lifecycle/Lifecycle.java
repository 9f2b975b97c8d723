package dev.appliance.core.lifecycle;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Evaluates lifecycle rules against versions, as S3 does. Pure: the caller gives the versions and the time.
 *
 * <h2>Days</h2>
 *
 * A rule's days count from a start time (a version's creation, or for noncurrent versions the creation of the version
 * that replaced it), and the due time is rounded up to the next midnight UTC: start + days, truncated to a day, plus
 * one day. An object created 2014-01-15T10:30Z with Days 3 expires 2014-01-19T00:00Z. The length of a "day" is
 * configurable ({@link #day()}; 24 hours in production, seconds in tests and demos); "midnight" is then a multiple of
 * that length since the epoch. {@code Date} actions are absolute and are not scaled.
 *
 * <h2>A key's versions</h2>
 *
 * {@link KeyPass} walks one key's versions newest first, one at a time (never all at once): the first is the current
 * version; each later one became noncurrent when the one before it was created.
 */
public final class Lifecycle {
    public static final Duration STANDARD_DAY = Duration.ofDays(1);

    private final Duration day;
    private final long dayMillis;

    public Lifecycle(Duration day) {
        requireNonNull(day, "day");
        if (day.toMillis() < 1) {
            throw new IllegalArgumentException("day: " + day + " (expected at least 1 ms)");
        }
        this.day = day;
        this.dayMillis = day.toMillis();
    }

    public Duration day() {
        return day;
    }

    /** {@code start} + {@code days}, rounded up to the next midnight (a multiple of the day length since the epoch). */
    public Instant due(Instant start, int days) {
        try {
            long t = Math.addExact(start.toEpochMilli(), Math.multiplyExact(days, dayMillis));
            return Instant.ofEpochMilli(Math.addExact(Math.floorDiv(t, dayMillis) * dayMillis, dayMillis));
        } catch (ArithmeticException e) {
            return Instant.MAX;
        }
    }

    /** When a current version expires and by which rule (the earliest of the matching rules). */
    public record Expiry(Instant date, String ruleId) {}

    /**
     * When the current version of {@code key} (created {@code modTime}, {@code size} bytes, {@code tags}) expires by
     * an Expiration rule; null when no enabled rule expires it. This is S3's {@code x-amz-expiration}.
     */
    public Expiry currentExpiry(
            LifecycleConfiguration config, String key, Instant modTime, long size, Map<String, String> tags) {
        Expiry best = null;
        for (Rule r : config.rules()) {
            if (!r.enabled() || r.expiration() == null || !r.expiration().expiresCurrent()) {
                continue;
            }
            if (!r.filter().matches(key, size, tags)) {
                continue;
            }
            Instant at = r.expiration().date() != null
                    ? r.expiration().date()
                    : due(modTime, r.expiration().days());
            if (best == null || at.isBefore(best.date())) {
                best = new Expiry(at, r.id());
            }
        }
        return best;
    }

    /** When an incomplete multipart upload of {@code key} started at {@code initiated} is aborted; null if never. */
    public Expiry uploadAbort(LifecycleConfiguration config, String key, Instant initiated) {
        Expiry best = null;
        for (Rule r : config.rules()) {
            if (r.enabled()
                    && r.abortIncompleteUploadDays() != null
                    && r.filter().matchesKey(key)) {
                Instant at = due(initiated, r.abortIncompleteUploadDays());
                if (best == null || at.isBefore(best.date())) {
                    best = new Expiry(at, r.id());
                }
            }
        }
        return best;
    }

    /** Whether any enabled rule could act on a key (decided by prefix): keys no rule can touch are only counted. */
    public static boolean mayApply(LifecycleConfiguration config, String key) {
        for (Rule r : config.rules()) {
            if (r.enabled()
                    && (r.expiration() != null || r.noncurrentExpiration() != null)
                    && r.filter().matchesKey(key)) {
                return true;
            }
        }
        return false;
    }

    /** One version as the evaluation needs it. Tags may be empty when no rule filters by tags. */
    public record Version(Instant modTime, boolean deleteMarker, long size, Map<String, String> tags) {
        public Version {
            requireNonNull(modTime, "modTime");
            tags = tags == null ? Map.of() : tags;
        }
    }

    /** What to do with one version. */
    public enum Action {
        KEEP,
        /** The current version expired: a delete marker is added (versioned buckets) or the object removed. */
        EXPIRE_CURRENT,
        /** A noncurrent version (or a noncurrent delete marker) is removed for good. */
        REMOVE_NONCURRENT
    }

    /** An action and the rule that asked for it (null for {@link Action#KEEP}). */
    public record Decision(Action action, String ruleId) {
        static final Decision KEEP = new Decision(Action.KEEP, null);
    }

    /** Starts the walk of one key's versions at time {@code now}. */
    public KeyPass pass(LifecycleConfiguration config, String key, Instant now) {
        return new KeyPass(config, key, now);
    }

    /**
     * One key's versions, offered newest first with {@link #next}. Holds a few fields, never the versions: a key with
     * 20,000 versions is evaluated in constant memory.
     */
    public final class KeyPass {
        private final LifecycleConfiguration config;
        private final String key;
        private final Instant now;
        private int seen;
        private Instant successorTime;
        private Version current;

        KeyPass(LifecycleConfiguration config, String key, Instant now) {
            this.config = requireNonNull(config, "config");
            this.key = requireNonNull(key, "key");
            this.now = requireNonNull(now, "now");
        }

        /** The decision for the next (older) version. */
        public Decision next(Version v) {
            requireNonNull(v, "v");
            int index = seen++;
            Instant becameNoncurrent = successorTime;
            successorTime = v.modTime();
            if (index == 0) {
                current = v;
                if (v.deleteMarker()) {
                    return Decision.KEEP; // decided by lonelyMarker once the rest is known
                }
                Expiry e = currentExpiry(config, key, v.modTime(), v.size(), v.tags());
                return e != null && !now.isBefore(e.date())
                        ? new Decision(Action.EXPIRE_CURRENT, e.ruleId())
                        : Decision.KEEP;
            }
            int newerNoncurrent = index - 1;
            for (Rule r : config.rules()) {
                var nc = r.noncurrentExpiration();
                if (!r.enabled() || nc == null) {
                    continue;
                }
                boolean matches = v.deleteMarker()
                        ? r.filter().matchesDeleteMarker(key)
                        : r.filter().matches(key, v.size(), v.tags());
                if (!matches) {
                    continue;
                }
                boolean daysDue =
                        nc.noncurrentDays() == null || !now.isBefore(due(becameNoncurrent, nc.noncurrentDays()));
                boolean enoughNewer =
                        nc.newerNoncurrentVersions() == null || newerNoncurrent >= nc.newerNoncurrentVersions();
                if (daysDue && enoughNewer) {
                    return new Decision(Action.REMOVE_NONCURRENT, r.id());
                }
            }
            return Decision.KEEP;
        }

        /**
         * Whether the current version, a delete marker, is to be removed now that {@code versionsLeft} other versions
         * remain behind it: only a marker with nothing behind it (an "expired object delete marker") goes, by a rule
         * with ExpiredObjectDeleteMarker, or by an Expiration Days rule once its days have passed since the marker
         * was created. Null when it stays, else the rule.
         */
        public String lonelyMarker(long versionsLeft) {
            if (current == null || !current.deleteMarker() || versionsLeft > 0) {
                return null;
            }
            for (Rule r : config.rules()) {
                var e = r.expiration();
                if (!r.enabled() || e == null || !r.filter().matchesDeleteMarker(key)) {
                    continue;
                }
                if (e.expiredObjectDeleteMarker()) {
                    return r.id();
                }
                if (e.days() != null && !now.isBefore(due(current.modTime(), e.days()))) {
                    return r.id();
                }
            }
            return null;
        }
    }
}
