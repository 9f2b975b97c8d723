package dev.appliance.core.erasure;

import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.VersionType;
import dev.appliance.core.meta.XlMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the drives of a set agree on one version id, the same way for reads, listings, metadata updates and the healer.
 *
 * <p>Drives agree on a version by its <b>identity</b> ({@link ObjectVersion#sameIdentity}: id, time, data directory,
 * size, layout, parts, checksums), not by identical bytes: the mutable fields (retention, legal hold, tags)
 * legitimately differ between drives for a while (a drive away during a retention update and not healed yet, an
 * update a crash cut off on some drives, an undo a crash cut off). Enough drives holding the identity ({@code data} of
 * the version's layout; {@code n/2} for a delete marker) make the quorum; of the bodies they hold, the one with the
 * highest {@link ObjectVersion#metaGeneration()} is served (ties: more drives, then the larger body checksum, so every reader
 * and the healer pick the same one), and the healer rewrites the others to it.
 *
 * <p>Two identities under one id exist only for the null version whose overwrite a crash stopped half way; the one
 * {@link ErasureSet#comparePreferred} prefers wins.
 */
public final class VersionAgreement {
    private VersionAgreement() {}

    /** Told about a drive whose row is there but whose body fails its checksum (it stops counting as a holder). */
    @FunctionalInterface
    public interface CorruptBody {
        void at(int drive, CorruptMetaException e);
    }

    /**
     * The outcome: {@code version} null when no identity has quorum ({@code problem} says why).
     *
     * @param holders drives holding the version's identity (whatever their metadata): they hold its shards
     * @param current the holders whose body is exactly the served one (same checksum); the others need a metadata heal
     */
    public record Result(ObjectVersion version, int checksum, boolean[] holders, boolean[] current, String problem) {
        boolean agreed() {
            return version != null;
        }
    }

    /** One identity's holders and its best body. */
    private static final class Identity {
        final ObjectVersion first;
        final boolean[] holders;
        ObjectVersion best;
        int bestChecksum;
        int bestCount;

        Identity(ObjectVersion first, int n) {
            this.first = first;
            this.holders = new boolean[n];
        }
    }

    /** {@code found[i]}: where drive {@code i} holds the version, or null. */
    public static Result agree(XlMeta.Pick[] found, int setSize, CorruptBody corrupt) {
        int n = found.length;
        // Bodies are compared by checksum first: the usual case is one group, decoded once per holder (to verify it).
        Map<Integer, boolean[]> byChecksum = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (found[i] != null) {
                int c = found[i].file().header(found[i].index()).bodyChecksum();
                byChecksum.computeIfAbsent(c, k -> new boolean[n])[i] = true;
            }
        }
        if (byChecksum.isEmpty()) {
            return new Result(null, 0, null, null, "no drive holds it");
        }
        List<Identity> identities = new ArrayList<>();
        for (var e : byChecksum.entrySet()) {
            boolean[] group = e.getValue();
            ObjectVersion decoded = null;
            for (int i = 0; i < n; i++) {
                if (!group[i]) {
                    continue;
                }
                try {
                    ObjectVersion v = found[i].file().version(found[i].index());
                    decoded = decoded == null ? v : decoded;
                } catch (CorruptMetaException ex) {
                    group[i] = false; // this drive holds the row but not the version
                    corrupt.at(i, ex);
                }
            }
            if (decoded == null) {
                continue;
            }
            Identity id = null;
            for (Identity candidate : identities) {
                if (candidate.first.sameIdentity(decoded)) {
                    id = candidate;
                    break;
                }
            }
            if (id == null) {
                id = new Identity(decoded, n);
                identities.add(id);
            }
            int count = count(group);
            for (int i = 0; i < n; i++) {
                id.holders[i] |= group[i];
            }
            if (id.best == null
                    || decoded.metaGeneration() > id.best.metaGeneration()
                    || (decoded.metaGeneration() == id.best.metaGeneration()
                            && (count > id.bestCount || (count == id.bestCount && e.getKey() > id.bestChecksum)))) {
                id.best = decoded;
                id.bestChecksum = e.getKey();
                id.bestCount = count;
            }
        }
        Identity chosen = null;
        String problem = "no intact body";
        for (Identity id : identities) {
            int holders = count(id.holders);
            int quorum = quorum(id.first, setSize);
            if (holders < quorum) {
                problem = "held by " + holders + " drive(s), quorum " + quorum;
                continue;
            }
            if (chosen == null
                    || ErasureSet.comparePreferred(
                                    holders,
                                    id.first.modTimeNanos(),
                                    id.bestChecksum,
                                    count(chosen.holders),
                                    chosen.first.modTimeNanos(),
                                    chosen.bestChecksum)
                            < 0) {
                chosen = id;
            }
        }
        if (chosen == null) {
            return new Result(null, 0, null, null, problem);
        }
        boolean[] current = new boolean[n];
        for (int i = 0; i < n; i++) {
            current[i] = chosen.holders[i]
                    && found[i].file().header(found[i].index()).bodyChecksum() == chosen.bestChecksum;
        }
        return new Result(chosen.best, chosen.bestChecksum, chosen.holders, current, "");
    }

    /**
     * Quorum of metadata for a version: its own data count (a write with drives offline lowered it by raising the
     * parity); {@code n/2} for a delete marker.
     */
    static int quorum(ObjectVersion v, int setSize) {
        return quorum(v.type(), v.dataShards(), setSize);
    }

    static int quorum(VersionType type, int dataShards, int setSize) {
        return type == VersionType.DELETE_MARKER ? Math.max(1, setSize / 2) : Math.max(1, dataShards);
    }

    /**
     * Whether the drives holding the version, with the {@code unknown} drives that could not be read, could make up
     * its quorum: then its absence from an answer is not certain.
     */
    static boolean mightHaveQuorum(XlMeta.Pick[] found, int unknown, int setSize) {
        int held = count(found);
        for (XlMeta.Pick p : found) {
            if (p != null) {
                var h = p.file().header(p.index());
                return held + unknown >= quorum(h.type(), h.dataShards(), setSize);
            }
        }
        return false;
    }

    static int count(XlMeta.Pick[] found) {
        int c = 0;
        for (XlMeta.Pick p : found) {
            if (p != null) {
                c++;
            }
        }
        return c;
    }

    static int count(boolean[] flags) {
        int c = 0;
        for (boolean f : flags) {
            if (f) {
                c++;
            }
        }
        return c;
    }
}
