package dev.appliance.core.heal;

import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

/**
 * The most-recently-failed queue on disk: an append-only journal per drive, {@code .appliance.sys/mrf/journal}, holding
 * the heal reports of the drive's erasure set, so that a crash does not forget which versions need healing.
 *
 * <h2>Format (version 1.0, big-endian)</h2>
 *
 * <pre>
 * file   = "AMRF" major(u16 = 1) minor(u16 = 0) record*
 * record = length(u32 = L) payload(L bytes) crc(u32: CRC32C of the length field and the payload)
 * payload = type(u8: 1 report, 2 done) timeMillis(i64)
 *           bucket(u16 length + UTF-8) key(u16 + UTF-8) versionId(u16 + UTF-8) reason(u16 + UTF-8, at most 256 bytes)
 * </pre>
 *
 * A reader replays records in order: a report adds the item {@code (bucket, key, versionId)}, a done record removes it.
 * It stops at the first record that is short, longer than {@link #MAX_RECORD}, or fails its CRC: a torn tail left by a
 * crash is ignored, and the next compaction rewrites the file without it. The items of a set are the union of what its
 * drives' journals replay to (a drive that missed an append or a done record only adds a heal that finds nothing to
 * do).
 *
 * <h2>Writing</h2>
 *
 * One flusher thread appends queued records to every online drive of the record's set and forces them ({@code
 * fdatasync}) once per batch, so concurrent reports share a sync (group commit). Compaction replaces a set's journals
 * with the live items only (written to staging, forced, renamed, directory forced): at start (which also drops torn
 * tails), whenever the queue drains, and when dead records outnumber live ones.
 */
public final class MrfJournal {
    private static final Logger LOG = Logger.getLogger(MrfJournal.class.getName());
    public static final String DIR = "mrf";
    static final String FILE = "journal";
    static final byte[] MAGIC = {'A', 'M', 'R', 'F'};
    static final int MAJOR = 1;
    static final int MINOR = 0;
    public static final int HEADER = 8;
    static final int MAX_RECORD = 8 * 1024;
    static final int MAX_REASON = 256;
    public static final byte REPORT = 1;
    public static final byte DONE = 2;
    private static final long WAIT_MILLIS = 5_000;

    /** One journal record. */
    public record Entry(byte type, long timeMillis, String bucket, String key, String versionId, String reason) {}

    /** A set's records and what the flusher should do with them. */
    private static final class SetState {
        List<Entry> queued = new ArrayList<>();
        boolean compact;
        long appendedSinceCompaction;
    }

    private final List<List<LocalDrive>> sets;
    private final DriveCalls calls;
    private final IntFunction<List<Entry>> liveItems;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition flushed = lock.newCondition();
    private final SetState[] state;
    private long requested;
    private long done;
    private boolean running = true;
    private Thread flusher;

    /**
     * @param liveItems the report records of a set's pending items, for compaction (called on the flusher thread); null
     *     refuses the compaction (the queue spilled reports into the journal that it does not hold)
     */
    public MrfJournal(List<List<LocalDrive>> sets, DriveCalls calls, IntFunction<List<Entry>> liveItems) {
        this.sets = sets;
        this.calls = calls;
        this.liveItems = liveItems;
        this.state = new SetState[sets.size()];
        for (int i = 0; i < state.length; i++) {
            state[i] = new SetState();
        }
    }

    public static Path fileOf(LocalDrive drive) {
        return drive.sysDir().resolve(DIR).resolve(FILE);
    }

    // ---------------------------------------------------------------------------------------------------- format

    public static byte[] header() {
        return new byte[] {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], 0, MAJOR, 0, MINOR};
    }

    public static byte[] encode(Entry e) {
        ByteArrayOutputStream payload = new ByteArrayOutputStream(64);
        payload.write(e.type());
        long t = e.timeMillis();
        for (int s = 56; s >= 0; s -= 8) {
            payload.write((int) (t >>> s));
        }
        putString(payload, e.bucket(), Integer.MAX_VALUE);
        putString(payload, e.key(), Integer.MAX_VALUE);
        putString(payload, e.versionId(), Integer.MAX_VALUE);
        putString(payload, e.reason(), MAX_REASON);
        byte[] p = payload.toByteArray();
        ByteBuffer out = ByteBuffer.allocate(4 + p.length + 4);
        out.putInt(p.length).put(p);
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, 4 + p.length);
        out.putInt((int) crc.getValue());
        return out.array();
    }

    private static void putString(ByteArrayOutputStream out, String s, int maxBytes) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        if (b.length > maxBytes) {
            // Cut at a character boundary so the stored text stays valid UTF-8.
            int end = maxBytes;
            while (end > 0 && (b[end] & 0xC0) == 0x80) {
                end--;
            }
            b = java.util.Arrays.copyOf(b, end);
        }
        out.write(b.length >>> 8);
        out.write(b.length);
        out.write(b, 0, b.length);
    }

    /** What a journal file holds: the records up to the first damaged one, and where they end. */
    public record Decoded(List<Entry> entries, int validLength, boolean tornTail) {}

    /** Decodes a whole journal file; never throws (a file without the magic holds nothing). */
    public static Decoded decode(byte[] file) {
        List<Entry> out = new ArrayList<>();
        if (file.length < HEADER
                || file[0] != MAGIC[0]
                || file[1] != MAGIC[1]
                || file[2] != MAGIC[2]
                || file[3] != MAGIC[3]
                || (((file[4] & 0xFF) << 8) | (file[5] & 0xFF)) != MAJOR) {
            return new Decoded(out, 0, file.length > 0);
        }
        ByteBuffer b = ByteBuffer.wrap(file);
        int pos = HEADER;
        while (pos < file.length) {
            if (file.length - pos < 8) {
                return new Decoded(out, pos, true);
            }
            int len = b.getInt(pos);
            if (len < 9 || len > MAX_RECORD || file.length - pos - 8 < len) {
                return new Decoded(out, pos, true);
            }
            CRC32C crc = new CRC32C();
            crc.update(file, pos, 4 + len);
            if ((int) crc.getValue() != b.getInt(pos + 4 + len)) {
                return new Decoded(out, pos, true);
            }
            Entry e = decodePayload(file, pos + 4, len);
            if (e == null) {
                return new Decoded(out, pos, true);
            }
            out.add(e);
            pos += 8 + len;
        }
        return new Decoded(out, pos, false);
    }

    private static Entry decodePayload(byte[] f, int off, int len) {
        int end = off + len;
        byte type = f[off];
        if (type != REPORT && type != DONE) {
            return null;
        }
        long t = ByteBuffer.wrap(f, off + 1, 8).getLong();
        int[] p = {off + 9};
        String bucket = getString(f, p, end);
        String key = getString(f, p, end);
        String version = getString(f, p, end);
        String reason = getString(f, p, end);
        if (reason == null || p[0] != end) {
            return null;
        }
        return new Entry(type, t, bucket, key, version, reason);
    }

    private static String getString(byte[] f, int[] p, int end) {
        if (p[0] < 0 || end - p[0] < 2) {
            p[0] = -1;
            return null;
        }
        int n = ((f[p[0]] & 0xFF) << 8) | (f[p[0] + 1] & 0xFF);
        if (end - p[0] - 2 < n) {
            p[0] = -1;
            return null;
        }
        String s = new String(f, p[0] + 2, n, StandardCharsets.UTF_8);
        p[0] += 2 + n;
        return s;
    }

    /** Identity of an item across records. */
    public static String identity(String bucket, String key, String versionId) {
        return bucket + "\u0000" + key + "\u0000" + versionId;
    }

    /** Replays records: the report records of the items still pending, first report first. */
    public static List<Entry> replay(List<Entry> entries) {
        Map<String, Entry> live = new LinkedHashMap<>();
        for (Entry e : entries) {
            String id = identity(e.bucket(), e.key(), e.versionId());
            if (e.type() == REPORT) {
                live.putIfAbsent(id, e);
            } else {
                live.remove(id);
            }
        }
        return new ArrayList<>(live.values());
    }

    // ---------------------------------------------------------------------------------------------------- start

    /**
     * Reads the journals of set {@code set} on its online drives: the union of their pending items. Schedules a
     * compaction when any was found, which also cuts torn tails.
     */
    public List<Entry> load(int set) {
        Map<String, Entry> union = new LinkedHashMap<>();
        boolean found = false;
        for (LocalDrive d : sets.get(set)) {
            if (!d.isOnline()) {
                continue;
            }
            byte[] bytes;
            try {
                bytes = d.readOrNull(fileOf(d));
            } catch (IOException e) {
                LOG.warning("heal journal on " + d.root() + " unreadable: " + e.getMessage());
                continue;
            }
            if (bytes == null) {
                continue;
            }
            found = true;
            Decoded decoded = decode(bytes);
            if (decoded.tornTail()) {
                LOG.warning("heal journal on " + d.root() + ": records after byte " + decoded.validLength()
                        + " are incomplete or damaged (a crash while appending?) and ignored");
            }
            for (Entry e : replay(decoded.entries())) {
                union.putIfAbsent(identity(e.bucket(), e.key(), e.versionId()), e);
            }
        }
        if (found) {
            lock.lock();
            try {
                state[set].compact = true;
                requested++;
            } finally {
                lock.unlock();
            }
        }
        return new ArrayList<>(union.values());
    }

    public void start() {
        for (List<LocalDrive> drives : sets) {
            for (LocalDrive d : drives) {
                if (d.isOnline()) {
                    try {
                        d.createDirectoriesDurably(fileOf(d).getParent());
                    } catch (IOException e) {
                        LOG.warning("heal journal directory on " + d.root() + ": " + e.getMessage());
                    }
                }
            }
        }
        flusher = Thread.ofPlatform().name("heal-journal").daemon().start(this::run);
        lock.lock();
        try {
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------- writing

    /**
     * Queues a record for set {@code set}; with {@code wait}, returns once it is on stable storage on the set's
     * reachable drives (or after a few seconds, logged, when the drives do not answer).
     */
    public void append(int set, Entry e, boolean wait) {
        long ticket;
        lock.lock();
        try {
            state[set].queued.add(e);
            ticket = ++requested;
            work.signalAll();
            if (!wait) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (done < ticket && running) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warning("heal journal: a report was not on disk after " + WAIT_MILLIS + " ms");
                    return;
                }
                flushed.awaitNanos(left);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Asks for set {@code set}'s journals to be rewritten with its live items only. */
    public void compact(int set) {
        lock.lock();
        try {
            state[set].compact = true;
            requested++;
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Dead records of set {@code set} worth a compaction: more than the live ones, and more than a few thousand. */
    public boolean wantsCompaction(int set, int live) {
        lock.lock();
        try {
            return state[set].appendedSinceCompaction > 2L * live + 4096;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until everything queued so far is written (tests, shutdown). */
    public void flush() {
        lock.lock();
        try {
            long ticket = ++requested;
            work.signalAll();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (done < ticket && running && flusher != null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                flushed.awaitNanos(left);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    public void close() {
        flush();
        lock.lock();
        try {
            running = false;
            work.signalAll();
            flushed.signalAll();
        } finally {
            lock.unlock();
        }
        if (flusher != null) {
            try {
                flusher.join(WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (true) {
            long ticket;
            List<List<Entry>> batches = new ArrayList<>();
            boolean[] compact = new boolean[state.length];
            lock.lock();
            try {
                while (running && done == requested) {
                    work.awaitUninterruptibly();
                }
                if (!running && done == requested) {
                    return;
                }
                ticket = requested;
                for (int s = 0; s < state.length; s++) {
                    batches.add(state[s].queued);
                    state[s].queued = new ArrayList<>();
                    compact[s] = state[s].compact;
                    state[s].compact = false;
                }
            } finally {
                lock.unlock();
            }
            for (int s = 0; s < state.length; s++) {
                try {
                    List<Entry> live = compact[s] ? liveItems.apply(s) : null;
                    if (live != null) {
                        // The live items include every queued report still pending: the batch is superseded.
                        rewrite(s, live);
                    } else if (!batches.get(s).isEmpty()) {
                        // No compaction (or refused: reports spilled from a full queue live in the journal only).
                        appendToDrives(s, batches.get(s));
                    }
                } catch (RuntimeException e) {
                    LOG.warning("heal journal of set " + (s + 1) + ": " + e);
                }
            }
            lock.lock();
            try {
                done = Math.max(done, ticket);
                flushed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private void appendToDrives(int set, List<Entry> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Entry e : entries) {
            bytes.writeBytes(encode(e));
        }
        byte[] records = bytes.toByteArray();
        List<LocalDrive> drives = sets.get(set);
        List<DriveCalls.Outcome<Void>> outcomes = calls.onBounded(
                drives,
                notBusy(drives),
                1,
                "appending to the heal journal",
                (pos, drive) -> busy(drive, () -> {
                    drive.beforeWrite();
                    Path file = fileOf(drive);
                    if (!Files.isDirectory(file.getParent())) {
                        // Unmounted or replaced disk: never create the journal on whatever lies beneath.
                        throw new NoSuchFileException(file.getParent().toString());
                    }
                    boolean created = !Files.exists(file);
                    try (FileChannel ch = FileChannel.open(
                            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                        if (ch.size() == 0) {
                            LocalDrive.writeFully(ch, ByteBuffer.wrap(header()));
                        }
                        LocalDrive.writeFully(ch, ByteBuffer.wrap(records));
                        ch.force(false);
                    }
                    if (created) {
                        LocalDrive.forceDirectory(file.getParent());
                    }
                    return null;
                }),
                null);
        boolean anyFailed = false;
        for (int i = 0; i < outcomes.size(); i++) {
            var o = outcomes.get(i);
            if (!o.ok()
                    && !(o.error() instanceof DriveCalls.DriveOfflineException)
                    && !(o.error() instanceof DriveCalls.DriveTimeoutException)
                    && !(o.error() instanceof NoSuchFileException)) {
                // A failed append may leave a partial record that would hide the ones after it: rewrite the file.
                anyFailed = true;
                LOG.warning("heal journal append on " + sets.get(set).get(i).root() + " failed: " + o.error());
            }
        }
        lock.lock();
        try {
            state[set].appendedSinceCompaction += entries.size();
            if (anyFailed) {
                state[set].compact = true;
                requested++;
            }
        } finally {
            lock.unlock();
        }
    }

    private void rewrite(int set, List<Entry> live) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(header());
        for (Entry e : live) {
            bytes.writeBytes(encode(e));
        }
        byte[] content = bytes.toByteArray();
        List<LocalDrive> drives = sets.get(set);
        calls.onBounded(
                drives,
                notBusy(drives),
                1,
                "rewriting the heal journal",
                (pos, drive) -> busy(drive, () -> {
                    if (!Files.isDirectory(fileOf(drive).getParent())) {
                        throw new NoSuchFileException(fileOf(drive).getParent().toString());
                    }
                    drive.writeDurably(fileOf(drive), content);
                    return null;
                }),
                null);
        lock.lock();
        try {
            state[set].appendedSinceCompaction = 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drives whose last journal write was given up on as too slow and has not ended yet: left out of later writes
     * until it ends, so two writes never append to one file at once. Their journal misses those records; the other
     * drives of the set hold them (the queue at start is the union over the drives).
     */
    private final java.util.Set<LocalDrive> busy = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private boolean[] notBusy(List<LocalDrive> drives) {
        boolean[] include = new boolean[drives.size()];
        for (int i = 0; i < include.length; i++) {
            include[i] = !busy.contains(drives.get(i));
        }
        return include;
    }

    private <T> T busy(LocalDrive drive, java.util.concurrent.Callable<T> write) throws Exception {
        busy.add(drive);
        try {
            return write.call();
        } finally {
            busy.remove(drive);
        }
    }
}
