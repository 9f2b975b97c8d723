package dev.appliance.installer.probe;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Writes {@link #PROBE_BYTES} to a new file on a drive with O_DIRECT, syncs it, reads it back with O_DIRECT and checks
 * it, then times {@link #LATENCY_SAMPLES} single-block writes each followed by a sync, and deletes the file. O_DIRECT
 * keeps the page cache out of the numbers: they are the disk's. Buffers are aligned to the filesystem's block size, as
 * O_DIRECT requires.
 */
public final class DriveProbe {
    private DriveProbe() {}

    /** Enough to time a disk's streaming speed, small enough to take well under a second on one. */
    public static final int PROBE_BYTES = 32 << 20;

    public static final int CHUNK_BYTES = 1 << 20;

    public static final int LATENCY_SAMPLES = 16;

    static final String FILE_PREFIX = ".appliance-probe-";

    public static ProbeOutcome probe(Path drive) {
        Path file = drive.resolve(FILE_PREFIX + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            return measure(drive, file);
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) { // reported by the measurement, if it matters
            }
        }
    }

    private static ProbeOutcome measure(Path drive, Path file) {
        int block;
        FileChannel ch;
        try {
            block = blockSize(drive);
            ch = FileChannel.open(
                    file,
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.READ,
                    ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            return withoutDirectIo(drive, file, e);
        }
        try (ch) {
            ByteBuffer buf = aligned(CHUNK_BYTES, block);
            byte[] pattern = new byte[CHUNK_BYTES];
            new SplittableRandom(drive.hashCode()).nextBytes(pattern);

            // only the system calls are timed: copying and comparing buffers is the CPU's time, not the disk's
            long writeNanos = 0;
            for (long pos = 0; pos < PROBE_BYTES; pos += CHUNK_BYTES) {
                buf.clear().put(pattern).flip();
                long t = System.nanoTime();
                writeFully(ch, buf, pos);
                writeNanos += System.nanoTime() - t;
            }
            long t = System.nanoTime();
            ch.force(false);
            writeNanos += System.nanoTime() - t;

            byte[] back = new byte[CHUNK_BYTES];
            long readNanos = 0;
            for (long pos = 0; pos < PROBE_BYTES; pos += CHUNK_BYTES) {
                buf.clear();
                t = System.nanoTime();
                readFully(ch, buf, pos);
                readNanos += System.nanoTime() - t;
                buf.flip().get(back);
                if (!Arrays.equals(back, pattern)) {
                    return new ProbeOutcome.Failed(drive, "read back different bytes at offset " + pos);
                }
            }

            long[] samples = new long[LATENCY_SAMPLES];
            ByteBuffer one = buf.clear().limit(block).slice();
            for (int i = 0; i < LATENCY_SAMPLES; i++) {
                long pos = (long) i * (PROBE_BYTES / LATENCY_SAMPLES);
                one.clear();
                t = System.nanoTime();
                writeFully(ch, one, pos);
                ch.force(false);
                samples[i] = System.nanoTime() - t;
            }
            Arrays.sort(samples);
            return new ProbeOutcome.Measured(
                    drive,
                    samples[LATENCY_SAMPLES / 2],
                    perSecond(PROBE_BYTES, writeNanos),
                    perSecond(PROBE_BYTES, readNanos));
        } catch (IOException e) {
            return new ProbeOutcome.Failed(drive, "I/O error: " + e.getMessage());
        }
    }

    /** O_DIRECT refused: a warning if plain I/O works there, a failure if the drive cannot be written at all. */
    private static ProbeOutcome withoutDirectIo(Path drive, Path file, Exception direct) {
        try {
            Files.deleteIfExists(file);
            Files.write(file, new byte[] {1}, StandardOpenOption.CREATE_NEW, StandardOpenOption.DSYNC);
            return new ProbeOutcome.NoDirectIo(
                    drive, "the filesystem refuses O_DIRECT (" + direct.getMessage() + "); not measured");
        } catch (IOException e) {
            return new ProbeOutcome.Failed(drive, "cannot write a file there: " + e.getMessage());
        }
    }

    /**
     * A direct buffer of exactly {@code bytes} whose address is a multiple of {@code block}, as O_DIRECT needs. The
     * aligned slice of a buffer one block larger holds {@code bytes} or, when the allocation happened to be aligned
     * already, a block more: cut to {@code bytes}, so a read of one chunk never reads into the next (or past the end).
     */
    static ByteBuffer aligned(int bytes, int block) {
        return ByteBuffer.allocateDirect(bytes + block)
                .alignedSlice(block)
                .limit(bytes)
                .slice();
    }

    private static int blockSize(Path drive) throws IOException {
        try {
            long size = Files.getFileStore(drive).getBlockSize();
            return size > 0 && size <= CHUNK_BYTES && Long.bitCount(size) == 1 ? (int) size : 4096;
        } catch (UnsupportedOperationException e) {
            return 4096;
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        long at = pos;
        while (buf.hasRemaining()) {
            at += ch.write(buf, at);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        long at = pos;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, at);
            if (n < 0) {
                throw new IOException("the file ended at " + at + " of " + PROBE_BYTES + " bytes written");
            }
            at += n;
        }
    }

    private static long perSecond(long bytes, long nanos) {
        return nanos <= 0 ? Long.MAX_VALUE : (long) (bytes * 1e9 / nanos);
    }
}
