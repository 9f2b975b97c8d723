package dev.appliance.core.audit;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The audit log on the drives (docs/audit.md, docs/decisions/audit-log.md).
 *
 * <p>Every drive in service holds the same segments, {@code .appliance.sys/audit/<yyyymmdd>-<seq>.jsonl}, one JSON
 * event per line. {@link #record} returns only once its event's line is forced ({@code fdatasync}) on a write quorum of
 * the drives: one flusher thread takes every event queued meanwhile, appends them to each drive in service at once and
 * forces each file once (group commit), so concurrent callers share a sync. A write that sets retention keeps its event
 * with its own commit instead ({@link #prepare}, {@link #appendPrepared}): appended on each drive before the flush that
 * makes the write durable there, so it costs no force of its own.
 *
 * <p>A new segment starts at each open (never appending after a tail a crash may have torn), on a new UTC day, and when
 * the current one reaches {@link Settings#maxSegmentBytes}; the oldest beyond {@link Settings#retainedSegments} are
 * deleted. A query or an export reads each segment's copies on every drive in service and takes their union by event
 * id, so a drive that was away while events were appended hides none; a line that does not read back is skipped.
 */
public final class AuditLog implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(AuditLog.class.getName());
    /** The directory under each drive's system directory. */
    public static final String DIR = "audit";

    static final Pattern SEGMENT = Pattern.compile("(\\d{8})-(\\d{6})\\.jsonl");
    private static final DateTimeFormatter DAY =
            DateTimeFormatter.ofPattern("uuuuMMdd").withZone(ZoneOffset.UTC);
    private static final long WAIT_SECONDS = 30;

    /**
     * How the log is kept.
     *
     * @param maxSegmentBytes a segment is closed once it holds this much (and at the end of a UTC day)
     * @param retainedSegments the newest this many segments are kept; older ones are deleted
     * @param writeQuorum the drives an event must be forced on before {@link #record} returns (0: a majority)
     */
    public record Settings(long maxSegmentBytes, int retainedSegments, int writeQuorum) {
        /** 16 MiB segments, the newest 256 kept (at most 4 GiB a drive), a majority of the drives. */
        public static final Settings DEFAULTS = new Settings(16L << 20, 256, 0);

        public Settings {
            if (maxSegmentBytes < 1024) {
                throw new IllegalArgumentException("maxSegmentBytes: " + maxSegmentBytes + " (expected >= 1024)");
            }
            if (retainedSegments < 1) {
                throw new IllegalArgumentException("retainedSegments: " + retainedSegments + " (expected >= 1)");
            }
            if (writeQuorum < 0) {
                throw new IllegalArgumentException("writeQuorum: " + writeQuorum + " (expected >= 0)");
            }
        }
    }

    /** The log could not force an event on a write quorum of drives. */
    public static final class UnavailableException extends RuntimeException {
        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private record Pending(byte[] line, CompletableFuture<Void> done) {}

    /**
     * An event ready to be appended with a write's commit: its line and the segment it goes to, chosen once so that
     * every drive's copy lands in the same segment.
     */
    public record Prepared(AuditEvent event, String segment, byte[] line) {}

    private final List<LocalDrive> drives;
    private final DriveCalls calls;
    private final Clock clock;
    private final Settings settings;
    private final int quorum;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private List<Pending> queued = new ArrayList<>();
    private boolean closed;
    private final Thread flusher;

    /** Guards the current segment and its rotation; held briefly, never across a drive's append. */
    private final ReentrantLock segmentLock = new ReentrantLock();

    private String segment;
    private String segmentDay;
    private int segmentSeq;
    private long segmentBytes;
    /** One per drive: appends to a drive's segment (the flusher's and those made with commits) one at a time. */
    private final ReentrantLock[] appendLocks;
    /** Drives whose last append failed: their next one starts on a new line, past whatever part was written. */
    private final boolean[] tornTail;

    private AuditLog(List<LocalDrive> drives, DriveCalls calls, Clock clock, Settings settings) {
        this.drives = List.copyOf(drives);
        if (this.drives.isEmpty()) {
            throw new IllegalArgumentException("drives: none (expected at least one)");
        }
        this.calls = requireNonNull(calls, "calls");
        this.clock = requireNonNull(clock, "clock");
        this.settings = requireNonNull(settings, "settings");
        int majority = this.drives.size() / 2 + 1;
        this.quorum = settings.writeQuorum() == 0 ? majority : settings.writeQuorum();
        if (quorum > this.drives.size()) {
            throw new IllegalArgumentException(
                    "writeQuorum: " + quorum + " (expected at most the " + this.drives.size() + " drives)");
        }
        this.tornTail = new boolean[this.drives.size()];
        this.appendLocks = new ReentrantLock[this.drives.size()];
        for (int i = 0; i < appendLocks.length; i++) {
            appendLocks[i] = new ReentrantLock();
        }
        startSegment();
        this.flusher = Thread.ofPlatform().name("audit-log").daemon().start(this::run);
    }

    /** Opens the log on {@code drives} (those out of service are skipped until they return) and starts its flusher. */
    public static AuditLog open(List<LocalDrive> drives, DriveCalls calls, Clock clock, Settings settings) {
        return new AuditLog(drives, calls, clock, settings);
    }

    /** The drives an event is forced on before {@link #record} returns. */
    public int writeQuorum() {
        return quorum;
    }

    /**
     * Appends {@code event} and returns once it is forced on a write quorum of drives.
     *
     * @throws UnavailableException when it could not be (too few drives in service, I/O errors, the log closed)
     */
    public void record(AuditEvent event) {
        byte[] line = lineOf(event);
        CompletableFuture<Void> done = new CompletableFuture<>();
        lock.lock();
        try {
            if (closed) {
                throw new UnavailableException("the audit log is closed", null);
            }
            queued.add(new Pending(line, done));
            work.signal();
        } finally {
            lock.unlock();
        }
        try {
            done.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof UnavailableException u
                    ? u
                    : new UnavailableException("audit event not recorded: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new UnavailableException("audit event not forced within " + WAIT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("interrupted while the audit event was forced", e);
        }
    }

    private static byte[] lineOf(AuditEvent event) {
        return (AuditJson.encode(event) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Readies {@code event} to be appended with a write's commit ({@link #appendPrepared} on each drive the write
     * commits on), choosing its segment now.
     */
    public Prepared prepare(AuditEvent event) {
        byte[] line = lineOf(event);
        segmentLock.lock();
        try {
            rotateIfDueLocked();
            segmentBytes += line.length;
            return new Prepared(event, segment, line);
        } finally {
            segmentLock.unlock();
        }
    }

    /**
     * Appends a prepared event on {@code drive}, one of the log's, for the caller's next flush of that drive's
     * filesystem ({@link dev.appliance.core.drive.SyncGroup}) to make durable; a drive without group commit has it
     * forced here. The caller must not count it durable before that flush.
     */
    public void appendPrepared(LocalDrive drive, Prepared prepared) throws IOException {
        int pos = drives.indexOf(drive);
        if (pos < 0) {
            throw new IllegalArgumentException("drive " + drive.root() + " is not one of the audit log's");
        }
        appendTo(pos, drive, prepared.segment(), prepared.line(), drive.syncGroup() == null);
    }

    /**
     * Appends a prepared event on every drive in service and forces it there (copies already appended are the same
     * event): for one its write could not make durable on a write quorum of drives.
     *
     * @throws UnavailableException when it is forced on fewer than a write quorum
     */
    public void force(Prepared prepared) {
        requireNonNull(prepared, "prepared");
        appendForcedOnQuorum(prepared.segment(), prepared.line());
    }

    private void run() {
        while (true) {
            List<Pending> batch;
            lock.lock();
            try {
                while (queued.isEmpty() && !closed) {
                    work.awaitUninterruptibly();
                }
                if (queued.isEmpty()) {
                    return;
                }
                batch = queued;
                queued = new ArrayList<>();
            } finally {
                lock.unlock();
            }
            try {
                appendBatch(batch);
                batch.forEach(p -> p.done().complete(null));
            } catch (RuntimeException e) {
                batch.forEach(p -> p.done().completeExceptionally(e));
            }
        }
    }

    private void appendBatch(List<Pending> batch) {
        int size = 0;
        for (Pending p : batch) {
            size += p.line().length;
        }
        byte[] lines = new byte[size];
        int at = 0;
        for (Pending p : batch) {
            System.arraycopy(p.line(), 0, lines, at, p.line().length);
            at += p.line().length;
        }
        String name;
        segmentLock.lock();
        try {
            rotateIfDueLocked();
            name = segment;
            segmentBytes += lines.length;
        } finally {
            segmentLock.unlock();
        }
        appendForcedOnQuorum(name, lines);
    }

    /** Appends {@code lines} to segment {@code name} on every drive in service and forces them; fails below quorum. */
    private void appendForcedOnQuorum(String name, byte[] lines) {
        List<DriveCalls.Outcome<Void>> outcomes =
                calls.onAll(drives, (pos, drive) -> appendTo(pos, drive, name, lines, true));
        int forced = 0;
        Throwable firstError = null;
        for (var o : outcomes) {
            if (o.ok()) {
                forced++;
            } else if (firstError == null) {
                firstError = o.error();
            }
        }
        if (forced < quorum) {
            throw new UnavailableException(
                    "audit events forced on " + forced + " drives (write quorum " + quorum + "): " + firstError,
                    firstError);
        }
    }

    /** Appends {@code lines} to segment {@code name} on a drive; {@code force}: forces it (and a new name) too. */
    private Void appendTo(int pos, LocalDrive drive, String name, byte[] lines, boolean force) throws IOException {
        try {
            return appendOrFail(pos, drive, name, lines, force);
        } catch (IOException | RuntimeException e) {
            // what reached the disk of a failed append is unknown: the drive's next one starts on a new line
            appendLocks[pos].lock();
            try {
                tornTail[pos] = true;
            } finally {
                appendLocks[pos].unlock();
            }
            throw e;
        }
    }

    private Void appendOrFail(int pos, LocalDrive drive, String name, byte[] lines, boolean force) throws IOException {
        if (!drive.isOnline()) {
            throw new IOException("drive " + drive.root() + " is out of service");
        }
        drive.beforeWrite(); // injected faults and a drive being replaced refuse it as any other write
        Path dir = dirOf(drive);
        drive.createDirectoriesDurably(dir); // refuses on an unmounted disk: never writes beneath its mount point
        Path file = dir.resolve(name);
        boolean created;
        FileChannel ch;
        ReentrantLock appendLock = appendLocks[pos];
        appendLock.lock();
        try {
            created = !Files.exists(file);
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            try {
                if (tornTail[pos] && ch.size() > 0) {
                    LocalDrive.writeFully(ch, ByteBuffer.wrap(new byte[] {'\n'}));
                }
                LocalDrive.writeFully(ch, ByteBuffer.wrap(lines));
                tornTail[pos] = false;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } finally {
            appendLock.unlock();
        }
        try (ch) {
            if (force) {
                ch.force(false); // outside the lock: appends to this drive need not wait for it
            }
        }
        if (created && force) {
            LocalDrive.forceDirectory(dir);
        }
        return null;
    }

    /**
     * Starts a new segment when the UTC day changed or the current one is full, then deletes segments beyond the
     * retention (also those a returning drive still holds). The periodic agent calls it; appends do too.
     */
    public void rotateIfDue() {
        segmentLock.lock();
        try {
            rotateIfDueLocked();
            applyRetention();
        } finally {
            segmentLock.unlock();
        }
    }

    private void rotateIfDueLocked() {
        String today = DAY.format(clock.instant());
        if (!today.equals(segmentDay) || segmentBytes >= settings.maxSegmentBytes()) {
            startSegment();
            applyRetention();
        }
    }

    /** The next segment after every one on the drives in service (a restart never appends to an old one). */
    private void startSegment() {
        String today = DAY.format(clock.instant());
        int seq = 0;
        for (String n : segmentNames()) {
            Matcher m = SEGMENT.matcher(n);
            if (m.matches() && m.group(1).equals(today)) {
                seq = Math.max(seq, Integer.parseInt(m.group(2)));
            }
        }
        if (today.equals(segmentDay)) {
            seq = Math.max(seq, segmentSeq);
        }
        if (seq >= 999_999) {
            throw new IllegalStateException("audit segments of " + today + ": 999999 (no sequence number left)");
        }
        segmentDay = today;
        segmentSeq = seq + 1;
        segment = String.format("%s-%06d.jsonl", today, segmentSeq);
        segmentBytes = 0;
    }

    private void applyRetention() {
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                continue;
            }
            try {
                List<String> names = new ArrayList<>(namesOn(d));
                int excess = names.size() - settings.retainedSegments();
                for (int i = 0; i < excess; i++) {
                    if (!names.get(i).equals(segment)) {
                        Files.deleteIfExists(dirOf(d).resolve(names.get(i)));
                    }
                }
                if (excess > 0) {
                    LocalDrive.forceDirectory(dirOf(d));
                }
            } catch (IOException | UncheckedIOException e) {
                LOG.warning("audit retention on " + d.root() + " failed: " + e);
            }
        }
    }

    /** The current segment's file name (tests). */
    String currentSegment() {
        segmentLock.lock();
        try {
            return segment;
        } finally {
            segmentLock.unlock();
        }
    }

    /** The events {@code query} selects, oldest first. */
    public List<AuditEvent> query(AuditQuery query) {
        List<AuditEvent> out = new ArrayList<>();
        scan(query, out::add);
        return out;
    }

    /**
     * Writes the events {@code query} selects to {@code out} as JSON lines, oldest first, one segment in memory at a
     * time; returns how many.
     */
    public long export(AuditQuery query, OutputStream out) throws IOException {
        long[] count = {0};
        try {
            scan(query, e -> {
                try {
                    out.write((AuditJson.encode(e) + "\n").getBytes(StandardCharsets.UTF_8));
                    count[0]++;
                } catch (IOException x) {
                    throw new UncheckedIOException(x);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        out.flush();
        return count[0];
    }

    /** One event as its JSON line (without the newline): what {@link #export} writes. */
    public static String toJson(AuditEvent event) {
        return AuditJson.encode(event);
    }

    private void scan(AuditQuery query, Consumer<AuditEvent> sink) {
        String fromDay = query.from() == null ? null : DAY.format(query.from());
        // an event stamped just before midnight may be appended just after, into the next day's segment
        String toDay = query.to() == null ? null : DAY.format(query.to().plus(java.time.Duration.ofDays(1)));
        int left = query.limit();
        for (String name : segmentNames()) {
            String day = name.substring(0, 8);
            if ((fromDay != null && day.compareTo(fromDay) < 0) || (toDay != null && day.compareTo(toDay) > 0)) {
                continue;
            }
            List<AuditEvent> events = new ArrayList<>(readSegment(name).values());
            events.sort(Comparator.comparing(AuditEvent::time)); // stable: append order within one instant
            for (AuditEvent e : events) {
                if (query.matches(e)) {
                    sink.accept(e);
                    if (--left == 0) {
                        return;
                    }
                }
            }
        }
    }

    /** The union of a segment's copies on the drives in service, by event id. */
    private Map<String, AuditEvent> readSegment(String name) {
        Map<String, AuditEvent> byId = new LinkedHashMap<>();
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                continue;
            }
            Path file = dirOf(d).resolve(name);
            try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    try {
                        AuditEvent e = AuditJson.decode(line);
                        byId.putIfAbsent(e.id(), e);
                    } catch (RuntimeException damaged) {
                        LOG.fine("skipping a damaged audit line in " + file + ": " + damaged.getMessage());
                    }
                }
            } catch (NoSuchFileException absent) {
                // this drive was away while the segment was written, or it was deleted by retention meanwhile
            } catch (IOException | UncheckedIOException e) {
                LOG.warning("reading " + file + " failed: " + e);
            }
        }
        return byId;
    }

    /** Every segment name on the drives in service, oldest first. */
    private TreeSet<String> segmentNames() {
        TreeSet<String> names = new TreeSet<>();
        for (LocalDrive d : drives) {
            if (d.isOnline()) {
                names.addAll(namesOn(d));
            }
        }
        return names;
    }

    private static TreeSet<String> namesOn(LocalDrive d) {
        TreeSet<String> names = new TreeSet<>();
        Path dir = dirOf(d);
        if (!Files.isDirectory(dir)) {
            return names;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String n = p.getFileName().toString();
                if (SEGMENT.matcher(n).matches()) {
                    names.add(n);
                }
            }
        } catch (IOException e) {
            LOG.warning("listing " + dir + " failed: " + e);
        }
        return names;
    }

    static Path dirOf(LocalDrive d) {
        return d.sysDir().resolve(DIR);
    }

    /** Lets queued events be forced, then stops the flusher; later {@link #record} calls fail. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            work.signal();
        } finally {
            lock.unlock();
        }
        try {
            flusher.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
