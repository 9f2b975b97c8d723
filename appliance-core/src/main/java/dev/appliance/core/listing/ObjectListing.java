package dev.appliance.core.listing;

import dev.appliance.core.ListObjectsResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.naming.VersionIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.Function;

/**
 * ListObjects and ListObjectVersions over all the erasure sets of a pool.
 *
 * <p><b>Merging the drives' walks.</b> Every online drive walks its directory of the bucket in key order ({@link
 * DriveWalker}); a listing merges these sorted walks through a priority queue and drops an entry equal to the one it
 * just returned, so each key (or collapsed common prefix) comes out once and in order, whichever drives hold it. A key
 * on any one online drive is seen, so a key written while some drives were away is still listed.
 *
 * <p><b>Each key resolved through its set.</b> That a drive holds a key's directory says nothing about which version
 * is current: the drive may be stale, or hold what is left of a write that never reached a quorum. So for every key
 * the merged walk yields, the listing asks the key's {@link ErasureSet}, which resolves the key's versions by quorum
 * across the set's drives ({@code latestObjectOrNull} for a listing of current objects, {@code versions} for a version
 * listing); never the first drive that answers. A key whose latest version is a delete marker, or that the set
 * finds no version of, is not a current object.
 *
 * <p><b>Prefixes of delete markers are hidden.</b> In a listing of current objects a common prefix is shown only when
 * some key under it has a current version that is not a delete marker, so a "folder" whose objects were all deleted
 * disappears, as on S3. A version listing shows every prefix that holds a key, delete markers included, but not an
 * empty directory left on the drives.
 *
 * <p><b>max-keys.</b> A negative max-keys is refused (the message names the value); above 1000 it is clamped to 1000,
 * S3's largest page. Keys and common prefixes share the page; a listing cut short is marked truncated, with the marker
 * to resume from.
 */
public final class ObjectListing {
    private final List<LocalDrive> drives;
    private final Function<String, ErasureSet> setOf;

    /**
     * Lists over {@code drives} (every drive of the pool; those offline when a listing starts are skipped), resolving
     * each key through {@code setOf}, the set the key is placed on.
     */
    public ObjectListing(List<LocalDrive> drives, Function<String, ErasureSet> setOf) {
        this.drives = List.copyOf(Objects.requireNonNull(drives, "drives"));
        this.setOf = Objects.requireNonNull(setOf, "setOf");
    }

    /** Merges every online drive's sorted walk into one stream of distinct entries. */
    private final class MergedWalk {
        private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> compareEntries(a.entry, b.entry));
        private DriveWalker.Entry last;

        private record Head(DriveWalker.Entry entry, DriveWalker walker) {}

        MergedWalk(String bucket, String prefix, String startAfter, boolean collapse) {
            for (LocalDrive d : drives) {
                if (d.isOnline()) {
                    DriveWalker w = new DriveWalker(d.bucketDir(bucket), prefix, startAfter, collapse);
                    if (w.hasNext()) {
                        heads.add(new Head(w.next(), w));
                    }
                }
            }
        }

        private static int compareEntries(DriveWalker.Entry a, DriveWalker.Entry b) {
            int c = ObjectKeys.compare(a.key(), b.key());
            return c != 0 ? c : Boolean.compare(a.commonPrefix(), b.commonPrefix());
        }

        DriveWalker.Entry next() {
            while (!heads.isEmpty()) {
                Head h = heads.poll();
                if (h.walker.hasNext()) {
                    heads.add(new Head(h.walker.next(), h.walker));
                }
                if (last == null || !last.equals(h.entry)) {
                    last = h.entry;
                    return h.entry;
                }
            }
            return null;
        }
    }

    /** The common prefix an entry rolls up into under the delimiter, or null when it stands for itself. */
    private static String rollUp(DriveWalker.Entry e, String prefix, String delimiter) {
        if (delimiter == null || delimiter.isEmpty()) {
            return null;
        }
        int at = e.key().indexOf(delimiter, prefix.length());
        return at < 0 ? null : e.key().substring(0, at + delimiter.length());
    }

    private static int clampMaxKeys(int maxKeys) {
        if (maxKeys < 0) {
            throw new StorageException(ErrorKind.INVALID_ARGUMENT, "max-keys: " + maxKeys + " (expected 0..1000)");
        }
        return Math.min(maxKeys, 1000);
    }

    /** ListObjects (V1 and V2): the current objects and common prefixes after {@code startAfter}. */
    public ListObjectsResult listObjects(
            String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        int limit = clampMaxKeys(maxKeys);
        String p = prefix == null ? "" : prefix;
        String after = startAfter == null ? "" : startAfter;
        MergedWalk walk = new MergedWalk(bucket, p, after, "/".equals(delimiter));
        List<ObjectInfo> objects = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastReturned = null;
        boolean truncated = false;
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            String cp = e.commonPrefix() ? e.key() : rollUp(e, p, delimiter);
            if (cp != null) {
                if (cp.equals(lastReturned) || ObjectKeys.compare(cp, after) <= 0) {
                    continue;
                }
                // A prefix that holds only delete markers is not shown in a listing of current objects.
                boolean live = e.commonPrefix()
                        ? hasCurrentObject(bucket, cp)
                        : setOf.apply(e.key()).latestObjectOrNull(bucket, e.key()) != null;
                if (!live) {
                    continue;
                }
                if (objects.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break;
                }
                prefixes.add(cp);
                lastReturned = cp;
                continue;
            }
            ObjectInfo info = setOf.apply(e.key()).latestObjectOrNull(bucket, e.key());
            if (info == null) {
                continue;
            }
            if (objects.size() + prefixes.size() >= limit) {
                truncated = true;
                break;
            }
            objects.add(info);
            lastReturned = e.key();
        }
        return new ListObjectsResult(objects, prefixes, truncated, truncated ? lastReturned : null);
    }

    /** True when some key under {@code prefix} has a current version that is not a delete marker. */
    private boolean hasCurrentObject(String bucket, String prefix) {
        MergedWalk walk = new MergedWalk(bucket, prefix, "", false);
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            if (!e.commonPrefix() && setOf.apply(e.key()).latestObjectOrNull(bucket, e.key()) != null) {
                return true;
            }
        }
        return false;
    }

    /** ListObjectVersions: every version and delete marker, resuming after the key and version-id markers. */
    public ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys) {
        int limit = clampMaxKeys(maxKeys);
        String p = prefix == null ? "" : prefix;
        String marker = keyMarker == null ? "" : keyMarker;
        boolean inMarkerKey = !marker.isEmpty() && versionIdMarker != null && !versionIdMarker.isEmpty();
        if (inMarkerKey && !VersionIds.NULL.equals(versionIdMarker)) {
            VersionIds.parse(versionIdMarker);
        }
        // Start just before the marker key when resuming inside its versions.
        String walkAfter = inMarkerKey ? beforeKey(marker) : marker;
        MergedWalk walk = new MergedWalk(bucket, p, walkAfter, "/".equals(delimiter));
        List<ObjectInfo> versions = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastPrefix = null;
        ObjectInfo lastVersion = null;
        boolean truncated = false;
        outer:
        for (DriveWalker.Entry e = walk.next(); e != null; e = walk.next()) {
            String cp = e.commonPrefix() ? e.key() : rollUp(e, p, delimiter);
            if (cp != null) {
                if (cp.equals(lastPrefix) || ObjectKeys.compare(cp, marker) <= 0) {
                    continue;
                }
                if (e.commonPrefix() && new MergedWalk(bucket, cp, "", false).next() == null) {
                    continue; // an empty directory left on the drives holds no key
                }
                if (versions.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break;
                }
                prefixes.add(cp);
                lastPrefix = cp;
                continue;
            }
            List<ObjectInfo> all = setOf.apply(e.key()).versions(bucket, e.key());
            boolean skipping = inMarkerKey && e.key().equals(marker);
            if (!skipping && ObjectKeys.compare(e.key(), marker) <= 0) {
                continue;
            }
            for (ObjectInfo v : all) {
                if (skipping) {
                    skipping = !v.versionId().equals(versionIdMarker);
                    continue;
                }
                if (versions.size() + prefixes.size() >= limit) {
                    truncated = true;
                    break outer;
                }
                versions.add(v);
                lastVersion = v;
            }
        }
        String nextKey = null;
        String nextVersion = null;
        if (truncated) {
            boolean prefixLast = lastPrefix != null
                    && (lastVersion == null || ObjectKeys.compare(lastPrefix, lastVersion.key()) > 0);
            nextKey = prefixLast ? lastPrefix : lastVersion.key();
            nextVersion = prefixLast ? null : lastVersion.versionId();
        }
        return new ListVersionsResult(versions, prefixes, truncated, nextKey, nextVersion);
    }

    /** A start-after value that still lets {@code key} itself be walked. */
    private static String beforeKey(String key) {
        if (key.isEmpty()) {
            return "";
        }
        char last = key.charAt(key.length() - 1);
        return last == 0
                ? key.substring(0, key.length() - 1)
                : key.substring(0, key.length() - 1) + (char) (last - 1) + "\uffff";
    }
}
