package dev.appliance.core.erasure;

/**
 * Sizes of the on-disk shard layout. An object part is cut into blocks of {@code blockSize} bytes (the last may be
 * shorter); each block into {@code data} shards of {@code ceil(blockLength / data)} bytes, the last zero-padded. A
 * drive's part file holds, for every block in order, the bitrot checksum of its shard followed by the shard:
 *
 * <pre>
 * part.N = [checksum(8)][shard of block 0][checksum(8)][shard of block 1] ... [checksum(8)][shard of last block]
 * </pre>
 *
 * Inline versions store exactly these bytes inside {@code xl.meta} instead of a part file.
 */
public record ErasureLayout(int data, int parity, int blockSize, int checksumLength) {

    public int total() {
        return data + parity;
    }

    /** Shard length of a block of {@code blockLength} bytes. */
    public int shardLength(long blockLength) {
        return (int) ((blockLength + data - 1) / data);
    }

    /** Shard length of a full block. */
    public int fullShardLength() {
        return shardLength(blockSize);
    }

    public long blockCount(long partSize) {
        return (partSize + blockSize - 1) / blockSize;
    }

    public long blockLength(long partSize, long block) {
        return Math.min(blockSize, partSize - block * blockSize);
    }

    /** Bytes of one drive's shard file for a part of {@code partSize} bytes, checksums included. */
    public long shardFileSize(long partSize) {
        long full = partSize / blockSize;
        long rest = partSize % blockSize;
        long size = full * (fullShardLength() + (long) checksumLength);
        if (rest > 0) {
            size += shardLength(rest) + checksumLength;
        }
        return size;
    }

    /** Offset of block {@code block}'s checksum in a shard file (every earlier block is full). */
    public long blockOffset(long block) {
        return block * (fullShardLength() + (long) checksumLength);
    }

    /** Write quorum: data shards, one more when data equals parity so two halves can never both win. */
    public int writeQuorum() {
        return data == parity ? data + 1 : data;
    }
}
