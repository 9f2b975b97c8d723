package dev.appliance.s3.http;

import dev.appliance.s3.io.BulkInputStream;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The raw request body as an {@link InputStream} for the worker thread, fed with {@link ByteBuf}s by the event loop
 * through a bounded queue.
 *
 * <p><b>Ownership:</b> {@link #offer} takes ownership of the buffer it is given. The stream releases each buffer once
 * the worker has read all of it, and releases everything still queued on {@link #discard} or {@link #fail}; a buffer
 * offered after either is released at once.
 *
 * <p><b>Back-pressure:</b> {@link #offer} answers true when the queue has grown past {@link #HIGH_WATER} bytes: the
 * caller stops reading from the socket. When the worker drains it below {@link #LOW_WATER}, {@code resume} runs (on
 * the worker thread; it must only schedule work on the event loop).
 *
 * <p><b>Wake-ups:</b> a reader that finds nothing queued waits until {@link #WAKE_AT} bytes are (or as many as it asked
 * for, if fewer; or the body ended or failed), not until the next socket read: a 1 MiB body arrives in some sixteen
 * reads, and waking the worker for each cost a virtual thread's unpark and often a carrier's wake-up per read.
 */
final class BodyStream extends BulkInputStream {
    static final int HIGH_WATER = 1 << 20;
    static final int LOW_WATER = 256 << 10;
    /** Below {@link #HIGH_WATER}, so that a waiting reader is always woken before the event loop pauses reading. */
    static final int WAKE_AT = 128 << 10;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
    private final Runnable resume;
    private long queued;
    /** What a waiting reader needs queued before it is woken; 0 while none waits. */
    private long wanted;

    private boolean paused;
    private boolean ended;
    private boolean discarded;
    private IOException failure;

    BodyStream(Runnable resume) {
        this.resume = resume;
    }

    /** Event loop: queues {@code buf} (taking ownership); true when the caller should pause reading. */
    boolean offer(ByteBuf buf) {
        lock.lock();
        try {
            if (discarded || failure != null || ended || !buf.isReadable()) {
                buf.release();
                return false;
            }
            queue.add(buf);
            queued += buf.readableBytes();
            if (queued >= wanted) {
                changed.signalAll();
            }
            if (queued > HIGH_WATER && !paused) {
                paused = true;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Event loop: the last body byte has been offered. */
    void end() {
        lock.lock();
        try {
            ended = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Event loop: the connection broke; the reader gets {@code cause}. */
    void fail(IOException cause) {
        lock.lock();
        try {
            if (failure == null && !ended) {
                failure = cause;
            }
            releaseAll();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The exchange is over: release whatever was not read. */
    void discard() {
        lock.lock();
        try {
            discarded = true;
            releaseAll();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void releaseAll() {
        ByteBuf b;
        while ((b = queue.poll()) != null) {
            b.release();
        }
        queued = 0;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        boolean wake = false;
        lock.lock();
        try {
            while (true) {
                if (discarded) {
                    throw new IOException("request body already closed");
                }
                ByteBuf head = queue.peek();
                if (head != null) {
                    int n = Math.min(len, head.readableBytes());
                    head.readBytes(b, off, n);
                    queued -= n;
                    if (!head.isReadable()) {
                        queue.poll();
                        head.release();
                    }
                    if (paused && queued < LOW_WATER) {
                        paused = false;
                        wake = true;
                    }
                    return n;
                }
                if (failure != null) {
                    throw new IOException(failure.getMessage(), failure);
                }
                if (ended) {
                    return -1;
                }
                wanted = Math.min(len, WAKE_AT);
                try {
                    changed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for the request body");
                } finally {
                    wanted = 0;
                }
            }
        } finally {
            lock.unlock();
            if (wake) {
                resume.run();
            }
        }
    }

    /** Bytes queued and not yet read (for tests). */
    long queuedBytes() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }
}
