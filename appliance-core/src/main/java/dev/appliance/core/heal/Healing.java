package dev.appliance.core.heal;

import dev.appliance.core.agent.Agent;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.erasure.Topology;
import dev.appliance.core.multipart.MultipartUploads;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Everything that repairs the store, built in one place: the heal queue (what the read and write paths reported) with
 * its journal on the drives, one object healer per set, the background healer that drains the queue, the drive filler
 * that rebuilds a replaced drive, and the drive monitor that notices drives leaving, returning and being replaced.
 *
 * <p>At start, before anything is served: the previous run's heal reports are pending again (a crash included), and the
 * keys whose change a crash interrupted are healed as a whole, so an in-flight write is entirely there or entirely
 * absent. The two agents ({@link #agents()}) are started by the engine once the store is whole.
 */
public final class Healing {
    private final HealQueue queue;
    private final MrfJournal journal;
    private final List<ObjectHealer> objectHealers;
    private final DriveHealer driveHealer;
    private final DriveMonitor driveMonitor;
    private final BackgroundHealer healer;
    private final BucketHealer bucketHealer;
    private final ToIntFunction<String> setOfKey;

    /**
     * Loads the journaled reports into {@code queue}, reports the changes a crash interrupted and checks the drives
     * (replaced ones are formatted into their slot and queued for filling); {@link #settleInterruptedChanges} then heals
     * the interrupted keys.
     */
    public Healing(
            Topology topology,
            List<ErasureSet> sets,
            List<MultipartUploads> uploads,
            HealQueue queue,
            DriveCalls calls,
            ForegroundLoad foreground,
            DriveHealer.Store store,
            DriveHealer.Settings driveHealSettings,
            ToIntFunction<String> setOfKey,
            ToLongFunction<String> estimatedKeys,
            Clock clock) {
        this.queue = queue;
        this.setOfKey = setOfKey;
        // Heal reports of the previous run (a crash included) are pending again before anything new is reported.
        this.journal = new MrfJournal(topology.sets, calls, queue::liveEntries);
        List<List<MrfJournal.Entry>> loaded = new ArrayList<>();
        for (int i = 0; i < sets.size(); i++) {
            loaded.add(journal.load(i));
        }
        queue.attach(journal, loaded);
        journal.start();
        List<ObjectHealer> healers = new ArrayList<>();
        for (int i = 0; i < sets.size(); i++) {
            healers.add(new ObjectHealer(sets.get(i), uploads.get(i), foreground));
        }
        this.objectHealers = List.copyOf(healers);
        // Replaced drives are formatted into their slot now (and found later by the periodic check) and filled; a
        // drive whose fill was interrupted counts as filling before any heal runs.
        this.driveHealer = new DriveHealer(objectHealers, queue, foreground, store, clock);
        driveHealer.settings(driveHealSettings);
        this.driveMonitor = new DriveMonitor(topology, objectHealers, driveHealer, clock, calls, queue::makeAllDue);
        this.healer = new BackgroundHealer(queue, objectHealers, setOfKey, foreground, clock);
        this.bucketHealer = new BucketHealer(objectHealers, setOfKey, queue, foreground, clock, estimatedKeys);
    }

    /**
     * Keys whose change a crash interrupted (their marks were in staging at start) are reported, journaled before trash
     * (which holds the old staging with the marks until then) may be purged; returns them for {@link
     * #settleInterruptedChanges}.
     */
    public List<LocalDrive.ChangeMark> reportInterruptedChanges(List<LocalDrive> drives) {
        List<LocalDrive.ChangeMark> marks = new ArrayList<>();
        for (LocalDrive d : drives) {
            for (LocalDrive.ChangeMark m : d.interruptedChanges()) {
                queue.report(
                        m.bucket(), m.key(), "", "a change was under way on " + d.root() + " when the process stopped");
                marks.add(m);
            }
        }
        if (!marks.isEmpty()) {
            journal.flush();
        }
        return marks;
    }

    /**
     * Heals the keys of the changes a crash interrupted before anything is served: a version the crash left on fewer
     * drives than its write quorum is rolled forward (its missing shards rebuilt on every drive) when a read quorum
     * holds it, or back (removed) when it dangles, so an in-flight write is entirely there or entirely absent and does
     * not vanish later when one of its few drives goes away. A heal that cannot finish (drives away) stays queued; the
     * journaled items are healed again by the background healer (and then found healthy).
     */
    public void settleInterruptedChanges(List<LocalDrive.ChangeMark> marks) {
        Set<String> done = new HashSet<>();
        for (LocalDrive.ChangeMark m : marks) {
            if (!done.add(m.bucket() + "/" + m.key())) {
                continue;
            }
            try {
                objectHealers.get(setOfKey.applyAsInt(m.key())).heal(m.bucket(), m.key(), null, false);
            } catch (RuntimeException e) {
                // the queued item retries it
            }
        }
    }

    /** Checks the drives now (removed, returned, replaced); returns what changed, empty when nothing did. */
    public List<String> checkDrives() {
        return driveMonitor.check();
    }

    /** Heals one version now ({@code versionId} null: every version of the key) and says what was done. */
    public HealResult heal(String bucket, String key, UUID versionId) {
        return objectHealers.get(setOfKey.applyAsInt(key)).heal(bucket, key, versionId);
    }

    /**
     * The scanner's heal check of one key on set {@code set}: every version; {@code deep} reads and verifies every
     * shard, {@code parity} also checks the parity of inline versions.
     */
    public HealResult check(int set, String bucket, String key, boolean deep, boolean parity) {
        return objectHealers.get(set).heal(bucket, key, null, deep, parity);
    }

    public HealQueue queue() {
        return queue;
    }

    public MrfJournal journal() {
        return journal;
    }

    /** The background healer (tests tune its timing and drain it). */
    public BackgroundHealer healer() {
        return healer;
    }

    public DriveHealer driveHealer() {
        return driveHealer;
    }

    /** The fill of every replaced drive since start (and of drives whose tracker says a fill is unfinished). */
    public List<DriveHealStatus> driveHeals() {
        return driveHealer.status();
    }

    /**
     * {@code healing} while a replaced drive is being filled, {@code faulty} while out of service for I/O errors or a
     * stall (until a probe succeeds), else {@code online} or {@code offline}.
     */
    public String driveState(LocalDrive drive) {
        if (!drive.isOnline()) {
            return drive.isFaulty() ? "faulty" : "offline";
        }
        return driveHealer.filling(drive) ? "healing" : "online";
    }

    /** Heals of a bucket or prefix started on request. */
    public BucketHealer bucketHealer() {
        return bucketHealer;
    }

    /** The agents to run: the heal queue's healer, the drive filler and the heals of buckets started on request. */
    public List<Agent> agents() {
        return List.of(healer, driveHealer, bucketHealer);
    }

    /** Ends the journal's writer (after the agents were stopped) and the bucket heals still queued. */
    public void close() {
        bucketHealer.cancelQueued();
        journal.close();
    }
}
