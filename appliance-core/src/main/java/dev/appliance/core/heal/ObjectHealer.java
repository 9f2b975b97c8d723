package dev.appliance.core.heal;

import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.bitrot.BitrotAlgorithm;
import dev.appliance.core.codec.ReedSolomon;
import dev.appliance.core.drive.DriveCalls.Outcome;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureLayout;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.erasure.VersionAgreement;
import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.meta.VersionType;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.naming.VersionIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;

/**
 * Heals one version of a key on one erasure set: every drive ends up holding the version's metadata and its intact
 * shards, or, for a dangling version, none does.
 *
 * <h2>Steps</h2>
 *
 * <ol>
 *   <li>Read the key's metadata on every drive and classify each drive: unavailable (offline, unmounted, I/O error:
 *       it answers nothing), metadata corrupt, version absent (a positive answer), or version held (with its body
 *       checksum).
 *   <li>Agree on the version as reads do ({@link VersionAgreement}): the identity held by a quorum ({@code data}
 *       drives; {@code n/2} for delete markers), each body verified, the metadata of the highest metadata generation
 *       among its holders; holders with other metadata get only their body rewritten. Without quorum, the version is
 *       <b>dangling</b> when even every drive that did not positively answer "absent" could not make up the quorum: it
 *       is removed from the drives holding it. Otherwise (drives unreachable) the heal is retried later.
 *   <li>Verify every reachable drive's shards of the agreed version: each part file's exact size and every block's
 *       bitrot checksum (inline versions: the payload in that drive's {@code xl.meta}). Data directories never change
 *       once committed, so this and the next step run without the key's lock (a long heal must not stall writers).
 *   <li>Rebuild the shards of the drives whose shards are missing or damaged, block by block (memory: one block's
 *       shards), from {@code data} verified shards of drives that hold the agreed metadata, into a staging directory
 *       on each such drive; part files and their directory are forced to stable storage.
 *   <li>Under the key's write lock, read the metadata again: only if the same version (same served body checksum) is
 *       still agreed, commit on each drive that needs it: the old data directory (damaged) goes to trash, the staged
 *       one is renamed in, and the version's {@code xl.meta} entry is written durably ({@link KeyFiles#add}: staging,
 *       force, rename, directory force). The result is reported only after that.
 * </ol>
 *
 * A drive whose whole {@code xl.meta} (or archive) is corrupt lost track of every version of the key, so such a heal
 * becomes a heal of the whole key.
 */
final class ObjectHealer {
    private final ErasureSet set;
    private final MultipartUploads uploads;
    private final ForegroundLoad load;
    /**
     * Drives being filled after a replacement: they answer "absent" for everything not yet healed onto them, which
     * says nothing about whether a version dangles, so such answers count as unknown there.
     */
    private final java.util.Set<LocalDrive> filling = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public ObjectHealer(ErasureSet set, MultipartUploads uploads, ForegroundLoad load) {
        this.set = set;
        this.uploads = uploads;
        this.load = load;
    }

    private enum MetaState {
        /** Nothing is known: offline, not mounted (no format.json), or an I/O error. */
        UNAVAILABLE,
        /** {@code xl.meta} or the archive cannot be parsed: it may or may not hold the version. */
        CORRUPT,
        /** The drive answered that it does not hold the version. */
        ABSENT,
        /**
         * A drive being filled after a replacement lacks the version: a heal target, but no evidence that the version
         * dangles.
         */
        UNAVAILABLE_FILLING,
        HELD
    }

    /** One drive's metadata for the version. */
    private static final class View {
        MetaState state;
        KeyFiles files;
        XlMeta.Pick pick;
        int bodyChecksum;
        VersionType type;
        int dataShards;
        int parityShards;
        String problem = "";
    }

    /** The version as agreed by quorum, or why there is none. */
    private record Agreement(
            ObjectVersion version, int checksum, boolean[] holders, boolean[] current, String problem) {}

    void filling(LocalDrive drive, boolean on) {
        if (on) {
            filling.add(drive);
        } else {
            filling.remove(drive);
        }
    }

    boolean isFilling(LocalDrive drive) {
        return filling.contains(drive);
    }

    ErasureSet set() {
        return set;
    }

    /** A deep heal ({@link #heal(String, String, UUID, boolean)}). */
    public HealResult heal(String bucket, String key, UUID versionId) {
        return heal(bucket, key, versionId, true);
    }

    /**
     * Heals {@code versionId} of the key, or every version of it when null. Never throws for drive trouble: that is a
     * {@link HealResult.Status#RETRY}. {@code deep} verifies every shard block's checksum; otherwise part files are
     * checked for presence and size only (inline shards are always verified, they are small), which is what retries
     * while a drive is away use, so a long outage does not make every retry read whole objects again. A light heal that
     * meets a corrupt source shard while rebuilding turns deep.
     */
    public HealResult heal(String bucket, String key, UUID versionId, boolean deep) {
        return heal(bucket, key, versionId, deep, false);
    }

    /**
     * As {@link #heal(String, String, UUID, boolean)}; {@code parity} makes a light heal verify every block of the
     * parity shards too. Reads touch only data shards, so without it damaged parity would go unnoticed until a deep
     * scan, and an object could silently lose all its redundancy.
     */
    public HealResult heal(String bucket, String key, UUID versionId, boolean deep, boolean parity) {
        if (versionId == null) {
            return healKey(bucket, key, deep, parity);
        }
        View[] views = read(bucket, key, versionId);
        if (anyFileCorrupt(views)) {
            // That drive lost every version of the key: rebuild them all (this one included).
            return healKey(bucket, key, deep, parity);
        }
        return healVersion(bucket, key, versionId, views, deep, parity);
    }

    /** Every version any readable drive holds; a second round for those that waited on drives the first one fixed. */
    private HealResult healKey(String bucket, String key, boolean deep, boolean parity) {
        LinkedHashSet<UUID> ids = new LinkedHashSet<>();
        List<Outcome<List<UUID>>> outcomes = set.calls.onAll(set.drives(), (pos, drive) -> {
            requireMounted(drive);
            KeyFiles f = KeyFiles.forRead(drive, bucket, key);
            if (f == null) {
                return List.of();
            }
            List<UUID> out = new ArrayList<>();
            List<XlMeta.Pick> picks;
            try {
                picks = f.allVersions();
            } catch (CorruptMetaException e) {
                picks = new ArrayList<>();
                for (int i = 0; i < f.hot().versionCount(); i++) {
                    picks.add(new XlMeta.Pick(f.hot(), i));
                }
            }
            for (XlMeta.Pick p : picks) {
                out.add(p.file().header(p.index()).versionId());
            }
            return out;
        });
        for (Outcome<List<UUID>> o : outcomes) {
            if (o.ok()) {
                ids.addAll(o.value());
            }
        }
        List<HealResult> results = new ArrayList<>();
        List<UUID> again = new ArrayList<>();
        boolean changed = false;
        for (UUID id : ids) {
            HealResult r = healVersion(bucket, key, id, read(bucket, key, id), deep, parity);
            if (r.status() == HealResult.Status.RETRY) {
                again.add(id);
            } else {
                results.add(r);
            }
            changed |= !r.healedDrives().isEmpty();
        }
        for (UUID id : again) {
            // A corrupt xl.meta rewritten by the first round now answers "absent": decide again.
            results.add(
                    changed
                            ? healVersion(bucket, key, id, read(bucket, key, id), deep, parity)
                            : HealResult.of(
                                    HealResult.Status.RETRY,
                                    "version " + VersionIds.format(id) + ": drives unreachable"));
        }
        if (ids.isEmpty()) {
            boolean unknown = false;
            for (Outcome<List<UUID>> o : outcomes) {
                unknown |= !o.ok();
            }
            if (unknown) {
                return HealResult.of(
                        HealResult.Status.RETRY, "no readable drive holds the key; some drives unreadable");
            }
            // A delete of the key's last version that a crash stopped before its data directory went to trash.
            int collected = collectUnreferenced(bucket, key);
            return HealResult.of(
                    HealResult.Status.NOT_FOUND,
                    "no drive holds the key" + (collected == 0 ? "" : "; " + collectedNote(collected)));
        }
        HealResult combined = HealResult.combine(results);
        int collected = collectUnreferenced(bucket, key);
        int uploads = removeCompletedUploads(bucket, key);
        if (collected == 0 && uploads == 0) {
            return combined;
        }
        String note = (collected == 0 ? "" : collectedNote(collected))
                + (uploads == 0 ? "" : (collected == 0 ? "" : "; ") + uploads + " completed upload(s) removed");
        return new HealResult(
                combined.status(),
                combined.healedDrives(),
                combined.bytesWritten(),
                combined.detail().isEmpty() ? note : combined.detail() + "; " + note);
    }

    /**
     * Moves to trash the data directories in the key's directory that no version on any drive references (left by a
     * crash between a data directory's rename and its {@code xl.meta}'s, or by an undo that failed). Only with complete
     * knowledge: every drive readable, every metadata file and body intact; under the key's write lock, since every
     * commit renames data directories in under it. A directory counts as a data directory only if it is named by a
     * UUID and holds nothing but {@code part.N} files, so a nested key's directory (it holds {@code xl.meta}) is never
     * taken. Returns how many were moved.
     */
    private int collectUnreferenced(String bucket, String key) {
        try (var lock = set.locks.write(bucket, key)) {
            // an upload's parts a crashed completion left in the key's directory are the upload's, not garbage
            uploads.restoreInterruptedCompletions(bucket, key);
            List<Outcome<java.util.Set<UUID>>> referenced = set.calls.onAll(set.drives(), (pos, drive) -> {
                requireMounted(drive);
                KeyFiles f = KeyFiles.forRead(drive, bucket, key);
                java.util.Set<UUID> dirs = new java.util.HashSet<>();
                if (f == null) {
                    return dirs;
                }
                for (XlMeta.Pick p : f.allVersions()) {
                    ObjectVersion v = p.file().version(p.index()); // a corrupt body throws: nothing is collected
                    if (v.dataDir() != null) {
                        dirs.add(v.dataDir());
                    }
                }
                return dirs;
            });
            java.util.Set<UUID> all = new java.util.HashSet<>();
            for (Outcome<java.util.Set<UUID>> o : referenced) {
                if (!o.ok()) {
                    return 0;
                }
                all.addAll(o.value());
            }
            int moved = 0;
            for (Outcome<Integer> o : set.calls.onAll(set.drives(), (pos, drive) -> {
                Path dir = drive.objectDir(bucket, key);
                int n = 0;
                if (!Files.isDirectory(dir)) {
                    return 0;
                }
                try (var entries = Files.newDirectoryStream(dir)) {
                    for (Path p : entries) {
                        UUID id = uuidOrNull(p.getFileName().toString());
                        if (id != null && !all.contains(id) && onlyPartFiles(p)) {
                            drive.moveToTrash(p);
                            n++;
                        }
                    }
                }
                if (n > 0) {
                    LocalDrive.forceDirectory(dir);
                    if (all.isEmpty()) {
                        drive.pruneEmptyParents(dir, drive.bucketDir(bucket));
                    }
                }
                return n;
            })) {
                moved += o.ok() ? o.value() : 0;
            }
            return moved;
        } catch (RuntimeException e) {
            return 0; // collection is housekeeping: the heal's result stands
        }
    }

    private static String collectedNote(int collected) {
        return collected + " unreferenced data director" + (collected == 1 ? "y" : "ies") + " moved to trash";
    }

    /** What a crash left of uploads that completed (their records, parts on drives the commit missed). */
    private int removeCompletedUploads(String bucket, String key) {
        try (var lock = set.locks.write(bucket, key)) {
            return uploads.removeCompleted(bucket, key);
        } catch (RuntimeException e) {
            return 0; // housekeeping: the heal's result stands
        }
    }

    private static UUID uuidOrNull(String name) {
        if (name.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(name);
            return id.toString().equals(name) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean onlyPartFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (var entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (!name.matches("part\\.[0-9]{1,5}")
                        || !Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    return false;
                }
            }
        }
        return true;
    }

    private HealResult healVersion(
            String bucket, String key, UUID versionId, View[] views, boolean deep, boolean parity) {
        String name = bucket + "/" + key + " version " + VersionIds.format(versionId);
        Agreement agreed = agree(views);
        if (agreed.version() == null) {
            return noQuorum(bucket, key, versionId, views, agreed, name);
        }
        ObjectVersion v = agreed.version();
        // The body is written again from the decoded version: refuse unless that yields the agreed bytes exactly.
        if (XlMeta.empty().withVersion(v, null).header(0).bodyChecksum() != agreed.checksum()) {
            return HealResult.of(
                    HealResult.Status.FAILED,
                    name + ": the agreed body does not re-encode to the same bytes (written by a newer format?)");
        }
        int n = views.length;
        boolean[] reachable = new boolean[n];
        boolean anyUnavailable = false;
        for (int i = 0; i < n; i++) {
            reachable[i] = views[i].state != MetaState.UNAVAILABLE;
            anyUnavailable |= !reachable[i];
        }
        boolean[] dataOk = new boolean[n];
        boolean[] targets = new boolean[n];
        if (v.isDeleteMarker()) {
            for (int i = 0; i < n; i++) {
                targets[i] = reachable[i] && !agreed.current()[i];
            }
        } else {
            dataOk = verifyAll(bucket, key, v, views, agreed.holders(), deep, parity);
            int sources = 0;
            for (int i = 0; i < n; i++) {
                if (agreed.holders()[i] && dataOk[i]) {
                    sources++;
                }
                // Inline shards live in xl.meta: whatever lacks the entry lacks the shard. A holder whose metadata is
                // older (or otherwise differs from the served body) gets the served body, keeping its shards.
                targets[i] = reachable[i] && (!dataOk[i] || !agreed.current()[i]);
            }
            if (sources < v.dataShards()) {
                return HealResult.of(
                        anyUnavailable ? HealResult.Status.RETRY : HealResult.Status.FAILED,
                        name + ": only " + sources + " intact shards, " + v.dataShards() + " needed"
                                + (anyUnavailable ? " (some drives unreachable)" : ": the version's data is lost"));
            }
        }
        if (count(targets) == 0) {
            return anyUnavailable
                    ? HealResult.of(HealResult.Status.RETRY, name + ": intact where reachable; some drives unreachable")
                    : HealResult.of(HealResult.Status.HEALTHY, "");
        }
        Staged staged = null;
        try {
            boolean[] rebuild = new boolean[n];
            for (int i = 0; i < n; i++) {
                rebuild[i] = targets[i] && !v.isDeleteMarker() && !dataOk[i];
            }
            if (count(rebuild) > 0) {
                staged = stage(bucket, key, v, views, agreed.holders(), dataOk, rebuild);
            }
            return commit(bucket, key, v, agreed.checksum(), targets, staged, anyUnavailable, name);
        } catch (SourceChanged e) {
            if (!deep) {
                // A source only checked for its size is corrupt: verify every drive fully and start over.
                if (staged != null) {
                    staged.discard();
                    staged = null;
                }
                return healVersion(bucket, key, versionId, read(bucket, key, versionId), true, parity);
            }
            return HealResult.of(HealResult.Status.RETRY, name + ": " + e.getMessage());
        } catch (IOException e) {
            return HealResult.of(HealResult.Status.RETRY, name + ": staging failed: " + e);
        } finally {
            if (staged != null) {
                staged.discard();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------- metadata

    private static void requireMounted(LocalDrive drive) throws IOException {
        // An unmounted or replaced disk answers "no such file" for everything: never take that for "absent".
        if (!Files.isRegularFile(drive.formatFile())) {
            throw new IOException("drive " + drive.root() + " has no "
                    + drive.formatFile().getFileName() + " (not mounted or not formatted)");
        }
    }

    private View[] read(String bucket, String key, UUID versionId) {
        List<Outcome<View>> outcomes = set.calls.onAll(set.drives(), (pos, drive) -> {
            requireMounted(drive);
            View view = new View();
            KeyFiles f;
            try {
                f = KeyFiles.forRead(drive, bucket, key);
            } catch (CorruptMetaException e) {
                view.state = MetaState.CORRUPT;
                view.problem = "xl.meta corrupt: " + e.getMessage();
                return view;
            }
            if (f == null) {
                view.state = MetaState.ABSENT;
                return view;
            }
            view.files = f;
            try {
                view.pick = f.locate(versionId);
            } catch (CorruptMetaException e) {
                view.state = MetaState.CORRUPT;
                view.problem = "xl.meta.archive corrupt: " + e.getMessage();
                return view;
            }
            if (view.pick == null) {
                view.state = MetaState.ABSENT;
                return view;
            }
            var h = view.pick.file().header(view.pick.index());
            view.state = MetaState.HELD;
            view.bodyChecksum = h.bodyChecksum();
            view.type = h.type();
            view.dataShards = h.dataShards();
            view.parityShards = h.parityShards();
            return view;
        });
        View[] views = new View[outcomes.size()];
        for (int i = 0; i < views.length; i++) {
            Outcome<View> o = outcomes.get(i);
            if (o.ok()) {
                views[i] = o.value();
                if (views[i].state == MetaState.ABSENT
                        && filling.contains(set.drives().get(i))) {
                    views[i].state = MetaState.UNAVAILABLE_FILLING;
                }
            } else {
                views[i] = new View();
                views[i].state = MetaState.UNAVAILABLE;
                views[i].problem = String.valueOf(o.error());
            }
        }
        return views;
    }

    private static boolean anyFileCorrupt(View[] views) {
        for (View v : views) {
            if (v.state == MetaState.CORRUPT) {
                return true;
            }
        }
        return false;
    }

    /**
     * Quorum for a version of this type (as {@link ErasureSet} reads it): its own data count, which a write with drives
     * offline lowered by raising the parity.
     */
    /**
     * How many drives a write of this version needed before it was acknowledged. A version that fewer drives than
     * this hold, counting every drive that did not answer as a holder, provably was never acknowledged (a write a
     * crash cut short): it dangles, and is rolled back at once rather than when it can no longer be read, so it can
     * never be served later, when a drive that holds it returns, after having been absent.
     */
    private int writeQuorum(VersionType type, int dataShards, int parityShards) {
        return type == VersionType.DELETE_MARKER
                ? set.size() / 2 + 1
                : Math.max(1, dataShards == parityShards ? dataShards + 1 : dataShards);
    }

    /** As reads agree ({@link VersionAgreement}), so a heal never replaces what reads serve. */
    private Agreement agree(View[] views) {
        XlMeta.Pick[] found = new XlMeta.Pick[views.length];
        for (int i = 0; i < views.length; i++) {
            if (views[i].state == MetaState.HELD) {
                found[i] = views[i].pick;
            }
        }
        VersionAgreement.Result r = VersionAgreement.agree(
                found, set.size(), (i, e) -> views[i].problem = "version body corrupt: " + e.getMessage());
        return new Agreement(r.version(), r.checksum(), r.holders(), r.current(), r.problem());
    }

    /** No quorum: dangling (removed), gone, or to be retried. */
    private HealResult noQuorum(
            String bucket, String key, UUID versionId, View[] views, Agreement agreed, String name) {
        if (agreed.problem().startsWith("drives disagree")) {
            return HealResult.of(HealResult.Status.FAILED, name + ": " + agreed.problem());
        }
        int held = 0;
        int absent = 0;
        int fillingAbsent = 0;
        VersionType type = null;
        int dataShards = 0;
        int parityShards = 0;
        for (View v : views) {
            if (v.state == MetaState.HELD) {
                held++;
                type = v.type;
                dataShards = v.dataShards;
                parityShards = v.parityShards;
            } else if (v.state == MetaState.ABSENT) {
                absent++;
            } else if (v.state == MetaState.UNAVAILABLE_FILLING) {
                fillingAbsent++;
            }
        }
        if (held == 0) {
            // Nothing to copy from: a drive being filled lacking it too changes nothing.
            return absent + fillingAbsent == views.length
                    ? HealResult.of(HealResult.Status.NOT_FOUND, "")
                    : HealResult.of(HealResult.Status.RETRY, name + ": no readable drive holds it; some unreadable");
        }
        if (views.length - absent >= writeQuorum(type, dataShards, parityShards)) {
            return HealResult.of(
                    HealResult.Status.RETRY,
                    name + ": " + agreed.problem() + "; " + (views.length - absent - held)
                            + " drive(s) did not answer and may hold it");
        }
        return removeDangling(bucket, key, versionId, name);
    }

    /** Whether any drive's copy of the version carries a legal hold or a retention not yet expired. */
    private boolean underLock(View[] views) {
        java.time.Instant now = set.clock().instant();
        for (View v : views) {
            if (v.state != MetaState.HELD || v.pick == null) {
                continue;
            }
            try {
                ObjectVersion version = v.pick.file().version(v.pick.index());
                dev.appliance.core.objectlock.ObjectLock.checkRemovable(version.metadata(), now, false);
            } catch (CorruptMetaException e) {
                continue; // unreadable here; another copy decides
            } catch (dev.appliance.core.error.StorageException locked) {
                return true;
            }
        }
        return false;
    }

    /** Whether every drive said definitely whether it holds the version (none away, unreadable or being filled). */
    private static boolean everyDriveAnswered(View[] views) {
        for (View v : views) {
            if (v.state != MetaState.ABSENT && v.state != MetaState.HELD) {
                return false;
            }
        }
        return true;
    }

    /** Under the key's lock, decides again from fresh metadata, then removes the version where it is. */
    private HealResult removeDangling(String bucket, String key, UUID versionId, String name) {
        try (var lock = set.locks.write(bucket, key)) {
            View[] views = read(bucket, key, versionId);
            Agreement again = agree(views);
            int absent = 0;
            VersionType type = null;
            int dataShards = 0;
            int parityShards = 0;
            boolean[] holding = new boolean[views.length];
            for (int i = 0; i < views.length; i++) {
                if (views[i].state == MetaState.ABSENT) {
                    absent++;
                } else if (views[i].state == MetaState.HELD) {
                    holding[i] = true;
                    type = views[i].type;
                    dataShards = views[i].dataShards;
                    parityShards = views[i].parityShards;
                }
            }
            if (again.version() != null
                    || type == null
                    || views.length - absent >= writeQuorum(type, dataShards, parityShards)) {
                return HealResult.of(HealResult.Status.RETRY, name + ": changed while deciding whether it dangles");
            }
            if (underLock(views) && !everyDriveAnswered(views)) {
                // Whatever the bucket's configuration says, a version that carries retention or legal hold is removed
                // only once every drive has answered: then it provably can never be read (a write cut short before
                // its quorum, never acknowledged). While a drive is away or unreadable it is kept.
                return HealResult.of(
                        HealResult.Status.RETRY,
                        name + ": dangling but under retention or legal hold: kept until every drive answers");
            }
            // The removal, its data directory's move to trash and the pruning of emptied directories run as one
            // drive call each, so all of it is under the drive deadline (the key's lock is held meanwhile).
            List<Outcome<KeyFiles.Change>> outcomes = set.calls.on(set.drives(), holding, (pos, drive) -> {
                KeyFiles.Change change = KeyFiles.forUpdate(drive, bucket, key).remove(versionId);
                if (change != null && change.replacedDataDir() != null) {
                    trashQuietly(
                            drive,
                            drive.objectDir(bucket, key)
                                    .resolve(change.replacedDataDir().toString()));
                }
                if (!Files.exists(drive.metaFile(bucket, key))) {
                    drive.pruneEmptyParents(drive.objectDir(bucket, key), drive.bucketDir(bucket));
                }
                return change;
            });
            List<String> removed = new ArrayList<>();
            StringBuilder errors = new StringBuilder();
            for (int i = 0; i < views.length; i++) {
                if (!holding[i]) {
                    continue;
                }
                LocalDrive d = set.drives().get(i);
                Outcome<KeyFiles.Change> o = outcomes.get(i);
                if (!o.ok()) {
                    errors.append("; ").append(d.root()).append(": ").append(o.error());
                    continue;
                }
                removed.add(d.root().toString());
            }
            if (!errors.isEmpty()) {
                return new HealResult(
                        HealResult.Status.RETRY, removed, 0, name + ": dangling, removal failed" + errors);
            }
            return new HealResult(
                    HealResult.Status.DANGLING_REMOVED,
                    removed,
                    0,
                    name + ": dangling (" + again.problem() + ", " + absent + " drive(s) lack it): removed");
        }
    }

    // ---------------------------------------------------------------------------------------------------- data

    /** For each reachable drive: are its shards of {@code v} all present, of the right size and intact? */
    private boolean[] verifyAll(
            String bucket, String key, ObjectVersion v, View[] views, boolean[] holders, boolean deep, boolean parity) {
        ErasureLayout layout = set.layoutOf(v);
        BitrotAlgorithm bitrot = set.bitrotFor(v);
        boolean[] include = new boolean[views.length];
        for (int i = 0; i < include.length; i++) {
            include[i] = views[i].state != MetaState.UNAVAILABLE;
        }
        List<Outcome<Boolean>> outcomes = set.calls.on(set.drives(), include, (pos, drive) -> {
            if (v.inline()) {
                if (!holders[pos]) {
                    return false;
                }
                byte[] payload = views[pos].files.hot().inlineData(v.versionId());
                return payload != null && verifyBytes(payload, v.size(), layout, bitrot);
            }
            if (v.dataDir() == null) {
                return true;
            }
            drive.beforeRead();
            Path dir = drive.objectDir(bucket, key).resolve(v.dataDir().toString());
            for (PartInfo part : v.parts()) {
                boolean blocks = deep || (parity && v.shardIndexAt(pos) > v.dataShards());
                if (!verifyFile(dir.resolve("part." + part.number()), part.size(), layout, bitrot, blocks)) {
                    return false;
                }
            }
            return true;
        });
        boolean[] ok = new boolean[views.length];
        for (int i = 0; i < ok.length; i++) {
            ok[i] = include[i]
                    && outcomes.get(i).ok()
                    && Boolean.TRUE.equals(outcomes.get(i).value());
        }
        return ok;
    }

    private static boolean verifyBytes(byte[] shardFile, long partSize, ErasureLayout layout, BitrotAlgorithm bitrot) {
        if (shardFile.length != layout.shardFileSize(partSize)) {
            return false;
        }
        int cs = layout.checksumLength();
        for (long b = 0; b < layout.blockCount(partSize); b++) {
            int at = (int) layout.blockOffset(b);
            int len = layout.shardLength(layout.blockLength(partSize, b));
            if (!bitrot.verify(shardFile, at + cs, len, shardFile, at)) {
                return false;
            }
        }
        return true;
    }

    private boolean verifyFile(Path file, long partSize, ErasureLayout layout, BitrotAlgorithm bitrot, boolean deep) {
        int cs = layout.checksumLength();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() != layout.shardFileSize(partSize)) {
                return false;
            }
            if (!deep) {
                return true;
            }
            byte[] buf = new byte[cs + layout.fullShardLength()];
            for (long b = 0; b < layout.blockCount(partSize); b++) {
                int len = layout.shardLength(layout.blockLength(partSize, b));
                if (!LocalDrive.readFully(ch, buf, cs + len, layout.blockOffset(b))
                        || !bitrot.verify(buf, cs, len, buf, 0)) {
                    return false;
                }
                yieldToForeground();
            }
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return false; // an unreadable shard is a damaged one: rebuilt and written anew
        }
    }

    private void yieldToForeground() {
        if (load != null && load.busy()) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A verified source shard failed its checksum while rebuilding: start over later. */
    private static final class SourceChanged extends Exception {
        private static final long serialVersionUID = 1L;

        SourceChanged(String message) {
            super(message, null, false, false);
        }
    }

    /** Rebuilt shards waiting for their commit: a staging directory per drive, or an inline payload. */
    private final class Staged {
        final Path[] stagingRoot;
        final Path[] dataDir;
        final byte[][] inline;
        long bytes;

        Staged(int n) {
            stagingRoot = new Path[n];
            dataDir = new Path[n];
            inline = new byte[n][];
        }

        void discard() {
            for (Path p : stagingRoot) {
                if (p != null && Files.exists(p)) {
                    try {
                        LocalDrive.deleteTree(p);
                    } catch (IOException ignored) {
                        // staging is cleared at the next start
                    }
                }
            }
        }
    }

    /**
     * Rebuilds the shards of {@code rebuild} drives block by block from {@code data} verified sources (data shards
     * first), each block's shards checked again as they are read, and writes them (checksum first, as every shard
     * file) to staging; files and directories forced.
     */
    private Staged stage(
            String bucket,
            String key,
            ObjectVersion v,
            View[] views,
            boolean[] holders,
            boolean[] dataOk,
            boolean[] rebuild)
            throws IOException, SourceChanged {
        int n = views.length;
        ErasureLayout layout = set.layoutOf(v);
        BitrotAlgorithm bitrot = set.bitrotFor(v);
        ReedSolomon codec = ReedSolomon.of(layout.data(), layout.parity());
        List<Integer> sources = new ArrayList<>();
        for (int shard = 1; shard <= n && sources.size() < layout.data(); shard++) {
            for (int pos = 0; pos < n; pos++) {
                if (v.shardIndexAt(pos) == shard && holders[pos] && dataOk[pos]) {
                    sources.add(pos);
                }
            }
        }
        Staged staged = new Staged(n);
        try {
            for (int pos = 0; pos < n; pos++) {
                if (rebuild[pos] && !v.inline()) {
                    LocalDrive drive = set.drives().get(pos);
                    staged.stagingRoot[pos] = drive.newStagingDir();
                    staged.dataDir[pos] = Files.createDirectory(
                            staged.stagingRoot[pos].resolve(v.dataDir().toString()));
                }
            }
            List<PartInfo> parts = v.inline() ? List.of(new PartInfo(1, v.size(), null)) : v.parts();
            byte[][] shards = new byte[layout.total()][layout.fullShardLength()];
            int cs = layout.checksumLength();
            byte[] checksum = new byte[cs];
            for (PartInfo part : parts) {
                FileChannel[] in = new FileChannel[n];
                FileChannel[] out = new FileChannel[n];
                ByteArrayOutputStream[] inlineOut = new ByteArrayOutputStream[n];
                try {
                    for (int pos : sources) {
                        if (!v.inline()) {
                            set.drives().get(pos).beforeRead();
                            in[pos] = FileChannel.open(
                                    set.drives()
                                            .get(pos)
                                            .objectDir(bucket, key)
                                            .resolve(v.dataDir().toString())
                                            .resolve("part." + part.number()),
                                    StandardOpenOption.READ);
                        }
                    }
                    for (int pos = 0; pos < n; pos++) {
                        if (rebuild[pos]) {
                            if (v.inline()) {
                                inlineOut[pos] = new ByteArrayOutputStream();
                            } else {
                                set.drives().get(pos).beforeWrite();
                                out[pos] = FileChannel.open(
                                        staged.dataDir[pos].resolve("part." + part.number()),
                                        StandardOpenOption.CREATE_NEW,
                                        StandardOpenOption.WRITE);
                            }
                        }
                    }
                    byte[][] inlineIn = new byte[n][];
                    if (v.inline()) {
                        for (int pos : sources) {
                            inlineIn[pos] = views[pos].files.hot().inlineData(v.versionId());
                        }
                    }
                    byte[] buf = new byte[cs + layout.fullShardLength()];
                    for (long b = 0; b < layout.blockCount(part.size()); b++) {
                        int len = layout.shardLength(layout.blockLength(part.size(), b));
                        long at = layout.blockOffset(b);
                        boolean[] present = new boolean[layout.total()];
                        for (int pos : sources) {
                            int shard = v.shardIndexAt(pos) - 1;
                            if (v.inline()) {
                                System.arraycopy(inlineIn[pos], (int) at, buf, 0, cs + len);
                            } else if (!LocalDrive.readFully(in[pos], buf, cs + len, at)) {
                                throw new SourceChanged("shard file on "
                                        + set.drives().get(pos).root() + " became short while rebuilding");
                            }
                            if (!bitrot.verify(buf, cs, len, buf, 0)) {
                                throw new SourceChanged(
                                        "shard on " + set.drives().get(pos).root()
                                                + " failed its checksum while rebuilding (block " + b + ")");
                            }
                            System.arraycopy(buf, cs, shards[shard], 0, len);
                            present[shard] = true;
                        }
                        codec.reconstruct(shards, present, 0, len);
                        for (int pos = 0; pos < n; pos++) {
                            if (!rebuild[pos]) {
                                continue;
                            }
                            byte[] shard = shards[v.shardIndexAt(pos) - 1];
                            bitrot.checksum(shard, 0, len, checksum, 0);
                            if (v.inline()) {
                                inlineOut[pos].write(checksum);
                                inlineOut[pos].write(shard, 0, len);
                            } else {
                                LocalDrive.writeFully(out[pos], ByteBuffer.wrap(checksum));
                                LocalDrive.writeFully(out[pos], ByteBuffer.wrap(shard, 0, len));
                            }
                            staged.bytes += cs + len;
                        }
                        yieldToForeground();
                    }
                    for (int pos = 0; pos < n; pos++) {
                        if (out[pos] != null) {
                            out[pos].force(false);
                        }
                        if (inlineOut[pos] != null) {
                            staged.inline[pos] = inlineOut[pos].toByteArray();
                        }
                    }
                } finally {
                    closeAll(in);
                    closeAll(out);
                }
            }
            for (Path dir : staged.dataDir) {
                if (dir != null) {
                    // The part files' names must survive a crash as well as their bytes (LocalDrive's rule).
                    LocalDrive.forceDirectory(dir);
                }
            }
            return staged;
        } catch (IOException | SourceChanged | RuntimeException e) {
            staged.discard();
            throw e;
        }
    }

    private static void closeAll(FileChannel[] channels) {
        for (FileChannel c : channels) {
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // read channels lose nothing; written ones were forced before
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------- commit

    /**
     * Under the key's write lock: if the same version is still agreed, writes it to each target drive (the staged data
     * directory renamed in, the metadata entry written durably).
     */
    private HealResult commit(
            String bucket,
            String key,
            ObjectVersion v,
            int checksum,
            boolean[] targets,
            Staged staged,
            boolean anyUnavailable,
            String name) {
        try (var lock = set.locks.write(bucket, key)) {
            View[] views = read(bucket, key, v.versionId());
            Agreement now = agree(views);
            if (now.version() == null || now.checksum() != checksum) {
                return HealResult.of(HealResult.Status.RETRY, name + ": changed while healing");
            }
            boolean[] include = new boolean[targets.length];
            boolean[] metadataOnly = new boolean[targets.length];
            for (int i = 0; i < include.length; i++) {
                boolean needsData = staged != null && (staged.dataDir[i] != null || staged.inline[i] != null);
                metadataOnly[i] = !needsData && now.holders()[i];
                // A drive that gained the version meanwhile and needs no data is left alone.
                include[i] = targets[i]
                        && views[i].state != MetaState.UNAVAILABLE
                        && (needsData || !now.current()[i])
                        && (!v.inline() || needsData || metadataOnly[i]);
                anyUnavailable |= targets[i] && views[i].state == MetaState.UNAVAILABLE;
            }
            List<Outcome<KeyFiles.Change>> outcomes = set.calls.on(set.drives(), include, (pos, drive) -> {
                if (metadataOnly[pos]) {
                    // Same shards, other metadata (an update this drive missed): only the body is rewritten.
                    KeyFiles.Change c = KeyFiles.forUpdate(drive, bucket, key).replace(v);
                    if (c == null) {
                        throw new IOException("version " + v.versionId() + " vanished from " + drive.root());
                    }
                    return c;
                }
                Path objectDir = drive.objectDir(bucket, key);
                Path stagedDir = staged == null ? null : staged.dataDir[pos];
                byte[] payload = staged == null ? null : staged.inline[pos];
                if (stagedDir != null) {
                    // The damaged data directory makes way for the rebuilt one (same name: the version's).
                    Path old = objectDir.resolve(v.dataDir().toString());
                    if (Files.exists(old)) {
                        drive.moveToTrash(old);
                    }
                }
                KeyFiles.Change change =
                        KeyFiles.forUpdate(drive, bucket, key).add(v, payload, stagedDir, Integer.MAX_VALUE);
                UUID replaced = change.replacedDataDir();
                if (replaced != null && !replaced.equals(v.dataDir())) {
                    // Another body under this id (a missed overwrite of the null version) had its own data.
                    trashQuietly(drive, objectDir.resolve(replaced.toString()));
                }
                return change;
            });
            List<String> healed = new ArrayList<>();
            StringBuilder errors = new StringBuilder();
            for (int i = 0; i < include.length; i++) {
                if (!include[i]) {
                    continue;
                }
                if (outcomes.get(i).ok()) {
                    healed.add(set.drives().get(i).root().toString());
                } else {
                    errors.append("; ")
                            .append(set.drives().get(i).root())
                            .append(": ")
                            .append(outcomes.get(i).error());
                }
            }
            long bytes = 0;
            if (staged != null) {
                for (int i = 0; i < include.length; i++) {
                    if (include[i] && outcomes.get(i).ok()) {
                        bytes += staged.inline[i] != null
                                ? staged.inline[i].length
                                : staged.dataDir[i] != null ? shardFileBytes(v) : 0;
                    }
                }
            }
            if (!errors.isEmpty() || anyUnavailable) {
                return new HealResult(
                        healed.isEmpty() ? HealResult.Status.RETRY : HealResult.Status.PARTIAL,
                        healed,
                        bytes,
                        name + (errors.isEmpty() ? ": some drives unreachable" : ": commit failed" + errors));
            }
            return new HealResult(HealResult.Status.HEALED, healed, bytes, "");
        }
    }

    /** Bytes of one drive's shard files of {@code v}, as rebuilt (the layout's sizes). */
    private long shardFileBytes(ObjectVersion v) {
        ErasureLayout layout = set.layoutOf(v);
        long sum = 0;
        for (PartInfo p : v.parts()) {
            sum += layout.shardFileSize(p.size());
        }
        return sum;
    }

    private static void trashQuietly(LocalDrive drive, Path path) {
        try {
            drive.moveToTrash(path);
        } catch (IOException e) {
            // an unreferenced data directory is harmless and collected later
        }
    }

    private static int count(boolean[] flags) {
        int c = 0;
        for (boolean f : flags) {
            if (f) {
                c++;
            }
        }
        return c;
    }
}
