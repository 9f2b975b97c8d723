package dev.appliance.s3.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The request body's hand-over from the event loop to the worker: every byte in order, whatever the sizes offered
 * and asked for; a reader waiting for more than will ever come woken by the end, a failure or a discard; and a reader
 * asking for more than the queue may hold (past the pause) still woken, so the body cannot stall.
 */
class BodyStreamTest {
    private static final Random RANDOM = new Random(5);

    @Test
    void bytesArriveInOrder_whateverTheSizesOfferedAndAskedFor() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024 + 17];
        RANDOM.nextBytes(body);
        Semaphore resumed = new Semaphore(0);
        BodyStream stream = new BodyStream(resumed::release);
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> readAll(stream, 200_000));
        int at = 0;
        while (at < body.length) {
            int n = Math.min(body.length - at, 1 + RANDOM.nextInt(70_000));
            ByteBuf piece = Unpooled.wrappedBuffer(body, at, n);
            at += n;
            if (stream.offer(piece)) {
                // paused as the event loop would be: offer more only once the reader drained the queue
                assertThat(resumed.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
            }
        }
        stream.end();
        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo(body);
    }

    @Test
    void aReaderAskingForMoreThanTheQueueHolds_isWokenBeforeTheEventLoopPauses() throws Exception {
        Semaphore resumed = new Semaphore(0);
        BodyStream stream = new BodyStream(resumed::release);
        int askedFor = 4 * BodyStream.HIGH_WATER;
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
            try {
                return stream.read(new byte[askedFor], 0, askedFor);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        boolean paused = false;
        while (!paused && !read.isDone()) {
            paused = stream.offer(Unpooled.wrappedBuffer(new byte[16 * 1024]));
        }
        // the reader took what was queued when it was woken, at most the wake-up threshold's worth plus one piece
        assertThat(read.get(30, TimeUnit.SECONDS)).isPositive().isLessThanOrEqualTo(BodyStream.WAKE_AT + 16 * 1024);
        stream.discard();
    }

    @Test
    void aReaderWaitingForMoreThanComes_isWokenByTheEnd() throws Exception {
        BodyStream stream = new BodyStream(() -> {});
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> readAll(stream, 1 << 20));
        stream.offer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        stream.offer(Unpooled.wrappedBuffer(new byte[] {4}));
        stream.end();
        assertThat(read.get(30, TimeUnit.SECONDS)).containsExactly(1, 2, 3, 4);
    }

    @Test
    void aWaitingReader_isWokenByAFailureAndByADiscard() throws Exception {
        BodyStream failing = new BodyStream(() -> {});
        CompletableFuture<byte[]> failed = CompletableFuture.supplyAsync(() -> readAll(failing, 1 << 20));
        failing.offer(Unpooled.wrappedBuffer(new byte[10]));
        failing.fail(new IOException("connection reset"));
        assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("connection reset");

        BodyStream discarded = new BodyStream(() -> {});
        CompletableFuture<byte[]> gone = CompletableFuture.supplyAsync(() -> readAll(discarded, 1 << 20));
        discarded.offer(Unpooled.wrappedBuffer(new byte[10]));
        discarded.discard();
        assertThatThrownBy(() -> gone.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("request body already closed");
    }

    private static byte[] readAll(BodyStream stream, int chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[chunk];
        try {
            int n;
            while ((n = stream.read(buf, 0, 1 + RANDOM.nextInt(chunk))) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }
}
