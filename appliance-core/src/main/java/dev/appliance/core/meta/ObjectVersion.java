package dev.appliance.core.meta;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The body of one version in {@code xl.meta}: everything needed to read it back. Bodies are identical on every drive
 * of the set (nothing per-drive lives here: a drive's shard index is derived from {@link #distribution} and the
 * drive's position), so their checksums can be compared across drives.
 *
 * @param dataDir directory holding the part files; null for delete markers and inline versions
 * @param size object size in bytes (sum of part sizes)
 * @param blockSize erasure block size in bytes
 * @param distribution for each drive position in the set, the 1-based shard index stored there
 * @param bitrotAlgorithm {@link dev.appliance.core.bitrot.BitrotAlgorithm} id
 * @param etag hex MD5 (or multipart etag), null for delete markers
 * @param metadata content-type, user metadata and other stored headers, keys lower-case, sorted
 * @param metaGeneration how many times {@link #metadata} was changed after the version was written (retention, legal
 *     hold, tags): drives that agree on the version's identity ({@link #sameIdentity}) but hold different metadata
 *     resolve to the highest generation. 0 for a version as written, and for every version of builds before xl.meta 1.2
 */
public record ObjectVersion(
        UUID versionId,
        VersionType type,
        long modTimeNanos,
        UUID dataDir,
        long size,
        int dataShards,
        int parityShards,
        int blockSize,
        int[] distribution,
        int bitrotAlgorithm,
        List<PartInfo> parts,
        String etag,
        SortedMap<String, String> metadata,
        boolean inline,
        long metaGeneration) {

    /** The all-zero id under which the null version is stored. */
    public static final UUID NULL_VERSION_ID = new UUID(0, 0);

    public ObjectVersion {
        requireNonNull(versionId, "versionId");
        requireNonNull(type, "type");
        distribution = distribution == null ? new int[0] : distribution.clone();
        parts = parts == null ? List.of() : List.copyOf(parts);
        metadata = metadata == null ? new TreeMap<>() : new TreeMap<>(metadata);
        if (type == VersionType.OBJECT) {
            if (dataShards < 1 || parityShards < 0) {
                throw new IllegalArgumentException(
                        "erasure: " + dataShards + "+" + parityShards + " (expected data >= 1, parity >= 0)");
            }
            if (distribution.length != dataShards + parityShards) {
                throw new IllegalArgumentException("distribution: " + distribution.length + " entries (expected "
                        + (dataShards + parityShards) + ")");
            }
            if (!inline && size > 0 && dataDir == null) {
                throw new IllegalArgumentException("dataDir: null for a non-inline object of " + size + " bytes");
            }
        }
        if (metaGeneration < 0) {
            throw new IllegalArgumentException("metaGeneration: " + metaGeneration + " (expected >= 0)");
        }
    }

    /** A version whose metadata was never changed since it was written (generation 0). */
    public ObjectVersion(
            UUID versionId,
            VersionType type,
            long modTimeNanos,
            UUID dataDir,
            long size,
            int dataShards,
            int parityShards,
            int blockSize,
            int[] distribution,
            int bitrotAlgorithm,
            List<PartInfo> parts,
            String etag,
            SortedMap<String, String> metadata,
            boolean inline) {
        this(
                versionId,
                type,
                modTimeNanos,
                dataDir,
                size,
                dataShards,
                parityShards,
                blockSize,
                distribution,
                bitrotAlgorithm,
                parts,
                etag,
                metadata,
                inline,
                0);
    }

    public static ObjectVersion deleteMarker(UUID versionId, long modTimeNanos) {
        return new ObjectVersion(
                versionId, VersionType.DELETE_MARKER, modTimeNanos, null, 0, 0, 0, 0, null, 0, null, null, null, false);
    }

    /** This version with other stored metadata (tags, headers); data and layout unchanged. */
    public ObjectVersion withMetadata(SortedMap<String, String> newMetadata) {
        return withMutable(newMetadata, metaGeneration);
    }

    /** This version with the same everything but its metadata generation. */
    public ObjectVersion withMetaGeneration(long generation) {
        return withMutable(metadata, generation);
    }

    /** This version with its mutable fields replaced: the identity ({@link #sameIdentity}) stays. */
    private ObjectVersion withMutable(SortedMap<String, String> newMetadata, long generation) {
        return new ObjectVersion(
                versionId,
                type,
                modTimeNanos,
                dataDir,
                size,
                dataShards,
                parityShards,
                blockSize,
                distribution,
                bitrotAlgorithm,
                parts,
                etag,
                newMetadata,
                inline,
                generation);
    }

    /**
     * Whether {@code other} is the same stored version: same id, type, time, data directory, size, layout, parts and
     * checksums, so the same shards. Only the mutable fields ({@link #metadata}, {@link #metaGeneration}) may differ.
     */
    public boolean sameIdentity(ObjectVersion other) {
        return versionId.equals(other.versionId)
                && type == other.type
                && modTimeNanos == other.modTimeNanos
                && java.util.Objects.equals(dataDir, other.dataDir)
                && size == other.size
                && dataShards == other.dataShards
                && parityShards == other.parityShards
                && blockSize == other.blockSize
                && Arrays.equals(distribution, other.distribution)
                && bitrotAlgorithm == other.bitrotAlgorithm
                && parts.equals(other.parts)
                && java.util.Objects.equals(etag, other.etag)
                && inline == other.inline;
    }

    /** This version with its shard data in part files under {@code newDataDir} instead of inline. */
    public ObjectVersion inPartFiles(UUID newDataDir) {
        return new ObjectVersion(
                versionId,
                type,
                modTimeNanos,
                newDataDir,
                size,
                dataShards,
                parityShards,
                blockSize,
                distribution,
                bitrotAlgorithm,
                parts,
                etag,
                metadata,
                false,
                metaGeneration);
    }

    public boolean isDeleteMarker() {
        return type == VersionType.DELETE_MARKER;
    }

    public boolean isNullVersion() {
        return NULL_VERSION_ID.equals(versionId);
    }

    @Override
    public int[] distribution() {
        return distribution.clone();
    }

    /** The 1-based shard index stored on the drive at {@code position} (0-based) in the set. */
    public int shardIndexAt(int position) {
        return distribution[position];
    }

    @Override
    public SortedMap<String, String> metadata() {
        return new TreeMap<>(metadata);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectVersion v
                && versionId.equals(v.versionId)
                && type == v.type
                && modTimeNanos == v.modTimeNanos
                && java.util.Objects.equals(dataDir, v.dataDir)
                && size == v.size
                && dataShards == v.dataShards
                && parityShards == v.parityShards
                && blockSize == v.blockSize
                && Arrays.equals(distribution, v.distribution)
                && bitrotAlgorithm == v.bitrotAlgorithm
                && parts.equals(v.parts)
                && java.util.Objects.equals(etag, v.etag)
                && metadata.equals(v.metadata)
                && inline == v.inline
                && metaGeneration == v.metaGeneration;
    }

    @Override
    public int hashCode() {
        return versionId.hashCode() * 31 + Long.hashCode(modTimeNanos);
    }

    @Override
    public String toString() {
        return "ObjectVersion[" + versionId + ", " + type + ", size=" + size + ", " + dataShards + "+" + parityShards
                + (inline ? ", inline" : ", dataDir=" + dataDir) + ", metadata=" + Map.copyOf(metadata)
                + (metaGeneration == 0 ? "" : ", metaGeneration=" + metaGeneration)
                + "]";
    }
}
