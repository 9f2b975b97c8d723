package dev.appliance.core.erasure;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.bitrot.BitrotAlgorithm;
import dev.appliance.core.codec.ReedSolomon;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.PinnedDirectory;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.meta.XlMeta;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Streams a byte range of one version, one erasure block at a time, from the drives that agreed on the version.
 *
 * <p>For each block it reads {@code data} shards, data shards first (so a healthy read decodes nothing), verifying
 * every shard's bitrot checksum. A drive whose shard is missing, short or corrupt is dropped for the rest of the read
 * and a parity shard is read instead; missing data shards are then reconstructed. Damage is reported for healing.
 * Memory is bounded by one block plus its shards, whatever the object's size.
 *
 * <p>A read finishes on the version it started on: {@link #openFirstPart} pins the version's data directory on every
 * drive under the key's read lock, and every part's shard files are opened through those pins. An overwrite or delete
 * that commits during the read moves the directory to trash, where it is kept whole until {@link #close}. Pinning the
 * directory (one descriptor per drive) rather than opening every part up front bounds the descriptors a read holds to
 * two per drive, even for an object of 10,000 parts.
 */
final class ErasureReader implements ObjectReader {
    private final ErasureSet set;
    private final String bucket;
    private final String key;
    private final ObjectInfo info;
    private final ObjectVersion version;
    private final boolean[] usable;
    private final XlMeta[] metas;
    private final long offset;
    private final long length;
    private final FileChannel[] channels;
    /** The coding buffers of the transfer in progress (pooled; see {@link ShardBuffers}). */
    private ShardBuffers buffers;
    /** Set when a shard read was given up on: its call may still write into {@link #buffers}. */
    private boolean buffersAbandoned;
    /** Each drive's pinned data directory of the version, by position (null where none was opened). */
    private final PinnedDirectory[] pins;
    /** Releases the pins if this reader is dropped without {@link #close}, so trash is still purged. */
    private java.lang.ref.Cleaner.Cleanable unpinWhenUnreachable;

    private final int[] positionOfShard;
    private boolean damageReported;
    /** Set by {@link #close}: a read cut short by it found its files closed, not damaged. */
    private volatile boolean closed;

    private int openPart;

    ErasureReader(
            ErasureSet set,
            String bucket,
            String key,
            ObjectInfo info,
            ObjectVersion version,
            boolean[] holders,
            XlMeta[] metas,
            long offset,
            long length) {
        this.set = set;
        this.bucket = bucket;
        this.key = key;
        this.info = info;
        this.version = version;
        this.usable = holders.clone();
        this.metas = metas;
        this.offset = offset;
        this.length = length;
        int n = version.dataShards() + version.parityShards();
        this.channels = new FileChannel[n];
        this.pins = new PinnedDirectory[n];
        this.positionOfShard = new int[n];
        for (int pos = 0; pos < n; pos++) {
            positionOfShard[version.shardIndexAt(pos) - 1] = pos;
        }
    }

    /** A drive's pinned data directory and its open shard file of the first part. */
    private record Opened(PinnedDirectory dir, FileChannel firstPart) {
        void close() {
            closeQuietly(firstPart);
            dir.close();
        }
    }

    /**
     * Pins the version's data directory on each drive and opens the first part's shard files, while the caller holds
     * the key's read lock: an overwrite or delete that commits afterwards moves the directory to trash, where the pin
     * keeps it (and every later part) readable until this reader is closed.
     */
    void openFirstPart() {
        if (version.inline() || version.parts().isEmpty() || length == 0) {
            return;
        }
        int part = version.parts().getFirst().number();
        // In parallel and bounded: a drive too slow to open its shard file is left out of this read.
        List<DriveCalls.Outcome<Opened>> opened = set.calls.onBounded(
                set.drives(),
                usable,
                version.dataShards(),
                "opening a shard file",
                (pos, drive) -> {
                    PinnedDirectory dir = drive.pinDirectory(drive.objectDir(bucket, key)
                            .resolve(version.dataDir().toString()));
                    try {
                        return new Opened(dir, dir.openForRead("part." + part));
                    } catch (IOException | RuntimeException e) {
                        dir.close();
                        throw e;
                    }
                },
                Opened::close);
        PinnedDirectory[] held = pins;
        unpinWhenUnreachable = CLEANER.register(this, () -> closePins(held));
        for (int shard = 0; shard < channels.length; shard++) {
            int pos = positionOfShard[shard];
            if (usable[pos]) {
                DriveCalls.Outcome<Opened> o = opened.get(pos);
                if (o.ok()) {
                    pins[pos] = o.value().dir();
                    channels[shard] = o.value().firstPart();
                } else {
                    usable[pos] = false;
                    if (!(o.error() instanceof DriveCalls.DriveTimeoutException)) {
                        reportDamage(shard, pos, o.error().toString());
                    }
                }
            }
        }
        openPart = part;
    }

    @Override
    public ObjectInfo info() {
        return info;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public void transferTo(OutputStream out) throws IOException {
        if (length == 0) {
            return;
        }
        ErasureLayout layout = set.layoutOf(version);
        BitrotAlgorithm bitrot = set.bitrotFor(version);
        ReedSolomon codec = ReedSolomon.of(layout.data(), layout.parity());
        buffers = ShardBuffers.take(layout, version.size());
        BufferSink sink = out instanceof BufferSink s ? s : null;
        try {
            transferBlocks(out, sink, layout, bitrot, codec);
        } finally {
            // A read given up on may still be filling its buffer: never hand that set to another request (unreferenced,
            // it is garbage collected like any other). A sink may still be sending from them: they go back once sent.
            ShardBuffers done = buffers;
            buffers = null;
            if (!buffersAbandoned) {
                if (sink != null) {
                    sink.whenSent(done::close);
                } else {
                    done.close();
                }
            }
        }
    }

    private void transferBlocks(
            OutputStream out, BufferSink sink, ErasureLayout layout, BitrotAlgorithm bitrot, ReedSolomon codec)
            throws IOException {
        long partStart = 0;
        long end = offset + length;
        List<PartInfo> parts = version.parts();
        for (PartInfo part : parts) {
            long partEnd = partStart + part.size();
            if (partEnd > offset && partStart < end) {
                long from = Math.max(offset, partStart) - partStart;
                long to = Math.min(end, partEnd) - partStart;
                if (openPart != part.number()) {
                    closeChannels();
                    openPart = part.number();
                }
                long firstBlock = from / layout.blockSize();
                long lastBlock = (to - 1) / layout.blockSize();
                for (long b = firstBlock; b <= lastBlock; b++) {
                    if (sink != null) {
                        sink.awaitSent(); // the last block's buffers are about to be read into again
                    }
                    int blockLength = (int) layout.blockLength(part.size(), b);
                    int shardLength = layout.shardLength(blockLength);
                    boolean inDirect = readBlock(part.number(), layout, bitrot, codec, b, shardLength);
                    long blockStart = b * layout.blockSize();
                    int lo = (int) Math.max(0, from - blockStart);
                    int hi = (int) Math.min(blockLength, to - blockStart);
                    // The block's bytes are its data shards in order: write the wanted range from them directly
                    // (no copy into one block array first).
                    for (int j = 0; j < layout.data(); j++) {
                        int at = j * shardLength;
                        int firstByte = Math.max(lo, at);
                        int lastByte = Math.min(hi, Math.min(blockLength, at + shardLength));
                        if (lastByte > firstByte) {
                            writeShardRange(out, sink, layout, j, inDirect, firstByte - at, lastByte - firstByte);
                        }
                    }
                }
            }
            partStart = partEnd;
        }
    }

    /**
     * Writes {@code len} bytes of data shard {@code j} from {@code from}: to a sink, from the direct buffer the shard
     * was read into; otherwise from the heap array (copied there first when the shard is still in its direct buffer).
     * Heap arrays are written as a copy even to a sink, so the copy is made on this thread.
     */
    private void writeShardRange(
            OutputStream out, BufferSink sink, ErasureLayout layout, int j, boolean inDirect, int from, int len)
            throws IOException {
        if (inDirect) {
            ByteBuffer shard = buffers.readView(j, layout.checksumLength() + from, len);
            if (sink != null) {
                sink.send(shard);
                return;
            }
            shard.get(buffers.shards[j], from, len);
        }
        out.write(buffers.shards[j], from, len);
    }

    /**
     * Reads and verifies the data of one block. Answers true when every data shard was read intact from a file: each
     * is then in its direct buffer ({@link ShardBuffers#readView}), not copied anywhere. Otherwise the data shards are
     * in the heap arrays, reconstructed from parity where needed.
     */
    private boolean readBlock(
            int partNumber,
            ErasureLayout layout,
            BitrotAlgorithm bitrot,
            ReedSolomon codec,
            long block,
            int shardLength) {
        byte[][] shards = buffers.shards;
        boolean[] present = new boolean[layout.total()];
        int have = version.inline()
                ? readInline(partNumber, layout, bitrot, block, shardLength, shards, buffers.checksum, present)
                : readHedged(partNumber, layout, bitrot, block, shardLength, shards, present);
        if (closed) {
            throw new IllegalStateException("the read of " + bucket + "/" + key + " was closed");
        }
        if (have < layout.data()) {
            throw new StorageException(
                    ErrorKind.READ_QUORUM,
                    "block " + block + " of part " + partNumber + " of " + bucket + "/" + key + ": only " + have
                            + " intact shards, " + layout.data() + " needed");
        }
        boolean dataMissing = false;
        for (int j = 0; j < layout.data(); j++) {
            dataMissing |= !present[j];
        }
        if (version.inline()) {
            if (dataMissing) {
                codec.reconstructData(shards, present, 0, shardLength);
            }
            return false;
        }
        if (!dataMissing) {
            return true;
        }
        // the codec works on arrays: the intact shards leave their direct buffers for it
        for (int shard = 0; shard < layout.total(); shard++) {
            if (present[shard]) {
                buffers.readView(shard, layout.checksumLength(), shardLength).get(shards[shard], 0, shardLength);
            }
        }
        codec.reconstructData(shards, present, 0, shardLength);
        return false;
    }

    /** Inline shards come from metadata already in memory: read one by one, data shards first. */
    private int readInline(
            int partNumber,
            ErasureLayout layout,
            BitrotAlgorithm bitrot,
            long block,
            int shardLength,
            byte[][] shards,
            byte[] checksum,
            boolean[] present) {
        int have = 0;
        for (int shard = 0; shard < layout.total() && have < layout.data(); shard++) {
            int pos = positionOfShard[shard];
            if (!usable[pos]) {
                continue;
            }
            String problem = readInlineShard(layout, bitrot, block, shardLength, shard, shards[shard], checksum);
            if (problem == null) {
                present[shard] = true;
                have++;
            } else {
                usable[pos] = false;
                reportDamage(shard, pos, problem);
            }
        }
        return have;
    }

    /**
     * Reads {@code data} shards of one block from part files in parallel, data shards first. A read that fails drops
     * its drive and another shard is read instead. Once one read answered, the others get
     * {@link DriveCalls#stragglerMillis} more: a drive slower than that is given up on for the rest of this read (its
     * read is interrupted, and the buffer it was filling is replaced so a late answer cannot touch this block) and
     * another shard is read in its place. So a stalled drive costs a read that bound once, not its stall.
     */
    private int readHedged(
            int partNumber,
            ErasureLayout layout,
            BitrotAlgorithm bitrot,
            long block,
            int shardLength,
            byte[][] shards,
            boolean[] present) {
        int have = 0;
        boolean[] tried = new boolean[layout.total()];
        java.util.Map<Integer, java.util.concurrent.Future<String>> inFlight = new java.util.HashMap<>();
        java.util.concurrent.BlockingQueue<Integer> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        long start = System.nanoTime();
        long timeoutMillis = set.calls.timeoutMillis();
        long timeoutAt = start + timeoutMillis * 1_000_000L;
        long graceAt = Long.MAX_VALUE;
        // Per shard: 1 once its read ended, 2 once given up on at the deadline (then its drive counts it as stalled
        // until it ends); whoever moves it from 0 decides.
        java.util.concurrent.atomic.AtomicIntegerArray readState =
                new java.util.concurrent.atomic.AtomicIntegerArray(layout.total());
        java.util.concurrent.atomic.AtomicReferenceArray<Thread> readers =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(layout.total());
        ShardBuffers coding = buffers; // a read given up on may still run after the transfer let go of the field
        while (have < layout.data()) {
            int want = layout.data() - have - inFlight.size();
            for (int shard = 0; shard < layout.total() && want > 0; shard++) {
                if (!usable[positionOfShard[shard]] || tried[shard]) {
                    continue;
                }
                tried[shard] = true;
                want--;
                int s = shard;
                LocalDrive drive = set.drives().get(positionOfShard[shard]);
                inFlight.put(shard, set.calls.submit(() -> {
                    readers.set(s, Thread.currentThread());
                    try {
                        if (readState.get(s) != 0) {
                            return "given up on before it started";
                        }
                        drive.beforeShardRead();
                        return readFileShard(partNumber, layout, bitrot, block, shardLength, s, coding);
                    } finally {
                        if (!readState.compareAndSet(s, 0, 1)) {
                            drive.stalledCallEnded();
                        }
                        answered.add(s);
                    }
                }));
            }
            if (inFlight.isEmpty()) {
                break; // nothing left to read
            }
            Integer shard;
            try {
                shard = answered.poll(Math.min(graceAt, timeoutAt) - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                shard = null;
            }
            if (shard == null
                    && System.nanoTime() < timeoutAt
                    && !Thread.currentThread().isInterrupted()) {
                int spare = 0;
                for (int t = 0; t < layout.total(); t++) {
                    spare += usable[positionOfShard[t]] && !tried[t] ? 1 : 0;
                }
                if (spare < inFlight.size()) {
                    // Nothing to read in their place: wait for the slow drives (up to the drive timeout) rather than
                    // fail a read they can still answer.
                    graceAt = Long.MAX_VALUE;
                    continue;
                }
            }
            if (shard == null) {
                long waited = (System.nanoTime() - start) / 1_000_000L;
                boolean deadline = System.nanoTime() >= timeoutAt;
                for (var e : inFlight.entrySet()) {
                    int s = e.getKey();
                    int pos = positionOfShard[s];
                    LocalDrive drive = set.drives().get(pos);
                    if (deadline) {
                        // As any drive call that overran the deadline: out of service until the read ended (it is
                        // interrupted, but a hung device may not let go) and a probe succeeded.
                        drive.stalledCallStarted(); // before the state changes: the read's end may follow at once
                        if (readState.compareAndSet(s, 0, 2)) {
                            DriveCalls.takeOutOfService(
                                    drive, "stalled: reading a shard did not answer within " + timeoutMillis + " ms");
                        } else {
                            drive.stalledCallEnded();
                        }
                        // Interrupted, not cancelled: the task must run to its end, which ends the stalled call.
                        Thread reader = readers.get(s);
                        if (reader != null) {
                            reader.interrupt();
                        }
                    } else {
                        e.getValue().cancel(true);
                    }
                    buffersAbandoned = true;
                    usable[pos] = false;
                    channels[s] = null; // the interrupted read closes it
                    set.drives().get(pos).recordSlow("reading a shard", waited);
                }
                inFlight.clear();
                graceAt = Long.MAX_VALUE;
                if (Thread.currentThread().isInterrupted() || System.nanoTime() >= timeoutAt) {
                    break;
                }
                continue;
            }
            java.util.concurrent.Future<String> f = inFlight.remove(shard);
            if (f == null) {
                continue; // a read given up on just before it answered
            }
            String problem;
            try {
                problem = f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                problem = String.valueOf(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problem = "interrupted";
            }
            int pos = positionOfShard[shard];
            if (problem == null) {
                present[shard] = true;
                have++;
                if (graceAt == Long.MAX_VALUE) {
                    graceAt = System.nanoTime() + set.calls.stragglerMillis() * 1_000_000L;
                }
            } else {
                usable[pos] = false;
                closeChannel(shard);
                reportDamage(shard, pos, problem);
            }
        }
        return have;
    }

    private void reportDamage(int shard, int pos, String problem) {
        if (!damageReported && !closed) {
            damageReported = true;
            set.reportReadDamage(
                    bucket,
                    key,
                    version,
                    "shard " + (shard + 1) + " on " + set.drives().get(pos).root() + ": " + problem);
        }
    }

    /** Copies one inline shard of one block into {@code into} and verifies it; null when intact, else what is wrong. */
    private String readInlineShard(
            ErasureLayout layout,
            BitrotAlgorithm bitrot,
            long block,
            int shardLength,
            int shard,
            byte[] into,
            byte[] checksum) {
        int pos = positionOfShard[shard];
        long at = layout.blockOffset(block);
        int csLen = layout.checksumLength();
        byte[] inline = metas[pos] == null ? null : metas[pos].inlineData(version.versionId());
        if (inline == null || inline.length < at + csLen + shardLength) {
            return "inline shard missing or short";
        }
        System.arraycopy(inline, (int) at, checksum, 0, csLen);
        System.arraycopy(inline, (int) at + csLen, into, 0, shardLength);
        return bitrot.verify(into, 0, shardLength, checksum, 0) ? null : "bitrot checksum mismatch in block " + block;
    }

    /**
     * Reads one shard of one block from its part file into the shard's direct buffer in {@code coding} and verifies
     * it there (see {@link ShardBuffers#readView}); null when intact, else what is wrong.
     */
    private String readFileShard(
            int partNumber,
            ErasureLayout layout,
            BitrotAlgorithm bitrot,
            long block,
            int shardLength,
            int shard,
            ShardBuffers coding) {
        int pos = positionOfShard[shard];
        int csLen = layout.checksumLength();
        byte[] checksum = new byte[csLen];
        try {
            FileChannel ch = channel(partNumber, shard, pos);
            set.drives().get(pos).beforeRead();
            // One read of checksum and shard into this shard's reused direct buffer (a heap buffer would be read into
            // a fresh temporary direct buffer by the JDK, then copied all the same).
            ByteBuffer buf = coding.direct(shard, csLen + shardLength).limit(csLen + shardLength);
            long p = layout.blockOffset(block);
            while (buf.hasRemaining()) {
                int n = ch.read(buf, p);
                if (n < 0) {
                    return "part file is short";
                }
                p += n;
            }
            buf.flip();
            buf.get(checksum, 0, csLen);
            return bitrot.verify(buf, checksum, 0) ? null : "bitrot checksum mismatch in block " + block;
        } catch (IOException e) {
            return e.toString();
        }
    }

    private FileChannel channel(int partNumber, int shard, int pos) throws IOException {
        FileChannel ch = channels[shard];
        if (ch == null) {
            ch = open(partNumber, pos);
            channels[shard] = ch;
        }
        return ch;
    }

    /** Opens a later part's shard file in the drive's pinned directory, wherever an overwrite has moved it. */
    private FileChannel open(int partNumber, int pos) throws IOException {
        LocalDrive drive = set.drives().get(pos);
        PinnedDirectory dir = pins[pos];
        if (dir == null) {
            throw new IOException("data directory of the version was not opened on " + drive.root());
        }
        drive.beforeRead();
        return dir.openForRead("part." + partNumber);
    }

    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create(
            Thread.ofPlatform().name("read-unpin").daemon().factory());

    private static void closePins(PinnedDirectory[] pins) {
        for (PinnedDirectory p : pins) {
            if (p != null) {
                p.close();
            }
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // read-only channel: nothing to lose
        }
    }

    private void closeChannel(int shard) {
        if (channels[shard] != null) {
            try {
                channels[shard].close();
            } catch (IOException ignored) {
                // read-only channel: nothing to lose
            }
            channels[shard] = null;
        }
    }

    private void closeChannels() {
        for (int i = 0; i < channels.length; i++) {
            closeChannel(i);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeChannels();
        if (unpinWhenUnreachable != null) {
            unpinWhenUnreachable.clean(); // once, even if closed again
        }
    }
}
