package dev.appliance.core.drive;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.naming.ObjectKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * One drive directory and the durable file primitives built on it.
 *
 * <p>Layout below the drive root:
 *
 * <pre>
 * .appliance.sys/format.json            this drive's identity and the topology
 * .appliance.sys/tmp/&lt;uuid&gt;/            staging of writes in progress (moved to trash at start)
 * .appliance.sys/change-marks          keys being changed, a slot each (bucket, newline, key): healed after a crash
 * .appliance.sys/tmp/&lt;uuid&gt;.change      a key being changed whose mark has no slot (too long, or every slot taken)
 * .appliance.sys/trash/&lt;uuid&gt;          deleted trees awaiting purge
 * .appliance.sys/buckets/&lt;bucket&gt;.json  bucket metadata
 * &lt;bucket&gt;/&lt;key&gt;/xl.meta               every version of the key
 * &lt;bucket&gt;/&lt;key&gt;/&lt;dataDir&gt;/part.N       this drive's shards of part N of one version
 * </pre>
 *
 * <p>Durability rule: a file counts as written once its data was forced ({@code fdatasync}), it was renamed into place,
 * and the directory holding the new name was forced too. Every public write here follows that rule before returning.
 */
public final class LocalDrive {
    public static final String SYS_DIR = ".appliance.sys";
    public static final String META_FILE = "xl.meta";

    private final Path root;
    private final Path sys;
    private final Path tmp;
    private final Path trash;
    private volatile boolean online = true;
    private volatile String offlineReason = "";
    /** Out of service because of I/O errors or a stall (not a missing format): back only after a probe succeeds. */
    private volatile boolean faulty;

    private volatile String faultReason = "";
    private volatile MetadataJournal journal;
    /** Group commit of this drive's filesystem, or null: writes force each file and directory ({@link SyncGroup}). */
    private volatile SyncGroup syncGroup;
    /** See {@link #useDirectIo}. */
    private volatile int directIoAlignment;
    /** Null unless a test injected faults: the I/O entry points then cost one volatile read. */
    private volatile DriveFaults faults;

    private final java.util.concurrent.atomic.AtomicLong slowCalls = new java.util.concurrent.atomic.AtomicLong();
    private volatile long lastSlowLogMillis;

    public LocalDrive(Path root) {
        this.root = requireNonNull(root, "root").toAbsolutePath().normalize();
        this.sys = this.root.resolve(SYS_DIR);
        this.tmp = sys.resolve("tmp");
        this.trash = sys.resolve("trash");
    }

    public Path root() {
        return root;
    }

    public Path sysDir() {
        return sys;
    }

    public Path formatFile() {
        return sys.resolve("format.json");
    }

    public Path bucketMetaFile(String bucket) {
        return sys.resolve("buckets").resolve(bucket + ".json");
    }

    public Path bucketDir(String bucket) {
        return root.resolve(bucket);
    }

    /** Directory of an object key (the key must have been validated). */
    public Path objectDir(String bucket, String key) {
        return bucketDir(bucket).resolve(ObjectKeys.relativeDir(key));
    }

    public Path metaFile(String bucket, String key) {
        return objectDir(bucket, key).resolve(META_FILE);
    }

    public boolean isOnline() {
        return online;
    }

    public String offlineReason() {
        return offlineReason;
    }

    public void markOffline(String reason) {
        this.offlineReason = reason;
        this.online = false;
    }

    /**
     * Takes this drive out of service as faulty (I/O errors or a stalled call): calls skip it as an offline drive, and
     * the drive check brings it back only once its stalled calls ended and a probe write succeeded. Returns false when
     * it was already out of service (the first reason stays).
     */
    public boolean markFaulty(String reason) {
        healthLock.lock();
        try {
            if (!online) {
                return false;
            }
            this.faulty = true;
            this.faultReason = reason;
            this.offlineReason = "faulty: " + reason;
            this.online = false;
            return true;
        } finally {
            healthLock.unlock();
        }
    }

    /** Why this drive was taken out of service as faulty (kept while it is; empty if it never was). */
    public String faultReason() {
        return faultReason;
    }

    /** Whether this drive is out of service as faulty ({@link #markFaulty}) and waits for a successful probe. */
    public boolean isFaulty() {
        return faulty;
    }

    /** The probe succeeded: no longer faulty, still offline until the drive check brings it into service. */
    public void clearFaulty() {
        healthLock.lock();
        try {
            this.faulty = false;
            windowErrors = 0;
        } finally {
            healthLock.unlock();
        }
    }

    /** Back in service (a drive that returned, or a replacement formatted into its slot). */
    public void markOnline() {
        this.faulty = false;
        this.offlineReason = "";
        this.online = true;
    }

    private final java.util.concurrent.locks.ReentrantLock healthLock = new java.util.concurrent.locks.ReentrantLock();
    private long windowStartMillis;
    private int windowErrors;
    private final java.util.concurrent.atomic.AtomicLong ioErrors = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger stalledCalls =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Counts an I/O error of a call to this drive (the caller leaves out full disks, missing files and timeouts);
     * returns true when it is the {@code limit}-th within the current window of {@code windowMillis}.
     */
    public boolean recordIoError(long nowMillis, int limit, long windowMillis) {
        ioErrors.incrementAndGet();
        healthLock.lock();
        try {
            if (nowMillis - windowStartMillis >= windowMillis || nowMillis < windowStartMillis) {
                windowStartMillis = nowMillis;
                windowErrors = 0;
            }
            return ++windowErrors == limit;
        } finally {
            healthLock.unlock();
        }
    }

    /** I/O errors of calls to this drive since start (full disks, missing files and timeouts not counted). */
    public long ioErrors() {
        return ioErrors.get();
    }

    /**
     * Calls to this drive that were given up on at their deadline and have not ended yet: while any runs, the drive
     * stays out of service, so a late change never races a later one of the same key.
     */
    public int stalledCalls() {
        return stalledCalls.get();
    }

    /** A call was given up on at its deadline while still running. */
    public void stalledCallStarted() {
        stalledCalls.incrementAndGet();
    }

    /** A call given up on at its deadline has ended. */
    public void stalledCallEnded() {
        stalledCalls.decrementAndGet();
    }

    /** The faults injected into this drive, or null (the default: none). */
    public DriveFaults faults() {
        return faults;
    }

    /** Injects {@code f} into every later I/O operation on this drive; null (or {@link DriveFaults#none()}) clears. */
    public void injectFaults(DriveFaults f) {
        this.faults = f == null || f.none() ? null : f;
    }

    /** Fails or stalls as injected before an operation that reads (file data, metadata, listings). */
    public void beforeRead() throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.check(this, DriveFaults.Op.READ);
        }
    }

    /** Fails or stalls as injected before an operation that needs space (new files or directories, file data). */
    public void beforeWrite() throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.check(this, DriveFaults.Op.ALLOCATE);
        }
    }

    /** Fails or stalls as injected before a rename or delete. */
    public void beforeModify() throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.check(this, DriveFaults.Op.MODIFY);
        }
    }

    /**
     * Stalls as injected ({@link DriveFaults#commitStallMillis}) at a commit point: a metadata file renamed or rewritten
     * in place, or a tree moved to trash. Called beside the other hooks, so it adds only the commit stall.
     */
    public void beforeCommit() throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.stallCommit(this);
        }
    }

    /** Stalls as injected ({@link DriveFaults#shardReadStallMillis}) before reading a shard from a part file. */
    public void beforeShardRead() throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.stallShardRead(this);
        }
    }

    /** The file a health probe writes, reads back and deletes. */
    static final String PROBE_FILE = "probe.tmp";

    /**
     * A health probe: writes a small file into the system directory, forces it, reads it back, compares, and deletes
     * it; fails (as injected faults make it fail) when any step does. Never creates the system directory: a drive
     * that is not mounted fails the probe instead of getting a file written beneath its mount point.
     */
    public void probe() throws IOException {
        requirePresent();
        Path file = sys.resolve(PROBE_FILE);
        byte[] data = new byte[4096];
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(data);
        beforeWrite();
        try (FileChannel ch = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(false);
        }
        beforeRead();
        if (!java.util.Arrays.equals(Files.readAllBytes(file), data)) {
            throw new IOException("probe file " + file + " read back different bytes than written");
        }
        beforeModify();
        Files.delete(file);
    }

    /**
     * Fails when this drive's {@code format.json} is missing: a removed or unmounted disk answers "no such file" for
     * everything, which must never be taken for a drive that positively lacks a key.
     */
    public void requirePresent() throws IOException {
        if (!Files.isRegularFile(formatFile())) {
            throw new NoSuchFileException(formatFile().toString(), null, "drive is missing (removed or not mounted?)");
        }
    }

    // Plain adders: every drive call adds to them, from many threads, and only a metrics scrape reads them.
    private final java.util.concurrent.atomic.LongAdder calls = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder callNanos = new java.util.concurrent.atomic.LongAdder();

    /** A call to this drive ({@link DriveCalls}) ended, after {@code nanos}, answered or failed. */
    public void recordCall(long nanos) {
        calls.increment();
        callNanos.add(nanos);
    }

    /** Calls to this drive through {@link DriveCalls} that ended, since start (with {@link #callNanos}: mean latency). */
    public long calls() {
        return calls.sum();
    }

    /** The time the calls counted by {@link #calls} took, summed, in nanoseconds. */
    public long callNanos() {
        return callNanos.sum();
    }

    /** Calls to this drive that were given up on because it answered too slowly, since start. */
    public long slowCalls() {
        return slowCalls.get();
    }

    /** Records a call given up on because this drive was too slow; logs at most one line per drive every 10 s. */
    public void recordSlow(String what, long waitedMillis) {
        long n = slowCalls.incrementAndGet();
        long now = System.currentTimeMillis();
        if (now - lastSlowLogMillis >= 10_000) {
            lastSlowLogMillis = now;
            java.util.logging.Logger.getLogger(LocalDrive.class.getName())
                    .warning("drive " + root + " is slow: " + what + " did not answer within " + waitedMillis
                            + " ms; carried on without it (" + n + " slow call(s) since start)");
        }
    }

    /**
     * Creates the system directories and moves staging left by a crash to trash, after collecting the change marks in it
     * ({@link #interruptedChanges()}); the slot file of the marks goes along with it. Trash is not purged here: staging
     * moved there by an earlier start whose owner stopped before it had recorded the marks still holds them; the owner
     * purges trash once they are recorded.
     */
    public void prepare() throws IOException {
        Files.createDirectories(sys.resolve("buckets"));
        Files.createDirectories(trash);
        closeChangeMarks();
        List<ChangeMark> marks = new ArrayList<>();
        try (Stream<Path> entries = Files.list(trash)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                if (p.getFileName().toString().startsWith(OLD_STAGING_PREFIX)) {
                    marks.addAll(readMarks(p));
                }
            }
        }
        Path slotFile = changeMarksFile();
        if (Files.exists(slotFile)) {
            Files.createDirectories(tmp);
            Files.move(
                    slotFile,
                    tmp.resolve(ChangeMarkSlots.FILE_PREFIX + "-" + UUID.randomUUID()),
                    StandardCopyOption.ATOMIC_MOVE);
        }
        if (Files.exists(tmp)) {
            marks.addAll(readMarks(tmp));
            Path old = trash.resolve(OLD_STAGING_PREFIX + UUID.randomUUID());
            Files.move(tmp, old, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.createDirectories(tmp);
        try {
            markSlots = ChangeMarkSlots.create(slotFile);
        } catch (IOException | UnsupportedOperationException e) {
            // a filesystem that cannot map the file: every mark is a file of its own, as before slots
            java.util.logging.Logger.getLogger(LocalDrive.class.getName())
                    .warning("drive " + root + ": change marks are files, the slot file could not be mapped: " + e);
        }
        forceDirectory(sys);
        interrupted = List.copyOf(new java.util.LinkedHashSet<>(marks));
    }

    /** A key whose change (write, delete, multipart completion) was under way on this drive when the process stopped. */
    public record ChangeMark(String bucket, String key) {}

    private static final String OLD_STAGING_PREFIX = "tmp-";
    private static final String MARK_SUFFIX = ".change";
    private volatile List<ChangeMark> interrupted = List.of();
    /** Where {@link #markChange} sets marks once {@link #prepare()} ran; null before (marks are files then). */
    private volatile ChangeMarkSlots markSlots;

    /** The change marks {@link #prepare()} found: keys whose change a crash interrupted, to be healed as a whole. */
    public List<ChangeMark> interruptedChanges() {
        return interrupted;
    }

    /** The file holding this drive's change marks since its last {@link #prepare()}. */
    public Path changeMarksFile() {
        return sys.resolve(ChangeMarkSlots.FILE_PREFIX);
    }

    /** The change marks this drive holds now: of changes under way, or left by a crash since the last start. */
    public List<ChangeMark> heldChangeMarks() throws IOException {
        List<ChangeMark> held = new ArrayList<>();
        if (Files.exists(changeMarksFile())) {
            for (byte[] payload : ChangeMarkSlots.read(changeMarksFile())) {
                addMark(held, payload);
            }
        }
        if (Files.isDirectory(tmp)) {
            held.addAll(readMarks(tmp));
        }
        return held;
    }

    /** Unmaps the slot file of the change marks; marks set later are files of their own until the next prepare. */
    public void closeChangeMarks() {
        ChangeMarkSlots slots = markSlots;
        markSlots = null;
        if (slots != null) {
            try {
                slots.close();
            } catch (IllegalStateException e) {
                // the arena refused (already closed, or held by another access): the small mapping stays until exit
            }
        }
    }

    /**
     * Marks a key as being changed on this drive until {@link #removeChangeMark} clears the mark. A crash leaves it set,
     * and the next start finds it. A mark is a slot of the drive's mark file, or a file of its own in staging when the
     * key is too long for a slot or every slot is taken (the reference form, read the same way). Not forced: a process
     * crash keeps the mark in the page cache; only data directories a power cut orphaned in the middle of a change can
     * go unnoticed.
     */
    public Mark markChange(String bucket, String key) throws IOException {
        DriveFaults f = faults;
        if (f != null) {
            f.stallMark(this);
        }
        byte[] payload = (bucket + "\n" + key).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ChangeMarkSlots slots = markSlots;
        if (slots != null) {
            int slot = slots.set(payload);
            if (slot >= 0) {
                return new Mark(slots, slot, null);
            }
        }
        Path file = tmp.resolve(UUID.randomUUID() + MARK_SUFFIX);
        Files.write(file, payload, StandardOpenOption.CREATE_NEW);
        return new Mark(null, -1, file);
    }

    /** A change mark set on a drive by {@link #markChange}, until cleared. */
    public static final class Mark {
        private final ChangeMarkSlots slots;
        private final int slot;
        private final Path file;
        private final java.util.concurrent.atomic.AtomicBoolean cleared =
                new java.util.concurrent.atomic.AtomicBoolean();

        private Mark(ChangeMarkSlots slots, int slot, Path file) {
            this.slots = slots;
            this.slot = slot;
            this.file = file;
        }

        /** Whether this mark is a file of its own rather than a slot of the drive's mark file. */
        public boolean isFile() {
            return file != null;
        }

        /** Clears the mark; only the first call counts (a slot cleared twice could free another change's mark). */
        void clear() {
            if (!cleared.compareAndSet(false, true)) {
                return;
            }
            if (file == null) {
                slots.clear(slot);
                return;
            }
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // left in staging: the next start heals the key once more, which finds nothing to do
            }
        }
    }

    /**
     * Removes a mark {@link #markChange} wrote on this drive: a slot at once (one store into the page cache, which no
     * drive stalls), a file after the stall injected, if any.
     */
    public void removeChangeMark(Mark mark) {
        if (!mark.isFile()) {
            mark.clear();
            return;
        }
        DriveFaults f = faults;
        if (f != null) {
            try {
                f.stallMark(this);
            } catch (IOException e) {
                return; // interrupted: left set, as below
            }
        }
        clearChangeMark(mark);
    }

    /** Clears a mark at once, without the injected stall (the write it marked never reached the drive). */
    public static void clearChangeMark(Mark mark) {
        mark.clear();
    }

    /** The marks in a staging directory: mark files, and the slot file a start moved there. */
    private static List<ChangeMark> readMarks(Path stagingDir) throws IOException {
        List<ChangeMark> out = new ArrayList<>();
        try (Stream<Path> entries = Files.list(stagingDir)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(MARK_SUFFIX)) {
                    addMark(out, Files.readAllBytes(p));
                } else if (name.startsWith(ChangeMarkSlots.FILE_PREFIX)) {
                    for (byte[] payload : ChangeMarkSlots.read(p)) {
                        addMark(out, payload);
                    }
                }
            }
        }
        return out;
    }

    private static void addMark(List<ChangeMark> out, byte[] payload) {
        String text = new String(payload, java.nio.charset.StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        if (nl > 0 && nl < text.length() - 1) {
            // a mark cut short by a crash while it was written names no key: nothing to heal
            out.add(new ChangeMark(text.substring(0, nl), text.substring(nl + 1)));
        }
    }

    /** A new private staging directory under {@code tmp}. */
    public Path newStagingDir() throws IOException {
        Path dir = newStagingPath("");
        Files.createDirectory(dir);
        return dir;
    }

    /**
     * A fresh private name under {@code tmp}, not yet created, ending in {@code suffix}: a file or directory staged there
     * is renamed into place whole. Creating it directly, without a staging directory around it, saves a directory
     * creation and removal per write and drive (inodes a busy filesystem otherwise allocates and frees per request).
     */
    public Path newStagingPath(String suffix) throws IOException {
        beforeWrite();
        return tmp.resolve(UUID.randomUUID() + suffix);
    }

    /**
     * The attributes of {@code file}, or null when it does not exist, found without an exception: the JDK answers a
     * missing file with two (its native error, then a {@code NoSuchFileException}), each walking the thread's stack, and a
     * write looking at a new key finds its files missing on every drive (docs/benchmarks.md: 22 exceptions per PUT).
     * Errors other than absence are thrown.
     */
    public static BasicFileAttributes attributesIfPresent(Path file) throws IOException {
        return file.getFileSystem().provider().readAttributesIfExists(file, BasicFileAttributes.class);
    }

    /**
     * Reads a whole file, or returns null when it does not exist, looking first ({@link #attributesIfPresent}): for
     * files a caller expects to be missing often (a new key's {@code xl.meta} on a write). Where they are usually there
     * (reads), {@link #readOrNull} spares the look.
     */
    public byte[] readIfPresent(Path file) throws IOException {
        if (attributesIfPresent(file) == null) {
            beforeRead(); // injected faults apply to the look as to a read
            return null;
        }
        return readOrNull(file); // null if removed since the look
    }

    /** Reads a whole file, or returns null when it does not exist. */
    public byte[] readOrNull(Path file) throws IOException {
        beforeRead();
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Atomically replaces {@code target} with {@code data}: written to staging, forced, renamed over the target, and the
     * target's directory forced (created durably first if missing).
     */
    public void writeDurably(Path target, byte[] data) throws IOException {
        beforeWrite();
        stageAndMove(target, ByteBuffer.wrap(data), true);
    }

    /**
     * Stages {@code content} in a forced file, renames it over {@code target} (creating its parents durably first if
     * asked) and forces the directory. A staged file whose write or rename failed is removed, which would otherwise
     * wait in staging for the next start.
     */
    private void stageAndMove(Path target, ByteBuffer content, boolean createParents) throws IOException {
        Path staged = tmp.resolve(UUID.randomUUID() + ".tmp");
        try {
            writeAndForce(staged, content);
            if (createParents) {
                createDirectoriesDurably(target.getParent());
            }
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            dropStaged(staged);
            throw e;
        }
        forceDirectory(target.getParent());
    }

    private static void dropStaged(Path staged) {
        try {
            Files.deleteIfExists(staged);
        } catch (IOException ignored) {
            // moved to trash with staging at the next start
        }
    }

    /**
     * Opens this drive's metadata journal (replaying what a crash left in it) so that {@link #replaceFile} rewrites
     * files in place behind it instead of forcing each file and directory.
     */
    public void openMetadataJournal() throws IOException {
        this.journal = MetadataJournal.open(this);
    }

    /**
     * Makes the writes of objects durable by group commit ({@link SyncGroup}) when {@code enabled} and the platform
     * allows it, else by forcing each file and directory (the reference path).
     */
    public void useGroupCommit(boolean enabled) throws IOException {
        this.syncGroup = enabled ? SyncGroup.forFilesystemOf(root) : null;
    }

    /**
     * Reads {@code len} bytes at {@code at} into {@code into}; false when the file ends first (a short shard file).
     */
    public static boolean readFully(java.nio.channels.FileChannel ch, byte[] into, int len, long at)
            throws IOException {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(into, 0, len);
        long p = at;
        while (b.hasRemaining()) {
            int r = ch.read(b, p);
            if (r < 0) {
                return false;
            }
            p += r;
        }
        return true;
    }

    /** Writes all of {@code b} at the channel's position (a write may take less than it is given). */
    public static void writeFully(java.nio.channels.FileChannel ch, java.nio.ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** Makes the writes of objects durable by {@code group} (tests: a group whose flushes they observe). */
    public void useSyncGroup(SyncGroup group) {
        this.syncGroup = group;
    }

    /**
     * Writes part files with direct I/O when {@code enabled} (see {@code ShardFileWriter}): the filesystem's block size
     * is kept as the alignment, or 0 (ordinary writes) when disabled or unknown.
     */
    public void useDirectIo(boolean enabled) {
        int alignment = 0;
        if (enabled) {
            try {
                long block = Files.getFileStore(root).getBlockSize();
                alignment = block > 0 && block <= 65536 ? (int) block : 0;
            } catch (IOException | UnsupportedOperationException e) {
                alignment = 0; // unknown: ordinary writes
            }
        }
        this.directIoAlignment = alignment;
    }

    /** The alignment direct I/O needs on this drive, or 0 when part files are written through the page cache. */
    public int directIoAlignment() {
        return directIoAlignment;
    }

    /** The group commit of this drive's filesystem, or null when each file and directory is forced. */
    public SyncGroup syncGroup() {
        return syncGroup;
    }

    /**
     * Creates {@code dir} and missing parents, never at or above the drive's root, and forces each parent whose entries
     * changed when {@code force}: a caller that will await a group commit before it answers leaves them to that flush.
     */
    public void createDirectories(Path dir, boolean force) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        beforeWrite();
        // Another key's delete prunes the parents it leaves empty (pruneEmptyParents) under that key's lock, not this
        // one's: without this lock a parent found here could be gone before the directory beneath it is made.
        treeLock.readLock().lock();
        try {
            List<Path> missing = new ArrayList<>();
            for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
                if (p.equals(root) || p.equals(sys)) {
                    // An unmounted disk leaves its mount point empty or gone: never write into what lies beneath.
                    throw new NoSuchFileException(p.toString(), null, "drive directory is missing (not mounted?)");
                }
                missing.addFirst(p);
            }
            for (Path p : missing) {
                try {
                    Files.createDirectory(p);
                } catch (FileAlreadyExistsException e) {
                    if (!Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                        throw e; // a file (or a link) where a directory belongs
                    }
                }
                if (force) {
                    forceDirectory(p.getParent());
                }
            }
        } finally {
            treeLock.readLock().unlock();
        }
    }

    /**
     * Creations of directories (shared) against prunes of empty ones (exclusive) on this drive: see {@link
     * #createDirectories} and {@link #pruneEmptyParents}.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock treeLock =
            new java.util.concurrent.locks.ReentrantReadWriteLock();

    /** The drive's metadata journal, or null when rewrites force each file. */
    public MetadataJournal metadataJournal() {
        return journal;
    }

    /** Checkpoints and closes the metadata journal, if open; rewrites force each file afterwards. */
    public void closeMetadataJournal() throws IOException {
        MetadataJournal j = journal;
        journal = null;
        if (j != null) {
            j.close();
        }
    }

    /**
     * Replaces the content of {@code target}, an existing file, durably. With the metadata journal the new content is
     * made durable in the journal (one force per batch of concurrent rewrites) and the file overwritten in place
     * ({@link MetadataJournal}); without it, as {@link #writeDurably}: staged, forced, renamed over the target, and
     * the directory forced.
     */
    public void replaceFile(Path target, ByteBuffer content) throws IOException {
        beforeWrite();
        beforeCommit();
        MetadataJournal j = journal;
        if (j != null) {
            j.replace(target, content);
            return;
        }
        stageAndMove(target, content, false);
    }

    /** Writes a new file and forces its data to stable storage (the caller renames and forces the directory). */
    public static void writeAndForce(Path file, byte[] data) throws IOException {
        writeAndForce(file, ByteBuffer.wrap(data));
    }

    private static void writeAndForce(Path file, ByteBuffer content) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
            ch.force(false);
        }
    }

    /** Creates missing directories and forces each parent whose entries changed, so the new names survive a crash. */
    public void createDirectoriesDurably(Path dir) throws IOException {
        createDirectories(dir, true);
    }

    /** Renames a directory or file into place (creating parents durably) and forces the destination's directory. */
    public void moveDurably(Path from, Path to) throws IOException {
        beforeModify();
        createDirectoriesDurably(to.getParent());
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(to.getParent());
    }

    /** Forces a directory's entries (the rename and create operations within it) to stable storage. */
    public static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Moves a file or tree into trash (an atomic rename); missing paths are ignored. */
    public void moveToTrash(Path path) throws IOException {
        beforeModify();
        beforeCommit();
        DriveFaults f = faults;
        if (f != null) {
            f.stallTrash(this);
        }
        try {
            Files.move(path, trash.resolve(UUID.randomUUID().toString()), StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            // already gone
        }
    }

    /** Removes empty directories from {@code dir} up to (not including) {@code stopAt}. */
    public void pruneEmptyParents(Path dir, Path stopAt) {
        treeLock.writeLock().lock(); // never between a creation's look at a parent and its directory made beneath it
        try {
            for (Path p = dir; p != null && !p.equals(stopAt) && p.startsWith(stopAt); p = p.getParent()) {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    return; // not empty, gone already, or not removable: the prune stops there
                }
            }
        } finally {
            treeLock.writeLock().unlock();
        }
    }

    /**
     * Opens and pins a directory for a reader ({@link PinnedDirectory}): until the pin is closed, trash that holds the
     * directory keeps it whole, so a read that started on a version finishes on it after an overwrite or delete.
     */
    public PinnedDirectory pinDirectory(Path dir) throws IOException {
        beforeRead();
        return PinnedDirectory.open(this, dir);
    }

    void pin(Object dirKey) {
        if (dirKey != null) {
            pinned.merge(dirKey, 1, Integer::sum);
        }
    }

    void unpin(Object dirKey) {
        if (dirKey != null) {
            pinned.computeIfPresent(dirKey, (k, n) -> n == 1 ? null : n - 1);
        }
    }

    /** Directories readers hold ({@link #pinDirectory}) by file key (device and inode), each with its count of pins. */
    private final java.util.concurrent.ConcurrentHashMap<Object, Integer> pinned =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Directories readers hold now; trash holding one of them is not purged until they are released. */
    public int pinnedDirectories() {
        return pinned.size();
    }

    /** Deletes everything in trash but directories readers pin ({@link #pinDirectory}): a later purge takes those. */
    public void purgeTrash() throws IOException {
        synchronized (purging) { // one purge at a time: two walking the same tree trip over each other's deletes
            try (Stream<Path> entries = Files.list(trash)) {
                for (Path p : (Iterable<Path>) entries::iterator) {
                    if (pinned.isEmpty()) {
                        deleteTree(p);
                    } else {
                        deleteTreeExceptPinned(p);
                    }
                }
            }
        }
    }

    private final Object purging = new Object();

    /**
     * Deletes {@code p}'s tree but pinned directories, which stay whole (and so do their parents); answers whether all
     * of it went. An open directory's inode cannot be reused, so a file key seen here is the pinned directory's.
     */
    private boolean deleteTreeExceptPinned(Path p) throws IOException {
        java.nio.file.attribute.BasicFileAttributes a;
        try {
            a = Files.readAttributes(
                    p, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return true;
        }
        if (a.isDirectory()) {
            if (a.fileKey() != null && pinned.containsKey(a.fileKey())) {
                return false;
            }
            boolean all = true;
            try (Stream<Path> children = Files.list(p)) {
                for (Path c : (Iterable<Path>) children::iterator) {
                    all &= deleteTreeExceptPinned(c);
                }
            }
            if (!all) {
                return false;
            }
        }
        Files.deleteIfExists(p);
        return true;
    }

    public static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> children = Files.list(p)) {
                for (Path c : (Iterable<Path>) children::iterator) {
                    deleteTree(c);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
