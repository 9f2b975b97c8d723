package dev.appliance.core.erasure;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.naming.ObjectKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Refuses a key whose directory would lie inside another key's data directory: a version of key {@code p} keeps its
 * part files in {@code p/<uuid>/}, the very directory of the key {@code p/<uuid>}. Stored there, {@code p/<uuid>} (and
 * every key below it) would go to trash with {@code p}'s version when that is deleted or overwritten, and
 * {@code p/<uuid>/part.1} cannot be stored at all ({@code part.1} is a file).
 *
 * <p>Narrow on purpose: only a path segment shaped as a data directory name (a lowercase UUID) whose parent key has, on
 * a drive of the new key's set, a version naming that data directory, or a part file in it. Keys full of UUIDs, as
 * Veeam writes, cost one {@code stat} per UUID segment and drive (is there a key named by the segments before it?).
 * Data directory names are random and never shown to clients, so only a client that read them off a drive meets this.
 */
public final class DataDirCollisions {
    private DataDirCollisions() {}

    /** Throws {@link ErrorKind#INVALID_OBJECT_NAME} when {@code key} (validated) runs through a data directory. */
    public static void refuse(ErasureSet set, String bucket, String key) {
        String dir = ObjectKeys.relativeDir(key);
        int end = dir.indexOf('/');
        while (end >= 0) {
            int next = dir.indexOf('/', end + 1);
            String segment = next < 0 ? dir.substring(end + 1) : dir.substring(end + 1, next);
            UUID id = dataDirName(segment);
            if (id != null) {
                String parent = dir.substring(0, end);
                for (LocalDrive drive : set.drives()) {
                    if (drive.isOnline() && isDataDir(drive, bucket, parent, id)) {
                        throw new StorageException(
                                ErrorKind.INVALID_OBJECT_NAME,
                                "object key '" + key + "': the path " + parent + "/" + segment
                                        + " is the data directory of the key '" + parent + "'");
                    }
                }
            }
            end = next;
        }
    }

    private static boolean isDataDir(LocalDrive drive, String bucket, String parentKey, UUID id) {
        Path parent = drive.objectDir(bucket, parentKey);
        Path candidate = parent.resolve(id.toString());
        if (!Files.exists(parent.resolve(LocalDrive.META_FILE), LinkOption.NOFOLLOW_LINKS)
                || !Files.isDirectory(candidate, LinkOption.NOFOLLOW_LINKS)) {
            return false; // the common case: no key 'parent', or no such directory
        }
        try {
            KeyFiles files = KeyFiles.forRead(drive, bucket, parentKey);
            if (files != null) {
                for (XlMeta.Pick p : files.allVersions()) {
                    if (id.equals(p.file().version(p.index()).dataDir())) {
                        return true;
                    }
                }
            }
        } catch (IOException | CorruptMetaException | RuntimeException e) {
            // unreadable metadata here: the part files below decide
        }
        try (var entries = Files.newDirectoryStream(candidate, "part.*")) {
            for (Path p : entries) {
                if (p.getFileName().toString().matches("part\\.[0-9]{1,5}")
                        && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** The UUID a data directory of this name stands for, or null (data directories are lowercase canonical UUIDs). */
    private static UUID dataDirName(String segment) {
        if (segment.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(segment);
            return id.toString().equals(segment) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
