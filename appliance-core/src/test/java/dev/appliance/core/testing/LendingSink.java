package dev.appliance.core.testing;

import dev.appliance.core.ObjectReader;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A {@link ObjectReader.BufferSink} that behaves as a slow connection: the buffers lent to it are read only when the
 * reader calls {@link #awaitSent}, or when the test calls {@link #bytes} (the client reading the rest), which then
 * runs what {@link #whenSent} was given. A reader that refilled or handed on a lent buffer before then would be caught
 * by the bytes this sink collects. Copied writes ({@link #write}) keep their place among the lent buffers.
 */
public final class LendingSink extends OutputStream implements ObjectReader.BufferSink {
    private final ByteArrayOutputStream collected = new ByteArrayOutputStream();
    private final List<ByteBuffer> pending = new ArrayList<>();
    private final List<Runnable> afterSent = new ArrayList<>();
    private int buffersLent;

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        pending.add(ByteBuffer.wrap(Arrays.copyOfRange(b, off, off + len)));
    }

    @Override
    public void send(ByteBuffer data) {
        pending.add(data.slice());
        data.position(data.limit());
        buffersLent++;
    }

    @Override
    public void awaitSent() {
        for (ByteBuffer b : pending) {
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            collected.writeBytes(bytes);
        }
        pending.clear();
        afterSent.forEach(Runnable::run);
        afterSent.clear();
    }

    @Override
    public void whenSent(Runnable then) {
        if (pending.isEmpty()) {
            then.run();
        } else {
            afterSent.add(then);
        }
    }

    /** How many buffers were lent rather than written as copies. */
    public int buffersLent() {
        return buffersLent;
    }

    /** True while buffers are lent and not yet sent. */
    public boolean lending() {
        return !pending.isEmpty();
    }

    /** Sends what is still lent (the client reads the rest), then answers everything sent. */
    public byte[] bytes() {
        awaitSent();
        return collected.toByteArray();
    }

    /**
     * Reads the range {@code open} gives twice: to a plain stream (the reference) and to a lending sink; answers the
     * bytes after checking both ways agree.
     */
    public static byte[] readBothWays(Callable<ObjectReader> open) throws Exception {
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        try (ObjectReader r = open.call()) {
            r.transferTo(plain);
        }
        LendingSink sink = new LendingSink();
        try (ObjectReader r = open.call()) {
            r.transferTo(sink);
        }
        byte[] lent = sink.bytes();
        if (!Arrays.equals(plain.toByteArray(), lent)) {
            throw new AssertionError("the lending read gave " + lent.length
                    + " bytes that differ from the plain read's " + plain.size());
        }
        return lent;
    }
}
