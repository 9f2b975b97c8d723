package dev.appliance.core.md5;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The MD5 of several request bodies at once, one body per vector lane (the multi-buffer technique). A write submits
 * its body when it has read it and asks for the digest when it needs it, at its commit; meanwhile its drive writes run
 * and other writes submit theirs. The first to ask hashes every body then waiting, side by side; the others find their
 * digest done. Below {@link #MIN_LANES} bodies waiting, lanes cost more per byte than the JDK's scalar MD5 (an
 * intrinsic), so the asker hashes its own body with that instead: the reference path, which the tests hold the lanes
 * to.
 *
 * <p>Figures: docs/benchmarks.md, "MD5 of concurrent bodies side by side".
 */
public final class Md5Lanes {
    /** Bodies shorter than this are hashed on their own: batching would cost more than it saves. */
    public static final int MIN_BODY = 64 * 1024;

    /** Fewest bodies hashed side by side: at three of sixteen lanes filled the lanes are about as fast as the JDK. */
    static final int MIN_LANES = 3;

    private static final Md5Lanes SHARED = new Md5Lanes();

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int LANES = detectLanes();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition hashed = lock.newCondition();
    private final ArrayDeque<Body> waiting = new ArrayDeque<>();

    private long bodiesInLanes;
    private long batches;
    private long bodiesAlone;

    /** The process's lanes, where the bodies of all its writes meet. */
    public static Md5Lanes shared() {
        return SHARED;
    }

    /** Whether bodies are hashed side by side here: the Vector API is loaded and its vectors hold enough lanes. */
    public static boolean usable() {
        return LANES >= MIN_LANES;
    }

    /**
     * A body to hash: the concatenation of {@code lengths[i]} bytes from the start of each {@code segments[i]}. The
     * arrays must not change until {@link Body#digest()} returns or {@link Body#abandon()} says they are free.
     */
    public Body submit(byte[][] segments, int[] lengths) {
        Body body = new Body(segments, lengths);
        if (!usable()) {
            return body; // never waits: its digest() hashes it alone
        }
        lock.lock();
        try {
            body.state = State.WAITING;
            waiting.add(body);
        } finally {
            lock.unlock();
        }
        return body;
    }

    /** How the bodies were hashed so far: side by side (and in how many batches) or alone. */
    public record Counts(long bodiesInLanes, long batches, long bodiesAlone) {}

    public Counts counts() {
        lock.lock();
        try {
            return new Counts(bodiesInLanes, batches, bodiesAlone);
        } finally {
            lock.unlock();
        }
    }

    private enum State {
        /** Not submitted to the lanes (they are not usable here), or taken out to be hashed alone. */
        ALONE,
        WAITING,
        /** In a batch being hashed by another thread, which reads its segments. */
        HASHING,
        DONE,
        /** Given up by its write before its digest was asked for. */
        ABANDONED
    }

    /** One submitted body. */
    public final class Body {
        private final byte[][] segments;
        private final int[] lengths;
        private State state = State.ALONE;
        private byte[] digest;

        private Body(byte[][] segments, int[] lengths) {
            if (segments.length != lengths.length) {
                throw new IllegalArgumentException(segments.length + " segments, " + lengths.length + " lengths");
            }
            for (int i = 0; i < segments.length; i++) {
                if (lengths[i] < 0 || lengths[i] > segments[i].length) {
                    throw new IllegalArgumentException(
                            "segment " + i + ": " + lengths[i] + " bytes of " + segments[i].length);
                }
            }
            this.segments = segments;
            this.lengths = lengths;
        }

        /**
         * The body's MD5: hashed by now in another write's batch, or with the bodies waiting now, or alone; waits while
         * another thread hashes the batch holding it.
         */
        public byte[] digest() {
            List<Body> batch;
            lock.lock();
            try {
                while (state == State.HASHING) {
                    hashed.awaitUninterruptibly(); // a batch takes milliseconds, and it is CPU work that ends
                }
                if (state == State.DONE) {
                    return digest.clone();
                }
                if (state == State.ABANDONED) {
                    throw new IllegalStateException("this body was abandoned");
                }
                batch = state == State.WAITING && waiting.size() >= MIN_LANES ? takeBatch(this) : null;
                if (batch == null) {
                    waiting.remove(this);
                    state = State.ALONE;
                    bodiesAlone++;
                }
            } finally {
                lock.unlock();
            }
            if (batch == null) {
                return reference(segments, lengths);
            }
            byte[][] digests = null;
            try {
                Walk[] walks = new Walk[batch.size()];
                for (int i = 0; i < walks.length; i++) {
                    walks[i] = new Walk(batch.get(i).segments, batch.get(i).lengths);
                }
                digests = hashSideBySide(walks);
            } finally {
                lock.lock();
                try {
                    for (int i = 0; i < batch.size(); i++) {
                        Body b = batch.get(i);
                        // if the lanes failed, the others are hashed alone by their own writes
                        b.digest = digests == null ? null : digests[i];
                        b.state = digests == null ? State.ALONE : State.DONE;
                    }
                    hashed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
            return digest.clone();
        }

        /**
         * Withdraws a body whose digest will not be asked for. Returns whether another thread's batch may still be
         * reading its segments (they must then not be reused for another body).
         */
        public boolean abandon() {
            lock.lock();
            try {
                if (state == State.WAITING) {
                    waiting.remove(this);
                    state = State.ABANDONED;
                }
                return state == State.HASHING;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: {@code asker} and the longest-waiting others, up to one per lane, marked as being hashed. */
    private List<Body> takeBatch(Body asker) {
        List<Body> batch = new ArrayList<>(Math.min(LANES, waiting.size()));
        batch.add(asker);
        waiting.remove(asker);
        for (Iterator<Body> it = waiting.iterator(); it.hasNext() && batch.size() < LANES; ) {
            batch.add(it.next());
            it.remove();
        }
        for (Body b : batch) {
            b.state = State.HASHING;
        }
        batches++;
        bodiesInLanes += batch.size();
        return batch;
    }

    /**
     * The MD5s of up to {@link #lanes()} whole messages hashed side by side, regardless of how many (the benchmark's
     * way in; the server goes through {@link #submit}).
     */
    public static byte[][] digestSideBySide(byte[][] messages) {
        Walk[] walks = new Walk[messages.length];
        for (int i = 0; i < messages.length; i++) {
            walks[i] = new Walk(new byte[][] {messages[i]}, new int[] {messages[i].length});
        }
        return hashSideBySide(walks);
    }

    /** How many messages the vectors of this machine hash side by side (1: the lanes are not usable). */
    public static int lanes() {
        return LANES;
    }

    private static byte[][] hashSideBySide(Walk[] walks) {
        int count = walks.length;
        if (count > LANES || !usable()) {
            throw new IllegalArgumentException(count + " messages for " + LANES + " lanes");
        }
        int[] state = new int[4 * LANES];
        int[] words = new int[16 * LANES];
        int[] work = new int[4 * LANES];
        for (int lane = 0; lane < LANES; lane++) {
            state[lane] = 0x67452301;
            state[LANES + lane] = 0xefcdab89;
            state[2 * LANES + lane] = 0x98badcfe;
            state[3 * LANES + lane] = 0x10325476;
        }
        byte[][] digests = new byte[count][];
        int[] active = new int[count];
        byte[][] arrays = new byte[count][];
        int[] offsets = new int[count];
        int left = count;
        while (left > 0) {
            // the fast way: while every lane still hashing has whole blocks in place, gather them without the walks
            int run = Integer.MAX_VALUE;
            int n = 0;
            for (int lane = 0; lane < count; lane++) {
                if (digests[lane] == null) {
                    run = Math.min(run, walks[lane].blocksInPlace());
                    active[n++] = lane;
                }
            }
            if (run > 0) {
                for (int i = 0; i < n; i++) {
                    arrays[i] = walks[active[i]].array;
                    offsets[i] = walks[active[i]].offset;
                }
                for (int block = 0; block < run; block++) {
                    for (int i = 0; i < n; i++) {
                        gather(arrays[i], offsets[i] + 64 * block, words, active[i]);
                    }
                    Md5LaneKernel.compress(state, words, work);
                }
                for (int i = 0; i < n; i++) {
                    walks[active[i]].skip(run);
                }
                continue;
            }
            // one block at a time: a block across segments, the padding, a lane ending
            for (int i = 0; i < n; i++) {
                int lane = active[i];
                Walk w = walks[lane];
                if (!w.next()) {
                    digests[lane] = digestOf(state, lane); // its lane computes on stale words from now on, unread
                    left--;
                    continue;
                }
                gather(w.array, w.offset, words, lane);
            }
            if (left > 0) {
                Md5LaneKernel.compress(state, words, work);
            }
        }
        return digests;
    }

    /** One lane's block into the kernel's words: word w of lane l at {@code w * LANES + l}. */
    private static void gather(byte[] src, int off, int[] words, int lane) {
        for (int word = 0; word < 16; word += 2) {
            long v = (long) LONG_LE.get(src, off + 4 * word);
            words[word * LANES + lane] = (int) v;
            words[(word + 1) * LANES + lane] = (int) (v >>> 32);
        }
    }

    private static byte[] digestOf(int[] state, int lane) {
        byte[] out = new byte[16];
        for (int w = 0; w < 4; w++) {
            int v = state[w * LANES + lane];
            for (int b = 0; b < 4; b++) {
                out[4 * w + b] = (byte) (v >>> (8 * b));
            }
        }
        return out;
    }

    /**
     * A message's 64-byte blocks in order, padding included: read in place where a block lies within one segment,
     * otherwise assembled in a small buffer (a block across segments, and the last one or two).
     */
    private static final class Walk {
        private final byte[][] segments;
        private final int[] lengths;
        private final long bits;
        private final byte[] assembled = new byte[128];
        private int segment;
        private int at;
        /** After the message's last byte: the padding blocks left in {@link #assembled}, from {@link #tailAt}. */
        private boolean inTail;

        private int tailAt;
        private int tailEnd;
        /** The current block: {@code array[offset .. offset + 64)}. */
        byte[] array;

        int offset;

        Walk(byte[][] segments, int[] lengths) {
            this.segments = segments;
            this.lengths = lengths;
            long n = 0;
            for (int l : lengths) {
                n += l;
            }
            this.bits = n * 8;
        }

        /**
         * How many whole blocks lie ahead in the current segment, read in place from {@link #array} at {@link #offset}
         * on ({@link #skip} passes them); 0 when the next block must be assembled or the message is done.
         */
        int blocksInPlace() {
            if (inTail) {
                return 0;
            }
            while (segment < segments.length && at == lengths[segment]) {
                segment++;
                at = 0;
            }
            if (segment == segments.length) {
                return 0;
            }
            array = segments[segment];
            offset = at;
            return (lengths[segment] - at) / 64;
        }

        void skip(int blocks) {
            at += 64 * blocks;
        }

        /** Moves to the next block; false after the last. */
        boolean next() {
            if (inTail) {
                if (tailAt == tailEnd) {
                    return false;
                }
                array = assembled;
                offset = tailAt;
                tailAt += 64;
                return true;
            }
            if (blocksInPlace() > 0) {
                skip(1);
                return true;
            }
            int filled = 0;
            while (filled < 64 && segment < segments.length) {
                int n = Math.min(64 - filled, lengths[segment] - at);
                System.arraycopy(segments[segment], at, assembled, filled, n);
                filled += n;
                at += n;
                if (at == lengths[segment]) {
                    segment++;
                    at = 0;
                }
            }
            array = assembled;
            offset = 0;
            if (filled == 64) {
                return true; // a block across segments
            }
            // the end: 0x80, zeros, the length in bits (little-endian) in the last 8 bytes of one or two blocks
            inTail = true;
            tailEnd = filled < 56 ? 64 : 128;
            assembled[filled] = (byte) 0x80;
            Arrays.fill(assembled, filled + 1, tailEnd - 8, (byte) 0);
            LONG_LE.set(assembled, tailEnd - 8, bits);
            tailAt = 64;
            return true;
        }
    }

    /** The JDK's MD5 of the body: the reference the lanes are held to, and the way for a body hashed alone. */
    static byte[] reference(byte[][] segments, int[] lengths) {
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JDK", e);
        }
        for (int i = 0; i < segments.length; i++) {
            md5.update(segments[i], 0, lengths[i]);
        }
        return md5.digest();
    }

    private static int detectLanes() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return 1;
        }
        try {
            return Md5LaneKernel.LANES;
        } catch (LinkageError e) {
            return 1;
        }
    }
}
