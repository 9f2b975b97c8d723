package dev.appliance.core.alerts;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.scanner.ScanReport;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Version-explosion alerts. Two inputs: the PUT path reports every new version of a versioned bucket ({@link
 * #versionAdded}: the key's consecutive equal-ETag versions and the bucket's rate, in memory, O(1) per PUT), and the
 * scanner reports each cycle ({@link #scanned}: the keys with the most versions per bucket). {@link #evaluate} (after
 * each cycle and every few seconds in between) decides per bucket which alerts hold, raises, updates and clears them,
 * and saves the alerts on the drives ({@link AlertFile}) whenever one is raised, cleared or acknowledged.
 *
 * <p>An alert is one per code and bucket (its id is {@code CODE:bucket}): a condition that goes on holding updates its
 * figures, never adds a second alert. Acknowledging it lasts until it clears; raised again later, it is unacknowledged.
 * A condition is only cleared on knowledge: counts from a scanner cycle run since start (the PUT path alone undercounts
 * after a restart), or a lifecycle rule that bounds the versions.
 */
public final class VersionAlerts {
    private static final Logger LOG = Logger.getLogger(VersionAlerts.class.getName());

    public static final int DEFAULT_THRESHOLD = 1000;
    /** Keys named in an alert. */
    static final int WORST_KEYS = 5;
    /** Keys followed on the PUT path at once (about 200 bytes each); more are counted per bucket only. */
    static final int MAX_TRACKED_KEYS = 100_000;
    /** Cleared alerts kept as history. */
    static final int CLEARED_KEPT = 100;
    /** A key at this share of the hard cap raises {@link AlertCode#VERSIONS_NEAR_CAP}. */
    static final double NEAR_CAP_SHARE = 0.9;
    /**
     * xl.meta bytes per version when no file can be measured: measured on a 4-drive store, a 1 KiB object with user
     * metadata, versions in xl.meta and its archive (docs/alerts.md).
     */
    static final long DEFAULT_META_BYTES_PER_VERSION = 400;
    /** How often changed figures (without a state change) are saved to the drives. */
    static final Duration FIGURES_SAVED_EVERY = Duration.ofMinutes(1);

    /** What the alerts read from the store. */
    public interface Source {
        /** Whether the bucket exists. */
        boolean bucketExists(String bucket);

        /** The bucket's versions-per-key alert threshold. */
        int threshold(String bucket);

        /** The bucket's lifecycle rules, or null. */
        LifecycleConfiguration lifecycle(String bucket);

        Duration dayLength();

        Duration scannerInterval();

        int maxVersionsPerKey();

        /** Metadata bytes of the key on one drive (xl.meta and its archive), or -1 when unknown. */
        long metadataBytes(String bucket, String key);

        int drivesPerSet();
    }

    private final Source source;
    private final AlertFile file;
    private final Clock clock;
    private final Map<String, BucketActivity> activity = new ConcurrentHashMap<>();
    private final AtomicInteger trackedKeys = new AtomicInteger();
    private final Map<String, ScanReport.BucketScan> scans = new ConcurrentHashMap<>();
    private final Map<String, Rate> scanRates = new ConcurrentHashMap<>();
    /** Buckets counted by a scanner cycle since start: only their counts can clear a count alert. */
    private final Set<String> scannedSinceStart = ConcurrentHashMap.newKeySet();

    private final Object stateLock = new Object();
    /** One evaluation at a time: a slow one finishing after a newer one would undo its verdicts. */
    private final Object evaluationLock = new Object();

    private final LinkedHashMap<String, Alert> alerts = new LinkedHashMap<>();
    private long revision;
    private boolean dirty;
    private long lastSaveMillis;

    /** The bucket's growth between two scanner cycles. */
    private record Rate(long versions, long atMillis, double perHour) {}

    /** What the PUT path saw of a bucket. */
    private static final class BucketActivity {
        final Map<String, KeyActivity> keys = new ConcurrentHashMap<>();
        final RateWindow puts = new RateWindow();
        final RateWindow identical = new RateWindow();
        long putsSinceScan;
    }

    /** What the PUT path saw of a key. */
    private static final class KeyActivity {
        final RateWindow puts = new RateWindow();
        String lastEtag;
        long identicalRun;
        long putsSinceScan;
        /** The key's count at the last cycle, when it was among the bucket's top keys; -1 otherwise. */
        long scanned = -1;

        long lastMillis;
    }

    public VersionAlerts(Source source, List<LocalDrive> drives, Clock clock) {
        this.source = source;
        this.file = new AlertFile(drives);
        this.clock = clock;
        AlertFile.Content stored = file.load();
        revision = stored.revision();
        for (Alert a : stored.alerts()) {
            alerts.put(a.id(), a);
        }
        lastSaveMillis = clock.millis();
    }

    // ------------------------------------------------------------------------------------------------------ inputs

    /** A new version of {@code key} in a versioned bucket, with its ETag. Cheap: called on every PUT. */
    public void versionAdded(String bucket, String key, String etag) {
        long now = clock.millis();
        BucketActivity b = activity.computeIfAbsent(bucket, k -> new BucketActivity());
        KeyActivity k = b.keys.get(key);
        if (k == null && trackedKeys.get() < MAX_TRACKED_KEYS) {
            k = b.keys.computeIfAbsent(key, x -> {
                trackedKeys.incrementAndGet();
                return new KeyActivity();
            });
        }
        boolean identical = false;
        if (k != null) {
            synchronized (k) {
                identical = etag != null && etag.equals(k.lastEtag);
                k.identicalRun = identical ? k.identicalRun + 1 : 0;
                k.lastEtag = etag;
                k.putsSinceScan++;
                k.puts.add(now, 1);
                k.lastMillis = now;
            }
        }
        synchronized (b) {
            b.puts.add(now, 1);
            if (identical) {
                b.identical.add(now, 1);
            }
            b.putsSinceScan++;
        }
    }

    /** A completed scanner cycle: its per-bucket counts replace the PUT path's estimates; then evaluates. */
    public void scanned(ScanReport report) {
        long now = clock.millis();
        for (ScanReport.BucketScan s : report.buckets().values()) {
            String bucket = s.bucket();
            ScanReport.BucketScan before = scans.put(bucket, s);
            Rate previous = scanRates.get(bucket);
            double perHour = 0;
            if (before != null && previous != null && now > previous.atMillis()) {
                perHour = Math.max(0, s.versionsOfKeys() - previous.versions())
                        * (double) RateWindow.WINDOW_MILLIS
                        / (now - previous.atMillis());
            }
            scanRates.put(bucket, new Rate(s.versionsOfKeys(), now, perHour));
            scannedSinceStart.add(bucket);
            BucketActivity b = activity.get(bucket);
            if (b == null) {
                continue;
            }
            Map<String, Long> top = new HashMap<>();
            for (ScanReport.KeyVersions kv : s.topKeys()) {
                top.put(kv.key(), kv.versions());
            }
            for (var e : b.keys.entrySet()) {
                KeyActivity k = e.getValue();
                synchronized (k) {
                    k.putsSinceScan = 0;
                    k.scanned = top.getOrDefault(e.getKey(), -1L);
                }
            }
            synchronized (b) {
                b.putsSinceScan = 0;
            }
        }
        evaluate();
    }

    // ------------------------------------------------------------------------------------------------- evaluation

    /** A key's figures at an evaluation. */
    private record Candidate(String key, long versions, double perHour, long identicalRun) {}

    /** What to do with one alert after an evaluation. */
    private enum Verdict {
        RAISE,
        CLEAR,
        KEEP
    }

    /** A raised alert's content, before it is merged with the stored state. */
    private record Draft(AlertCode code, String bucket, String summary, String cause, String remedy, Alert.Figures f) {}

    /** Decides every bucket's alerts now and saves what changed. */
    public void evaluate() {
        synchronized (evaluationLock) {
            evaluateNow();
        }
    }

    private void evaluateNow() {
        long now = clock.millis();
        evictIdleKeys(now);
        Set<String> buckets = new HashSet<>(activity.keySet());
        buckets.addAll(scans.keySet());
        Map<String, Draft> raise = new HashMap<>();
        Set<String> clear = new HashSet<>();
        for (String bucket : buckets) {
            if (!source.bucketExists(bucket)) {
                activity.remove(bucket);
                scans.remove(bucket);
                continue;
            }
            evaluateBucket(bucket, now, raise, clear);
        }
        synchronized (stateLock) {
            String at = Instant.ofEpochMilli(now).toString();
            boolean changed = false;
            for (Alert a : List.copyOf(alerts.values())) {
                if (!a.code().perBucket()) {
                    continue; // a health alert: reportHealth decides it
                }
                boolean gone = !source.bucketExists(a.bucket());
                if (a.active() && (gone || clear.contains(a.id()))) {
                    alerts.put(a.id(), a.cleared(at));
                    LOG.info("alert cleared: " + a.id());
                    changed = true;
                }
            }
            for (Draft d : raise.values()) {
                String id = d.code().idFor(d.bucket());
                Alert old = alerts.get(id);
                if (old != null && old.active()) {
                    alerts.put(id, old.withText(d.summary(), d.cause(), d.remedy(), d.f(), at));
                    dirty = true;
                } else {
                    Alert a = new Alert(
                            id,
                            d.code(),
                            d.code().severity(),
                            d.bucket(),
                            Alert.ACTIVE,
                            false,
                            null,
                            at,
                            at,
                            null,
                            old == null ? 1 : old.timesRaised() + 1,
                            d.summary(),
                            d.cause(),
                            d.remedy(),
                            d.f());
                    alerts.remove(id); // a raised alert goes to the end, after the history
                    alerts.put(id, a);
                    LOG.warning("alert raised: " + id + ": " + d.summary());
                    changed = true;
                }
            }
            trimHistory();
            if (changed || (dirty && now - lastSaveMillis >= FIGURES_SAVED_EVERY.toMillis())) {
                try {
                    saveLocked(now);
                } catch (IOException e) {
                    dirty = true;
                    LOG.log(
                            Level.WARNING,
                            "version alerts: cannot save the alerts (retried at the next evaluation)",
                            e);
                }
            }
        }
    }

    /**
     * A health alert the appliance's health checks hold now: {@code check} is the check's stable id, so the alert's id
     * is {@code CODE:check}.
     */
    public record HealthFinding(AlertCode code, String check, String summary, String cause, String remedy) {
        public HealthFinding {
            if (code.perBucket()) {
                throw new IllegalArgumentException("code: " + code + " (expected a health code, not a bucket's)");
            }
        }
    }

    /**
     * The outcome of a complete run of the health checks: raises or updates the alert of each finding and clears every
     * active health alert not among them (its check passes again, or no longer exists), then saves what changed. The
     * health alerts share this store (one file, one revision) with the version alerts, so a save never overwrites the
     * other kind's state.
     */
    public void reportHealth(List<HealthFinding> findings) {
        synchronized (evaluationLock) {
            long now = clock.millis();
            String at = Instant.ofEpochMilli(now).toString();
            Map<String, HealthFinding> holding = new LinkedHashMap<>();
            for (HealthFinding f : findings) {
                holding.put(f.code().idFor(f.check()), f);
            }
            synchronized (stateLock) {
                boolean changed = false;
                // one line per run, not per alert: an untuned host starts with a dozen warnings at once
                List<String> raised = new ArrayList<>();
                List<String> cleared = new ArrayList<>();
                for (Alert a : List.copyOf(alerts.values())) {
                    if (!a.code().perBucket() && a.active() && !holding.containsKey(a.id())) {
                        alerts.put(a.id(), a.cleared(at));
                        cleared.add(a.id());
                        changed = true;
                    }
                }
                for (var e : holding.entrySet()) {
                    HealthFinding f = e.getValue();
                    Alert old = alerts.get(e.getKey());
                    if (old != null && old.active()) {
                        if (!f.summary().equals(old.summary()) || !f.cause().equals(old.cause())) {
                            alerts.put(old.id(), old.withText(f.summary(), f.cause(), f.remedy(), null, at));
                            dirty = true;
                        }
                        continue;
                    }
                    alerts.remove(e.getKey()); // a raised alert goes to the end, after the history
                    alerts.put(
                            e.getKey(),
                            new Alert(
                                    e.getKey(),
                                    f.code(),
                                    f.code().severity(),
                                    null,
                                    Alert.ACTIVE,
                                    false,
                                    null,
                                    at,
                                    at,
                                    null,
                                    old == null ? 1 : old.timesRaised() + 1,
                                    f.summary(),
                                    f.cause(),
                                    f.remedy(),
                                    null));
                    raised.add(e.getKey());
                    changed = true;
                }
                if (!raised.isEmpty()) {
                    LOG.warning("health alerts raised: " + String.join(", ", raised)
                            + " (appliance alerts, or the console's System checks page, say what to do)");
                }
                if (!cleared.isEmpty()) {
                    LOG.info("health alerts cleared: " + String.join(", ", cleared));
                }
                trimHistory();
                if (changed || (dirty && now - lastSaveMillis >= FIGURES_SAVED_EVERY.toMillis())) {
                    try {
                        saveLocked(now);
                    } catch (IOException ex) {
                        dirty = true;
                        LOG.log(
                                Level.WARNING,
                                "health alerts: cannot save the alerts (retried at the next health check)",
                                ex);
                    }
                }
            }
        }
    }

    private void evictIdleKeys(long now) {
        for (BucketActivity b : activity.values()) {
            b.keys.entrySet().removeIf(e -> {
                KeyActivity k = e.getValue();
                synchronized (k) {
                    if (now - k.lastMillis > RateWindow.WINDOW_MILLIS && k.putsSinceScan == 0) {
                        trackedKeys.decrementAndGet();
                        return true;
                    }
                    return false;
                }
            });
        }
    }

    private void evaluateBucket(String bucket, long now, Map<String, Draft> raise, Set<String> clear) {
        int threshold = Math.max(1, source.threshold(bucket));
        int cap = source.maxVersionsPerKey();
        ScanReport.BucketScan scan = scans.get(bucket);
        BucketActivity act = activity.get(bucket);
        List<Candidate> keys = candidates(scan, act, now);
        long newLastHour = 0;
        long identicalLastHour = 0;
        double perHour = 0;
        long putsSinceScan = 0;
        long observedMillis = 0;
        if (act != null) {
            synchronized (act) {
                newLastHour = act.puts.lastHour(now);
                identicalLastHour = act.identical.lastHour(now);
                perHour = act.puts.perHour(now);
                putsSinceScan = act.putsSinceScan;
                observedMillis = act.puts.observedMillis(now);
            }
        }
        Rate scanRate = scanRates.get(bucket);
        if (scanRate != null && scanRate.perHour() > perHour) {
            perHour = scanRate.perHour();
        }
        boolean counted = scannedSinceStart.contains(bucket);
        Candidate worst = keys.isEmpty() ? null : keys.getFirst();
        long over = keys.stream().filter(c -> c.versions() > threshold).count();
        Candidate repeated = keys.stream()
                .filter(c -> c.identicalRun() >= identicalRunFor(threshold))
                .max(Comparator.comparingLong(Candidate::identicalRun))
                .orElse(null);
        Bound bound = worst == null
                ? Bound.NONE
                : bound(
                        source.lifecycle(bucket),
                        (repeated != null ? repeated : worst).key(),
                        (repeated != null ? repeated : worst).perHour());

        Verdict high = over > 0 ? Verdict.RAISE : counted ? Verdict.CLEAR : Verdict.KEEP;
        Verdict nearCap = worst != null && worst.versions() >= (long) Math.ceil(cap * NEAR_CAP_SHARE)
                ? Verdict.RAISE
                : counted ? Verdict.CLEAR : Verdict.KEEP;
        boolean harmful = bound.perKey() < 0 || bound.perKey() > threshold;
        Verdict identical;
        if (repeated != null && harmful) {
            identical = Verdict.RAISE;
        } else if (!harmful
                || (identicalLastHour == 0 && observedMillis >= RateWindow.WINDOW_MILLIS)
                || act == null && counted) {
            identical = Verdict.CLEAR;
        } else {
            identical = Verdict.KEEP;
        }
        if (high != Verdict.RAISE && nearCap != Verdict.RAISE && identical != Verdict.RAISE) {
            decide(bucket, high, AlertCode.VERSIONS_PER_KEY_HIGH, raise, clear, () -> null);
            decide(bucket, nearCap, AlertCode.VERSIONS_NEAR_CAP, raise, clear, () -> null);
            decide(bucket, identical, AlertCode.VERSIONS_IDENTICAL_REUPLOADS, raise, clear, () -> null);
            return;
        }

        // figures shared by the bucket's alerts
        long horizonMillis = source.dayLength().toMillis();
        double hours = horizonMillis / (double) RateWindow.WINDOW_MILLIS;
        Candidate focus = worst;
        long projectedKey = project(focus.versions(), focus.perHour(), hours, bound, cap);
        long bucketNow = scan != null
                ? scan.versionsOfKeys() + putsSinceScan
                : keys.stream().mapToLong(Candidate::versions).sum();
        long keyCount = Math.max(scan != null ? scan.keys() : 0, act != null ? act.keys.size() : 0);
        long projectedBucket = bucketNow + Math.round(perHour * hours);
        if (bound.perKey() >= 0 && keyCount > 0) {
            projectedBucket = Math.min(projectedBucket, Math.max(bound.perKey() * keyCount, keyCount));
        }
        long perVersion = metaBytesPerVersion(bucket, focus);
        long secondsToCap = -1;
        if (focus.perHour() > 0 && (bound.perKey() < 0 || bound.perKey() >= cap) && focus.versions() < cap) {
            secondsToCap = Math.round((cap - focus.versions()) / focus.perHour() * 3600);
        }
        List<Alert.KeyFigure> worstKeys = keys.stream()
                .limit(WORST_KEYS)
                .map(c -> new Alert.KeyFigure(c.key(), c.versions(), round1(c.perHour()), c.identicalRun()))
                .toList();
        Alert.Figures f = new Alert.Figures(
                threshold,
                cap,
                over,
                worstKeys,
                round1(perHour),
                identicalLastHour,
                newLastHour,
                bound.rule(),
                bound.perKey(),
                horizonMillis / 1000,
                projectedKey,
                projectedBucket,
                perVersion,
                projectedKey * perVersion,
                projectedBucket * perVersion * source.drivesPerSet(),
                secondsToCap);
        String cause = cause(bucket, newLastHour, identicalLastHour, repeated, focus, bound, threshold);
        String fix = remedy(bucket, threshold, bound, repeated != null, source.scannerInterval());
        String projection = projection(f, source.dayLength(), cap);

        double bucketPerHour = perHour;
        long identicalCount = identicalLastHour;
        decide(
                bucket,
                high,
                AlertCode.VERSIONS_PER_KEY_HIGH,
                raise,
                clear,
                () -> new Draft(
                        AlertCode.VERSIONS_PER_KEY_HIGH,
                        bucket,
                        String.format(
                                Locale.ROOT,
                                "Bucket '%s': %d key(s) over %d versions; worst '%s' with %d versions (%s new versions/hour"
                                        + " in the bucket). %s",
                                bucket,
                                over,
                                threshold,
                                worst.key(),
                                worst.versions(),
                                number(bucketPerHour),
                                projection),
                        cause,
                        fix,
                        f));
        decide(
                bucket,
                nearCap,
                AlertCode.VERSIONS_NEAR_CAP,
                raise,
                clear,
                () -> new Draft(
                        AlertCode.VERSIONS_NEAR_CAP,
                        bucket,
                        String.format(
                                Locale.ROOT,
                                "Bucket '%s': key '%s' has %d of the %d versions allowed per key; writes to it fail once it"
                                        + " reaches the cap.",
                                bucket,
                                worst.key(),
                                worst.versions(),
                                cap),
                        cause,
                        "Writes of a key at " + cap + " versions are refused (400 InvalidRequest; the cap is"
                                + " --max-versions-per-key). Remove old versions now: " + fix,
                        f));
        decide(
                bucket,
                identical,
                AlertCode.VERSIONS_IDENTICAL_REUPLOADS,
                raise,
                clear,
                () -> new Draft(
                        AlertCode.VERSIONS_IDENTICAL_REUPLOADS,
                        bucket,
                        String.format(
                                Locale.ROOT,
                                "Bucket '%s': identical content re-uploaded %d times in the last hour; '%s' has %d"
                                        + " consecutive versions with the same ETag. %s",
                                bucket,
                                identicalCount,
                                repeated.key(),
                                repeated.identicalRun() + 1,
                                projection),
                        cause,
                        fix,
                        f));
    }

    /** Records a verdict: a raise with its draft (built only then), or a clear. */
    private static void decide(
            String bucket,
            Verdict v,
            AlertCode code,
            Map<String, Draft> raise,
            Set<String> clear,
            java.util.function.Supplier<Draft> draft) {
        if (v == Verdict.RAISE) {
            raise.put(code.idFor(bucket), draft.get());
        } else if (v == Verdict.CLEAR) {
            clear.add(code.idFor(bucket));
        }
    }

    /** Consecutive identical versions that count as re-uploads of unchanged content: a tenth of the threshold. */
    static long identicalRunFor(int threshold) {
        return Math.max(3, Math.min(100, threshold / 10));
    }

    /** Keys with their estimated versions now (the scanner's count plus what was added since), most first. */
    private static List<Candidate> candidates(ScanReport.BucketScan scan, BucketActivity act, long now) {
        Map<String, Candidate> out = new HashMap<>();
        if (scan != null) {
            for (ScanReport.KeyVersions kv : scan.topKeys()) {
                out.put(kv.key(), new Candidate(kv.key(), kv.versions(), 0, 0));
            }
        }
        if (act != null) {
            for (var e : act.keys.entrySet()) {
                KeyActivity k = e.getValue();
                Candidate c;
                synchronized (k) {
                    long base = Math.max(0, k.scanned);
                    c = new Candidate(e.getKey(), base + k.putsSinceScan, k.puts.perHour(now), k.identicalRun);
                }
                out.merge(e.getKey(), c, (a, b) -> b.versions() >= a.versions() ? b : a);
            }
        }
        List<Candidate> list = new ArrayList<>(out.values());
        list.sort(Comparator.comparingLong(Candidate::versions)
                .reversed()
                .thenComparing(Comparator.comparingLong(Candidate::identicalRun).reversed())
                .thenComparing(Candidate::key));
        return list;
    }

    /**
     * How many versions a key keeps under the bucket's rules at {@code perHour} new versions an hour: the enabled rule
     * with a NoncurrentVersionExpiration matching the key by prefix that keeps the fewest (tag and size filters are
     * not counted on: they may not match). -1 when no rule bounds it.
     */
    record Bound(String rule, long perKey) {
        static final Bound NONE = new Bound(null, -1);
    }

    Bound bound(LifecycleConfiguration config, String key, double perHour) {
        if (config == null) {
            return Bound.NONE;
        }
        double dayHours = source.dayLength().toMillis() / (double) RateWindow.WINDOW_MILLIS;
        double scanHours = source.scannerInterval().toMillis() / (double) RateWindow.WINDOW_MILLIS;
        Bound best = Bound.NONE;
        for (LifecycleConfiguration.Rule r : config.rules()) {
            var nc = r.noncurrentExpiration();
            if (!r.enabled()
                    || nc == null
                    || !r.filter().tags().isEmpty()
                    || r.filter().sizeGreaterThan() != null
                    || r.filter().sizeLessThan() != null
                    || !r.filter().matchesKey(key)) {
                continue;
            }
            // a noncurrent version lives its days rounded up to the next midnight (up to one day more), then
            // until the scanner's next pass; with NewerNoncurrentVersions the newest ones stay whatever their age
            double byDays = nc.noncurrentDays() == null ? 0 : perHour * (nc.noncurrentDays() + 1) * dayHours;
            double byCount = nc.newerNoncurrentVersions() == null ? 0 : nc.newerNoncurrentVersions();
            long kept = 1 + Math.round(Math.max(byDays, byCount) + perHour * scanHours);
            if (best.perKey() < 0 || kept < best.perKey()) {
                best = new Bound(r.id(), kept);
            }
        }
        return best;
    }

    private static long project(long now, double perHour, double hours, Bound bound, int cap) {
        long grown = now + Math.round(perHour * hours);
        if (bound.perKey() >= 0) {
            grown = now > bound.perKey() ? bound.perKey() : Math.min(grown, bound.perKey());
        }
        return Math.min(grown, cap);
    }

    private long metaBytesPerVersion(String bucket, Candidate key) {
        long bytes = key.versions() > 0 ? source.metadataBytes(bucket, key.key()) : -1;
        if (bytes <= 0) {
            return DEFAULT_META_BYTES_PER_VERSION;
        }
        return Math.max(1, bytes / key.versions());
    }

    private static String cause(
            String bucket,
            long newLastHour,
            long identicalLastHour,
            Candidate repeated,
            Candidate worst,
            Bound bound,
            int threshold) {
        StringBuilder s = new StringBuilder();
        if (identicalLastHour > 0 && identicalLastHour * 2 >= newLastHour) {
            s.append(String.format(
                    Locale.ROOT,
                    "identical content re-uploaded %d times in the last hour (%d of the %d new versions repeat the"
                            + " ETag of the version before them): a client, likely a sync script, uploads unchanged"
                            + " files again.",
                    identicalLastHour,
                    identicalLastHour,
                    newLastHour));
        } else if (newLastHour > 0) {
            s.append(String.format(
                    Locale.ROOT,
                    "%d new versions in the last hour, mostly with changed content: a client overwrites these keys"
                            + " often.",
                    newLastHour));
        } else {
            s.append(String.format(
                    Locale.ROOT,
                    "versions accumulated over time ('%s' had %d at the last scan); no recent writes seen since the"
                            + " appliance started.",
                    worst.key(),
                    worst.versions()));
        }
        if (bound.rule() == null) {
            s.append(" No lifecycle rule with NoncurrentVersionExpiration applies to '")
                    .append(bucket)
                    .append("', so every old version is kept.");
        } else if (bound.perKey() > threshold) {
            s.append(String.format(
                    Locale.ROOT,
                    " Lifecycle rule '%s' lets noncurrent versions live for days: at the current rate that is about"
                            + " %d versions per key, more than the threshold of %d.",
                    bound.rule(),
                    bound.perKey(),
                    threshold));
        } else {
            s.append(String.format(
                    Locale.ROOT,
                    " Lifecycle rule '%s' bounds each key at about %d versions; the background scanner removes the"
                            + " excess in its next cycles.",
                    bound.rule(),
                    bound.perKey()));
        }
        if (repeated != null && repeated != worst && identicalLastHour == 0) {
            s.append(" '")
                    .append(repeated.key())
                    .append("' was re-uploaded unchanged ")
                    .append(repeated.identicalRun());
            s.append(" times in a row.");
        }
        return s.toString();
    }

    private static String remedy(String bucket, int threshold, Bound bound, boolean identical, Duration scanEvery) {
        if (bound.perKey() >= 0 && bound.perKey() <= threshold) {
            return "Lifecycle rule '" + bound.rule() + "' already bounds the versions: wait for the next scanner"
                    + " cycles (one starts every " + human(scanEvery) + "). If the counts stay high, check the scanner"
                    + " (GET /api/v1/status, the log) and that the rule's filter matches these keys.";
        }
        int keep = Math.max(1, Math.min(LifecycleConfiguration.MAX_NEWER_NONCURRENT, threshold / 4));
        StringBuilder s = new StringBuilder();
        s.append("Add a NoncurrentVersionExpiration rule with NewerNoncurrentVersions, which keeps only the newest ")
                .append(keep)
                .append(" noncurrent versions of each key whatever their age (PutBucketLifecycleConfiguration replaces"
                        + " the whole configuration: include the bucket's other rules), e.g. aws s3api"
                        + " put-bucket-lifecycle-configuration --bucket ")
                .append(bucket)
                .append(" --lifecycle-configuration '{\"Rules\":[{\"ID\":\"keep-")
                .append(keep)
                .append("-versions\",\"Status\":\"Enabled\",\"Filter\":{\"Prefix\":\"\"},"
                        + "\"NoncurrentVersionExpiration\":{\"NewerNoncurrentVersions\":")
                .append(keep)
                .append("}}]}'. Do not add NoncurrentDays to it: with both, a version goes only once both hold, so"
                        + " every version still lives that many days, which is what lets versions pile up.");
        if (identical) {
            s.append(" And fix the client: it should skip files that did not change (compare size and MD5/ETag or the"
                    + " modification time before uploading, as 'aws s3 sync' does); every unchanged copy costs a"
                    + " version and its metadata.");
        }
        return s.toString();
    }

    private static String projection(Alert.Figures f, Duration day, int cap) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "If nothing changes, in one lifecycle day (%s) the worst key has %d versions (%s of metadata on each"
                        + " drive of its set) and the bucket %d versions (%s of metadata in all)",
                human(day),
                f.projectedWorstKeyVersions(),
                bytes(f.projectedWorstKeyMetadataBytes()),
                f.projectedBucketVersions(),
                bytes(f.projectedBucketMetadataBytes())));
        if (f.secondsToCap() >= 0) {
            s.append(String.format(
                    Locale.ROOT,
                    "; it reaches the cap of %d versions per key in %s, then its writes fail",
                    cap,
                    human(Duration.ofSeconds(f.secondsToCap()))));
        }
        return s.append('.').toString();
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static String number(double v) {
        return v >= 100 ? Long.toString(Math.round(v)) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        if (s < 120) {
            return d.toMillis() % 1000 == 0 || s >= 10 ? s + " s" : d.toMillis() + " ms";
        }
        if (s < 2 * 3600) {
            return s / 60 + " min";
        }
        if (s < 2 * 86400) {
            return s / 3600 + " h";
        }
        return s / 86400 + " days";
    }

    static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? n + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    // ------------------------------------------------------------------------------------------------- the state

    private void trimHistory() {
        List<Alert> cleared = alerts.values().stream().filter(a -> !a.active()).toList();
        for (int i = 0; i < cleared.size() - CLEARED_KEPT; i++) {
            alerts.remove(cleared.get(i).id());
        }
    }

    private void saveLocked(long now) throws IOException {
        file.save(new AlertFile.Content(revision + 1, List.copyOf(alerts.values())));
        revision++;
        dirty = false;
        lastSaveMillis = now;
    }

    /** The alerts, active ones first (newest raised first), then cleared ones when {@code includeCleared}. */
    public List<Alert> alerts(boolean includeCleared) {
        synchronized (stateLock) {
            List<Alert> out = new ArrayList<>(alerts.values().stream()
                    .filter(a -> includeCleared || a.active())
                    .toList());
            out.sort(Comparator.comparing(Alert::active)
                    .reversed()
                    .thenComparing(Comparator.comparing((Alert a) -> a.active() ? a.raisedAt() : a.clearedAt())
                            .reversed()));
            return out;
        }
    }

    /**
     * Acknowledges an alert (durably, before returning): it stays acknowledged until it clears. Acknowledging a
     * cleared or already acknowledged alert changes nothing.
     *
     * @throws NoSuchElementException no alert has that id
     * @throws IOException the acknowledgement could not be saved on a majority of drives
     */
    public Alert acknowledge(String id) throws IOException {
        synchronized (stateLock) {
            Alert a = alerts.get(id);
            if (a == null) {
                throw new NoSuchElementException("no alert '" + id + "' (ids are CODE:bucket or CODE:check, e.g. "
                        + AlertCode.VERSIONS_PER_KEY_HIGH.idFor("photos")
                        + "; list them with GET /api/v1/admin/alerts)");
            }
            if (!a.active() || a.acknowledged()) {
                return a;
            }
            String at = Instant.ofEpochMilli(clock.millis()).toString();
            Alert acked = a.with(a.state(), true, at, a.raisedAt(), a.updatedAt(), a.clearedAt(), a.timesRaised());
            alerts.put(id, acked);
            try {
                saveLocked(clock.millis());
            } catch (IOException e) {
                alerts.put(id, a);
                throw e;
            }
            return acked;
        }
    }

    /** Active alerts: how many, how many unacknowledged, how many critical, and their ids. */
    public record Summary(int active, int unacknowledged, int critical, List<String> ids) {}

    public Summary summary() {
        List<Alert> active = alerts(false);
        return new Summary(
                active.size(),
                (int) active.stream().filter(a -> !a.acknowledged()).count(),
                (int) active.stream()
                        .filter(a -> a.severity() == AlertCode.Severity.CRITICAL)
                        .count(),
                active.stream().map(Alert::id).toList());
    }
}
