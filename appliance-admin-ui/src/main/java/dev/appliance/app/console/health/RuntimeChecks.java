package dev.appliance.app.console.health;

import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.core.objectlock.RetentionClock;
import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.Result;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checks only the running appliance can make, in the preflight rules' shape ({@link Check}): each drive's state as
 * the engine sees it ({@code drive.setN.slotM}), each erasure set's write quorum ({@code quorum.setN}) and the
 * retention clock ({@code clock.retention}). Read from the engine's cached state: no drive I/O.
 *
 * <p>The engine counts a drive's I/O errors, slow calls, calls and their time since start; each run keeps the counts
 * it read, so a drive is judged on what happened since the previous run (the first run: since start): a burst of errors
 * or a slow spell warns at the next run and not after. A drive warns when its I/O errors or slow calls grew, a
 * call of it is stalled now, or its mean call latency over the interval is an outlier in its erasure set ({@link
 * #latencyOutlier}). Not thread-safe: one run at a time ({@link HealthChecks} runs them on its one thread).
 */
final class RuntimeChecks {
    static final String CLOCK = "clock.retention";

    /** A drive's mean latency over the interval warns above this many times its set's median... */
    static final double OUTLIER_FACTOR = 3.0;
    /** ...and above this, so that fast drives a little apart (0.3 ms against 0.1 ms) never warn... */
    static final double OUTLIER_FLOOR_MILLIS = 20.0;
    /** ...once it had this many calls in the interval, so that one slow call of an idle drive does not warn. */
    static final long OUTLIER_MIN_CALLS = 10;

    /** A drive's counters as the previous run read them, by path. */
    private final Map<String, Counts> seen = new HashMap<>();

    /** A drive's counters since start, as the engine keeps them. */
    private record Counts(long ioErrors, long slowCalls, long calls, long callNanos) {
        static Counts of(LocalDrive d) {
            return new Counts(d.ioErrors(), d.slowCalls(), d.calls(), d.callNanos());
        }
    }

    /** A drive's calls that ended in an interval and the time they took. */
    record Interval(long calls, long nanos) {
        /** The mean latency of the calls in milliseconds; NaN without calls. */
        double meanMillis() {
            return calls <= 0 ? Double.NaN : nanos / (double) calls / 1e6;
        }
    }

    static String driveId(int set, int slot) {
        return "drive.set" + set + ".slot" + slot;
    }

    /**
     * The median of the mean latencies of the intervals that had calls; NaN when none had. Of an even count, the mean
     * of the two middle values.
     */
    static double medianMillis(List<Interval> intervals) {
        double[] means = intervals.stream()
                .filter(i -> i.calls() > 0)
                .mapToDouble(Interval::meanMillis)
                .sorted()
                .toArray();
        if (means.length == 0) {
            return Double.NaN;
        }
        int mid = means.length / 2;
        return means.length % 2 == 1 ? means[mid] : (means[mid - 1] + means[mid]) / 2;
    }

    /**
     * Whether a drive whose calls in the interval were {@code drive} is a latency outlier against {@code others}, the
     * same interval of the other drives of its erasure set: it had at least {@link #OUTLIER_MIN_CALLS} calls, their mean
     * is above {@link #OUTLIER_FLOOR_MILLIS} and above {@link #OUTLIER_FACTOR} times the median of the others' means
     * (those with calls). The median is of the others, not of the whole set, so that in a small set the slow drive does
     * not raise the bar it is measured against; and the drives of one set take the same load, so their latencies are
     * comparable. No other drive with calls: nothing to compare with, never an outlier.
     */
    static boolean latencyOutlier(Interval drive, List<Interval> others) {
        double median = medianMillis(others);
        double mean = drive.meanMillis();
        return drive.calls() >= OUTLIER_MIN_CALLS
                && !Double.isNaN(median)
                && mean > OUTLIER_FLOOR_MILLIS
                && mean > OUTLIER_FACTOR * median;
    }

    List<Check> drives(StoreAdmin store) {
        List<LocalDrive> drives = store.drives();
        int perSet = store.drivesPerSet();
        // every drive's interval first: a drive is judged against the others of its set over the same interval
        List<Counts> before = new ArrayList<>(drives.size());
        List<Counts> now = new ArrayList<>(drives.size());
        List<Interval> intervals = new ArrayList<>(drives.size());
        for (LocalDrive d : drives) {
            Counts c = Counts.of(d);
            Counts b = seen.put(d.root().toString(), c);
            Counts from = b == null ? new Counts(0, 0, 0, 0) : b;
            before.add(from);
            now.add(c);
            intervals.add(new Interval(c.calls() - from.calls(), c.callNanos() - from.callNanos()));
        }
        List<Check> out = new ArrayList<>(drives.size());
        for (int i = 0; i < drives.size(); i++) {
            int setStart = i / perSet * perSet;
            List<Interval> others = new ArrayList<>(perSet - 1);
            for (int j = setStart; j < Math.min(setStart + perSet, drives.size()); j++) {
                if (j != i) {
                    others.add(intervals.get(j));
                }
            }
            out.add(drive(
                    store,
                    drives.get(i),
                    i / perSet + 1,
                    i % perSet + 1,
                    before.get(i),
                    now.get(i),
                    intervals.get(i),
                    others));
        }
        return out;
    }

    private Check drive(
            StoreAdmin store,
            LocalDrive d,
            int set,
            int slot,
            Counts before,
            Counts now,
            Interval interval,
            List<Interval> others) {
        String id = driveId(set, slot);
        String path = d.root().toString();
        String state = store.driveState(d);
        int stalled = d.stalledCalls();
        long newErrors = now.ioErrors() - before.ioErrors();
        long newSlow = now.slowCalls() - before.slowCalls();
        double median = medianMillis(others);
        boolean outlier = latencyOutlier(interval, others);
        String latency = interval.calls() <= 0
                ? "no calls since the previous check"
                : String.format(
                        Locale.ROOT,
                        "%d calls since the previous check, mean %.2f ms (the set's other drives: median %s)",
                        interval.calls(),
                        interval.meanMillis(),
                        Double.isNaN(median) ? "none had calls" : String.format(Locale.ROOT, "%.2f ms", median));
        String counts = "I/O errors " + now.ioErrors() + " (" + Math.max(0, newErrors) + " new), slow calls "
                + now.slowCalls() + " (" + Math.max(0, newSlow) + " new), stalled now " + stalled;
        String expected = "online, no new I/O errors, slow or stalled calls, mean latency within "
                + (int) OUTLIER_FACTOR + "x the median of the set's other drives (or under "
                + (int) OUTLIER_FLOOR_MILLIS + " ms)";
        // a faulty drive's offline reason repeats "faulty: "; its fault reason is the reason alone
        String why = state.equals("faulty") && !d.faultReason().isBlank() ? d.faultReason() : d.offlineReason();
        String reason = why == null || why.isBlank() ? "" : ": " + why;
        return switch (state) {
            case "faulty" ->
                new Check(
                        id,
                        Result.FAIL,
                        path + " faulty" + reason + "; " + counts,
                        expected,
                        "the engine took the drive out of service after I/O errors or a call that overran the drive"
                                + " timeout; it comes back by itself once its stalled calls ended and a probe write"
                                + " succeeds. Check the disk (dmesg, smartctl -a) and its cabling; if it keeps failing,"
                                + " replace it: an empty disk mounted at " + path + " is formatted into this slot and"
                                + " healed (docs/healing.md)");
            case "offline" ->
                new Check(
                        id,
                        Result.FAIL,
                        path + " offline" + reason,
                        expected,
                        "the drive is missing or not this slot's (unmounted, removed, its format.json gone): mount it"
                                + " again at " + path + " (mount -a; check /etc/fstab), or replace the disk: an empty"
                                + " disk mounted there is formatted into this slot and healed (docs/healing.md)");
            case "healing" ->
                new Check(
                        id,
                        Result.WARN,
                        path + " healing (a replaced drive being filled); " + counts,
                        expected,
                        "none needed: the set has less redundancy until the fill completes; follow it on the Drives page"
                                + " or GET /api/v1/admin/heal/drives");
            default -> {
                if (newErrors > 0 || newSlow > 0 || stalled > 0) {
                    yield new Check(
                            id,
                            Result.WARN,
                            path + " online; " + counts + "; " + latency,
                            expected,
                            "the drive answers with errors or slowly: check the disk (dmesg, smartctl -a); the engine"
                                    + " takes it out of service if errors pile up or a call stalls");
                }
                if (outlier) {
                    yield new Check(
                            id,
                            Result.WARN,
                            path + " online, slow against its set: " + latency + "; " + counts,
                            expected,
                            "the drive answers far slower than the other drives of its set under the same load, and"
                                    + " every write waits for it: check the disk (smartctl -a: reallocated or pending"
                                    + " sectors; iostat -x: its await against the others), its cabling and controller;"
                                    + " if it stays slow, replace it (docs/healing.md). The engine takes it out of"
                                    + " service only once a call overruns the drive timeout");
                }
                yield new Check(id, Result.PASS, path + " online; " + counts + "; " + latency, expected, "");
            }
        };
    }

    static List<Check> quorum(List<SetQuorum> sets) {
        List<Check> out = new ArrayList<>(sets.size());
        for (SetQuorum q : sets) {
            String measured = q.online() + " of " + q.drives() + " drives in service (write quorum " + q.writeQuorum()
                    + ", read quorum " + q.readQuorum() + ")";
            String expected = "at least " + q.writeQuorum() + " drives in service";
            Result r = q.writable() ? Result.PASS : Result.FAIL;
            out.add(new Check(
                    "quorum.set" + q.set(),
                    r,
                    measured,
                    expected,
                    r == Result.PASS
                            ? ""
                            : "writes to this set fail with 503 (reads too below the read quorum): bring its"
                                    + " drives back (see the drive checks above and docs/healing.md)"));
        }
        return out;
    }

    /**
     * The retention clock: fail while the system clock disagrees with trusted time, warn while a forward jump at start
     * is not believed (retention counts from trusted time until the clocks meet) or the host says NTP is not
     * synchronised. The wording is the clock health indicator's ({@link ClockHealthIndicator#warning}).
     */
    static Check clock(RetentionClock.Status s) {
        String warning = ClockHealthIndicator.warning(s);
        Result r;
        if (warning == null) {
            r = Result.PASS;
        } else if (s.forwardJumpNotBelievedAtStart().isZero() && !s.wallClockBelieved()) {
            r = Result.FAIL;
        } else {
            r = Result.WARN;
        }
        String measured = "trusted time " + s.trusted() + ", system clock " + s.wall()
                + (s.wallClockBelieved() ? " (believed)" : " (not believed)") + ", NTP "
                + s.hostSync().name().toLowerCase(Locale.ROOT)
                + (s.forwardJumpNotBelievedAtStart().isZero()
                        ? ""
                        : ", forward jump not believed at start: "
                                + s.forwardJumpNotBelievedAtStart().toSeconds() + " s");
        return new Check(
                CLOCK,
                r,
                measured,
                "system clock agrees with trusted time, host synchronised by NTP",
                warning == null
                        ? ""
                        : warning
                                + (s.hostSync() == HostTimeSync.State.SYNCHRONIZED
                                        ? ""
                                        : "; enable chrony (systemctl enable --now chronyd; chronyc tracking)")
                                + " (docs/object-lock.md)");
    }
}
