package dev.appliance.core.erasure;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends one drive's shards (each block's checksum, then its shard) to a new part file.
 *
 * <p>Direct I/O (the fast path): the file is opened with {@code O_DIRECT}, and the bytes go from an aligned buffer
 * straight to the device in whole filesystem blocks, without a copy into the page cache. That copy was the largest
 * single cost of a PUT (measured: over a quarter of the server's CPU on 1 MiB PUTs on this project's benchmark VM,
 * where page-cache pages are also the memory the hypervisor backs lazily), and a backup's data is read back rarely, so
 * caching it only evicts metadata. A block's bytes are rarely a whole number of filesystem blocks, so what does not
 * fill one waits in the buffer for the next block; the last partial block is written through an ordinary descriptor
 * at the end. Without direct I/O (a filesystem that refuses it, or the setting off: the reference path), each block is
 * written at once through the page cache. Both leave the same bytes; the caller makes them durable.
 */
final class ShardFileWriter implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private final boolean direct;
    private final int alignment;
    private ByteBuffer pending;
    private long position;

    private ShardFileWriter(Path file, FileChannel channel, boolean direct, int alignment) {
        this.file = file;
        this.channel = channel;
        this.direct = direct;
        this.alignment = alignment;
    }

    /**
     * Creates {@code file} (which must not exist), with direct I/O when {@code tryDirect} and the filesystem accepts
     * it ({@code alignment}: its block size).
     */
    static ShardFileWriter create(Path file, boolean tryDirect, int alignment) throws IOException {
        if (tryDirect && alignment > 0 && Integer.bitCount(alignment) == 1) {
            try {
                FileChannel ch = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE,
                        com.sun.nio.file.ExtendedOpenOption.DIRECT);
                return new ShardFileWriter(file, ch, true, alignment);
            } catch (UnsupportedOperationException | IOException e) {
                // EINVAL from a filesystem without O_DIRECT (tmpfs, some FUSE): an ordinary file instead; a
                // file the failed open left behind is reused, not created anew
                java.nio.file.Files.deleteIfExists(file);
            }
        }
        return new ShardFileWriter(
                file, FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), false, 0);
    }

    /** Whether this file is written with direct I/O. */
    boolean direct() {
        return direct;
    }

    /**
     * Appends {@code checksum} and {@code shard[0, length)}, through {@code buffer}: a direct buffer this writer keeps
     * between calls (its bytes must stay untouched by others until {@link #finish}), aligned to the filesystem block
     * size and at least one block larger than any checksum plus shard appended.
     */
    void append(byte[] checksum, byte[] shard, int length, ByteBuffer buffer) throws IOException {
        if (pending == null) {
            pending = buffer.clear();
        } else if (pending != buffer) {
            throw new IllegalStateException("a shard file's buffer changed between blocks");
        }
        pending.put(checksum).put(shard, 0, length);
        if (!direct) {
            pending.flip();
            writeFully(channel, pending, position);
            position += length + checksum.length;
            pending.clear();
            return;
        }
        int ready = pending.position() & -alignment; // the whole filesystem blocks held
        if (ready == 0) {
            return;
        }
        ByteBuffer out = pending.duplicate().flip().limit(ready);
        writeFully(channel, out, position);
        position += ready;
        pending.limit(pending.position()).position(ready);
        pending.compact(); // the partial block (less than one alignment unit) moves to the start
    }

    /** Writes what waits in the buffer (the last partial filesystem block). The file is complete afterwards. */
    void finish() throws IOException {
        if (!direct || pending == null || pending.position() == 0) {
            return;
        }
        pending.flip();
        try (FileChannel tail = FileChannel.open(file, StandardOpenOption.WRITE)) {
            writeFully(tail, pending, position);
        }
        position += pending.limit();
        pending.clear();
    }

    /** Forces the file's data and size to stable storage ({@code fdatasync}: it covers both descriptors' writes). */
    void force() throws IOException {
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
        long p = at;
        while (buf.hasRemaining()) {
            p += ch.write(buf, p);
        }
    }
}
