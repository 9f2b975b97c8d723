package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata rewrites through the metadata journal (in place, one journal force per batch: the fast path) and without
 * it (staged, forced and renamed per file: the reference path) leave the same state: the same retention and legal hold on every version, in
 * {@code xl.meta} and in the archive of a key with many versions, readable by a store opened either way.
 */
class MetadataJournalStoreTest {
    private static final int KEYS = 24;
    private static final int ROUNDS = 6;
    private static final int ARCHIVED_VERSIONS = KeyFiles.HOT_MAX + 8;

    @TempDir
    Path tmp;

    private final Instant base = Instant.now().plus(30, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);

    private static ErasureObjectStore open(Path dir, boolean journal) {
        return TestEngine.open(TestStore.on(dir).metadataJournal(journal));
    }

    private static String put(ErasureObjectStore store, String key, Instant until) throws IOException {
        byte[] body = ("block " + key).getBytes(StandardCharsets.UTF_8);
        Map<String, String> lock = ObjectLock.withRetention(Map.of(), new Retention(RetentionMode.COMPLIANCE, until));
        return store.putObject(
                        "lock", key, new PutRequest(body.length, null, lock, null), new ByteArrayInputStream(body))
                .versionId();
    }

    /** What every run does: blocks, one key deep enough to have an archive, then concurrent rewrites. */
    private List<ObjectInfo> run(Path dir, boolean journal) throws Exception {
        List<String> keys = new ArrayList<>();
        List<String> versions = new ArrayList<>();
        try (ErasureObjectStore store = open(dir, journal)) {
            assertThat(store.drives().getFirst().metadataJournal() != null).isEqualTo(journal);
            store.makeBucket("lock", true);
            for (int k = 0; k < KEYS; k++) {
                keys.add("Data/" + k + ".blk");
                versions.add(put(store, keys.getLast(), base));
            }
            String oldest = null;
            for (int v = 0; v < ARCHIVED_VERSIONS; v++) {
                String id = put(store, "checkpoint", base);
                oldest = oldest == null ? id : oldest;
            }
            keys.add("checkpoint"); // its first version now lives in xl.meta.archive
            versions.add(oldest);
            // Each key is rewritten by one thread only, so the final state is known; keys run concurrently.
            try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
                List<Future<?>> done = new ArrayList<>();
                for (int k = 0; k < keys.size(); k++) {
                    int i = k;
                    done.add(pool.submit(() -> {
                        for (int r = 1; r <= ROUNDS; r++) {
                            store.putObjectRetention(
                                    "lock",
                                    keys.get(i),
                                    versions.get(i),
                                    new Retention(RetentionMode.COMPLIANCE, base.plusSeconds(i * 100L + r)),
                                    false);
                            store.putObjectLegalHold("lock", keys.get(i), versions.get(i), (i + r) % 2 == 0);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            }
            if (journal) {
                // The rewrites went to the journals, and a checkpoint empties them behind the files.
                assertThat(store.drives().getFirst().metadataJournal().size()).isPositive();
                for (var d : store.drives()) {
                    d.metadataJournal().checkpoint();
                    assertThat(d.metadataJournal().size()).isZero();
                }
            }
            for (Path drive : TestStore.on(dir).drives()) {
                try (Stream<Path> staged = Files.list(drive.resolve(".appliance.sys/tmp"))) {
                    assertThat(staged).as("staged files left on %s", drive).isEmpty();
                }
            }
        }
        // Read back through a store opened the other way: the files are the same format either way.
        List<ObjectInfo> state = new ArrayList<>();
        try (ErasureObjectStore store = open(dir, !journal)) {
            for (int k = 0; k < keys.size(); k++) {
                ObjectInfo info = store.headObject("lock", keys.get(k), versions.get(k));
                Retention r = ObjectLock.retention(info.userMetadata());
                assertThat(r.retainUntil()).isEqualTo(base.plusSeconds(k * 100L + ROUNDS));
                assertThat(ObjectLock.legalHold(info.userMetadata())).isEqualTo((k + ROUNDS) % 2 == 0);
                state.add(info);
            }
        }
        return state;
    }

    @Test
    void journaledAndPerFileRewrites_leaveTheSameMetadata() throws Exception {
        List<ObjectInfo> fast = run(tmp.resolve("journal"), true);
        List<ObjectInfo> reference = run(tmp.resolve("reference"), false);
        assertThat(fast).hasSameSizeAs(reference);
        for (int i = 0; i < fast.size(); i++) {
            assertThat(fast.get(i).userMetadata()).isEqualTo(reference.get(i).userMetadata());
            assertThat(fast.get(i).size()).isEqualTo(reference.get(i).size());
            assertThat(fast.get(i).etag()).isEqualTo(reference.get(i).etag());
        }
    }
}
