package dev.appliance.s3.http;

import dev.appliance.core.ObjectReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A response body written from a worker thread: each write is copied into pooled {@link ByteBuf}s of at most {@link
 * #MAX_CHUNK} bytes and written as HTTP content. Before each piece the worker waits while the channel is not writable
 * (outbound buffer above the high water mark), so a slow client slows the worker instead of the server buffering the
 * object.
 *
 * <p>As a {@link ObjectReader.BufferSink} it sends a reader's buffers without copying them: each is wrapped (the wrapper
 * never frees the memory) and written as it is; {@link #awaitSent} waits for the last write to end and {@link
 * #whenSent} acts once it has. Writes on a channel end in order, and a channel that closes fails every pending one, so
 * after the last has ended Netty holds none of them.
 *
 * <p><b>Ownership:</b> each buffer {@link #write} allocates is handed to Netty with the write, which releases it; a
 * buffer given to {@link #send} stays the caller's, lent until {@link #awaitSent} returns.
 */
final class ChannelOutputStream extends OutputStream implements ObjectReader.BufferSink {
    /**
     * Up to a shard of a 1 MiB block per piece: each piece is a task handed to the channel's event loop and a flush, so
     * fewer, larger pieces cost less (the outbound buffer's high water mark, 1 MiB, still bounds what waits).
     */
    static final int MAX_CHUNK = 512 * 1024;

    /** Signalled by the channel handler when writability changes or the channel closes. */
    static final class WritabilityGate {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();

        void signal() {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void awaitWritable(Channel ch) throws IOException {
            lock.lock();
            try {
                while (!ch.isWritable()) {
                    if (!ch.isActive()) {
                        throw new IOException("client disconnected");
                    }
                    changed.await(1, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the client");
            } finally {
                lock.unlock();
            }
        }
    }

    private final Channel channel;
    private final WritabilityGate gate;
    private long written;
    /** The last write of a lent buffer ({@link #send}), until {@link #awaitSent} saw it end. */
    private ChannelFuture lastSend;

    ChannelOutputStream(Channel channel, WritabilityGate gate) {
        this.channel = channel;
        this.gate = gate;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            awaitWritable();
            int n = Math.min(len, MAX_CHUNK);
            ByteBuf buf = channel.alloc().buffer(n);
            buf.writeBytes(b, off, n);
            channel.writeAndFlush(new DefaultHttpContent(buf));
            off += n;
            len -= n;
            written += n;
        }
    }

    @Override
    public void send(ByteBuffer data) throws IOException {
        while (data.hasRemaining()) {
            awaitWritable();
            int n = Math.min(data.remaining(), MAX_CHUNK);
            ByteBuf piece = Unpooled.wrappedBuffer(data.slice(data.position(), n));
            lastSend = channel.writeAndFlush(new DefaultHttpContent(piece));
            data.position(data.position() + n);
            written += n;
        }
    }

    @Override
    public void awaitSent() throws IOException {
        ChannelFuture f = lastSend;
        if (f == null) {
            return;
        }
        try {
            // Not a bounded wait: a client that stops reading holds the buffers until the idle timeout closes the
            // channel, which fails the write.
            f.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while a buffer was being sent");
        }
        lastSend = null;
        if (!f.isSuccess()) {
            throw new IOException("client disconnected", f.cause());
        }
    }

    @Override
    public void whenSent(Runnable then) {
        ChannelFuture f = lastSend;
        if (f == null) {
            then.run();
        } else {
            f.addListener(done -> then.run());
        }
    }

    /** Before each piece: waits while the outbound buffer is full, and fails once the client is gone. */
    private void awaitWritable() throws IOException {
        gate.awaitWritable(channel);
        if (!channel.isActive()) {
            throw new IOException("client disconnected");
        }
    }

    long written() {
        return written;
    }
}
