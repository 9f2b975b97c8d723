package dev.appliance.core.drive;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * Faults injected into one drive, for tests of failure behaviour against a real process: I/O errors on reads and/or
 * writes (as {@code EIO}), a full disk (as {@code ENOSPC}, on operations that allocate space), a drive that is gone
 * (every operation fails), and latency (every operation stalls first).
 *
 * <p>A drive carries none by default ({@link LocalDrive#faults()} is null), and then each I/O entry point costs one
 * volatile read. The appliance process accepts faults only when started with {@code -Dappliance.faultInjection=true}
 * (see docs/testing.md); the engine's own tests set them directly.
 *
 * @param readErrors reads fail with an I/O error
 * @param writeErrors writes, renames and deletes fail with an I/O error
 * @param diskFull operations that allocate space (new files, directories, file data) fail with "No space left on
 *     device"; reads, renames and deletes keep working
 * @param gone every operation fails, as if the disk had dropped off the bus
 * @param latencyMillis every operation first stalls this long (0: none)
 * @param commitStallMillis only commit points stall this long (0: none): metadata renamed into place or rewritten in
 *     place, and trees moved to trash; so a write's staging succeeds and its commit, a delete or a metadata update
 *     (retention, legal hold, tags) hangs on this drive
 * @param markStallMillis only writing and removing change marks stalls this long (0: none)
 * @param trashStallMillis only moves to trash stall this long (0: none): the cleanup after a commit and the undo of a
 *     refused change, while the commit itself answers at once (moves to trash also stall {@code commitStallMillis})
 * @param shardReadStallMillis only reads of shards from part files stall this long (0: none): a read opens the
 *     drive's files in time and then hangs on them
 */
public record DriveFaults(
        boolean readErrors,
        boolean writeErrors,
        boolean diskFull,
        boolean gone,
        long latencyMillis,
        long commitStallMillis,
        long markStallMillis,
        long trashStallMillis,
        long shardReadStallMillis) {
    /** The message the JDK gives for {@code ENOSPC}: what {@code isDiskFull} checks recognise. */
    public static final String NO_SPACE = "No space left on device";

    public DriveFaults {
        if (latencyMillis < 0 || latencyMillis > 600_000) {
            throw new IllegalArgumentException("latencyMillis: " + latencyMillis + " (expected 0..600000)");
        }
        if (commitStallMillis < 0 || commitStallMillis > 600_000) {
            throw new IllegalArgumentException("commitStallMillis: " + commitStallMillis + " (expected 0..600000)");
        }
        for (long stall : new long[] {markStallMillis, trashStallMillis, shardReadStallMillis}) {
            if (stall < 0 || stall > 600_000) {
                throw new IllegalArgumentException("stall: " + stall + " ms (expected 0..600000)");
            }
        }
    }

    public DriveFaults(
            boolean readErrors,
            boolean writeErrors,
            boolean diskFull,
            boolean gone,
            long latencyMillis,
            long commitStallMillis) {
        this(readErrors, writeErrors, diskFull, gone, latencyMillis, commitStallMillis, 0, 0, 0);
    }

    /** Only the given stalls, at change marks, moves to trash and shard reads (for tests of one bounded step). */
    public static DriveFaults stalls(long markStallMillis, long trashStallMillis, long shardReadStallMillis) {
        return new DriveFaults(
                false, false, false, false, 0, 0, markStallMillis, trashStallMillis, shardReadStallMillis);
    }

    public DriveFaults(boolean readErrors, boolean writeErrors, boolean diskFull, boolean gone, long latencyMillis) {
        this(readErrors, writeErrors, diskFull, gone, latencyMillis, 0);
    }

    /** Whether this injects nothing at all. */
    public boolean none() {
        return !readErrors
                && !writeErrors
                && !diskFull
                && !gone
                && latencyMillis == 0
                && commitStallMillis == 0
                && markStallMillis == 0
                && trashStallMillis == 0
                && shardReadStallMillis == 0;
    }

    /** Stalls a commit point of {@code drive} as injected. */
    void stallCommit(LocalDrive drive) throws IOException {
        if (commitStallMillis > 0) {
            sleep(drive, commitStallMillis);
        }
    }

    /** Stalls writing or removing a change mark of {@code drive} as injected. */
    void stallMark(LocalDrive drive) throws IOException {
        if (markStallMillis > 0) {
            sleep(drive, markStallMillis);
        }
    }

    /** Stalls a move to trash on {@code drive} as injected. */
    void stallTrash(LocalDrive drive) throws IOException {
        if (trashStallMillis > 0) {
            sleep(drive, trashStallMillis);
        }
    }

    /** Stalls a shard read on {@code drive} as injected. */
    void stallShardRead(LocalDrive drive) throws IOException {
        if (shardReadStallMillis > 0) {
            sleep(drive, shardReadStallMillis);
        }
    }

    private static void sleep(LocalDrive drive, long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while stalled (injected latency on " + drive + ")");
        }
    }

    /** What an I/O operation of {@code kind} on {@code drive} meets. */
    void check(LocalDrive drive, Op kind) throws IOException {
        if (latencyMillis > 0) {
            sleep(drive, latencyMillis);
        }
        if (gone) {
            throw new IOException("No such device (injected: drive " + drive + " is gone)");
        }
        boolean error =
                switch (kind) {
                    case READ -> readErrors;
                    case ALLOCATE, MODIFY -> writeErrors;
                };
        if (error) {
            throw new IOException("Input/output error (injected " + kind.name().toLowerCase(java.util.Locale.ROOT)
                    + " fault on " + drive + ")");
        }
        if (diskFull && kind == Op.ALLOCATE) {
            throw new IOException(NO_SPACE + " (injected on " + drive + ")");
        }
    }

    /** The kinds of I/O operation a fault can hit. */
    enum Op {
        /** Reads file data, metadata or directory listings. */
        READ,
        /** Creates files or directories, or writes file data: needs free space. */
        ALLOCATE,
        /** Renames or deletes: needs no new space. */
        MODIFY
    }
}
