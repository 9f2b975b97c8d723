package dev.appliance.core.erasure;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.SyncGroup;
import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.XlMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One drive's metadata files of one key, and how versions move between them.
 *
 * <p>{@code xl.meta} holds the newest versions and every inline version; {@code xl.meta.archive} (same format, never
 * inline data) holds older versions. When {@code xl.meta} grows past {@link #HOT_MAX} versions, all but the newest
 * {@link #HOT_KEEP} that are not inline move to the archive in one batch. So a PUT, HEAD or GET of the latest version
 * of a key with 10,000 versions reads and rewrites a file of at most {@code HOT_MAX} versions (plus the capped inline
 * section), and the archive is rewritten once every {@code HOT_MAX - HOT_KEEP} new versions: adding a version costs
 * the same whether the key has ten versions or ten thousand, as for a key with one.
 *
 * <p>Invariants: the newest version of a key is always in {@code xl.meta}; the archive exists only beside a non-empty
 * {@code xl.meta} (removing the last version of {@code xl.meta} folds the archive back). A version found in both files
 * (a crash between the two renames of a batch move) is the same version: readers take {@code xl.meta}'s copy.
 * Writes go archive first, then {@code xl.meta}, each atomically (staging, force, rename, directory force).
 */
public final class KeyFiles {
    public static final String ARCHIVE_FILE = "xl.meta.archive";
    public static final int HOT_MAX = 64;
    public static final int HOT_KEEP = 16;

    private final LocalDrive drive;
    private final Path dir;
    private final byte[] hotBytes;
    private final XlMeta hot;
    private boolean archiveLoaded;
    private byte[] archiveBytes;
    private XlMeta archive;

    /** What a mutation replaced on this drive, to undo it or clean up after it. */
    public record Change(
            boolean hotChanged,
            byte[] previousHot,
            boolean archiveChanged,
            byte[] previousArchive,
            UUID replacedDataDir,
            UUID newDataDir,
            boolean removedDeleteMarker) {}

    private KeyFiles(LocalDrive drive, Path dir, byte[] hotBytes, XlMeta hot) {
        this.drive = drive;
        this.dir = dir;
        this.hotBytes = hotBytes;
        this.hot = hot;
    }

    /** Reads {@code xl.meta} for a mutation: a corrupt copy is treated as empty (quorum and healing restore it). */
    public static KeyFiles forUpdate(LocalDrive drive, String bucket, String key) throws IOException {
        Path dir = drive.objectDir(bucket, key);
        byte[] bytes = drive.readIfPresent(dir.resolve(LocalDrive.META_FILE)); // a new key's is missing: no exception
        if (bytes == null) {
            drive.requirePresent(); // a removed drive must not count as one where the key is absent
        }
        XlMeta meta;
        try {
            meta = bytes == null ? XlMeta.empty() : XlMeta.parse(bytes);
        } catch (CorruptMetaException e) {
            meta = XlMeta.empty();
        }
        return new KeyFiles(drive, dir, bytes, meta);
    }

    /** Reads {@code xl.meta} for a read; null when the key has no metadata on this drive. */
    public static KeyFiles forRead(LocalDrive drive, String bucket, String key)
            throws IOException, CorruptMetaException {
        Path dir = drive.objectDir(bucket, key);
        Path file = dir.resolve(LocalDrive.META_FILE);
        byte[] bytes = drive.readOrNull(file);
        if (bytes == null) {
            drive.requirePresent(); // a removed drive must not count as one where the key is absent
            return null;
        }
        try {
            return new KeyFiles(drive, dir, bytes, XlMeta.parse(bytes));
        } catch (CorruptMetaException torn) {
            // Readers do not lock: an in-place rewrite (MetadataJournal) may have been caught half-copied. Read again.
            byte[] again = drive.readOrNull(file);
            if (again == null) {
                drive.requirePresent();
                return null;
            }
            if (java.util.Arrays.equals(again, bytes)) {
                throw torn;
            }
            return new KeyFiles(drive, dir, again, XlMeta.parse(again));
        }
    }

    public XlMeta hot() {
        return hot;
    }

    /** The archive, read on first use; empty when there is none. */
    public XlMeta archive() throws IOException, CorruptMetaException {
        if (!archiveLoaded) {
            archiveBytes = drive.readOrNull(dir.resolve(ARCHIVE_FILE));
            archive = archiveBytes == null ? XlMeta.empty() : XlMeta.parse(archiveBytes);
            archiveLoaded = true;
        }
        return archive;
    }

    /** Versions in the archive, from its first bytes only. */
    private int archiveCount() throws IOException {
        if (archiveLoaded) {
            return archive.versionCount();
        }
        drive.beforeRead();
        Path file = dir.resolve(ARCHIVE_FILE);
        if (LocalDrive.attributesIfPresent(file) == null) {
            return 0; // the usual case: looked up without the exceptions a failed open throws
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(XlMeta.COUNT_PREFIX);
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // read the fixed prefix
            }
            return Math.max(0, XlMeta.versionCountOf(b.array()));
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    int totalVersions() throws IOException {
        return hot.versionCount() + archiveCount();
    }

    /** Every version of the key on this drive, newest first, xl.meta's copy winning over the archive's. */
    public List<XlMeta.Pick> allVersions() throws IOException, CorruptMetaException {
        List<XlMeta.Pick> out = new ArrayList<>(hot.versionCount());
        for (int i = 0; i < hot.versionCount(); i++) {
            out.add(new XlMeta.Pick(hot, i));
        }
        XlMeta a = archive();
        for (int i = 0; i < a.versionCount(); i++) {
            if (hot.indexOf(a.header(i).versionId()) < 0) {
                out.add(new XlMeta.Pick(a, i));
            }
        }
        return out;
    }

    /** Where a version is on this drive, or null. */
    public XlMeta.Pick locate(UUID versionId) throws IOException, CorruptMetaException {
        int i = hot.indexOf(versionId);
        if (i >= 0) {
            return new XlMeta.Pick(hot, i);
        }
        if (hot.versionCount() < HOT_KEEP && !Files.exists(dir.resolve(ARCHIVE_FILE))) {
            return null;
        }
        int j = archive().indexOf(versionId);
        return j < 0 ? null : new XlMeta.Pick(archive, j);
    }

    /**
     * Adds {@code version} (replacing the version with the same id wherever it is), moves older versions to the
     * archive when {@code xl.meta} is full, and writes the files durably. {@code stagedDataDir}, when given, is renamed
     * into the object directory first.
     */
    public Change add(ObjectVersion version, byte[] inlineShard, Path stagedDataDir, int maxVersions)
            throws IOException {
        return add(version, inlineShard, stagedDataDir, maxVersions, null);
    }

    /**
     * As {@link #add(ObjectVersion, byte[], Path, int)}; {@code beforeLastFlush} (null: none) runs once the version is
     * committed here and before the flush that makes the commit durable, so what it writes on this drive's filesystem
     * is made durable by that same flush (with group commit; without, it forces what it writes itself).
     */
    public Change add(
            ObjectVersion version, byte[] inlineShard, Path stagedDataDir, int maxVersions, Runnable beforeLastFlush)
            throws IOException {
        UUID id = version.versionId();
        UUID replacedDataDir = null;
        XlMeta newArchive = null;
        int existing = hot.indexOf(id);
        if (existing >= 0) {
            replacedDataDir = dataDirOf(hot, existing);
        } else {
            XlMeta.Pick archived = locateQuietly(id);
            if (archived != null) {
                replacedDataDir = dataDirOf(archived.file(), archived.index());
                newArchive = archived.file().withoutVersion(id);
            } else if (totalVersions() >= maxVersions) {
                throw new dev.appliance.core.error.StorageException(
                        dev.appliance.core.error.ErrorKind.TOO_MANY_VERSIONS,
                        "the object already has " + totalVersions() + " versions (the limit per key is " + maxVersions
                                + "): remove old versions, e.g. with a NoncurrentVersionExpiration lifecycle rule");
            }
        }
        XlMeta next = hot.withVersion(version, inlineShard);
        if (next.versionCount() > HOT_MAX) {
            XlMeta base = newArchive != null ? newArchive : archiveQuietly();
            List<XlMeta.Pick> toArchive = new ArrayList<>();
            List<XlMeta.Pick> toKeep = new ArrayList<>();
            for (int i = 0; i < base.versionCount(); i++) {
                toArchive.add(new XlMeta.Pick(base, i));
            }
            for (int i = 0; i < next.versionCount(); i++) {
                boolean move = i >= HOT_KEEP && !next.header(i).inline();
                (move ? toArchive : toKeep).add(new XlMeta.Pick(next, i));
            }
            newArchive = XlMeta.assemble(toArchive);
            next = XlMeta.assemble(toKeep);
        }
        // With group commit, nothing is forced file by file: one shared flush makes the staged files' contents, the
        // created directories and the data directory's rename durable before the renames that commit, and a second
        // makes those renames durable before the answer. Without it, each file and directory is forced.
        SyncGroup group = drive.syncGroup();
        drive.createDirectories(dir, group == null);
        byte[] previousArchive = newArchive != null ? archiveBytesQuietly() : null;
        Path stagedArchive =
                newArchive != null ? stage(ARCHIVE_FILE, newArchive.asReadOnlyBuffer(), group == null) : null;
        try {
            if (stagedDataDir != null) {
                drive.beforeModify();
                Files.move(
                        stagedDataDir,
                        dir.resolve(version.dataDir().toString()),
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
            Path stagedMeta = stage(LocalDrive.META_FILE, next.asReadOnlyBuffer(), group == null);
            try {
                if (group != null) {
                    group.await(drive.root());
                }
                if (stagedArchive != null) {
                    commitStaged(stagedArchive, ARCHIVE_FILE);
                    stagedArchive = null;
                }
                // The rename of xl.meta is the commit point; one directory force covers it and the data dir rename.
                commitStaged(stagedMeta, LocalDrive.META_FILE);
                stagedMeta = null; // renamed away: nothing left to remove
            } finally {
                if (stagedMeta != null) {
                    Files.deleteIfExists(stagedMeta);
                }
            }
        } finally {
            if (stagedArchive != null) {
                Files.deleteIfExists(stagedArchive);
            }
        }
        if (beforeLastFlush != null) {
            beforeLastFlush.run();
        }
        if (group != null) {
            group.await(drive.root());
        } else {
            LocalDrive.forceDirectory(dir);
        }
        return new Change(
                true,
                hotBytes,
                newArchive != null,
                previousArchive,
                replacedDataDir,
                stagedDataDir == null ? null : version.dataDir(),
                false);
    }

    /**
     * Replaces the body of a version this drive holds (metadata only: its data and inline shard stay as they are);
     * null when this drive does not have the version.
     */
    public Change replace(ObjectVersion updated) throws IOException {
        UUID id = updated.versionId();
        int i = hot.indexOf(id);
        if (i >= 0) {
            XlMeta next = hot.withVersion(updated, hot.inlineData(id));
            drive.replaceFile(dir.resolve(LocalDrive.META_FILE), next.asReadOnlyBuffer());
            return new Change(true, hotBytes, false, null, null, null, false);
        }
        XlMeta.Pick archived = locateQuietly(id);
        if (archived == null) {
            return null;
        }
        byte[] previousArchive = archiveBytesQuietly();
        drive.replaceFile(
                dir.resolve(ARCHIVE_FILE),
                archived.file().withVersion(updated, null).asReadOnlyBuffer());
        return new Change(false, null, true, previousArchive, null, null, false);
    }

    /** Removes a version from whichever file holds it; null when this drive does not have it. */
    public Change remove(UUID versionId) throws IOException {
        int i = hot.indexOf(versionId);
        if (i >= 0) {
            UUID dataDir = dataDirOf(hot, i);
            boolean marker = hot.header(i).isDeleteMarker();
            XlMeta next = hot.withoutVersion(versionId);
            boolean archiveChanged = false;
            byte[] previousArchive = null;
            if (next.versionCount() == 0 && Files.exists(dir.resolve(ARCHIVE_FILE))) {
                // Keep the invariant: the archive exists only beside a non-empty xl.meta. Fold it back.
                next = archiveQuietly();
                previousArchive = archiveBytesQuietly();
                archiveChanged = true;
            }
            if (next.versionCount() == 0) {
                drive.moveToTrash(dir.resolve(LocalDrive.META_FILE));
            } else {
                writeStaged(LocalDrive.META_FILE, next.asReadOnlyBuffer());
            }
            if (archiveChanged) {
                drive.moveToTrash(dir.resolve(ARCHIVE_FILE));
            }
            LocalDrive.forceDirectory(dir);
            return new Change(true, hotBytes, archiveChanged, previousArchive, dataDir, null, marker);
        }
        XlMeta.Pick archived = locateQuietly(versionId);
        if (archived == null) {
            return null;
        }
        UUID dataDir = dataDirOf(archived.file(), archived.index());
        boolean marker = archived.file().header(archived.index()).isDeleteMarker();
        XlMeta next = archived.file().withoutVersion(versionId);
        byte[] previousArchive = archiveBytesQuietly();
        if (next.versionCount() == 0) {
            drive.moveToTrash(dir.resolve(ARCHIVE_FILE));
        } else {
            writeStaged(ARCHIVE_FILE, next.asReadOnlyBuffer());
        }
        LocalDrive.forceDirectory(dir);
        return new Change(false, null, true, previousArchive, dataDir, null, marker);
    }

    /**
     * Removes every version of {@code ids} this drive holds, with at most one rewrite of each file (the lifecycle
     * scanner's batches): the cost of a batch is one pass over the files, not one per version. The data directories
     * of removed versions are added to {@code freed} for the caller to move to trash once the batch reached quorum.
     * Null when this drive holds none of them.
     */
    public Change removeAll(java.util.Set<UUID> ids, List<UUID> freed) throws IOException {
        List<XlMeta.Pick> keptHot = new ArrayList<>();
        int removedHot = 0;
        for (int i = 0; i < hot.versionCount(); i++) {
            if (ids.contains(hot.header(i).versionId())) {
                removedHot++;
                addIfNotNull(freed, dataDirOf(hot, i));
            } else {
                keptHot.add(new XlMeta.Pick(hot, i));
            }
        }
        boolean hasArchive = Files.exists(dir.resolve(ARCHIVE_FILE));
        XlMeta a = hasArchive ? archiveQuietly() : XlMeta.empty();
        List<XlMeta.Pick> keptArchive = new ArrayList<>();
        int removedArchive = 0;
        for (int i = 0; i < a.versionCount(); i++) {
            if (ids.contains(a.header(i).versionId())) {
                removedArchive++;
                addIfNotNull(freed, dataDirOf(a, i));
            } else {
                keptArchive.add(new XlMeta.Pick(a, i));
            }
        }
        if (removedHot == 0 && removedArchive == 0) {
            return null;
        }
        byte[] previousArchive = hasArchive ? archiveBytesQuietly() : null;
        boolean archiveChanged = removedArchive > 0;
        boolean hotChanged = removedHot > 0;
        if (keptHot.isEmpty() && !keptArchive.isEmpty()) {
            // The newest version must stay in xl.meta: what the archive keeps moves back into it.
            keptHot = keptArchive;
            keptArchive = List.of();
            archiveChanged = true;
            hotChanged = true;
        }
        if (archiveChanged) {
            if (keptArchive.isEmpty()) {
                drive.moveToTrash(dir.resolve(ARCHIVE_FILE));
            } else {
                writeStaged(ARCHIVE_FILE, XlMeta.assemble(keptArchive).asReadOnlyBuffer());
            }
        }
        if (hotChanged) {
            if (keptHot.isEmpty()) {
                drive.moveToTrash(dir.resolve(LocalDrive.META_FILE));
            } else {
                writeStaged(LocalDrive.META_FILE, XlMeta.assemble(keptHot).asReadOnlyBuffer());
            }
        }
        LocalDrive.forceDirectory(dir);
        return new Change(hotChanged, hotBytes, archiveChanged, previousArchive, null, null, false);
    }

    private static void addIfNotNull(List<UUID> list, UUID id) {
        if (id != null) {
            list.add(id);
        }
    }

    /** Puts back what {@code change} replaced on this drive (best effort: healing repairs what this cannot). */
    static void undo(LocalDrive drive, String bucket, String key, Change change, Path dataDirHome) throws IOException {
        Path dir = drive.objectDir(bucket, key);
        if (change.archiveChanged()) {
            restore(drive, dir.resolve(ARCHIVE_FILE), change.previousArchive());
        }
        if (change.hotChanged()) {
            restore(drive, dir.resolve(LocalDrive.META_FILE), change.previousHot());
        }
        if (change.newDataDir() != null) {
            Path data = dir.resolve(change.newDataDir().toString());
            if (dataDirHome == null) {
                drive.moveToTrash(data);
            } else if (Files.isDirectory(data)) {
                // the metadata no longer names it (restored above): back where it came from, both entries forced
                Files.move(data, dataDirHome, StandardCopyOption.ATOMIC_MOVE);
                LocalDrive.forceDirectory(dir);
                LocalDrive.forceDirectory(dataDirHome.getParent());
            }
        }
    }

    private static void restore(LocalDrive drive, Path file, byte[] previous) throws IOException {
        if (previous == null) {
            Files.deleteIfExists(file);
            LocalDrive.forceDirectory(file.getParent());
        } else {
            drive.writeDurably(file, previous);
        }
    }

    /** Replaces {@code name} in the key's directory with {@code content}, forced before the rename. */
    private void writeStaged(String name, ByteBuffer content) throws IOException {
        Path staged = stage(name, content, true);
        try {
            commitStaged(staged, name);
        } finally {
            Files.deleteIfExists(staged); // gone when committed
        }
    }

    /** Writes {@code content} to a fresh staging file for {@code name} (forced when {@code force}) and returns it. */
    private Path stage(String name, ByteBuffer content, boolean force) throws IOException {
        Path staged = drive.newStagingPath("." + name);
        try (FileChannel ch = FileChannel.open(staged, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
            if (force) {
                ch.force(false);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(staged);
            throw e;
        }
        return staged;
    }

    /** Renames a staged file over {@code name} in the key's directory (not forcing the directory). */
    private void commitStaged(Path staged, String name) throws IOException {
        drive.beforeCommit();
        Files.move(
                staged,
                dir.resolve(name),
                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private XlMeta.Pick locateQuietly(UUID id) throws IOException {
        try {
            return locate(id);
        } catch (CorruptMetaException e) {
            return null;
        }
    }

    private XlMeta archiveQuietly() throws IOException {
        try {
            return archive();
        } catch (CorruptMetaException e) {
            return XlMeta.empty();
        }
    }

    private byte[] archiveBytesQuietly() throws IOException {
        archiveQuietly();
        return archiveBytes;
    }

    static UUID dataDirOf(XlMeta meta, int index) {
        try {
            ObjectVersion v = meta.version(index);
            return v.inline() ? null : v.dataDir();
        } catch (CorruptMetaException e) {
            return null;
        }
    }
}
