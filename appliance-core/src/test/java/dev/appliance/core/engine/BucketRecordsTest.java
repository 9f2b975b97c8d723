package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.appliance.core.BucketInfo;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.MovableClock;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PublicAccessBlock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.bucket.BucketRecords;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.heal.HealResult;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bucket records resolved by quorum on a real four-drive store: a drive that was away while a setting changed never
 * brings the old setting back (at restart, or when it returns while running), a deleted bucket stays deleted, damaged
 * copies are repaired, and a version's own retention holds even if the bucket's lock configuration were lost.
 */
class BucketRecordsTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private final MovableClock wall = new MovableClock();
    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private Path drive(int i) {
        return TestStore.on(tmp).drive(i);
    }

    /** Opens the store on four drives, creating those not taken away. */
    private ErasureObjectStore openStore() {
        return TestEngine.open(TestStore.on(tmp).clock(wall));
    }

    /** Takes drive {@code i} away (its directory moved out); while running, the store notices at its drive check. */
    private void takeAway(int i) throws IOException {
        TestStore.away(drive(i));
        if (store != null) {
            store.checkDrives();
            assertThat(store.drives().get(i).isOnline()).isFalse();
        }
    }

    /** Puts drive {@code i} back; while running, the store takes it back into service at its drive check. */
    private void bringBack(int i) throws IOException {
        TestStore.back(drive(i));
        if (store != null) {
            store.checkDrives();
            assertThat(store.drives().get(i).isOnline()).isTrue();
        }
    }

    private void restart() throws IOException {
        store.close();
        store = null;
        store = openStore();
    }

    private ObjectInfo put(String key, Map<String, String> metadata) throws IOException {
        byte[] body = ("body of " + key).getBytes(StandardCharsets.UTF_8);
        return store.putObject(
                B, key, new PutRequest(body.length, null, metadata, null), new ByteArrayInputStream(body));
    }

    private static Map<String, String> compliance(Instant until) {
        return ObjectLock.withRetention(Map.of(), new Retention(RetentionMode.COMPLIANCE, until));
    }

    private static void assertLocked(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(ErrorKind.OBJECT_LOCKED));
    }

    // ------------------------------------------------------------------------------------------ the reported hole

    /**
     * The reported scenario: versioned bucket, one drive away, Object Lock enabled, drive back, a COMPLIANCE version
     * written; after a restart the lock configuration must still be there and the version undeletable. Whether the
     * drive returns while running (repaired then) or while the store is stopped (resolved at load), and whichever
     * drive it is (the first drive to answer used to win).
     */
    @ParameterizedTest
    @ValueSource(strings = {"0:running", "0:stopped", "3:running", "2:stopped"})
    void objectLockEnabledWhileADriveWasAway_survivesTheRestart(String how) throws IOException {
        int gone = Integer.parseInt(how.substring(0, 1));
        boolean returnWhileRunning = how.endsWith("running");
        store = openStore();
        store.makeBucket(B);
        store.setVersioning(B, VersioningState.ENABLED);
        takeAway(gone);
        store.setObjectLockConfiguration(B, ObjectLockConfiguration.ENABLED);
        if (returnWhileRunning) {
            bringBack(gone);
        }
        ObjectInfo locked = put("locked", compliance(Instant.now().plus(Duration.ofDays(30))));
        store.close();
        store = null;
        if (!returnWhileRunning) {
            bringBack(gone);
        }
        store = openStore();

        assertThat(store.objectLockConfiguration(B)).isEqualTo(ObjectLockConfiguration.ENABLED);
        assertLocked(() -> store.deleteObject(B, "locked", locked.versionId(), true));
        assertThat(store.headObject(B, "locked", locked.versionId()).versionId())
                .isEqualTo(locked.versionId());
        // every drive holds the same record again: a second restart with any one drive away changes nothing
        for (int i = 0; i < 4; i++) {
            store.close();
            store = null;
            takeAway(i);
            store = openStore();
            assertThat(store.objectLockConfiguration(B))
                    .as("drive %d away", i)
                    .isEqualTo(ObjectLockConfiguration.ENABLED);
            store.close();
            store = null;
            bringBack(i);
            store = openStore();
        }
    }

    /** Versioning suspended while a drive was away is not silently reverted by that drive. */
    @Test
    void versioningSuspendedWhileADriveWasAway_isNotReverted() throws IOException {
        store = openStore();
        store.makeBucket(B);
        store.setVersioning(B, VersioningState.ENABLED);
        takeAway(0);
        store.setVersioning(B, VersioningState.SUSPENDED);
        store.close();
        store = null;
        bringBack(0);
        store = openStore();
        assertThat(store.versioning(B)).isEqualTo(VersioningState.SUSPENDED);
    }

    // ------------------------------------------------------------------------------------------------ tombstones

    @Test
    void bucketDeletedWhileADriveWasAway_staysDeleted() throws IOException {
        store = openStore();
        store.makeBucket(B);
        store.setVersioning(B, VersioningState.ENABLED);
        takeAway(1);
        store.deleteBucket(B);
        store.close();
        store = null;
        bringBack(1);
        store = openStore();
        assertThat(store.listBuckets()).extracting(BucketInfo::name).doesNotContain(B);
        // the returned drive got the tombstone, and the name can be used again
        assertThat(BucketRecords.decode(Files.readAllBytes(store.drives().get(1).bucketMetaFile(B)))
                        .deleted())
                .isTrue();
        store.makeBucket(B);
        restart();
        assertThat(store.versioning(B)).isEqualTo(VersioningState.UNVERSIONED);
    }

    // ------------------------------------------------------------------------------------------- damage and repair

    @Test
    void damagedCopies_areIgnoredAtLoad_andRepairedByTheScanner() throws IOException {
        store = openStore();
        store.makeBucket(B, true);
        byte[] good = Files.readAllBytes(store.drives().get(0).bucketMetaFile(B));
        // one copy's content changed without its checksum (a flipped bit), one truncated
        String text = new String(good, StandardCharsets.UTF_8).replace("\"ENABLED\"", "\"SUSPENDED\"");
        assertThat(text).isNotEqualTo(new String(good, StandardCharsets.UTF_8));
        Files.writeString(store.drives().get(0).bucketMetaFile(B), text);
        Files.write(store.drives().get(1).bucketMetaFile(B), java.util.Arrays.copyOf(good, good.length / 2));
        restart();
        assertThat(store.versioning(B)).isEqualTo(VersioningState.ENABLED);
        assertThat(store.objectLockConfiguration(B)).isEqualTo(ObjectLockConfiguration.ENABLED);
        for (int i = 0; i < 4; i++) {
            assertThat(Files.readAllBytes(store.drives().get(i).bucketMetaFile(B)))
                    .as("repaired at load on drive %d", i)
                    .isEqualTo(good);
        }
        // found stale by the scanner while running
        Files.writeString(store.drives().get(2).bucketMetaFile(B), "{not json");
        store.scanNow();
        assertThat(Files.readAllBytes(store.drives().get(2).bucketMetaFile(B))).isEqualTo(good);
    }

    /** Records written before generations and checksums load as generation 0, and are upgraded by the next write. */
    @Test
    void recordsOfOlderBuilds_stillLoad() throws IOException {
        store = openStore();
        store.makeBucket(B);
        store.close();
        store = null;
        writeOldRecordEverywhere(VersioningState.ENABLED, null);
        store = openStore();
        assertThat(store.versioning(B)).isEqualTo(VersioningState.ENABLED);
        store.setVersioning(B, VersioningState.SUSPENDED);
        assertThat(BucketRecords.decode(Files.readAllBytes(store.drives().get(3).bucketMetaFile(B)))
                        .generation())
                .isPositive();
        restart();
        assertThat(store.versioning(B)).isEqualTo(VersioningState.SUSPENDED);
    }

    /**
     * Records of builds before bucket policies have no policy and no public access block: they load blocked (the
     * default, all four flags on) and without a policy; both, once set, survive a restart and a drive that was away.
     */
    @Test
    void bucketPolicyAndPublicAccessBlock_oldRecordsLoadBlocked_andChangesSurviveADriveThatWasAway()
            throws IOException {
        store = openStore();
        store.makeBucket(B);
        store.close();
        store = null;
        writeOldRecordEverywhere(VersioningState.UNVERSIONED, null);
        store = openStore();
        assertThat(store.publicAccessBlock(B)).isEqualTo(PublicAccessBlock.BLOCK_ALL);
        assertThat(store.bucketPolicy(B)).isNull();

        String policy = """
                {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",
                "Action":"s3:GetObject","Resource":"arn:aws:s3:::bucket/*"}]}""";
        // a public policy is refused while BlockPublicPolicy is on, and nothing is stored
        assertThatThrownBy(() -> store.setBucketPolicy(B, policy))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.ACCESS_DENIED));
        assertThat(store.bucketPolicy(B)).isNull();

        takeAway(3);
        PublicAccessBlock open = new PublicAccessBlock(true, true, false, false);
        store.setPublicAccessBlock(B, open);
        store.setBucketPolicy(B, policy);
        store.close();
        store = null;
        bringBack(3); // its copy still says: blocked, no policy
        store = openStore();
        assertThat(store.publicAccessBlock(B)).isEqualTo(open);
        assertThat(store.bucketPolicy(B)).isEqualTo(policy);
        assertThat(BucketRecords.decode(Files.readAllBytes(store.drives().get(3).bucketMetaFile(B)))
                        .content()
                        .policy())
                .isEqualTo(policy);

        store.setBucketPolicy(B, null);
        store.setPublicAccessBlock(B, null);
        restart();
        assertThat(store.bucketPolicy(B)).isNull();
        assertThat(store.publicAccessBlock(B)).isEqualTo(PublicAccessBlock.BLOCK_ALL);
    }

    /** What a build before generations wrote: the settings alone. */
    private void writeOldRecordEverywhere(VersioningState versioning, BucketRecords.LockRecord lock)
            throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode record = mapper.valueToTree(new BucketRecords.BucketRecord(
                B, 1_700_000_000_000L, versioning.name(), Map.of(), null, null, lock, null, null, null, null));
        // fields those builds did not know are not in their records at all
        record.remove(List.of("policy", "publicAccessBlock"));
        byte[] json = mapper.writeValueAsBytes(record);
        for (int i = 0; i < 4; i++) {
            Files.write(drive(i).resolve(".appliance.sys").resolve("buckets").resolve(B + ".json"), json);
        }
    }

    // ------------------------------------------------------------------------------------------ defence in depth

    /**
     * A version's own retention and legal hold protect it even when the bucket's record has lost its lock
     * configuration: delete by version id (governance bypass or not), and lifecycle expiry of noncurrent versions.
     */
    @Test
    void lockedVersion_cannotBeRemoved_evenIfTheBucketLostItsLockConfiguration() throws IOException {
        store = openStore();
        store.makeBucket(B, true);
        ObjectInfo locked = put("k", compliance(Instant.now().plus(Duration.ofDays(30))));
        ObjectInfo held = put("h", ObjectLock.withLegalHold(Map.of(), true));
        put("k", Map.of()); // "k"'s locked version is noncurrent now
        store.close();
        store = null;
        writeOldRecordEverywhere(VersioningState.ENABLED, null); // the lock configuration is gone
        store = openStore();
        assertThat(store.objectLockConfiguration(B)).isNull();

        assertLocked(() -> store.deleteObject(B, "k", locked.versionId(), true));
        assertLocked(() -> store.deleteObject(B, "h", held.versionId(), false));

        store.setLifecycleConfiguration(
                B,
                new LifecycleConfiguration(List.of(new LifecycleConfiguration.Rule(
                        "all",
                        true,
                        LifecycleConfiguration.Filter.ALL,
                        null,
                        new LifecycleConfiguration.NoncurrentExpiration(1, null),
                        null))));
        wall.forwardDays(3);
        store.scanNow();
        assertThat(store.headObject(B, "k", locked.versionId()).versionId()).isEqualTo(locked.versionId());
    }

    /**
     * A version under legal hold that the healer finds dangling (on one drive of six, EC 4+2, as a write cut short
     * leaves it) is kept while a drive that might hold it is away, whatever the bucket says; once every drive answered
     * it provably can never be read (it never reached its quorum, so it was never acknowledged) and is rolled back.
     */
    @Test
    void danglingVersionUnderLegalHold_isKeptWhileADriveIsAway_andRolledBackOnceAllAnswer() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp.resolve("six")).drives(6).parity(2));
        store.makeBucket(B, true);
        put("k", Map.of());
        List<Map<Path, byte[]>> before = new ArrayList<>();
        for (int d = 0; d < 6; d++) {
            before.add(files(store.drives().get(d).objectDir(B, "k")));
        }
        ObjectInfo held = put("k", ObjectLock.withLegalHold(Map.of(), true));
        for (int d = 1; d < 6; d++) { // drives 1-5 go back to before the write: only drive 0 holds it
            Path dir = store.drives().get(d).objectDir(B, "k");
            dev.appliance.core.drive.LocalDrive.deleteTree(dir);
            for (var f : before.get(d).entrySet()) {
                Files.createDirectories(f.getKey().getParent());
                Files.write(f.getKey(), f.getValue());
            }
        }
        var heldId = dev.appliance.core.naming.VersionIds.parse(held.versionId());
        var gone = new dev.appliance.core.drive.DriveFaults(false, false, false, true, 0);
        store.drives().get(4).injectFaults(gone);
        store.drives().get(5).injectFaults(gone);

        // one holder and two drives unknown: at most 3 of the 4 data shards it needs, so it dangles; but it is locked
        HealResult kept = store.heal(B, "k", held.versionId());

        assertThat(kept.status()).as(kept.toString()).isEqualTo(HealResult.Status.RETRY);
        assertThat(kept.detail()).contains("legal hold");
        assertThat(dev.appliance.core.meta.XlMeta.parse(
                                Files.readAllBytes(store.drives().get(0).metaFile(B, "k")))
                        .indexOf(heldId))
                .as("still on drive 0")
                .isNotNegative();

        store.drives().get(4).injectFaults(null);
        store.drives().get(5).injectFaults(null);
        HealResult removed = store.heal(B, "k", held.versionId());

        assertThat(removed.status()).as(removed.toString()).isEqualTo(HealResult.Status.DANGLING_REMOVED);
        assertThat(dev.appliance.core.meta.XlMeta.parse(
                                Files.readAllBytes(store.drives().get(0).metaFile(B, "k")))
                        .indexOf(heldId))
                .isNegative();
    }

    private static Map<Path, byte[]> files(Path dir) throws IOException {
        Map<Path, byte[]> out = new java.util.HashMap<>();
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(p, Files.readAllBytes(p));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------- property test

    /** The settings the test last saw acknowledged. */
    private record Model(boolean exists, VersioningState versioning, boolean lock, Integer lifecycleDays, Long quota) {}

    /**
     * Random drive outages × configuration changes × restarts (fixed seeds): after every restart the versioning,
     * lock, lifecycle and quota settings (and whether the bucket exists) are the last acknowledged ones. At most one
     * drive is away while running, so every change is acknowledged; at a restart up to two are (the fewest the store
     * starts with), drives away while running may return while it is stopped, and drives return while it runs.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void settingsAfterEveryRestart_areTheLastAcknowledged(long seed) throws IOException {
        Random rnd = new Random(seed);
        store = openStore();
        store.makeBucket(B);
        Model m = new Model(true, VersioningState.UNVERSIONED, false, null, null);
        Set<Integer> awayNow = new TreeSet<>();
        int restarts = 0;
        for (int step = 0; step < 80; step++) {
            int op = rnd.nextInt(10);
            String what = "seed " + seed + " step " + step;
            if (op <= 1 && awayNow.isEmpty()) {
                int d = rnd.nextInt(4);
                takeAway(d);
                awayNow.add(d);
            } else if (op == 2 && !awayNow.isEmpty()) {
                int d = awayNow.iterator().next();
                bringBack(d);
                awayNow.remove(d);
            } else if (op == 3) {
                m = restartWithOutages(rnd, awayNow, m, what);
                restarts++;
            } else {
                m = change(rnd, m);
            }
        }
        m = restartWithOutages(rnd, awayNow, m, "seed " + seed + " last");
        assertThat(restarts).isPositive();
    }

    private Model restartWithOutages(Random rnd, Set<Integer> awayNow, Model m, String what) throws IOException {
        store.close();
        store = null;
        // drives away while running may come back while stopped; others may go, up to two away at the start
        for (Integer d : new ArrayList<>(awayNow)) {
            if (rnd.nextBoolean()) {
                bringBack(d);
                awayNow.remove(d);
            }
        }
        while (awayNow.size() < 2 && rnd.nextInt(3) == 0) {
            int d = rnd.nextInt(4);
            if (awayNow.add(d)) {
                takeAway(d);
            }
        }
        store = openStore();
        assertSettings(m, what + " (drives away at start: " + awayNow + ")");
        // the missing drives return while running, all but (sometimes) one
        while (awayNow.size() > (rnd.nextBoolean() ? 1 : 0)) {
            int d = awayNow.iterator().next();
            bringBack(d);
            awayNow.remove(d);
        }
        assertSettings(m, what + " after drives returned");
        return m;
    }

    private void assertSettings(Model m, String what) {
        if (!m.exists()) {
            assertThat(store.listBuckets())
                    .as(what)
                    .extracting(BucketInfo::name)
                    .doesNotContain(B);
            return;
        }
        assertThat(store.versioning(B)).as(what + ": versioning").isEqualTo(m.versioning());
        assertThat(store.objectLockConfiguration(B) != null).as(what + ": lock").isEqualTo(m.lock());
        LifecycleConfiguration lc = store.lifecycleConfiguration(B);
        Integer days =
                lc == null ? null : lc.rules().getFirst().noncurrentExpiration().noncurrentDays();
        assertThat(days).as(what + ": lifecycle").isEqualTo(m.lifecycleDays());
        assertThat(store.bucketSettings(B).quotaBytes()).as(what + ": quota").isEqualTo(m.quota());
    }

    /** One random configuration change, acknowledged (at most one drive is away); returns the new model. */
    private Model change(Random rnd, Model m) {
        Change c = plan(rnd, m);
        if (c.call() != null) {
            c.call().run();
        }
        return c.next();
    }

    /** A configuration change: the model it leads to, and the store call that makes it (null: none). */
    private record Change(Model next, Runnable call) {}

    private Change plan(Random rnd, Model m) {
        if (!m.exists()) {
            boolean lock = rnd.nextBoolean();
            return new Change(
                    new Model(true, lock ? VersioningState.ENABLED : VersioningState.UNVERSIONED, lock, null, null),
                    () -> store.makeBucket(B, lock));
        }
        switch (rnd.nextInt(6)) {
            case 0 -> {
                if (m.lock()) {
                    return new Change(m, null);
                }
                VersioningState v = rnd.nextBoolean() ? VersioningState.ENABLED : VersioningState.SUSPENDED;
                return new Change(
                        new Model(true, v, false, m.lifecycleDays(), m.quota()), () -> store.setVersioning(B, v));
            }
            case 1 -> {
                if (m.versioning() != VersioningState.ENABLED) {
                    return new Change(m, null);
                }
                int days = 1 + rnd.nextInt(5);
                return new Change(
                        new Model(true, m.versioning(), true, m.lifecycleDays(), m.quota()),
                        () -> store.setObjectLockConfiguration(
                                B, new ObjectLockConfiguration(RetentionMode.GOVERNANCE, days, 0)));
            }
            case 2 -> {
                Integer days = rnd.nextInt(3) == 0 ? null : 1 + rnd.nextInt(100);
                return new Change(
                        new Model(true, m.versioning(), m.lock(), days, m.quota()),
                        () -> store.setLifecycleConfiguration(
                                B,
                                days == null
                                        ? null
                                        : new LifecycleConfiguration(List.of(new LifecycleConfiguration.Rule(
                                                "r",
                                                true,
                                                LifecycleConfiguration.Filter.ALL,
                                                null,
                                                new LifecycleConfiguration.NoncurrentExpiration(days, null),
                                                null)))));
            }
            case 3 -> {
                Long quota = rnd.nextInt(3) == 0 ? null : (long) (1 + rnd.nextInt(1_000_000));
                return new Change(
                        new Model(true, m.versioning(), m.lock(), m.lifecycleDays(), quota),
                        () -> store.setBucketSettings(B, new BucketSettings(quota, null, null)));
            }
            case 4 -> {
                // a bucket with Object Lock is kept: deleting and re-creating it is the test of the other branch
                if (m.lock() || rnd.nextInt(3) != 0) {
                    return new Change(m, null);
                }
                return new Change(
                        new Model(false, VersioningState.UNVERSIONED, false, null, null), () -> store.deleteBucket(B));
            }
            default -> {
                String tag = Objects.toString(rnd.nextInt(1000));
                return new Change(m, () -> store.setBucketTags(B, Map.of("n", tag)));
            }
        }
    }

    /**
     * Changes that fail (two drives of four away: the record reaches two, a majority needs three) take effect entirely
     * or not at all, and never flip back: the running store keeps serving the old settings; when the drives return
     * while it runs, the old settings are made durable over the failed write; a restart first may adopt the failed
     * change, which then stays through the drives' return and later restarts.
     */
    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void failedChanges_takeEffectEntirelyOrNot_andNeverFlipBack(long seed) throws IOException {
        Random rnd = new Random(seed);
        store = openStore();
        store.makeBucket(B);
        Model m = new Model(true, VersioningState.UNVERSIONED, false, null, null);
        int failed = 0;
        for (int round = 0; round < 10; round++) {
            String what = "seed " + seed + " round " + round;
            m = change(rnd, m);
            int a = rnd.nextInt(4);
            int b = (a + 1 + rnd.nextInt(3)) % 4;
            takeAway(a);
            takeAway(b);
            Change c = plan(rnd, m);
            if (c.call() != null) {
                assertThatThrownBy(() -> c.call().run())
                        .as(what)
                        .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                                .isEqualTo(ErrorKind.WRITE_QUORUM));
                failed++;
            }
            assertSettings(m, what + ": the running store after the failed change");
            if (rnd.nextBoolean()) {
                bringBack(a);
                bringBack(b);
                assertSettings(m, what + ": drives back while running");
                restart();
                assertSettings(m, what + ": restarted after the drives came back while running");
            } else {
                store.close();
                store = null;
                if (rnd.nextBoolean()) {
                    bringBack(a); // while stopped
                }
                store = openStore();
                Model seen = matches(c.next()) ? c.next() : m;
                assertSettings(seen, what + ": restarted with the failed change on some drives");
                if (Files.exists(TestStore.awayPath(drive(a)))) {
                    bringBack(a);
                }
                bringBack(b);
                assertSettings(seen, what + ": drives back while running");
                restart();
                assertSettings(seen, what + ": restarted again");
                m = seen;
            }
        }
        assertThat(failed).as("changes that failed").isPositive();
    }

    private boolean matches(Model m) {
        try {
            assertSettings(m, "");
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }
}
