package dev.appliance.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared test vectors (vectors/reed-solomon.json, produced by klauspost/reedsolomon, the Go codec MinIO uses):
 * parity must match byte for byte, and every erasure of 1..parity shards must be rebuilt.
 */
class ReedSolomonVectorsTest {
    private record Vector(int data, int parity, int shardSize, long seed, byte[][] shards) {
        String name() {
            return data + "+" + parity + " shardSize " + shardSize + " seed " + seed;
        }
    }

    private static final Map<String, BiFunction<Integer, Integer, ReedSolomon>> IMPLEMENTATIONS = Map.of(
            "scalar", ReedSolomon::scalar,
            "vectorised", ReedSolomon::vectorised);

    @TestFactory
    Stream<DynamicNode> encodeParity_producesTheParityOfEveryVector() throws IOException {
        return byConfig().entrySet().stream()
                .map(config -> dynamicContainer(
                        config.getKey(), config.getValue().stream().flatMap(v -> IMPLEMENTATIONS.entrySet().stream()
                                .map(impl -> dynamicTest(
                                        v.name() + " [" + impl.getKey() + "]",
                                        () -> assertEncodesParity(
                                                impl.getValue().apply(v.data(), v.parity()), v))))));
    }

    /** One test per configuration and implementation; each erasure pattern is checked against every shard size. */
    @TestFactory
    Stream<DynamicNode> reconstruct_forEveryErasureOfUpToParityShards_rebuildsOriginalBytes() throws IOException {
        return byConfig().entrySet().stream().flatMap(config -> {
            int d = config.getValue().getFirst().data();
            int p = config.getValue().getFirst().parity();
            return IMPLEMENTATIONS.entrySet().stream()
                    .map(impl -> dynamicTest(
                            config.getKey() + " [" + impl.getKey() + "]: every erasure of 1.." + p + " shards",
                            () -> assertReconstructsEveryErasure(impl.getValue().apply(d, p), config.getValue())));
        });
    }

    private static void assertEncodesParity(ReedSolomon codec, Vector v) {
        int n = v.data() + v.parity();
        int offset = 5; // parity must land at the same offset as the data
        byte[][] shards = new byte[n][offset + v.shardSize() + 3];
        for (int i = 0; i < n; i++) {
            Arrays.fill(shards[i], (byte) 0xA5); // garbage the encoder must overwrite
        }
        for (int i = 0; i < v.data(); i++) {
            System.arraycopy(v.shards()[i], 0, shards[i], offset, v.shardSize());
        }
        codec.encodeParity(shards, offset, v.shardSize());
        for (int i = v.data(); i < n; i++) {
            assertThat(Arrays.copyOfRange(shards[i], offset, offset + v.shardSize()))
                    .as("%s parity shard %d", v.name(), i)
                    .isEqualTo(v.shards()[i]);
            assertThat(shards[i][offset - 1]).as("byte before the range").isEqualTo((byte) 0xA5);
            assertThat(shards[i][offset + v.shardSize()])
                    .as("byte after the range")
                    .isEqualTo((byte) 0xA5);
        }
    }

    private static void assertReconstructsEveryErasure(ReedSolomon codec, List<Vector> vectors) {
        int n = codec.totalShards();
        int checked = 0;
        for (int[] erased : erasures(n, codec.parityShards())) {
            boolean[] present = new boolean[n];
            Arrays.fill(present, true);
            for (int e : erased) {
                present[e] = false;
            }
            for (Vector v : vectors) {
                String what = v.name() + " erased " + Arrays.toString(erased);

                byte[][] shards = damaged(v, erased);
                codec.reconstruct(shards, present, 0, v.shardSize());
                for (int i = 0; i < n; i++) {
                    assertShard(shards[i], v.shards()[i], what + ": reconstruct, shard " + i);
                }

                shards = damaged(v, erased);
                codec.reconstructData(shards, present, 0, v.shardSize());
                for (int i = 0; i < n; i++) {
                    byte[] expected = i < v.data() || present[i] ? v.shards()[i] : garbage(v.shardSize());
                    assertShard(shards[i], expected, what + ": reconstructData, shard " + i);
                }
                checked++;
            }
        }
        assertThat(checked).isPositive();
    }

    private static void assertShard(byte[] actual, byte[] expected, String description) {
        if (!Arrays.equals(actual, expected)) {
            assertThat(actual).as(description).isEqualTo(expected);
        }
    }

    private static byte[][] damaged(Vector v, int[] erased) {
        byte[][] shards = new byte[v.shards().length][];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = v.shards()[i].clone();
        }
        for (int e : erased) {
            shards[e] = garbage(v.shardSize());
        }
        return shards;
    }

    private static byte[] garbage(int size) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) 0x5A);
        return b;
    }

    /** All subsets of {0..n-1} with 1..max elements. */
    static List<int[]> erasures(int n, int max) {
        List<int[]> out = new ArrayList<>();
        for (int size = 1; size <= max; size++) {
            int[] pick = new int[size];
            for (int i = 0; i < size; i++) {
                pick[i] = i;
            }
            while (true) {
                out.add(pick.clone());
                int i = size - 1;
                while (i >= 0 && pick[i] == n - size + i) {
                    i--;
                }
                if (i < 0) {
                    break;
                }
                pick[i]++;
                for (int j = i + 1; j < size; j++) {
                    pick[j] = pick[j - 1] + 1;
                }
            }
        }
        return out;
    }

    private static Map<String, List<Vector>> byConfig() throws IOException {
        Map<String, List<Vector>> out = new LinkedHashMap<>();
        for (Vector v : load()) {
            out.computeIfAbsent(v.data() + "+" + v.parity(), k -> new ArrayList<>())
                    .add(v);
        }
        return out;
    }

    private static List<Vector> load() throws IOException {
        try (InputStream in = ReedSolomonVectorsTest.class.getResourceAsStream("/vectors/reed-solomon.json")) {
            assertThat(in).as("vectors/reed-solomon.json on the test classpath").isNotNull();
            JsonNode root = new ObjectMapper().readTree(in);
            List<Vector> vectors = new ArrayList<>();
            for (JsonNode e : root) {
                JsonNode hex = e.get("shards");
                byte[][] shards = new byte[hex.size()][];
                for (int i = 0; i < shards.length; i++) {
                    shards[i] = HexFormat.of().parseHex(hex.get(i).asText());
                }
                vectors.add(new Vector(
                        e.get("data").asInt(),
                        e.get("parity").asInt(),
                        e.get("shardSize").asInt(),
                        e.get("seed").asLong(),
                        shards));
            }
            assertThat(vectors).hasSize(91);
            return vectors;
        }
    }
}
