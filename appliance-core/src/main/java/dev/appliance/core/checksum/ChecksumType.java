package dev.appliance.core.checksum;

import java.util.Locale;
import java.util.Optional;

/**
 * How the checksum of a multipart object relates to its bytes.
 *
 * <ul>
 *   <li>{@link #FULL_OBJECT}: the checksum of the whole object, as a single PUT of the same bytes would have (for a
 *       multipart upload, the part CRCs combined; CRC algorithms only);
 *   <li>{@link #COMPOSITE}: the checksum of the concatenated binary part checksums, followed by {@code -N} (N parts).
 * </ul>
 */
public enum ChecksumType {
    COMPOSITE,
    FULL_OBJECT;

    /** The type named by an {@code x-amz-checksum-type} value (case-insensitive). */
    public static Optional<ChecksumType> forName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.strip().toUpperCase(Locale.ROOT);
        for (ChecksumType t : values()) {
            if (t.name().equals(n)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
