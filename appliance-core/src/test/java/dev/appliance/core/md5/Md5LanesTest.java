package dev.appliance.core.md5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The lanes against the JDK's MD5 (the reference), for whole messages, bodies in segments, batches and lone bodies. */
class Md5LanesTest {
    private final Random random = new Random(17);

    @Test
    void lanesAreUsableWhereTheTestsRun() {
        // the build starts the tests with the Vector API module, as the launcher starts the server
        assertThat(Md5Lanes.usable()).isTrue();
        assertThat(Md5Lanes.lanes()).isGreaterThanOrEqualTo(Md5Lanes.MIN_LANES);
    }

    @Test
    void wholeMessagesSideBySide_matchTheJdk_atEveryLengthAroundThePadding() {
        // lengths where the padding takes one block or two, and where a block ends exactly at the message's end
        int[] lengths = {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 65_536 + 13, 1 << 20};
        for (int start = 0; start < lengths.length; start += Md5Lanes.lanes()) {
            int count = Math.min(Md5Lanes.lanes(), lengths.length - start);
            byte[][] messages = new byte[count][];
            for (int i = 0; i < count; i++) {
                messages[i] = bytes(lengths[start + i]);
            }
            byte[][] got = Md5Lanes.digestSideBySide(messages);
            for (int i = 0; i < count; i++) {
                assertThat(got[i]).as("length %d", messages[i].length).isEqualTo(reference(messages[i]));
            }
        }
    }

    @Test
    void oneLaneFilled_matchesTheJdk() {
        byte[] m = bytes(300_001);
        assertThat(Md5Lanes.digestSideBySide(new byte[][] {m})[0]).isEqualTo(reference(m));
    }

    @Test
    void tooManyMessagesForTheLanes_areRefused() {
        byte[][] messages = new byte[Md5Lanes.lanes() + 1][];
        Arrays.fill(messages, new byte[1]);
        assertThatThrownBy(() -> Md5Lanes.digestSideBySide(messages)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The first to ask hashes itself and the longest waiting, one per lane, side by side; bodies left over, fewer than
     * a batch, are each hashed alone when asked for.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void bodiesInSegments_hashedAsOneBatch_matchTheJdk(int moreThanTheLanes) {
        Md5Lanes lanes = new Md5Lanes();
        int count = Md5Lanes.lanes() + moreThanTheLanes;
        Submitted submitted = submit(lanes, count);
        Md5Lanes.Body last = submitted.handles.get(count - 1);
        assertThat(last.digest()).isEqualTo(submitted.bodies.get(count - 1).reference());
        assertThat(lanes.counts()).isEqualTo(new Md5Lanes.Counts(Md5Lanes.lanes(), 1, 0));
        submitted.assertEachDigestIsTheJdks();
        assertThat(lanes.counts()).isEqualTo(new Md5Lanes.Counts(Md5Lanes.lanes(), 1, moreThanTheLanes));
    }

    @Test
    void fewerBodiesThanABatch_areHashedAloneByTheJdk() {
        Md5Lanes lanes = new Md5Lanes();
        Segmented a = segmented();
        Segmented b = segmented();
        Md5Lanes.Body first = lanes.submit(a.segments, a.lengths);
        Md5Lanes.Body second = lanes.submit(b.segments, b.lengths);
        assertThat(second.digest()).isEqualTo(b.reference());
        assertThat(first.digest()).isEqualTo(a.reference());
        assertThat(lanes.counts()).isEqualTo(new Md5Lanes.Counts(0, 0, 2));
    }

    @Test
    void anAbandonedBody_leavesTheQueue_andIsNotHashed() {
        Md5Lanes lanes = new Md5Lanes();
        Submitted submitted = submit(lanes, Md5Lanes.MIN_LANES);
        // its shards are free at once: nothing is hashing it
        assertThat(submitted.handles.get(0).abandon()).isFalse();
        // one body fewer than a batch is left
        assertThat(submitted.handles.get(1).digest())
                .isEqualTo(submitted.bodies.get(1).reference());
        assertThat(lanes.counts()).isEqualTo(new Md5Lanes.Counts(0, 0, 1));
        assertThatThrownBy(() -> submitted.handles.get(0).digest()).isInstanceOf(IllegalStateException.class);
        // a body whose digest is done is no longer read either
        assertThat(submitted.handles.get(1).abandon()).isFalse();
    }

    @Test
    void aBodyInAnotherWritesBatch_isStillInUseWhenAbandoned() throws Exception {
        Md5Lanes lanes = new Md5Lanes();
        // 64 MiB bodies made of one 1 MiB array: a batch of them takes a good part of a second
        byte[] block = bytes(1 << 20);
        byte[][] segments = new byte[64][];
        Arrays.fill(segments, block);
        int[] lengths = new int[64];
        Arrays.fill(lengths, block.length);
        List<Md5Lanes.Body> bodies = new ArrayList<>();
        for (int i = 0; i < Md5Lanes.MIN_LANES; i++) {
            bodies.add(lanes.submit(segments, lengths));
        }
        Thread asker = Thread.ofVirtual().start(() -> bodies.get(0).digest());
        while (lanes.counts().batches() == 0) {
            Thread.onSpinWait(); // the batch is taken: every body in it is being read from now until it ends
        }
        // its write must not hand the shards to another write while the batch still reads them
        assertThat(bodies.get(1).abandon()).isTrue();
        asker.join();
        assertThat(bodies.get(1).abandon()).isFalse();
        assertThat(bodies.get(2).digest()).isEqualTo(Md5Lanes.reference(segments, lengths));
    }

    @Test
    void manyWritersAtOnce_eachGetsItsOwnDigest() throws Exception {
        Md5Lanes lanes = new Md5Lanes();
        try (ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int w = 0; w < 64; w++) {
                long seed = w;
                results.add(writers.submit(() -> {
                    Segmented s = segmented(new Random(seed));
                    Md5Lanes.Body body = lanes.submit(s.segments, s.lengths);
                    Thread.yield(); // let other writers submit theirs, as drive writes do in the server
                    return Arrays.equals(body.digest(), s.reference());
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        }
        Md5Lanes.Counts counts = lanes.counts();
        assertThat(counts.bodiesInLanes() + counts.bodiesAlone()).isEqualTo(64);
    }

    /** Bodies submitted in order, with what each must hash to. */
    private record Submitted(List<Segmented> bodies, List<Md5Lanes.Body> handles) {
        void assertEachDigestIsTheJdks() {
            for (int i = 0; i < bodies.size(); i++) {
                assertThat(handles.get(i).digest())
                        .as("body %d", i)
                        .isEqualTo(bodies.get(i).reference());
            }
        }
    }

    private Submitted submit(Md5Lanes lanes, int count) {
        Submitted submitted = new Submitted(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < count; i++) {
            Segmented s = segmented();
            submitted.bodies.add(s);
            submitted.handles.add(lanes.submit(s.segments, s.lengths));
        }
        return submitted;
    }

    /** A body laid out as the erasure sink lays it: data shards, the last ones partly filled or empty. */
    private record Segmented(byte[][] segments, int[] lengths) {
        byte[] reference() {
            return Md5Lanes.reference(segments, lengths);
        }
    }

    private Segmented segmented() {
        return segmented(random);
    }

    private static Segmented segmented(Random random) {
        int count = 1 + random.nextInt(6);
        byte[][] segments = new byte[count][];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) {
            int capacity = random.nextInt(3) == 0 ? random.nextInt(200) : random.nextInt(70_000);
            segments[i] = new byte[capacity];
            random.nextBytes(segments[i]);
            lengths[i] = capacity == 0 ? 0 : random.nextInt(capacity + 1);
        }
        return new Segmented(segments, lengths);
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] reference(byte[] m) {
        return Md5Lanes.reference(new byte[][] {m}, new int[] {m.length});
    }
}
