package dev.appliance.core.naming;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.meta.ObjectVersion;
import java.util.UUID;

/** Version ids on the wire: {@code "null"} for the null version, else a UUID string. */
public final class VersionIds {
    public static final String NULL = "null";

    private VersionIds() {}

    public static UUID parse(String versionId) {
        if (NULL.equals(versionId)) {
            return ObjectVersion.NULL_VERSION_ID;
        }
        try {
            if (versionId != null && versionId.length() == 36) {
                return UUID.fromString(versionId);
            }
        } catch (IllegalArgumentException e) {
            // fall through to the uniform error below
        }
        throw new StorageException(ErrorKind.INVALID_ARGUMENT, "Invalid version id specified: '" + versionId + "'");
    }

    public static String format(UUID id) {
        return ObjectVersion.NULL_VERSION_ID.equals(id) ? NULL : id.toString();
    }
}
