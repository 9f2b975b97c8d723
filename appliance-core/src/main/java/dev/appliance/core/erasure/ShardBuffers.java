package dev.appliance.core.erasure;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The working memory of one write's or read's erasure coding: the block read from the body, the shards of one block,
 * and per drive a direct buffer its checksum and shard are written from or read into.
 *
 * <p>Why pooled: a full set is several MiB (for 2+2 and 1 MiB blocks: 1 MiB block, 2 MiB of shards, 2 MiB of direct
 * buffers), and a fresh one per request is allocated and zeroed each time, by the heap for the arrays and by the JDK
 * for the temporary direct buffer behind each heap-buffer file write. At concurrency 16 that was hundreds of MB/s of
 * memory zeroed and faulted in (measured: a quarter of the server's CPU on 1 MiB PUTs). Full-block sets are kept for
 * reuse, at most {@link #KEPT_PER_LAYOUT} per layout, so their memory stays bounded. Any body from
 * {@link #POOLED_FROM} up takes a full set (Veeam's blocks are 256 KiB to 4 MiB and every size differs, and arrays of
 * half a MiB and more are "humongous" to G1, whose churn set off concurrent marking cycles); smaller bodies get arrays
 * of their own size, which cost little.
 */
final class ShardBuffers implements AutoCloseable {
    /** Sets kept for reuse per layout: the concurrency the pool serves without allocating. */
    static final int KEPT_PER_LAYOUT = 16;

    /** Bodies of this size and larger use a pooled full-block set. */
    static final long POOLED_FROM = 64 * 1024;

    /** The address alignment of the direct buffers: the block size of common filesystems. */
    static final int ALIGNMENT = 4096;

    private static final ConcurrentHashMap<ErasureLayout, Pool> POOLS = new ConcurrentHashMap<>();

    final byte[] block;
    final byte[][] shards;
    final byte[] checksum;
    /** Per shard index, a direct buffer for one block's checksum and shard (null until a drive writes). */
    private final ByteBuffer[] direct;

    private final Pool pool;

    private ShardBuffers(ErasureLayout layout, int blockLength, Pool pool) {
        this.block = new byte[blockLength];
        this.shards = new byte[layout.total()][layout.shardLength(blockLength)];
        this.checksum = new byte[layout.checksumLength()];
        this.direct = new ByteBuffer[layout.total()];
        this.pool = pool;
    }

    /**
     * Buffers for a body of {@code size} bytes ({@code -1}: unknown): a pooled full-block set, or arrays sized to a body
     * smaller than one block.
     */
    static ShardBuffers take(ErasureLayout layout, long size) {
        if (size >= 0 && size < POOLED_FROM) {
            return new ShardBuffers(layout, (int) Math.max(size, 1), null);
        }
        Pool pool = POOLS.computeIfAbsent(layout, l -> new Pool());
        ShardBuffers kept = pool.kept.poll();
        if (kept != null) {
            pool.size.decrementAndGet();
            return kept;
        }
        return new ShardBuffers(layout, layout.blockSize(), pool);
    }

    /**
     * The direct buffer of shard index {@code shard}, cleared, holding at least {@code bytes} plus one
     * {@link #ALIGNMENT} unit, its address aligned to it (direct I/O needs both: {@link ShardFileWriter}). Called by one
     * drive's reader or writer at a time per shard index.
     */
    ByteBuffer direct(int shard, int bytes) {
        ByteBuffer b = direct[shard];
        if (b == null || b.capacity() < bytes + ALIGNMENT) {
            // alignedSlice rounds the capacity down to whole units: allocate whole units, and one more for the offset
            int units = (Math.max(bytes, checksum.length + shards[shard].length) + ALIGNMENT - 1) / ALIGNMENT + 1;
            b = ByteBuffer.allocateDirect((units + 1) * ALIGNMENT).alignedSlice(ALIGNMENT);
            direct[shard] = b;
        }
        return b.clear();
    }

    /**
     * The direct buffer of shard index {@code shard} as it is (not cleared): a shard file's writer keeps bytes in it
     * from one block to the next. Sized for any shard of this set plus one {@link #ALIGNMENT} unit.
     */
    ByteBuffer writeBuffer(int shard) {
        ByteBuffer b = direct[shard];
        return b != null && b.capacity() >= checksum.length + shards[shard].length + ALIGNMENT ? b : direct(shard, 0);
    }

    /**
     * A view of {@code len} bytes from {@code from} of shard index {@code shard}'s direct buffer, as a read left it
     * (checksum first, then the shard): what a reader sends on from without copying.
     */
    ByteBuffer readView(int shard, int from, int len) {
        return direct[shard].slice(from, len);
    }

    /** Returns a full-block set to its pool (if the pool has room); the arrays must no longer be used. */
    @Override
    public void close() {
        if (pool != null && pool.size.incrementAndGet() <= KEPT_PER_LAYOUT) {
            pool.kept.add(this);
        } else if (pool != null) {
            pool.size.decrementAndGet();
        }
    }

    private static final class Pool {
        final ConcurrentLinkedQueue<ShardBuffers> kept = new ConcurrentLinkedQueue<>();
        final AtomicInteger size = new AtomicInteger();
    }
}
