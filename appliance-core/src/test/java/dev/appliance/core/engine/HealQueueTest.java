package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.await;
import static dev.appliance.core.engine.HealTestDrives.corrupt;
import static dev.appliance.core.engine.HealTestDrives.partFiles;
import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static dev.appliance.core.engine.HealTestDrives.snapshot;
import static dev.appliance.core.engine.TestEngine.away;
import static dev.appliance.core.engine.TestEngine.back;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.agent.ForegroundLoad;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.BackgroundHealer;
import dev.appliance.core.heal.HealQueue;
import dev.appliance.core.heal.HealQueueStatus;
import dev.appliance.core.heal.MrfJournal;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MRF queue end to end: reports persisted in the per-drive journals and found again after a crash, torn journal
 * tails ignored, the background healer draining the queue (also after a read that found damage), stepping aside for
 * client requests, retrying with backoff, and the figures the status page shows.
 */
class HealQueueTest {
    private static final String B = "bucket";
    private static final BackgroundHealer.Settings FAST = new BackgroundHealer.Settings(true, 0, 0, 0, 60_000);

    @TempDir
    Path tmp;

    private final List<ErasureObjectStore> stores = new ArrayList<>();

    @AfterEach
    void close() {
        for (ErasureObjectStore s : stores) {
            s.close();
        }
    }

    private ErasureObjectStore open() throws IOException {
        ErasureObjectStore s = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        stores.add(s);
        return s;
    }

    private static ObjectInfo put(ErasureObjectStore s, String key, byte[] data) throws IOException {
        return s.putObject(B, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** Writes {@code count} objects while drive 3 is away: each write is reported for healing. */
    private List<byte[]> writeMissingDriveThree(ErasureObjectStore s, int count) throws IOException {
        away(s, List.of(3));
        List<byte[]> data = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                data.add(random(200_000 + i, i));
                put(s, "k" + i, data.get(i));
            }
        } finally {
            back(s, List.of(3));
        }
        return data;
    }

    private static List<MrfJournal.Entry> journalItems(LocalDrive d) throws IOException {
        return MrfJournal.replay(
                MrfJournal.decode(Files.readAllBytes(MrfJournal.fileOf(d))).entries());
    }

    @Test
    void reportsOfAWrite_areInTheJournalBeforeTheWriteReturns_andSurviveACrash() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        List<byte[]> data = writeMissingDriveThree(first, 3);
        // No flush, no close: the write's report was forced before the PUT returned.
        for (int d = 0; d < 3; d++) {
            assertThat(journalItems(first.drives().get(d)))
                    .extracting(MrfJournal.Entry::key)
                    .containsExactlyInAnyOrder("k0", "k1", "k2");
        }

        // A crash: the first store is abandoned without closing it; a new process opens the drives.
        ErasureObjectStore second = open();
        assertThat(second.healStatus().pending()).isEqualTo(3);
        assertThat(second.healQueue().snapshot())
                .extracting(HealQueue.Item::key)
                .containsExactlyInAnyOrder("k0", "k1", "k2");

        second.healer().settings(FAST);
        await("the queue drained", () -> second.healStatus().pending() == 0);
        assertThat(second.healStatus().healed()).isEqualTo(3);
        await("the journals compacted", () -> {
            try {
                for (LocalDrive d : second.drives()) {
                    if (Files.size(MrfJournal.fileOf(d)) != MrfJournal.HEADER) {
                        return false;
                    }
                }
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        away(second, List.of(0, 1));
        try {
            for (int i = 0; i < 3; i++) {
                assertThat(read(second, B, "k" + i, null)).isEqualTo(data.get(i));
            }
        } finally {
            back(second, List.of(0, 1));
        }
    }

    @Test
    void aFullQueue_keepsEveryReport_spilledToTheJournal_andAfterARestartAllArePending() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        first.healQueue().capacity(10);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add("spill/" + i);
            // Half of them as a write that missed drives reports (forced before it returns), half as a read's.
            first.healQueue().report(B, keys.get(i), "null", "test report " + i, i % 2 == 0);
        }
        HealQueueStatus st = first.healStatus();
        assertThat(st.pending()).isEqualTo(50);
        assertThat(st.spilled()).isEqualTo(40);
        assertThat(first.healQueue().snapshot()).hasSize(10);
        first.journal().flush();
        for (LocalDrive d : first.drives()) {
            assertThat(journalItems(d)).extracting(MrfJournal.Entry::key).containsExactlyInAnyOrderElementsOf(keys);
        }

        // A crash: the first store is abandoned; a new process (default capacity) finds every report.
        ErasureObjectStore second = open();
        assertThat(second.healStatus().pending()).isEqualTo(50);
        assertThat(second.healQueue().snapshot())
                .extracting(HealQueue.Item::key)
                .containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void spilledReports_areLoadedBackAsTheQueueDrains_andEveryWriteIsHealed() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        s.healQueue().capacity(6);
        List<byte[]> data = writeMissingDriveThree(s, 20);
        assertThat(s.healStatus().pending()).isEqualTo(20);
        assertThat(s.healStatus().spilled()).isEqualTo(14);

        // Each drain heals what is in memory; healed items make room for the spilled ones.
        for (int round = 0; round < 20 && s.healStatus().pending() > 0; round++) {
            s.healer().drain();
        }
        HealQueueStatus st = s.healStatus();
        assertThat(st.pending()).isZero();
        assertThat(st.spilled()).isZero();
        assertThat(st.healed()).isEqualTo(20);
        for (int i = 0; i < data.size(); i++) {
            assertThat(Files.exists(s.drives().get(3).metaFile(B, "k" + i)))
                    .as("k%d healed", i)
                    .isTrue();
        }
        s.journal().flush();
        await("the journals compacted once nothing is spilled", () -> {
            try {
                for (LocalDrive d : s.drives()) {
                    if (!journalItems(d).isEmpty()) {
                        return false;
                    }
                }
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        away(s, List.of(0, 1));
        try {
            for (int i = 0; i < data.size(); i++) {
                assertThat(read(s, B, "k" + i, null)).isEqualTo(data.get(i));
            }
        } finally {
            back(s, List.of(0, 1));
        }
    }

    @Test
    void aTornJournalTail_isIgnoredAtStart_andCutByTheCompaction() throws Exception {
        ErasureObjectStore first = open();
        first.makeBucket(B);
        writeMissingDriveThree(first, 2);
        first.close();
        stores.remove(first);
        for (LocalDrive d : first.drives().subList(0, 3)) {
            byte[] half = Arrays.copyOf(
                    MrfJournal.encode(new MrfJournal.Entry(MrfJournal.REPORT, 1, B, "torn", "null", "x")), 20);
            Files.write(MrfJournal.fileOf(d), half, StandardOpenOption.APPEND);
        }

        ErasureObjectStore second = open();
        assertThat(second.healQueue().snapshot())
                .extracting(HealQueue.Item::key)
                .containsExactlyInAnyOrder("k0", "k1");
        second.journal().flush();
        for (LocalDrive d : second.drives()) {
            MrfJournal.Decoded decoded = MrfJournal.decode(Files.readAllBytes(MrfJournal.fileOf(d)));
            assertThat(decoded.tornTail()).as("%s compacted", d).isFalse();
            assertThat(MrfJournal.replay(decoded.entries()))
                    .extracting(MrfJournal.Entry::key)
                    .containsExactlyInAnyOrder("k0", "k1");
        }
    }

    @Test
    void aReadThatFoundACorruptShard_isHealedShortlyAfter() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(3 * (1 << 20) + 17, 5);
        put(s, "k", data);
        List<Map<String, byte[]>> before = snapshot(s, B, "k");
        var version = dev.appliance.core.meta.XlMeta.parse(
                        Files.readAllBytes(s.drives().get(0).metaFile(B, "k")))
                .version(0);
        int dataShardDrive = 0;
        while (version.shardIndexAt(dataShardDrive) != 1) {
            dataShardDrive++; // a data shard: a healthy read reads it, so the read finds the damage
        }
        corrupt(partFiles(s.drives().get(dataShardDrive), B, "k").getFirst(), 6, 1);
        s.healer().settings(FAST);

        assertThat(read(s, B, "k", null))
                .as("the data returned is still correct")
                .isEqualTo(data);

        await(
                "the read's report healed",
                () -> s.healStatus().healed() == 1 && s.healStatus().pending() == 0);
        List<Map<String, byte[]>> after = snapshot(s, B, "k");
        for (int d = 0; d < 4; d++) {
            assertThat(after.get(d).keySet()).isEqualTo(before.get(d).keySet());
            for (String f : after.get(d).keySet()) {
                assertThat(after.get(d).get(f))
                        .as("drive %d %s", d, f)
                        .isEqualTo(before.get(d).get(f));
            }
        }
    }

    @Test
    void readsWhileADriveIsPulled_queueNoHeal_butADriveInServiceLackingTheVersionIsQueued() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(1 << 20, 11);
        put(s, "k", data);
        put(s, "gone-here", data);
        away(s, List.of(3));
        try {
            // Pulled, not yet noticed by the drive check: its format.json is gone with it.
            assertThat(read(s, B, "k", null)).isEqualTo(data);
            assertThat(s.healStatus().pending())
                    .as("a pulled drive is not healed object by object")
                    .isZero();
            assertThat(String.join("\n", s.checkDrivesNow())).contains("lost its format.json");
            assertThat(s.drives().get(3).isOnline()).isFalse();
            assertThat(read(s, B, "k", null)).isEqualTo(data);
            assertThat(s.healStatus().pending())
                    .as("nor once the drive check took it out of service")
                    .isZero();
        } finally {
            back(s, List.of(3));
        }
        s.checkDrivesNow();
        assertThat(s.drives().get(3).isOnline()).as("back in service").isTrue();
        // A drive in service that lost the version's metadata is reported by the read.
        Files.delete(s.drives().get(3).metaFile(B, "gone-here"));
        assertThat(read(s, B, "gone-here", null)).isEqualTo(data);
        assertThat(s.healQueue().snapshot()).extracting(HealQueue.Item::key).containsExactly("gone-here");
    }

    @Test
    void theHealer_waitsWhileClientRequestsAreBusy() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        writeMissingDriveThree(s, 1);
        List<ForegroundLoad.Ticket> busy = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            busy.add(s.foreground().enter());
        }
        s.healer().settings(FAST);
        Thread.sleep(700);
        assertThat(s.healStatus().healed())
                .as("no healing while requests are busy")
                .isZero();
        assertThat(Files.exists(s.drives().get(3).metaFile(B, "k0"))).isFalse();

        busy.forEach(ForegroundLoad.Ticket::close);
        await("healed once quiet", () -> s.healStatus().healed() == 1);
        assertThat(Files.exists(s.drives().get(3).metaFile(B, "k0"))).isTrue();
    }

    @Test
    void anItemWhoseDriveIsUnreachable_isRetriedWithBackoff_untilTheDriveIsBack() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        writeMissingDriveThree(s, 1);
        away(s, List.of(3));
        try {
            assertThat(s.healer().drain()).isEqualTo(1);
            HealQueueStatus st = s.healStatus();
            assertThat(st.pending()).isEqualTo(1);
            assertThat(st.retrying()).isEqualTo(1);
            assertThat(st.healed()).isZero();
            assertThat(st.failed()).as("unreachable is not a failure").isZero();
            // Backing off: not due again within the first second.
            s.healer().settings(new BackgroundHealer.Settings(true, 0, 0, 0, 0));
            Thread.sleep(300);
            assertThat(s.healStatus().pending()).isEqualTo(1);
        } finally {
            back(s, List.of(3));
        }
        await("healed after the backoff", () -> s.healStatus().pending() == 0);
        assertThat(s.healStatus().healed()).isEqualTo(1);
        assertThat(HealQueue.backoffMillis(1)).isEqualTo(1_000);
        assertThat(HealQueue.backoffMillis(3)).isEqualTo(4_000);
        assertThat(HealQueue.backoffMillis(30)).isEqualTo(600_000);
    }

    @Test
    void whileADriveIsAway_theReachableDrivesAreHealed_andTheRestWhenItIsBack() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        byte[] data = random(2_500_000, 3);
        away(s, List.of(3));
        put(s, "k", data);
        Map<String, byte[]> intact = snapshot(s, B, "k").get(0);
        Path shard = partFiles(s.drives().get(0), B, "k").getFirst();
        corrupt(shard, 5, 9);
        try {
            s.healer().drain();
            HealQueueStatus st = s.healStatus();
            assertThat(st.pending()).as("drive 3 still lacks the version").isEqualTo(1);
            assertThat(st.retrying()).isEqualTo(1);
            assertThat(Files.readAllBytes(shard))
                    .as("drive 0's corrupt shard rebuilt while drive 3 is away")
                    .isEqualTo(intact.get(s.drives()
                            .get(0)
                            .objectDir(B, "k")
                            .relativize(shard)
                            .toString()));
        } finally {
            back(s, List.of(3));
        }
        s.healer().drain();
        assertThat(s.healStatus().pending()).isZero();
        assertThat(s.healStatus().healed()).isEqualTo(1);
        away(s, List.of(0, 1));
        try {
            assertThat(read(s, B, "k", null)).isEqualTo(data);
        } finally {
            back(s, List.of(0, 1));
        }
    }

    @Test
    void aHealThatCannotSucceed_isCountedAndNamedInTheFailures() throws Exception {
        ErasureObjectStore s = open();
        s.makeBucket(B);
        put(s, "lost", random(2_000_000, 1));
        for (int d = 0; d < 3; d++) {
            for (Path p : partFiles(s.drives().get(d), B, "lost")) {
                corrupt(p, 4, d);
            }
        }
        s.healQueue().report(B, "lost", "null", "test");

        assertThat(s.healer().drain()).isEqualTo(1);

        HealQueueStatus st = s.healStatus();
        assertThat(st.pending()).isZero();
        assertThat(st.failed()).isEqualTo(1);
        assertThat(st.lastFailures()).hasSize(1);
        assertThat(st.lastFailures().getFirst().item()).isEqualTo("bucket/lost?versionId=null");
        assertThat(st.lastFailures().getFirst().reason()).contains("intact shards");
    }
}
