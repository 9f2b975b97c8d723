package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.read;
import static dev.appliance.core.engine.TestEngine.away;
import static dev.appliance.core.engine.TestEngine.back;
import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.naming.VersionIds;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives that agree on a version's identity but hold different metadata for it (retention updated while a drive was
 * away, or an update a crash cut off half way): the version must stay readable, listed and updatable, and the healer
 * must make every drive's metadata identical again.
 */
class MetadataDivergenceTest {
    private static final String B = "locked";

    @TempDir
    Path tmp;

    private static ErasureObjectStore open(TestStore layout, int parity, boolean journal) {
        return TestEngine.openQuiet(layout.parity(parity).metadataJournal(journal));
    }

    private static ObjectInfo put(ErasureObjectStore store, String key, byte[] body, Instant until) throws IOException {
        Map<String, String> lock = until == null
                ? Map.of()
                : ObjectLock.withRetention(Map.of(), new Retention(RetentionMode.GOVERNANCE, until));
        return store.putObject(B, key, new PutRequest(body.length, null, lock, null), new ByteArrayInputStream(body));
    }

    private static Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.MILLIS);
    }

    private static Instant retainUntil(ObjectInfo info) {
        return ObjectLock.retention(info.userMetadata()).retainUntil();
    }

    private static byte[] metaBytes(LocalDrive d, String key) throws IOException {
        return Files.readAllBytes(d.metaFile(B, key));
    }

    /** Each drive's body checksum of the version. */
    private static List<Integer> bodyChecksums(ErasureObjectStore store, String key, String versionId)
            throws Exception {
        List<Integer> out = new ArrayList<>();
        for (LocalDrive d : store.drives()) {
            XlMeta m = XlMeta.parse(metaBytes(d, key));
            out.add(m.header(m.indexOf(VersionIds.parse(versionId))).bodyChecksum());
        }
        return out;
    }

    /**
     * 3+1: a retention update a crash stopped after two drives renamed their new {@code xl.meta} (the other two keep
     * the old one). Two drives of each: neither body alone has the read quorum of 3, yet all four hold the version.
     */
    @Test
    void updateCutOffHalfWay_versionStaysReadableListedAndUpdatable_andHealConverges() throws Exception {
        TestStore layout = TestStore.on(tmp);
        byte[] body = HealTestDrives.random(300_000, 1);
        String key = "backup.vbk";
        Instant first = inDays(10);
        Instant second = inDays(20);
        ObjectInfo older;
        ObjectInfo v;
        try (ErasureObjectStore store = open(layout, 1, false)) {
            store.makeBucket(B, true);
            older = put(store, key, HealTestDrives.random(1000, 2), null);
            v = put(store, key, body, first);
            List<byte[]> before = new ArrayList<>();
            for (LocalDrive d : store.drives()) {
                before.add(metaBytes(d, key));
            }
            store.putObjectRetention(B, key, v.versionId(), new Retention(RetentionMode.GOVERNANCE, second), false);
            // the crash: drives 3 and 4 never got the new file
            for (int i = 2; i < 4; i++) {
                store.drives()
                        .get(i)
                        .replaceFile(store.drives().get(i).metaFile(B, key), java.nio.ByteBuffer.wrap(before.get(i)));
            }
        }
        try (ErasureObjectStore store = open(layout, 1, false)) {
            assertThat(new java.util.HashSet<>(bodyChecksums(store, key, v.versionId())))
                    .as("two bodies on disk, two drives each")
                    .hasSize(2);

            assertThat(retainUntil(store.headObject(B, key, v.versionId()))).isEqualTo(second);
            assertThat(read(store, B, key, v.versionId())).isEqualTo(body);
            assertThat(store.headObject(B, key, null).versionId()).isEqualTo(v.versionId());
            assertThat(store.listObjectVersions(B, "", null, null, null, 100).versions())
                    .extracting(ObjectInfo::versionId)
                    .containsExactly(v.versionId(), older.versionId());

            // with all four drives online, then with one away
            Instant third = inDays(30);
            assertThat(retainUntil(store.putObjectRetention(
                            B, key, v.versionId(), new Retention(RetentionMode.GOVERNANCE, third), false)))
                    .isEqualTo(third);
        }
        // diverge again (a drive away during an update) and heal
        try (ErasureObjectStore store = open(layout, 1, false)) {
            away(store, List.of(0));
            Instant fourth = inDays(40);
            store.putObjectRetention(B, key, v.versionId(), new Retention(RetentionMode.GOVERNANCE, fourth), false);
            back(store, List.of(0));
            assertThat(retainUntil(store.headObject(B, key, v.versionId()))).isEqualTo(fourth);

            HealResult healed = store.heal(B, key, v.versionId());
            assertThat(healed.status()).isEqualTo(HealResult.Status.HEALED);
            assertThat(healed.healedDrives())
                    .containsExactly(store.drives().get(0).root().toString());
            assertThat(bodyChecksums(store, key, v.versionId()))
                    .containsOnly(bodyChecksums(store, key, v.versionId()).getFirst());
            assertThat(store.heal(B, key, v.versionId()).status()).isEqualTo(HealResult.Status.HEALTHY);
            assertThat(read(store, B, key, v.versionId())).isEqualTo(body);
        }
    }

    /**
     * 2+2 with the metadata journal: drive 1 misses one retention update, drive 2 the next; the third update must reach
     * the three drives online that hold the version (before: "metadata update reached 2 drive(s), 3 needed").
     */
    @Test
    void retentionUpdates_withDifferentDrivesAway_succeed_andHealConvergesEveryDrive() throws Exception {
        TestStore layout = TestStore.on(tmp);
        byte[] body = HealTestDrives.random(5000, 3);
        String key = "inline.vbk"; // small: its shards live inline in xl.meta, which the heal must keep
        try (ErasureObjectStore store = open(layout, 2, true)) {
            store.makeBucket(B, true);
            ObjectInfo v = put(store, key, body, inDays(1));
            for (int gone = 0; gone < 3; gone++) {
                away(store, List.of(gone));
                Instant until = inDays(10 + gone);
                assertThat(retainUntil(store.putObjectRetention(
                                B, key, v.versionId(), new Retention(RetentionMode.GOVERNANCE, until), false)))
                        .isEqualTo(until);
                back(store, List.of(gone));
                assertThat(retainUntil(store.headObject(B, key, v.versionId()))).isEqualTo(until);
                assertThat(read(store, B, key, v.versionId())).isEqualTo(body);
            }
            Instant last = inDays(20);
            store.putObjectRetention(B, key, v.versionId(), new Retention(RetentionMode.GOVERNANCE, last), false);
            away(store, List.of(3));
            store.putObjectLegalHold(B, key, v.versionId(), true);
            back(store, List.of(3));

            assertThat(store.heal(B, key, v.versionId()).status()).isEqualTo(HealResult.Status.HEALED);
            List<Integer> sums = bodyChecksums(store, key, v.versionId());
            assertThat(sums).containsOnly(sums.getFirst());
            ObjectInfo head = store.headObject(B, key, v.versionId());
            assertThat(retainUntil(head)).isEqualTo(last);
            assertThat(ObjectLock.legalHold(head.userMetadata())).isTrue();
            assertThat(read(store, B, key, v.versionId())).isEqualTo(body);
            for (LocalDrive d : store.drives()) {
                assertThat(XlMeta.parse(metaBytes(d, key)).inlineData(VersionIds.parse(v.versionId())))
                        .as("inline shard kept on %s", d.root())
                        .isNotNull();
            }
        }
    }

    /**
     * 2+2: a version written while drive 2 was away (drives 1, 3 and 4 hold it), then drives 1 and 3 unreadable. Two
     * drives answer (the read quorum of the set), one holds the version, one lacks it; the two unreadable ones may hold
     * it: the answer is "unavailable", never "no such version" (nor "no such key" for a key with no other version).
     */
    @Test
    void versionHeldByTooFewReadableDrives_isUnavailable_notMissing() throws Exception {
        TestStore layout = TestStore.on(tmp);
        String key = "k";
        try (ErasureObjectStore store = open(layout, 2, true)) {
            store.makeBucket(B, true);
            put(store, key, HealTestDrives.random(1000, 4), null);
            away(store, List.of(1));
            byte[] body = HealTestDrives.random(200_000, 5);
            ObjectInfo v = put(store, key, body, null);
            ObjectInfo single = put(store, "single", body, null);
            back(store, List.of(1));
            away(store, List.of(0, 2));
            for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
                    List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                            () -> store.headObject(B, key, v.versionId()),
                            () -> read(store, B, key, v.versionId()),
                            () -> store.headObject(B, "single", single.versionId()),
                            () -> store.headObject(B, "single", null))) {
                org.assertj.core.api.Assertions.assertThatThrownBy(call)
                        .isInstanceOfSatisfying(
                                dev.appliance.core.error.StorageException.class,
                                e -> assertThat(e.kind()).isEqualTo(dev.appliance.core.error.ErrorKind.READ_QUORUM));
            }
            back(store, List.of(0, 2));
            assertThat(store.headObject(B, key, null).versionId()).isEqualTo(v.versionId());
            assertThat(store.headObject(B, "single", null).versionId()).isEqualTo(single.versionId());
            assertThat(read(store, B, key, v.versionId())).isEqualTo(body);
        }
    }
}
