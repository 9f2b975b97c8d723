package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.testing.LendingSink;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read into a {@link dev.appliance.core.ObjectReader.BufferSink} lends it the shards in the buffers they were read
 * into (no copy), block after block, and gives the same bytes as the plain read: whole objects, ranges across block
 * edges, inline objects and reads that reconstruct from parity.
 */
class LentBufferReadTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void open() {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket("bucket");
    }

    @AfterEach
    void close() {
        store.close();
    }

    private byte[] put(String key, int size) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        store.putObject("bucket", key, PutRequest.of(size), new ByteArrayInputStream(data));
        return data;
    }

    @Test
    void healthyRead_lendsEveryDataShardOfEveryBlock_andAgreesWithThePlainRead() throws Exception {
        byte[] data = put("k", 3 * 1024 * 1024 + 12_345); // three whole 1 MiB blocks and a short one
        LendingSink sink = new LendingSink();
        try (ObjectReader r = store.getObject("bucket", "k", null, 0, -1)) {
            r.transferTo(sink);
        }
        assertThat(sink.bytes()).isEqualTo(data);
        assertThat(sink.buffersLent())
                .as("2 data shards x 4 blocks, none copied")
                .isEqualTo(8);
    }

    @Test
    void buffersStillLent_areNotReusedByTheNextRead_untilTheyAreSent() throws Exception {
        byte[] first = put("first", 1024 * 1024);
        byte[] second = put("second", 1024 * 1024 + 1);
        LendingSink slowClient = new LendingSink();
        try (ObjectReader r = store.getObject("bucket", "first", null, 0, -1)) {
            r.transferTo(slowClient); // returns with the last block still lent, as to a client that reads slowly
        }
        assertThat(slowClient.lending()).isTrue();
        // reads that take a pooled buffer set meanwhile must not be given the lent one
        for (int i = 0; i < 3; i++) {
            assertThat(LendingSink.readBothWays(() -> store.getObject("bucket", "second", null, 0, -1)))
                    .isEqualTo(second);
        }
        assertThat(slowClient.bytes()).isEqualTo(first);
    }

    @Test
    void rangesAcrossBlockAndShardEdges_agreeWithThePlainRead() throws Exception {
        byte[] data = put("k", 2 * 1024 * 1024 + 777);
        long[][] ranges = {
            {0, 1},
            {524_287, 2},
            {1_048_575, 3},
            {1_048_576, 1_048_576},
            {100, 2_000_000},
            {2_097_152, 777},
            {2_097_152 + 776, 1}
        };
        for (long[] range : ranges) {
            byte[] got = LendingSink.readBothWays(() -> store.getObject("bucket", "k", null, range[0], range[1]));
            assertThat(got)
                    .as("range %d+%d", range[0], range[1])
                    .isEqualTo(Arrays.copyOfRange(data, (int) range[0], (int) (range[0] + range[1])));
        }
    }

    @Test
    void inlineObject_isWrittenAsACopy() throws Exception {
        byte[] data = put("small", 3_000);
        LendingSink sink = new LendingSink();
        try (ObjectReader r = store.getObject("bucket", "small", null, 0, -1)) {
            r.transferTo(sink);
        }
        assertThat(sink.bytes()).isEqualTo(data);
        assertThat(sink.buffersLent()).isZero();
    }

    @Test
    void readThatReconstructsFromParity_agreesWithThePlainRead() throws Exception {
        byte[] data = put("k", 2 * 1024 * 1024 + 5);
        // the part files of both data shards removed: every block is rebuilt from the parity shards
        var version = dev.appliance.core.meta.XlMeta.parse(
                        Files.readAllBytes(store.drives().get(0).metaFile("bucket", "k")))
                .version(0);
        for (int pos = 0; pos < store.drives().size(); pos++) {
            if (version.shardIndexAt(pos) <= version.dataShards()) {
                try (Stream<Path> files = Files.walk(store.drives().get(pos).objectDir("bucket", "k"))) {
                    for (Path f : files.filter(f -> f.getFileName().toString().startsWith("part."))
                            .toList()) {
                        Files.delete(f);
                    }
                }
            }
        }
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        try (ObjectReader r = store.getObject("bucket", "k", null, 0, -1)) {
            r.transferTo(plain);
        }
        LendingSink sink = new LendingSink();
        try (ObjectReader r = store.getObject("bucket", "k", null, 0, -1)) {
            r.transferTo(sink);
        }
        assertThat(plain.toByteArray()).isEqualTo(data);
        assertThat(sink.bytes()).isEqualTo(data);
        assertThat(sink.buffersLent())
                .as("rebuilt shards are in heap arrays: copied")
                .isZero();
    }
}
