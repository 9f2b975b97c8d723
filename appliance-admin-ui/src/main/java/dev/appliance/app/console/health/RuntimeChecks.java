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
 * <p>The engine counts a drive's I/O errors and slow calls since start; a drive warns when they grew since the
 * previous run (the first run: since start), so an old burst does not warn until the next restart. Not thread-safe:
 * one run at a time ({@link HealthChecks} runs them on its one thread).
 */
final class RuntimeChecks {
    static final String CLOCK = "clock.retention";

    /** A drive's error counts at the previous run, by path. */
    private final Map<String, long[]> seen = new HashMap<>();

    static String driveId(int set, int slot) {
        return "drive.set" + set + ".slot" + slot;
    }

    List<Check> drives(StoreAdmin store) {
        List<LocalDrive> drives = store.drives();
        int perSet = store.drivesPerSet();
        List<Check> out = new ArrayList<>(drives.size());
        for (int i = 0; i < drives.size(); i++) {
            out.add(drive(store, drives.get(i), i / perSet + 1, i % perSet + 1));
        }
        return out;
    }

    private Check drive(StoreAdmin store, LocalDrive d, int set, int slot) {
        String id = driveId(set, slot);
        String path = d.root().toString();
        String state = store.driveState(d);
        long ioErrors = d.ioErrors();
        long slow = d.slowCalls();
        int stalled = d.stalledCalls();
        long[] before = seen.put(path, new long[] {ioErrors, slow});
        long newErrors = ioErrors - (before == null ? 0 : before[0]);
        long newSlow = slow - (before == null ? 0 : before[1]);
        long calls = d.calls();
        String latency = calls == 0
                ? "no calls yet"
                : String.format(
                        Locale.ROOT, "%d calls, mean %.2f ms since start", calls, d.callNanos() / (double) calls / 1e6);
        String counts = "I/O errors " + ioErrors + " (" + Math.max(0, newErrors) + " new), slow calls " + slow + " ("
                + Math.max(0, newSlow) + " new), stalled now " + stalled;
        String expected = "online, no new I/O errors, slow or stalled calls";
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
            default ->
                newErrors > 0 || newSlow > 0 || stalled > 0
                        ? new Check(
                                id,
                                Result.WARN,
                                path + " online; " + counts + "; " + latency,
                                expected,
                                "the drive answers with errors or slowly: check the disk (dmesg, smartctl -a); the engine"
                                        + " takes it out of service if errors pile up or a call stalls")
                        : new Check(id, Result.PASS, path + " online; " + counts + "; " + latency, expected, "");
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
