package dev.appliance.s3.access;

import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The S3 access log (docs/operations.md#the-s3-access-log): one line per answered request, written by a thread of its
 * own so that no event loop or request thread ever waits for the log. Off by default; {@link #enable} switches it at
 * run time. When the writer falls behind, the queue (bounded) fills and further lines are dropped and counted, never
 * waited for.
 *
 * <p>A line carries no secret: no header (so no {@code Authorization}), no query string (so no presigned
 * {@code X-Amz-Signature} or {@code X-Amz-Credential}), no body. Bucket, key and the claimed access key come from the
 * client and are quoted and escaped when they hold anything but plain characters, so a key cannot forge a line.
 */
public final class AccessLog implements AutoCloseable {
    /** Lines waiting for the writer at most; beyond, lines are dropped. */
    static final int QUEUE_CAPACITY = 10_000;

    /** Where lines go: the process's logging (a file or standard output). */
    @FunctionalInterface
    public interface Writer {
        /** Writes one line, {@code time} being when the request was answered. */
        void write(Instant time, String line);
    }

    /** Writes to the {@code s3.access} logger of the platform's logging (embedded use, tests). */
    public static final Writer SYSTEM_LOGGER =
            (time, line) -> System.getLogger("s3.access").log(System.Logger.Level.INFO, line);

    /**
     * One answered request.
     *
     * @param time when the answer was complete
     * @param remote the client's address, or null when unknown
     * @param accessKey the signing access key, {@code anonymous}, or the key a refused signature claimed; null: none
     *     known (a form upload, a request refused before it was read)
     * @param bucket null for the service or when unknown
     * @param key null for bucket-level requests or when unknown
     * @param bytesIn request body bytes received
     * @param bytesOut response body bytes sent
     * @param nanos from the request head's arrival to the answer
     * @param errorCode the S3 error code of an error answer, else null
     */
    public record Entry(
            Instant time,
            String remote,
            String accessKey,
            String method,
            String bucket,
            String key,
            int status,
            long bytesIn,
            long bytesOut,
            long nanos,
            String requestId,
            String errorCode) {
        /** The line, without the time (the log's line format puts it first). */
        public String line() {
            StringBuilder b = new StringBuilder(160);
            b.append("remote=").append(value(remote));
            b.append(" user=").append(value(accessKey));
            b.append(" method=").append(value(method));
            b.append(" bucket=").append(value(bucket));
            b.append(" key=").append(value(key));
            b.append(" status=").append(status);
            b.append(" in=").append(bytesIn);
            b.append(" out=").append(bytesOut);
            b.append(" ms=").append(String.format(Locale.ROOT, "%.3f", nanos / 1e6));
            b.append(" id=").append(value(requestId));
            b.append(" error=").append(value(errorCode));
            return b.toString();
        }
    }

    private final Writer writer;
    private final BlockingQueue<Entry> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final LongAdder dropped = new LongAdder();
    private final LongAdder written = new LongAdder();
    private volatile boolean enabled;
    private volatile boolean closed;
    private Thread thread; // started on the first enable

    public AccessLog(Writer writer, boolean enabled) {
        this.writer = writer;
        enable(enabled);
    }

    /** Whether lines are recorded now. */
    public boolean enabled() {
        return enabled;
    }

    /** Switches the log on or off, at once; lines queued before off are still written. */
    public synchronized void enable(boolean on) {
        if (on && thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name("s3-access-log").unstarted(this::drain);
            // not the caller's context loader (an admin request's, in a web container that owns it): a thread of the
            // process, like the S3 server's
            thread.setContextClassLoader(AccessLog.class.getClassLoader());
            thread.start();
        }
        enabled = on && !closed;
    }

    /** Lines dropped because the writer fell behind, since start. */
    public long dropped() {
        return dropped.sum();
    }

    /** Lines written since start. */
    public long written() {
        return written.sum();
    }

    /** Records one answered request when the log is on; never blocks (a full queue drops the line). */
    public void record(Entry entry) {
        if (!enabled) {
            return;
        }
        if (!queue.offer(entry)) {
            dropped.increment();
        }
    }

    private void drain() {
        while (!closed || !queue.isEmpty()) {
            Entry e;
            try {
                e = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ie) {
                if (closed) {
                    continue; // write what is left, then end
                }
                Thread.currentThread().interrupt();
                return;
            }
            if (e == null) {
                continue;
            }
            try {
                writer.write(e.time(), e.line());
                written.increment();
            } catch (RuntimeException failure) { // a broken writer must not end the log
                dropped.increment();
            }
        }
    }

    /** Stops recording; the lines queued so far are written before this returns (at most a few seconds). */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            enabled = false;
            t = thread;
        }
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A field's value: {@code -} for none, as is when plain, else quoted with {@code "}, {@code \} and controls escaped. */
    static String value(String v) {
        if (v == null || v.isEmpty()) {
            return "-";
        }
        boolean plain = true;
        for (int i = 0; i < v.length() && plain; i++) {
            char c = v.charAt(i);
            plain = c > ' ' && c < 0x7f && c != '"' && c != '\\';
        }
        if (plain) {
            return v;
        }
        StringBuilder b = new StringBuilder(v.length() + 8).append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c); // printable, and non-ASCII keys stay readable
            }
        }
        return b.append('"').toString();
    }
}
