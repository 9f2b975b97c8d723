package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.scanner.ScanReport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What a "Drives and healing" page shows, from figures the engine already keeps (no drive I/O in the request):
 *
 * <ul>
 *   <li>{@code GET /api/v1/admin/sets}: each erasure set's layout and whether its read and write quorums are held.
 *   <li>{@code GET /api/v1/admin/drives}: each drive's place, state, space, call latency, error counts and the
 *       progress of its heal when it is a replaced drive being filled.
 * </ul>
 *
 * <p>A figure the engine does not track is null, never estimated here: inodes, recent (windowed) latency and latency
 * percentiles. Space comes from the scanner's last completed cycle (it reads every drive's file system once a cycle),
 * so it is null until the first cycle and as old as {@code measuredAt}. The heal progress is the same record as
 * {@code GET /api/v1/admin/heal/drives} ({@link HealController}). Sets and slots count from 1.
 */
@RestController
@Tag(name = "drives", description = "Drives, erasure sets and healing")
class DrivesController {
    private final ApplianceStore store;

    DrivesController(ApplianceStore store) {
        this.store = store;
    }

    /** Every erasure set, in order. */
    record Sets(List<SetView> sets) {}

    /**
     * One erasure set.
     *
     * @param index the set's number, from 1
     * @param drives drives in the set
     * @param dataShards data shards of a version written with every drive in service
     * @param parityShards parity shards of such a version
     * @param online drives in service now (a replaced drive being filled counts: it takes writes)
     * @param readQuorum drives a read of what the set holds needs
     * @param writeQuorum drives a write started now needs
     * @param readQuorumHeld enough drives in service to read
     * @param writeQuorumHeld enough drives in service to acknowledge a write
     */
    record SetView(
            int index,
            int drives,
            int dataShards,
            int parityShards,
            int online,
            int readQuorum,
            int writeQuorum,
            boolean readQuorumHeld,
            boolean writeQuorumHeld) {}

    /** Every drive, in topology order (set 1 slot 1 first). */
    record Drives(List<DriveDetail> drives) {}

    /**
     * One drive.
     *
     * @param set its erasure set, from 1
     * @param index its slot in the set, from 1
     * @param path the drive directory on this host
     * @param state {@code online}, {@code offline}, {@code faulty} (out of service for I/O errors or a stall until a
     *     probe succeeds) or {@code healing} (a replaced drive being filled)
     * @param problem why it is offline or faulty, or null
     * @param faultsInjected a test has injected faults into it (fault injection is on)
     * @param heal the fill of this drive since start when it was replaced, or null when it was not
     * @param healObjectsRemaining keys the fill has yet to walk: its estimate minus those walked; null when no fill
     *     or no estimate
     */
    record DriveDetail(
            int set,
            int index,
            String path,
            String state,
            boolean online,
            String problem,
            boolean faultsInjected,
            Space space,
            Latency latency,
            Errors errors,
            HealController.DriveHealView heal,
            Long healObjectsRemaining) {}

    /**
     * The drive's share of its file system (drive directories on one file system share it evenly, as the capacity
     * figures count it), as the scanner's last cycle measured it; every field null before the first cycle or when
     * the drive could not be read then.
     *
     * @param inodesTotal null: the engine does not read inode counts
     * @param inodesFree null: as {@code inodesTotal}
     * @param measuredAt when that cycle finished, ISO-8601
     */
    record Space(
            Long totalBytes, Long usedBytes, Long freeBytes, Long inodesTotal, Long inodesFree, String measuredAt) {}

    /**
     * Calls to the drive through the engine's drive calls since start, answered or failed.
     *
     * @param meanMillisSinceStart their mean duration, null before the first
     * @param recentMeanMillis null: the engine keeps totals since start, not a recent window
     * @param p99Millis null: the engine keeps no latency distribution per drive
     */
    record Latency(long calls, Double meanMillisSinceStart, Double recentMeanMillis, Double p99Millis) {}

    /**
     * Error counts since start.
     *
     * @param ioErrors I/O errors its calls met (full disks, missing files and timeouts not counted)
     * @param slowCalls calls given up on because it answered too slowly
     * @param stalledCalls calls running past the drive timeout now
     */
    record Errors(long ioErrors, long slowCalls, int stalledCalls) {}

    @Operation(summary = "Erasure sets: layout, drives in service, read and write quorum held")
    @AdminOperation(AdminAction.LIST_DRIVES)
    @GetMapping("/api/v1/admin/sets")
    Sets sets() {
        int parity = store.parity();
        int data = store.drivesPerSet() - parity;
        return new Sets(store.setQuorums().stream()
                .map(q -> new SetView(
                        q.set(),
                        q.drives(),
                        data,
                        parity,
                        q.online(),
                        q.readQuorum(),
                        q.writeQuorum(),
                        q.readable(),
                        q.writable()))
                .toList());
    }

    @Operation(
            summary = "Drives: state, space, latency, errors and fill progress",
            description = "Inodes, recentMeanMillis and p99Millis are null: the engine does not track them. Space is"
                    + " null until the scanner's first cycle.")
    @AdminOperation(AdminAction.LIST_DRIVES)
    @GetMapping("/api/v1/admin/drives")
    Drives drives() {
        List<HealController.DriveView> states = HealController.driveStates(store);
        Map<String, HealController.DriveHealView> heals = new HashMap<>();
        // the newest fill of a slot wins: a slot replaced twice since start shows its current drive's fill
        HealController.driveHeals(store).forEach(h -> heals.put(h.set() + "/" + h.slot(), h));
        ScanReport scan = store.lastScan();
        Map<String, ScanReport.DriveScan> space = new HashMap<>();
        if (scan != null) {
            scan.drives().forEach(d -> space.put(d.drive(), d));
        }
        List<LocalDrive> drives = store.drives();
        return new Drives(IntStream.range(0, drives.size())
                .mapToObj(i -> {
                    LocalDrive d = drives.get(i);
                    HealController.DriveView s = states.get(i);
                    HealController.DriveHealView heal = heals.get(s.set() + "/" + s.slot());
                    return new DriveDetail(
                            s.set(),
                            s.slot(),
                            s.path(),
                            s.state(),
                            s.online(),
                            // the engine answers "" for a drive with no problem
                            s.problem() == null || s.problem().isBlank() ? null : s.problem(),
                            s.faultsInjected(),
                            space(space.get(s.path()), scan),
                            latency(d),
                            new Errors(d.ioErrors(), d.slowCalls(), d.stalledCalls()),
                            heal,
                            remaining(heal));
                })
                .toList());
    }

    private static Space space(ScanReport.DriveScan d, ScanReport scan) {
        // the scanner reports 0 for a drive whose file system it could not read: unknown, not empty
        if (d == null || d.totalBytes() <= 0) {
            return new Space(
                    null,
                    null,
                    null,
                    null,
                    null,
                    scan == null ? null : scan.finished().toString());
        }
        return new Space(
                d.totalBytes(),
                d.totalBytes() - d.freeBytes(),
                d.freeBytes(),
                null,
                null,
                scan.finished().toString());
    }

    private static Latency latency(LocalDrive d) {
        // read the nanos first: a call ending in between then makes the mean a little low, never divides by zero
        long nanos = d.callNanos();
        long calls = d.calls();
        Double mean = calls == 0 ? null : Math.round(nanos / (double) calls / 1_000) / 1_000.0;
        return new Latency(calls, mean, null, null);
    }

    private static Long remaining(HealController.DriveHealView h) {
        if (h == null) {
            return null;
        }
        if (h.finished() != null && h.state().equals("done")) {
            return 0L;
        }
        return h.objectsEstimated() > 0 ? Math.max(0, h.objectsEstimated() - h.objectsScanned()) : null;
    }
}
