package dev.appliance.core.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A part file written with direct I/O (whole filesystem blocks from an aligned buffer, the partial last block through
 * an ordinary descriptor) holds exactly the bytes of the same shards written through the page cache, whatever the
 * shard lengths: partial blocks carried from one shard to the next, shards that end on a block boundary, one byte.
 */
class ShardFileWriterTest {
    @TempDir
    Path tmp;

    private static ByteBuffer buffer(int shardLength) {
        int units = (8 + shardLength) / ShardBuffers.ALIGNMENT + 3; // the shard, a partial unit carried, alignment
        return ByteBuffer.allocateDirect(units * ShardBuffers.ALIGNMENT).alignedSlice(ShardBuffers.ALIGNMENT);
    }

    private byte[] write(Path file, boolean direct, int blocks, int shardLength, int lastLength, boolean expectDirect)
            throws Exception {
        Random random = new Random(blocks * 31L + shardLength);
        ByteBuffer buf = buffer(shardLength);
        try (ShardFileWriter w = ShardFileWriter.create(file, direct, 4096)) {
            if (expectDirect) {
                assertThat(w.direct())
                        .as("the filesystem under %s takes O_DIRECT", tmp)
                        .isTrue();
            }
            for (int b = 0; b < blocks; b++) {
                int len = b == blocks - 1 ? lastLength : shardLength;
                byte[] cs = new byte[8];
                byte[] shard = new byte[shardLength];
                random.nextBytes(cs);
                random.nextBytes(shard);
                w.append(cs, shard, len, buf);
            }
            w.finish();
            w.force();
        }
        return Files.readAllBytes(file);
    }

    @ParameterizedTest
    @CsvSource({
        "1, 524288, 524288", // one 1 MiB block of a 2+2 set: the 8 checksum bytes are the partial block
        "3, 524288, 100000", // blocks carry partial filesystem blocks forward
        "1, 1, 1",
        "5, 4088, 4088", // checksum + shard = exactly one filesystem block each time
        "4, 349526, 12345", // 1 MiB over 3 data shards
    })
    void directAndBufferedWritesLeaveTheSameBytes(int blocks, int shardLength, int lastLength) throws Exception {
        boolean directWorksHere =
                ShardFileWriter.create(tmp.resolve("probe"), true, 4096).direct();
        byte[] viaDirect = write(tmp.resolve("direct"), true, blocks, shardLength, lastLength, directWorksHere);
        byte[] viaCache = write(tmp.resolve("cache"), false, blocks, shardLength, lastLength, false);
        assertThat(viaDirect).hasSize((blocks - 1) * (8 + shardLength) + 8 + lastLength);
        assertThat(viaDirect).isEqualTo(viaCache);
    }

    @Test
    void aBadAlignmentFallsBackToOrdinaryWrites() throws Exception {
        try (ShardFileWriter w = ShardFileWriter.create(tmp.resolve("odd"), true, 3000)) {
            assertThat(w.direct()).isFalse();
        }
    }
}
