package dev.appliance.core.drive;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

/**
 * A write-ahead journal for in-place rewrites of one drive's small metadata files (a version's retention, legal hold or
 * tags changed in {@code xl.meta}): the new content of the file is appended to the journal, the journal is forced
 * ({@code fdatasync}) once for a whole batch of concurrent rewrites, and only then is the file overwritten in place,
 * unforced. An acknowledged rewrite is therefore on stable storage (in the journal) without a file force, a directory
 * force, a new inode and a rename per file; the kernel writes the files back later, and a checkpoint every few seconds
 * ({@code syncfs}, or a force of each file rewritten) makes them durable so the journal can be emptied.
 *
 * <p>After a power loss, {@link #recover} replays the journal: for each file, its last journaled content is written
 * back (durably, by rename) if the file on disk is still <em>the same file</em> the rewrite overwrote (same inode and
 * birth time) but does not hold that content (the write-back never happened, or was torn). A file replaced since by
 * an ordinary durable write (staging and rename: a new inode) or deleted is left alone, so the journal never brings
 * back an older state over a newer one.
 *
 * <p>Concurrent readers do not lock: one may read a file while it is being overwritten and see a mix of old and new
 * bytes. Metadata parsing detects that (checksums) and readers read again ({@code KeyFiles.forRead}).
 *
 * <p>Layout: {@code .appliance.sys/journal/meta-0} and {@code meta-1}, used in turn. A segment starts with a header
 * (magic, epoch, CRC32C) and holds records (magic, payload length, CRC32C of the payload; payload: path relative to
 * the drive root, inode, birth time, content). A torn tail (a crash during an append that was never acknowledged)
 * ends the segment.
 */
public final class MetadataJournal implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MetadataJournal.class.getName());
    private static final int SEGMENT_MAGIC = 0x4A4D5331; // "JMS1"
    private static final int RECORD_MAGIC = 0x4A4D5231; // "JMR1"
    private static final int HEADER_BYTES = 16;
    private static final int RECORD_HEAD_BYTES = 12;
    /** Bounds what a damaged journal can make recovery allocate: metadata files are far smaller. */
    static final int MAX_CONTENT = 64 << 20;

    /** Which file was overwritten in place: a rename-based replacement makes a new inode with a new birth time. */
    record Identity(long inode, long birthNanos) {}

    private final LocalDrive drive;
    private final boolean birthTimeSupported;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock checkpointLock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Segment[] segments = new Segment[2];
    private Segment active;
    private byte[] pending = new byte[64 << 10];
    private int pendingLength;
    private final List<Ticket> pendingTickets = new ArrayList<>();
    private long appended;
    private long durable;
    private boolean flushing;
    private IOException failure;
    private boolean closed;

    /** One append: durable once the journal was forced past it; counted in its segment until its file is rewritten. */
    static final class Ticket {
        final long sequence;
        Segment segment;

        Ticket(long sequence) {
            this.sequence = sequence;
        }
    }

    static final class Segment {
        final FileChannel channel;
        long epoch;
        long size;
        int inFlight; // records written here whose file rewrite has not finished
        final Set<Path> touched = new HashSet<>();

        Segment(FileChannel channel) {
            this.channel = channel;
        }
    }

    private MetadataJournal(LocalDrive drive, boolean birthTimeSupported) {
        this.drive = drive;
        this.birthTimeSupported = birthTimeSupported;
    }

    /**
     * Opens the drive's journal, first replaying whatever a crash left in it ({@link #recover}); both segments are
     * empty afterwards.
     */
    public static MetadataJournal open(LocalDrive drive) throws IOException {
        Path dir = drive.sysDir().resolve("journal");
        Files.createDirectories(dir);
        boolean birthTime = probeBirthTime(dir);
        long epoch = recover(drive, birthTime);
        MetadataJournal j = new MetadataJournal(drive, birthTime);
        for (int i = 0; i < 2; i++) {
            Path f = dir.resolve("meta-" + i);
            FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            ch.truncate(0);
            ch.force(true);
            j.segments[i] = new Segment(ch);
        }
        LocalDrive.forceDirectory(dir);
        j.active = j.segments[0];
        j.active.epoch = epoch + 1;
        return j;
    }

    // ------------------------------------------------------------------------------------------------ rewriting

    /**
     * Replaces the content of an existing file in place once the new content is durable in the journal. Returns after
     * the file holds {@code content} (in the page cache: durable through the journal until the next checkpoint).
     */
    public void replace(Path target, ByteBuffer content) throws IOException {
        Identity id = identity(target);
        if (id == null) {
            throw new NoSuchFileException(target.toString(), null, "an in-place rewrite needs an existing file");
        }
        byte[] bytes = new byte[content.remaining()];
        content.get(bytes);
        Ticket t = append(record(drive.root().relativize(target).toString(), id, bytes));
        try {
            awaitDurable(t);
            try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                long at = 0;
                while (b.hasRemaining()) {
                    at += ch.write(b, at);
                }
                if (ch.size() > bytes.length) {
                    ch.truncate(bytes.length);
                }
            }
        } finally {
            finished(t, target);
        }
    }

    private Ticket append(byte[] record) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new IOException("metadata journal of " + drive.root() + " is closed");
            }
            if (failure != null) {
                throw new IOException("metadata journal of " + drive.root() + " failed earlier", failure);
            }
            if (pendingLength + record.length > pending.length) {
                pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + record.length));
            }
            System.arraycopy(record, 0, pending, pendingLength, record.length);
            pendingLength += record.length;
            Ticket t = new Ticket(++appended);
            pendingTickets.add(t);
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** Group commit: the first waiter finding no force in progress writes and forces everything appended so far. */
    private void awaitDurable(Ticket t) throws IOException {
        lock.lock();
        try {
            while (durable < t.sequence) {
                if (failure != null) {
                    throw new IOException("metadata journal of " + drive.root() + " failed", failure);
                }
                if (flushing) {
                    changed.awaitUninterruptibly();
                    continue;
                }
                flushing = true;
                byte[] batch = Arrays.copyOf(pending, pendingLength);
                pendingLength = 0;
                List<Ticket> covered = new ArrayList<>(pendingTickets);
                pendingTickets.clear();
                long upTo = appended;
                Segment s = active;
                for (Ticket c : covered) {
                    c.segment = s;
                    s.inFlight++;
                }
                IOException error = null;
                lock.unlock();
                try {
                    write(s, batch);
                } catch (IOException e) {
                    error = e;
                } finally {
                    lock.lock();
                }
                flushing = false;
                if (error != null) {
                    // After a failed force nothing is known about what reached the disk: no rewrite may proceed.
                    failure = error;
                    for (Ticket c : covered) {
                        c.segment.inFlight--;
                        c.segment = null;
                    }
                } else {
                    durable = upTo;
                }
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private void write(Segment s, byte[] batch) throws IOException {
        ByteBuffer b;
        if (s.size == 0) {
            b = ByteBuffer.allocate(HEADER_BYTES + batch.length)
                    .put(header(s.epoch))
                    .put(batch)
                    .flip();
        } else {
            b = ByteBuffer.wrap(batch);
        }
        long at = s.size;
        while (b.hasRemaining()) {
            at += s.channel.write(b, at);
        }
        s.channel.force(false);
        s.size = at;
    }

    private void finished(Ticket t, Path target) {
        lock.lock();
        try {
            if (t.segment != null) {
                t.segment.touched.add(target);
                t.segment.inFlight--;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ checkpoint

    /**
     * Makes every file rewritten so far durable by itself and empties the journal behind them: new appends go to the
     * other segment, the rewrites recorded in this one are waited for, the filesystem is synced (or each rewritten
     * file forced where {@code syncfs} is unavailable), and the segment is truncated. Runs on a platform thread (the
     * filesystem sync is a foreign call).
     */
    public void checkpoint() throws IOException {
        checkpointLock.lock();
        try {
            checkpointAlone();
        } finally {
            checkpointLock.unlock();
        }
    }

    private void checkpointAlone() throws IOException {
        Segment old;
        lock.lock();
        try {
            if (closed || active.size == 0 && pendingLength == 0) {
                return;
            }
            old = active;
            Segment next = segments[0] == old ? segments[1] : segments[0];
            next.epoch = old.epoch + 1;
            active = next;
            // Appends already forced into the old segment may still be rewriting their files.
            while (flushing || old.inFlight > 0) {
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
        if (FilesystemSync.available()) {
            FilesystemSync.sync(drive.root());
        } else {
            for (Path p : old.touched) {
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                    ch.force(false);
                } catch (NoSuchFileException e) {
                    // replaced or deleted since: the replacement was made durable by its own write
                }
            }
        }
        lock.lock();
        try {
            old.channel.truncate(0);
            old.channel.force(true);
            old.size = 0;
            old.touched.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes in the journal now (both segments), for tests and status. */
    public long size() {
        lock.lock();
        try {
            return segments[0].size + segments[1].size + pendingLength;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            checkpoint();
        } finally {
            lock.lock();
            try {
                closed = true;
                for (Segment s : segments) {
                    s.channel.close();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ recovery

    /**
     * Replays the journal of a drive left by a crash (see the class comment) and returns the newest epoch seen. Files
     * are written back durably; the segments are left as they are (the caller empties them).
     */
    static long recover(LocalDrive drive, boolean birthTime) throws IOException {
        Path dir = drive.sysDir().resolve("journal");
        long newestEpoch = 0;
        Map<Long, byte[]> byEpoch = new java.util.TreeMap<>();
        for (int i = 0; i < 2; i++) {
            byte[] bytes = drive.readOrNull(dir.resolve("meta-" + i));
            if (bytes == null || bytes.length < HEADER_BYTES) {
                continue;
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.getInt() != SEGMENT_MAGIC) {
                continue;
            }
            long epoch = b.getLong();
            if (b.getInt() != crc(bytes, 0, 12)) {
                continue;
            }
            newestEpoch = Math.max(newestEpoch, epoch);
            byEpoch.put(epoch, bytes);
        }
        Map<Path, Record> last = new LinkedHashMap<>();
        for (byte[] bytes : byEpoch.values()) {
            for (Record r : records(bytes)) {
                Path target = drive.root().resolve(r.path()).normalize();
                if (!target.startsWith(drive.root()) || target.startsWith(drive.sysDir())) {
                    continue; // never write outside the drive's object space, whatever the journal says
                }
                last.remove(target);
                last.put(target, r);
            }
        }
        int restored = 0;
        for (var e : last.entrySet()) {
            Identity now = identity(e.getKey(), birthTime);
            Record r = e.getValue();
            if (now == null || !now.equals(normalise(r.identity(), birthTime))) {
                continue; // deleted, or replaced by a durable write after this rewrite
            }
            byte[] current = drive.readOrNull(e.getKey());
            if (current != null && Arrays.equals(current, r.content())) {
                continue;
            }
            drive.writeDurably(e.getKey(), r.content());
            restored++;
        }
        if (restored > 0) {
            LOG.warning(drive.root() + ": restored " + restored + " metadata file(s) from the journal after a crash");
        }
        return newestEpoch;
    }

    record Record(String path, Identity identity, byte[] content) {}

    /** The first bytes of a segment: magic, epoch, and their CRC32C. */
    static byte[] header(long epoch) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).putInt(SEGMENT_MAGIC).putLong(epoch);
        b.putInt(crc(b.array(), 0, 12));
        return b.array();
    }

    /** The intact records of a segment, in order; stops at the first damaged or incomplete one. */
    static List<Record> records(byte[] segment) {
        List<Record> out = new ArrayList<>();
        int at = HEADER_BYTES;
        ByteBuffer b = ByteBuffer.wrap(segment);
        while (at + RECORD_HEAD_BYTES <= segment.length) {
            if (b.getInt(at) != RECORD_MAGIC) {
                break;
            }
            int length = b.getInt(at + 4);
            int crc = b.getInt(at + 8);
            int start = at + RECORD_HEAD_BYTES;
            if (length < 0 || length > segment.length - start || crc(segment, start, length) != crc) {
                break;
            }
            Record r = decode(ByteBuffer.wrap(segment, start, length).slice());
            if (r == null) {
                break;
            }
            out.add(r);
            at = start + length;
        }
        return out;
    }

    private static Record decode(ByteBuffer p) {
        try {
            int pathLength = p.getShort() & 0xFFFF;
            byte[] path = new byte[pathLength];
            p.get(path);
            long inode = p.getLong();
            long birth = p.getLong();
            int contentLength = p.getInt();
            if (contentLength < 0 || contentLength > MAX_CONTENT || contentLength != p.remaining()) {
                return null;
            }
            byte[] content = new byte[contentLength];
            p.get(content);
            return new Record(new String(path, StandardCharsets.UTF_8), new Identity(inode, birth), content);
        } catch (java.nio.BufferUnderflowException e) {
            return null;
        }
    }

    static byte[] record(String path, Identity id, byte[] content) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        if (p.length > 0xFFFF) {
            throw new IllegalArgumentException("path too long for the metadata journal: " + p.length + " bytes");
        }
        int payload = 2 + p.length + 8 + 8 + 4 + content.length;
        ByteBuffer b = ByteBuffer.allocate(RECORD_HEAD_BYTES + payload);
        b.putInt(RECORD_MAGIC).putInt(payload).putInt(0);
        b.putShort((short) p.length).put(p).putLong(id.inode()).putLong(id.birthNanos());
        b.putInt(content.length).put(content);
        byte[] out = b.array();
        ByteBuffer.wrap(out).putInt(8, crc(out, RECORD_HEAD_BYTES, payload));
        return out;
    }

    // ------------------------------------------------------------------------------------------------ identity

    private Identity identity(Path file) throws IOException {
        return identity(file, birthTimeSupported);
    }

    static Identity identity(Path file, boolean birthTime) throws IOException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(file, "unix:ino,creationTime");
        } catch (NoSuchFileException e) {
            return null;
        }
        long birth = birthTime ? nanos((FileTime) a.get("creationTime")) : 0;
        return new Identity((Long) a.get("ino"), birth);
    }

    private static Identity normalise(Identity id, boolean birthTime) {
        return birthTime ? id : new Identity(id.inode(), 0);
    }

    private static long nanos(FileTime t) {
        return t.to(java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /**
     * Whether this filesystem reports a birth time that survives writes (the JDK reports the modification time where
     * there is none, which an in-place write changes). Without one the inode number alone identifies a file.
     */
    static boolean probeBirthTime(Path dir) throws IOException {
        Path probe = dir.resolve("birth-time-probe");
        Files.deleteIfExists(probe);
        Files.write(probe, new byte[1]);
        try {
            FileTime before = (FileTime) Files.getAttribute(probe, "creationTime");
            Files.setLastModifiedTime(probe, FileTime.fromMillis(before.toMillis() - 3_600_000L));
            FileTime after = (FileTime) Files.getAttribute(probe, "creationTime");
            return before.equals(after);
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, offset, length);
        return (int) c.getValue();
    }
}
