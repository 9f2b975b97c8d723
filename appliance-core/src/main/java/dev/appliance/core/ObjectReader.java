package dev.appliance.core;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.ByteBuffer;

/** An opened object version: its metadata and the requested byte range, decoded block by block on demand. */
public interface ObjectReader extends AutoCloseable {

    ObjectInfo info();

    /** First byte of the range that {@link #transferTo} writes. */
    long offset();

    /** Number of bytes {@link #transferTo} writes. */
    long length();

    /**
     * Decodes and writes the range, one erasure block at a time, verifying bitrot checksums and reading around
     * missing or corrupt shards. Blocks while {@code out} blocks. When {@code out} is also a {@link BufferSink}, the
     * verified shards are handed to it in the buffers they were read into, instead of being copied into it.
     */
    void transferTo(OutputStream out) throws IOException;

    /**
     * A destination that takes a reader's buffers as they are, without a copy: a network connection sends them
     * straight from the memory the shards were read into. The reader does not touch a buffer it has sent until
     * {@link #awaitSent} has returned or {@link #whenSent} has run its action.
     */
    interface BufferSink {
        /** Queues {@code data}'s remaining bytes to be written; the sink may read them until they are sent. */
        void send(ByteBuffer data) throws IOException;

        /**
         * Blocks until every buffer given to {@link #send} has been written, or dropped because the destination
         * closed (at once when none is pending); then the caller may reuse them.
         */
        void awaitSent() throws IOException;

        /**
         * Runs {@code then} once every buffer given to {@link #send} so far has been written or dropped (at once when
         * none is pending), on whichever thread sees that: the reader hands its buffers back for reuse this way
         * instead of waiting for a slow client.
         */
        void whenSent(Runnable then);
    }

    /**
     * The range as an input stream: a virtual thread decodes it into a bounded pipe (one erasure block), so the
     * caller can feed it to another write (copies) without holding the object in memory. Closing the stream stops
     * the decoding; a decoding failure surfaces as an {@link IOException} from {@code read}.
     */
    default InputStream openStream() throws IOException {
        PipedInputStream in = new PipedInputStream(1 << 20);
        PipedOutputStream out = new PipedOutputStream(in);
        IOException[] failure = new IOException[1];
        Thread.ofVirtual().name("object-stream").start(() -> {
            try (out) {
                transferTo(out);
            } catch (IOException | RuntimeException e) {
                failure[0] = e instanceof IOException io ? io : new IOException(e);
            }
        });
        return new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n < 0 && failure[0] != null) {
                    throw failure[0];
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int n = super.read();
                if (n < 0 && failure[0] != null) {
                    throw failure[0];
                }
                return n;
            }
        };
    }

    @Override
    void close();
}
