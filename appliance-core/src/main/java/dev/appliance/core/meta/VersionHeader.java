package dev.appliance.core.meta;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/**
 * The small fixed-size summary of one version that {@code xl.meta} keeps apart from the version's body, so that reads
 * can find and order versions without decoding bodies.
 *
 * @param versionId {@link ObjectVersion#NULL_VERSION_ID} for the null version
 * @param flags {@link #FLAG_INLINE}, {@link #FLAG_DATA_DIR}
 * @param bodyChecksum CRC32C of the version's serialized body; equal bodies on two drives mean the drives agree
 */
public record VersionHeader(
        UUID versionId,
        long modTimeNanos,
        VersionType type,
        int flags,
        int dataShards,
        int parityShards,
        int bodyChecksum) {

    /** The version's shard data lives in this drive's {@code xl.meta} inline section. */
    public static final int FLAG_INLINE = 1;
    /** The version's shard data lives in part files under its data directory. */
    public static final int FLAG_DATA_DIR = 2;

    public VersionHeader {
        requireNonNull(versionId, "versionId");
        requireNonNull(type, "type");
    }

    public boolean isDeleteMarker() {
        return type == VersionType.DELETE_MARKER;
    }

    public boolean inline() {
        return (flags & FLAG_INLINE) != 0;
    }
}
