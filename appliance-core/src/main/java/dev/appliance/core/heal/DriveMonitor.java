package dev.appliance.core.heal;

import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.DriveFormat;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The drive check, at start and every few seconds: takes drives whose {@code format.json} vanished out of service,
 * brings back drives that return to their slot, and formats an empty drive put in place of a failed one into exactly
 * that slot, then hands it to the {@link DriveHealer}.
 *
 * <p>A drive's identity comes from the set's reference format (the one the drives in service agree on): the new drive
 * gets the missing slot's drive id and the deployment id, so it can never pass for another slot or another deployment.
 * Only an empty directory is formatted (nothing but an unformatted system directory or {@code lost+found}); a directory
 * with data but no format, a format of another deployment or another slot, stays out of service with the reason in
 * the status. Without {@code allowRootFilesystem}, an empty directory on the root filesystem is refused: that is what
 * the mount point of a disk that failed to mount looks like.
 *
 * <p>A drive taken out of service as faulty ({@link DriveCalls}: I/O errors, or a call that overran the deadline) while
 * its {@code format.json} still reads comes back only once the calls it stalled have ended and a probe (a small file
 * written, forced, read back and deleted) succeeded; then it passes the same identity checks as a returning drive. Each
 * return makes every pending heal due now: what was written without the drive is put onto it.
 */
final class DriveMonitor {
    private static final Logger LOG = Logger.getLogger(DriveMonitor.class.getName());

    private final Topology topology;
    private final List<ObjectHealer> healers;
    private final DriveHealer driveHealer;
    private final Clock clock;
    private final DriveCalls calls;
    private final Runnable returned;
    private final ReentrantLock checking = new ReentrantLock();

    /**
     * @param calls probes faulty drives
     * @param returned runs after a drive came back into service (makes the pending heals due)
     */
    public DriveMonitor(
            Topology topology,
            List<ObjectHealer> healers,
            DriveHealer driveHealer,
            Clock clock,
            DriveCalls calls,
            Runnable returned) {
        this.topology = topology;
        this.healers = healers;
        this.driveHealer = driveHealer;
        this.clock = clock;
        this.calls = calls;
        this.returned = returned;
    }

    /** Checks every drive once; returns what changed, one line per drive (also logged). */
    public List<String> check() {
        checking.lock();
        try {
            List<String> events = new ArrayList<>();
            for (int s = 0; s < topology.sets.size(); s++) {
                List<LocalDrive> set = topology.sets.get(s);
                for (int i = 0; i < set.size(); i++) {
                    LocalDrive d = set.get(i);
                    boolean wasOnline = d.isOnline();
                    String e = checkDrive(d, s, i);
                    if (!wasOnline && d.isOnline()) {
                        returned.run();
                    }
                    if (e != null) {
                        LOG.warning(e);
                        events.add(e);
                    }
                }
            }
            return events;
        } finally {
            checking.unlock();
        }
    }

    private String checkDrive(LocalDrive d, int set, int slot) {
        String where = "set " + (set + 1) + " slot " + (slot + 1);
        if (d.isOnline()) {
            if (Files.isRegularFile(d.formatFile())) {
                return resumeIfUnfinished(d, set, slot);
            }
            d.markOffline("format.json missing: the drive was removed, unmounted or replaced");
            String gone = "drive " + d.root() + " (" + where + ") lost its format.json: taken out of service";
            String after = checkOffline(d, set, slot, where);
            return after == null ? gone : gone + "; " + after;
        }
        if (d.isFaulty()) {
            return checkFaulty(d, set, slot, where);
        }
        return checkOffline(d, set, slot, where);
    }

    /** A faulty drive: stays out while calls it stalled run or its probe fails; else checked as a returning drive. */
    private String checkFaulty(LocalDrive d, int set, int slot, String where) {
        String fault = "faulty: " + d.faultReason();
        if (d.stalledCalls() > 0) {
            return stayOffline(d, fault + "; waiting for the calls it stalled to end");
        }
        if (!Files.isRegularFile(d.formatFile())) {
            // Removed, or replaced by an empty disk: checked as any drive out of service (a replacement is formatted).
            d.clearFaulty();
            return checkOffline(d, set, slot, where);
        }
        String failed = calls.probe(d);
        if (failed != null) {
            return stayOffline(d, fault + "; probe failed: " + failed);
        }
        d.clearFaulty();
        String after = checkOffline(d, set, slot, where);
        String probed = "drive " + d.root() + " (" + where + ") passed its probe after being " + fault;
        return after == null ? probed : probed + "; " + after;
    }

    /** A drive in service with an unfinished tracker (a restart during its heal): the heal continues. */
    private String resumeIfUnfinished(LocalDrive d, int set, int slot) {
        if (driveHealer.filling(d)) {
            return null;
        }
        HealTracker t = unfinishedTracker(d);
        if (t == null) {
            return null;
        }
        t.resumes++;
        healers.get(set).filling(d, true);
        driveHealer.submit(d, t);
        return "drive " + d.root() + " (set " + (set + 1) + " slot " + (slot + 1) + ") was being healed: continuing"
                + " after " + t.objectsScanned + " objects"
                + (t.bucket == null ? "" : " (" + t.bucket + "/" + t.lastKey + ")");
    }

    private static HealTracker unfinishedTracker(LocalDrive d) {
        try {
            HealTracker t = HealTracker.load(d);
            return t == null || t.finished() ? null : t;
        } catch (IOException e) {
            return null; // unreadable tracker: the drive serves as any other; the MRF queue and reads heal it
        }
    }

    private String checkOffline(LocalDrive d, int set, int slot, String where) {
        Path root = d.root();
        if (!Files.isDirectory(root)) {
            return stayOffline(d, "directory does not exist");
        }
        byte[] json;
        try {
            json = d.readOrNull(d.formatFile());
        } catch (IOException e) {
            return stayOffline(d, "format.json unreadable: " + e.getMessage());
        }
        UUID slotId = topology.format.sets().get(set).get(slot);
        if (json != null) {
            DriveFormat f;
            try {
                f = DriveFormat.fromJson(json);
            } catch (IOException | RuntimeException e) {
                return stayOffline(d, "format.json unreadable: " + e.getMessage());
            }
            if (!f.deploymentId().equals(topology.format.deploymentId())) {
                return stayOffline(
                        d,
                        "belongs to another deployment (" + f.deploymentId() + ", this one is "
                                + topology.format.deploymentId() + ")");
            }
            if (!f.sameDeployment(topology.format)) {
                return stayOffline(d, "records a different topology than the other drives");
            }
            if (!slotId.equals(f.thisDrive())) {
                return stayOffline(
                        d,
                        "formatted for another slot (drive id " + f.thisDrive() + ", " + where + " is " + slotId + ")");
            }
            // A drive that left during its own fill counts as filling before it is back in service.
            HealTracker t = unfinishedTracker(d);
            if (t != null) {
                healers.get(set).filling(d, true);
            }
            try {
                bringIntoService(d);
            } catch (IOException e) {
                return stayOffline(d, "cannot prepare: " + e.getMessage());
            }
            String resumed = resumeIfUnfinished(d, set, slot);
            return "drive " + root + " (" + where + ") is back in service" + (resumed == null ? "" : "; " + resumed);
        }
        if (!Topology.isEmptyDrive(root)) {
            return stayOffline(d, "not empty but has no format.json (move its content away to let it be formatted)");
        }
        try {
            if (!topology.config.allowRootFilesystem()
                    && Files.getFileStore(root).equals(Files.getFileStore(Path.of("/")))) {
                return stayOffline(d, "empty and on the root filesystem: is the disk mounted?");
            }
            return formatReplacement(d, set, slot, slotId, where);
        } catch (IOException e) {
            return stayOffline(d, "cannot format the replacement: " + e.getMessage());
        }
    }

    /**
     * Tracker first, then {@code format.json}: a crash between the two leaves an unformatted drive (formatted again at
     * the next check), never a formatted drive that nobody fills.
     */
    private String formatReplacement(LocalDrive d, int set, int slot, UUID slotId, String where) throws IOException {
        Files.createDirectories(d.sysDir().resolve("tmp"));
        HealTracker t = HealTracker.start(slotId, set, slot, clock.millis());
        t.save(d);
        d.writeDurably(d.formatFile(), topology.format.forDrive(slotId).toJson());
        healers.get(set).filling(d, true);
        bringIntoService(d);
        driveHealer.submit(d, t);
        return "drive " + d.root() + " was empty: formatted into " + where + " (drive id " + slotId
                + "); healing the set onto it";
    }

    private void bringIntoService(LocalDrive d) throws IOException {
        d.prepare();
        try {
            d.closeMetadataJournal(); // the journal of the drive that left, if any: its files may be gone
        } catch (IOException e) {
            // nothing in it can matter any more: the drive is healed or replayed from its own journal below
        }
        if (topology.config.metadataJournal()) {
            d.openMetadataJournal(); // replays what a returning drive's journal holds
        }
        d.useGroupCommit(topology.config.driveSettings().groupCommit());
        d.useDirectIo(topology.config.driveSettings().directIo());
        d.markOnline();
    }

    /** Keeps the drive out of service with {@code reason}; reports only a change of reason, so logs do not repeat. */
    private static String stayOffline(LocalDrive d, String reason) {
        if (reason.equals(d.offlineReason())) {
            return null;
        }
        d.markOffline(reason);
        return "drive " + d.root() + " stays out of service: " + reason;
    }
}
