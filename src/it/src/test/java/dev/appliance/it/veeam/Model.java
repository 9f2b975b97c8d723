package dev.appliance.it.veeam;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * What the bucket must hold, as the simulator wrote it: per key its versions (oldest first) with the seed and size of
 * their content, their ETag and their lock state. Every read and listing is compared with it.
 *
 * <p>The workload never runs two operations on one key at the same time, so the order of a key's versions here is the
 * order the appliance saw. A key whose last mutation ended in an error of unknown outcome is <em>tainted</em>: the
 * error is reported, and the key is left out of later comparisons instead of producing follow-up noise.
 */
final class Model {
    /** What a version is in Veeam's terms; decides how it is extended and when it may be deleted. */
    enum Kind {
        /** a zero-byte directory marker ({@code .../}) */
        FOLDER,
        /** repository configuration ({@code Owner}, {@code Repository}): locked for the whole run */
        CONFIG,
        /** a checkpoint object rewritten every session; kept (and extended) while within the rollback window */
        CHECKPOINT,
        /** a data block still referenced by a backup chain: extended at every generation rollover */
        CHAIN_BLOCK,
        /** a data block of a restore point that retention retires: never extended, deleted once expired */
        TRANSIENT_BLOCK,
        /** a delete marker */
        DELETE_MARKER
    }

    /** One version. Lock fields change only through {@link KeyState} (retention extensions). */
    static final class Version {
        final String versionId;
        final Kind kind;
        final long seed;
        final int size;
        final String etag;
        private String mode;
        private Instant retainUntil;

        Version(String versionId, Kind kind, long seed, int size, String etag, String mode, Instant retainUntil) {
            this.versionId = versionId;
            this.kind = kind;
            this.seed = seed;
            this.size = size;
            this.etag = etag;
            this.mode = mode;
            this.retainUntil = retainUntil;
        }

        static Version deleteMarker(String versionId) {
            return new Version(versionId, Kind.DELETE_MARKER, 0, 0, null, null, null);
        }

        boolean isDeleteMarker() {
            return kind == Kind.DELETE_MARKER;
        }

        synchronized String mode() {
            return mode;
        }

        synchronized Instant retainUntil() {
            return retainUntil;
        }

        synchronized void retention(String mode, Instant retainUntil) {
            this.mode = mode;
            this.retainUntil = retainUntil;
        }

        @Override
        public String toString() {
            return kind + " " + versionId + " size=" + size + " lock=" + mode() + "/" + retainUntil();
        }
    }

    /** A key's versions, oldest first. */
    static final class KeyState {
        final String key;
        private final List<Version> versions = new ArrayList<>();
        private String taintedBy;

        KeyState(String key) {
            this.key = key;
        }

        synchronized void add(Version v) {
            versions.add(v);
        }

        synchronized boolean remove(String versionId) {
            return versions.removeIf(v -> v.versionId.equals(versionId));
        }

        synchronized List<Version> versions() {
            return List.copyOf(versions);
        }

        synchronized Version latest() {
            return versions.isEmpty() ? null : versions.getLast();
        }

        synchronized Version version(String versionId) {
            for (Version v : versions) {
                if (v.versionId.equals(versionId)) {
                    return v;
                }
            }
            return null;
        }

        synchronized void taint(String why) {
            if (taintedBy == null) {
                taintedBy = why;
            }
        }

        synchronized boolean tainted() {
            return taintedBy != null;
        }
    }

    /** One entry of a version listing, as the model expects it and as the appliance answered it. */
    record Listed(String key, String versionId, boolean latest, long size, String etag) {
        @Override
        public String toString() {
            return key + "@" + versionId + (latest ? " latest" : "") + (etag == null ? " marker" : " " + size + "B");
        }
    }

    /** A version listing: versions and delete markers, each in S3's order (key, then newest first). */
    record Listing(List<Listed> versions, List<Listed> deleteMarkers, List<String> commonPrefixes) {}

    private final ConcurrentSkipListMap<String, KeyState> keys = new ConcurrentSkipListMap<>();

    KeyState key(String key) {
        return keys.computeIfAbsent(key, KeyState::new);
    }

    KeyState existing(String key) {
        return keys.get(key);
    }

    /** Every key in order (copy). */
    List<KeyState> keys() {
        return List.copyOf(keys.values());
    }

    /** Keys under {@code prefix} that an error made unreliable: left out of listing comparisons. */
    Set<String> taintedUnder(String prefix) {
        Set<String> out = new TreeSet<>();
        for (KeyState k : keys.tailMap(prefix).values()) {
            if (!k.key.startsWith(prefix)) {
                break;
            }
            if (k.tainted()) {
                out.add(k.key);
            }
        }
        return out;
    }

    /**
     * What ListObjectVersions with {@code prefix} and {@code delimiter} (null for none) must answer, over all pages:
     * keys with a delimiter after the prefix roll up into common prefixes, every other key under the prefix lists all its
     * versions newest first; keys not under the prefix (ancestor directory markers included) never appear.
     */
    Listing expectedVersions(String prefix, String delimiter) {
        List<Listed> versions = new ArrayList<>();
        List<Listed> markers = new ArrayList<>();
        Set<String> prefixes = new TreeSet<>();
        for (KeyState k : keys.tailMap(prefix).values()) {
            if (!k.key.startsWith(prefix)) {
                break;
            }
            List<Version> vs = k.versions();
            if (vs.isEmpty() || k.tainted()) {
                continue;
            }
            if (delimiter != null) {
                int at = k.key.indexOf(delimiter, prefix.length());
                if (at >= 0) {
                    prefixes.add(k.key.substring(0, at + delimiter.length()));
                    continue;
                }
            }
            for (int i = vs.size() - 1; i >= 0; i--) {
                Version v = vs.get(i);
                boolean latest = i == vs.size() - 1;
                if (v.isDeleteMarker()) {
                    markers.add(new Listed(k.key, v.versionId, latest, 0, null));
                } else {
                    versions.add(new Listed(k.key, v.versionId, latest, v.size, v.etag));
                }
            }
        }
        return new Listing(versions, markers, List.copyOf(prefixes));
    }

    /** What ListObjectsV2 must answer over all pages: keys whose latest version is not a delete marker. */
    Listing expectedCurrent(String prefix, String delimiter) {
        List<Listed> contents = new ArrayList<>();
        Set<String> prefixes = new TreeSet<>();
        for (KeyState k : keys.tailMap(prefix).values()) {
            if (!k.key.startsWith(prefix)) {
                break;
            }
            Version latest = k.latest();
            if (latest == null || latest.isDeleteMarker() || k.tainted()) {
                continue;
            }
            if (delimiter != null) {
                int at = k.key.indexOf(delimiter, prefix.length());
                if (at >= 0) {
                    prefixes.add(k.key.substring(0, at + delimiter.length()));
                    continue;
                }
            }
            contents.add(new Listed(k.key, null, true, latest.size, latest.etag));
        }
        return new Listing(contents, List.of(), List.copyOf(prefixes));
    }

    /** The logical bytes of every version of every key under {@code prefix} (what SOSAPI's {@code Used} counts). */
    long bytesUnder(String prefix) {
        long sum = 0;
        for (KeyState k : keys.tailMap(prefix).values()) {
            if (!k.key.startsWith(prefix)) {
                break;
            }
            for (Version v : k.versions()) {
                sum += v.size;
            }
        }
        return sum;
    }
}
