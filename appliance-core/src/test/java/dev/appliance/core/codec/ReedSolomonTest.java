package dev.appliance.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ReedSolomonTest {
    private static final int[] LENGTHS = {0, 1, 15, 16, 17, 63, 64, 65, 1000, 65537};

    static Stream<Arguments> configs() {
        return Stream.of(
                Arguments.of(1, 0),
                Arguments.of(1, 1),
                Arguments.of(1, 3),
                Arguments.of(2, 1),
                Arguments.of(2, 2),
                Arguments.of(3, 3),
                Arguments.of(4, 2),
                Arguments.of(5, 5),
                Arguments.of(6, 3),
                Arguments.of(8, 4),
                Arguments.of(8, 8),
                Arguments.of(12, 4),
                Arguments.of(16, 4),
                Arguments.of(17, 7),
                Arguments.of(20, 12));
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource("configs")
    void scalarAndVectorised_onRandomInputsAtOddLengthsAndOffsets_produceIdenticalParity(int d, int p) {
        ReedSolomon scalar = ReedSolomon.scalar(d, p);
        ReedSolomon vectorised = ReedSolomon.vectorised(d, p);
        Random random = new Random(d * 1000L + p);
        for (int length : LENGTHS) {
            for (int offset : new int[] {0, 3, 64}) {
                byte[][] a = randomShards(random, d, p, offset + length + 7);
                byte[][] b = copy(a);
                scalar.encodeParity(a, offset, length);
                vectorised.encodeParity(b, offset, length);
                for (int i = 0; i < d + p; i++) {
                    assertThat(b[i])
                            .as("%d+%d length %d offset %d shard %d", d, p, length, offset, i)
                            .isEqualTo(a[i]);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}+{1}")
    @MethodSource("configs")
    void scalarAndVectorised_withRandomErasures_rebuildTheEncodedBytes(int d, int p) {
        Random random = new Random(d * 7919L + p);
        for (ReedSolomon codec : List.of(ReedSolomon.scalar(d, p), ReedSolomon.vectorised(d, p))) {
            for (int length : LENGTHS) {
                int offset = 1 + random.nextInt(80);
                byte[][] original = randomShards(random, d, p, offset + length + 2);
                codec.encodeParity(original, offset, length);
                boolean[] present = randomPresence(random, d, p);
                byte[][] shards = eraseMissing(original, present);

                codec.reconstruct(shards, present, offset, length);

                for (int i = 0; i < d + p; i++) {
                    assertThat(Arrays.copyOfRange(shards[i], offset, offset + length))
                            .as(
                                    "%s length %d offset %d present %s shard %d",
                                    codec, length, offset, Arrays.toString(present), i)
                            .isEqualTo(Arrays.copyOfRange(original[i], offset, offset + length));
                }
            }
        }
    }

    @Test
    void reconstruct_whenTwoDataShardsMissing_rebuildsOriginalBytes() {
        ReedSolomon codec = ReedSolomon.of(4, 2);
        byte[][] original = randomShards(new Random(1), 4, 2, 100_000);
        codec.encodeParity(original, 0, 100_000);
        boolean[] present = {false, true, false, true, true, true};
        byte[][] shards = eraseMissing(original, present);

        codec.reconstruct(shards, present, 0, 100_000);

        assertThat(shards).isDeepEqualTo(original);
    }

    @Test
    void reconstruct_whenOnlyParityShardsMissing_rebuildsParity() {
        ReedSolomon codec = ReedSolomon.of(8, 4);
        byte[][] original = randomShards(new Random(2), 8, 4, 4099);
        codec.encodeParity(original, 0, 4099);
        boolean[] present = {true, true, true, true, true, true, true, true, false, true, false, false};
        byte[][] shards = eraseMissing(original, present);

        codec.reconstruct(shards, present, 0, 4099);

        assertThat(shards).isDeepEqualTo(original);
    }

    @Test
    void reconstructData_whenDataAndParityMissing_rebuildsDataAndLeavesParityUntouched() {
        ReedSolomon codec = ReedSolomon.of(4, 2);
        byte[][] original = randomShards(new Random(3), 4, 2, 5000);
        codec.encodeParity(original, 0, 5000);
        boolean[] present = {true, false, true, true, false, true};
        byte[][] shards = eraseMissing(original, present);
        byte[] missingParity = shards[4].clone();

        codec.reconstructData(shards, present, 0, 5000);

        assertThat(shards[1]).isEqualTo(original[1]);
        assertThat(shards[4]).isEqualTo(missingParity);
    }

    @Test
    void reconstructData_whenOnlyParityMissing_acceptsNullForTheMissingParity() {
        ReedSolomon codec = ReedSolomon.of(2, 2);
        byte[][] shards = randomShards(new Random(4), 2, 2, 64);
        codec.encodeParity(shards, 0, 64);
        shards[3] = null;

        codec.reconstructData(shards, new boolean[] {true, true, true, false}, 0, 64);

        assertThat(shards[3]).isNull();
    }

    @Test
    void reconstruct_whenMoreThanDataShardsPresent_usesThemAndRebuildsTheRest() {
        ReedSolomon codec = ReedSolomon.of(3, 3);
        byte[][] original = randomShards(new Random(5), 3, 3, 777);
        codec.encodeParity(original, 0, 777);
        boolean[] present = {false, true, true, true, true, true};
        byte[][] shards = eraseMissing(original, present);

        codec.reconstruct(shards, present, 0, 777);

        assertThat(shards).isDeepEqualTo(original);
    }

    @Test
    void reconstruct_whenAllShardsPresent_changesNothing() {
        ReedSolomon codec = ReedSolomon.of(2, 1);
        byte[][] shards = randomShards(new Random(6), 2, 1, 33); // parity deliberately not encoded
        byte[][] before = copy(shards);

        codec.reconstruct(shards, new boolean[] {true, true, true}, 0, 33);

        assertThat(shards).isDeepEqualTo(before);
    }

    @Test
    void reconstruct_whenFewerThanDataShardsPresent_throwsNamingTheCounts() {
        ReedSolomon codec = ReedSolomon.of(4, 2);
        byte[][] shards = new byte[6][16];

        assertThatThrownBy(
                        () -> codec.reconstruct(shards, new boolean[] {true, false, true, false, true, false}, 0, 16))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 of 6 present")
                .hasMessageContaining("dataShards = 4");
        assertThatThrownBy(() -> codec.reconstructData(shards, new boolean[6], 0, 16))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 of 6 present");
    }

    @ParameterizedTest(name = "{0}+{1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0|1|dataShards: 0 (expected 1..256)",
                "-3|1|dataShards: -3 (expected 1..256)",
                "257|0|dataShards: 257 (expected 1..256)",
                "4|-1|parityShards: -1 (expected 0..255)",
                "1|300|parityShards: 300 (expected 0..255)",
                "200|57|dataShards + parityShards: 257 (expected at most 256"
            })
    void factories_withInvalidShardCounts_throwNamingValueAndExpectation(int d, int p, String message) {
        assertThatThrownBy(() -> ReedSolomon.of(d, p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
        assertThatThrownBy(() -> ReedSolomon.scalar(d, p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
        assertThatThrownBy(() -> ReedSolomon.vectorised(d, p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void factories_withTheLargestField_work() {
        ReedSolomon codec = ReedSolomon.of(200, 56);
        byte[][] original = randomShards(new Random(7), 200, 56, 70);
        codec.encodeParity(original, 0, 70);
        boolean[] present = new boolean[256];
        Arrays.fill(present, true);
        for (int i = 0; i < 56; i++) {
            present[i * 3] = false;
        }
        byte[][] shards = eraseMissing(original, present);

        codec.reconstruct(shards, present, 0, 70);

        assertThat(shards).isDeepEqualTo(original);
    }

    @Test
    void of_returnsOneCachedVectorisedInstancePerConfiguration() {
        ReedSolomon codec = ReedSolomon.of(6, 3);

        assertThat(ReedSolomon.of(6, 3)).isSameAs(codec);
        assertThat(ReedSolomon.of(6, 2)).isNotSameAs(codec);
        assertThat(codec).isInstanceOf(VectorReedSolomon.class);
        assertThat(codec.dataShards()).isEqualTo(6);
        assertThat(codec.parityShards()).isEqualTo(3);
        assertThat(codec.totalShards()).isEqualTo(9);
    }

    @Test
    void encodeParity_withMalformedArguments_throwsIllegalArgument() {
        ReedSolomon codec = ReedSolomon.of(2, 2);
        assertThatThrownBy(() -> codec.encodeParity(new byte[3][10], 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards: 3 arrays (expected totalShards = 4)");
        assertThatThrownBy(() -> codec.encodeParity(new byte[][] {new byte[10], new byte[10], new byte[9], null}, 0, 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards[3]: null");
        assertThatThrownBy(() -> codec.encodeParity(new byte[4][10], 2, 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards[0]: 10 bytes (expected at least 11");
        assertThatThrownBy(() -> codec.encodeParity(new byte[4][10], -1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.reconstruct(new byte[4][10], new boolean[3], 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("present: 3 flags (expected totalShards = 4)");
    }

    @Test
    void reconstruct_fromManyThreadsWithDifferentErasures_rebuildsEveryTime() throws Exception {
        ReedSolomon codec = ReedSolomon.vectorised(6, 3);
        byte[][] original = randomShards(new Random(8), 6, 3, 3000);
        codec.encodeParity(original, 0, 3000);
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random random = new Random(t);
                futures.add(pool.submit(() -> {
                    for (int round = 0; round < 200; round++) {
                        boolean[] present = randomPresence(random, 6, 3);
                        byte[][] shards = eraseMissing(original, present);
                        codec.reconstruct(shards, present, 0, 3000);
                        assertThat(shards).isDeepEqualTo(original);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
    }

    // ---- helpers ----

    private static byte[][] randomShards(Random random, int d, int p, int size) {
        byte[][] shards = new byte[d + p][size];
        for (byte[] s : shards) {
            random.nextBytes(s);
        }
        return shards;
    }

    private static byte[][] copy(byte[][] shards) {
        byte[][] out = new byte[shards.length][];
        for (int i = 0; i < shards.length; i++) {
            out[i] = shards[i].clone();
        }
        return out;
    }

    /** Exactly {@code d} to {@code d + p} present shards, chosen at random. */
    private static boolean[] randomPresence(Random random, int d, int p) {
        boolean[] present = new boolean[d + p];
        Arrays.fill(present, true);
        int missing = p == 0 ? 0 : random.nextInt(p + 1);
        for (int m = 0; m < missing; ) {
            int i = random.nextInt(d + p);
            if (present[i]) {
                present[i] = false;
                m++;
            }
        }
        return present;
    }

    /** A copy of {@code original} whose missing shards are overwritten with garbage. */
    private static byte[][] eraseMissing(byte[][] original, boolean[] present) {
        byte[][] shards = copy(original);
        for (int i = 0; i < shards.length; i++) {
            if (!present[i]) {
                Arrays.fill(shards[i], (byte) 0x77);
            }
        }
        return shards;
    }
}
