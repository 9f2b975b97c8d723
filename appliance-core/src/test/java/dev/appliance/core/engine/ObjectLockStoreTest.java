package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.DeleteResult;
import dev.appliance.core.MovableClock;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Object Lock as the engine enforces it: every rule of S3 Object Lock, on a real four-drive store. */
class ObjectLockStoreTest {
    @TempDir
    Path tmp;

    /** The machine's wall clock, which the tests set forwards and backwards at will. */
    private final MovableClock wall = new MovableClock();

    private ErasureObjectStore store;

    @BeforeEach
    void open() throws IOException {
        store = openStore();
        store.makeBucket("locked", true);
        store.makeBucket("plain");
    }

    private ErasureObjectStore openStore() {
        return TestEngine.open(TestStore.on(tmp).clock(wall));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static Map<String, String> retention(RetentionMode mode, Instant until) {
        return ObjectLock.withRetention(Map.of(), new Retention(mode, until));
    }

    private ObjectInfo put(String bucket, String key, Map<String, String> lock) throws IOException {
        byte[] body = ("body of " + key).getBytes(StandardCharsets.UTF_8);
        return store.putObject(
                bucket, key, new PutRequest(body.length, null, lock, null), new ByteArrayInputStream(body));
    }

    private Instant inDays(int days) {
        return Instant.now().plus(Duration.ofDays(days));
    }

    private static void assertKind(ErrorKind kind, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(kind));
    }

    // ------------------------------------------------------------------------------------------------------- buckets

    @Test
    void lockBucket_isVersioned_andVersioningCannotBeSuspended() {
        assertThat(store.versioning("locked")).isEqualTo(VersioningState.ENABLED);
        assertThat(store.objectLockConfiguration("locked")).isEqualTo(ObjectLockConfiguration.ENABLED);
        assertThat(store.objectLockConfiguration("plain")).isNull();
        assertKind(ErrorKind.INVALID_BUCKET_STATE, () -> store.setVersioning("locked", VersioningState.SUSPENDED));
        store.setVersioning("locked", VersioningState.ENABLED); // a no-op is fine
    }

    @Test
    void setObjectLockConfiguration_needsVersioningEnabled_andSurvivesARestart() throws IOException {
        assertKind(
                ErrorKind.INVALID_BUCKET_STATE,
                () -> store.setObjectLockConfiguration("plain", ObjectLockConfiguration.ENABLED));
        store.setVersioning("plain", VersioningState.SUSPENDED);
        assertKind(
                ErrorKind.INVALID_BUCKET_STATE,
                () -> store.setObjectLockConfiguration("plain", ObjectLockConfiguration.ENABLED));
        store.setVersioning("plain", VersioningState.ENABLED);
        ObjectLockConfiguration config = new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 0, 2);
        store.setObjectLockConfiguration("plain", config);

        store.close();
        store = openStore();
        assertThat(store.objectLockConfiguration("plain")).isEqualTo(config);
        assertThat(store.objectLockConfiguration("locked")).isEqualTo(ObjectLockConfiguration.ENABLED);
        assertKind(ErrorKind.INVALID_BUCKET_STATE, () -> store.setVersioning("plain", VersioningState.SUSPENDED));
    }

    // -------------------------------------------------------------------------------------------------------- writes

    @Test
    void put_withRetention_storesItOnTheVersion() throws IOException {
        Instant until = inDays(30).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, until));
        ObjectInfo head = store.headObject("locked", "k", v.versionId());
        assertThat(ObjectLock.retention(head.userMetadata())).isEqualTo(new Retention(RetentionMode.COMPLIANCE, until));
    }

    @Test
    void put_withLockOnBucketWithoutLock_isInvalidRequest() {
        assertKind(ErrorKind.INVALID_REQUEST, () -> put("plain", "k", retention(RetentionMode.COMPLIANCE, inDays(1))));
        assertKind(ErrorKind.INVALID_REQUEST, () -> put("plain", "k", ObjectLock.withLegalHold(Map.of(), true)));
        assertKind(ErrorKind.OBJECT_NOT_FOUND, () -> store.headObject("plain", "k", null));
    }

    @Test
    void put_withDateInThePast_orModeWithoutDate_isRefused() {
        assertKind(
                ErrorKind.INVALID_ARGUMENT,
                () -> put(
                        "locked",
                        "k",
                        retention(RetentionMode.COMPLIANCE, Instant.now().minusSeconds(5))));
        assertKind(ErrorKind.INVALID_ARGUMENT, () -> put("locked", "k", Map.of(ObjectLock.MODE_KEY, "COMPLIANCE")));
    }

    @Test
    void put_newVersionOfALockedKey_alwaysSucceeds() throws IOException {
        ObjectInfo first = put("locked", "Owner", retention(RetentionMode.COMPLIANCE, inDays(30)));
        store.putObjectLegalHold("locked", "Owner", first.versionId(), true);
        ObjectInfo second = put("locked", "Owner", Map.of());
        ObjectInfo third = put("locked", "Owner", retention(RetentionMode.COMPLIANCE, inDays(1)));
        assertThat(List.of(first.versionId(), second.versionId(), third.versionId()))
                .doesNotHaveDuplicates()
                .doesNotContain("null");
        assertThat(store.headObject("locked", "Owner", null).versionId()).isEqualTo(third.versionId());
    }

    @Test
    void defaultRetention_appliesToVersionsWithoutExplicitRetention_only() throws IOException {
        store.setObjectLockConfiguration("locked", new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 2, 0));
        Instant before = Instant.now();
        ObjectInfo defaulted = put("locked", "a", Map.of());
        Retention r = ObjectLock.retention(defaulted.userMetadata());
        assertThat(r.mode()).isEqualTo(RetentionMode.GOVERNANCE);
        assertThat(r.retainUntil())
                .isBetween(
                        before.plus(Duration.ofDays(2)).minusMillis(1),
                        Instant.now().plus(Duration.ofDays(2)));

        Instant explicit = inDays(1).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ObjectInfo own = put("locked", "b", retention(RetentionMode.COMPLIANCE, explicit));
        assertThat(ObjectLock.retention(own.userMetadata()))
                .isEqualTo(new Retention(RetentionMode.COMPLIANCE, explicit));

        // legal hold alone is not a retention: the default still applies
        ObjectInfo held = put("locked", "c", ObjectLock.withLegalHold(Map.of(), true));
        assertThat(ObjectLock.retention(held.userMetadata()).mode()).isEqualTo(RetentionMode.GOVERNANCE);
        assertThat(ObjectLock.legalHold(held.userMetadata())).isTrue();
    }

    @Test
    void defaultRetention_countsFromTheVersionsCreation_evenAfterASlowUpload() throws IOException {
        store.setObjectLockConfiguration("locked", new ObjectLockConfiguration(RetentionMode.COMPLIANCE, 2, 0));
        byte[] body = "slowly uploaded".getBytes(StandardCharsets.UTF_8);
        // the upload takes ten minutes: the clock moves while the body is read
        InputStream slow = new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                wall.offset = wall.offset.plus(Duration.ofMinutes(10));
                return super.read(b, off, len);
            }
        };
        ObjectInfo put = store.putObject("locked", "slow", new PutRequest(body.length, null, Map.of(), null), slow);
        assertThat(ObjectLock.retention(put.userMetadata()))
                .isEqualTo(new Retention(
                        RetentionMode.COMPLIANCE, millisUp(put.modTime()).plus(Duration.ofDays(2))));

        ObjectInfo copy = store.copyObject("locked", "slow", put.versionId(), "locked", "copied", null);
        assertThat(ObjectLock.retention(copy.userMetadata()))
                .isEqualTo(new Retention(
                        RetentionMode.COMPLIANCE, millisUp(copy.modTime()).plus(Duration.ofDays(2))));

        store.setObjectLockConfiguration("locked", new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 0, 1));
        String upload = store.createMultipartUpload("locked", "mp", new PutRequest(-1, null, Map.of(), null));
        wall.offset = wall.offset.plus(Duration.ofMinutes(10)); // parts take a while too
        ObjectInfo completed = complete("mp", upload);
        Instant created = millisUp(completed.modTime());
        assertThat(ObjectLock.retention(
                        store.headObject("locked", "mp", completed.versionId()).userMetadata()))
                .isEqualTo(new Retention(
                        RetentionMode.GOVERNANCE,
                        created.atZone(ZoneOffset.UTC).plusYears(1).toInstant()));
    }

    /** Retention dates are kept in milliseconds, rounded up so that a period is never cut short. */
    private static Instant millisUp(Instant t) {
        Instant ms = t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        return ms.equals(t) ? ms : ms.plusMillis(1);
    }

    @Test
    void copy_neverCopiesTheSourceLock_butTakesTheRequestsOrTheDefault() throws IOException {
        ObjectInfo src = put("locked", "src", retention(RetentionMode.COMPLIANCE, inDays(9)));
        store.putObjectLegalHold("locked", "src", src.versionId(), true);
        ObjectInfo plainCopy = store.copyObject("locked", "src", src.versionId(), "locked", "copy1", null);
        assertThat(ObjectLock.hasLockEntries(plainCopy.userMetadata())).isFalse();
        ObjectInfo toPlain = store.copyObject("locked", "src", src.versionId(), "plain", "copy", null);
        assertThat(ObjectLock.hasLockEntries(toPlain.userMetadata())).isFalse();

        Instant until = inDays(3).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ObjectInfo locked = store.copyObject(
                "locked", "src", null, "locked", "copy2", null, retention(RetentionMode.GOVERNANCE, until));
        assertThat(ObjectLock.retention(locked.userMetadata()))
                .isEqualTo(new Retention(RetentionMode.GOVERNANCE, until));
        assertKind(
                ErrorKind.INVALID_REQUEST,
                () -> store.copyObject(
                        "locked", "src", null, "plain", "copy3", null, retention(RetentionMode.GOVERNANCE, until)));
    }

    @Test
    void multipart_lockRecordedAtCreate_appliedAtComplete_defaultAddedAtComplete() throws IOException {
        Instant until = inDays(5).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        String explicit = store.createMultipartUpload(
                "locked", "mp1", new PutRequest(-1, null, retention(RetentionMode.COMPLIANCE, until), null));
        store.setObjectLockConfiguration("locked", new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 1, 0));
        String defaulted = store.createMultipartUpload("locked", "mp2", new PutRequest(-1, null, Map.of(), null));
        ObjectInfo a = complete("mp1", explicit);
        ObjectInfo b = complete("mp2", defaulted);
        assertThat(ObjectLock.retention(
                        store.headObject("locked", "mp1", a.versionId()).userMetadata()))
                .isEqualTo(new Retention(RetentionMode.COMPLIANCE, until));
        assertThat(ObjectLock.retention(
                                store.headObject("locked", "mp2", b.versionId()).userMetadata())
                        .mode())
                .isEqualTo(RetentionMode.GOVERNANCE);
        assertKind(
                ErrorKind.INVALID_REQUEST,
                () -> store.createMultipartUpload(
                        "plain", "mp", new PutRequest(-1, null, retention(RetentionMode.COMPLIANCE, until), null)));
    }

    private ObjectInfo complete(String key, String uploadId) throws IOException {
        byte[] part = "part".getBytes(StandardCharsets.UTF_8);
        byte[] md5;
        try {
            md5 = java.security.MessageDigest.getInstance("MD5").digest(part);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        // the part of a locked upload needs its digest (S3's integrity rule for lock uploads)
        UploadedPart p = store.uploadPart(
                "locked",
                key,
                uploadId,
                1,
                new PutRequest(part.length, null, null, md5),
                new ByteArrayInputStream(part));
        return store.completeMultipartUpload("locked", key, uploadId, List.of(new CompletedPart(1, p.etag())));
    }

    // ------------------------------------------------------------------------------------------------------- deletes

    @Test
    void delete_ofAVersionUnderCompliance_isRefused_evenWithBypass() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, inDays(1)));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId(), true));
        assertThat(store.headObject("locked", "k", v.versionId()).etag()).isEqualTo(v.etag());
    }

    @Test
    void delete_withoutVersionId_alwaysAddsAMarker_andTheMarkerCanBeRemoved() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, inDays(1)));
        DeleteResult marker = store.deleteObject("locked", "k", null);
        assertThat(marker.deleteMarker()).isTrue();
        assertKind(ErrorKind.OBJECT_NOT_FOUND, () -> store.headObject("locked", "k", null));
        // markers carry no lock
        store.deleteObject("locked", "k", marker.versionId());
        assertThat(store.headObject("locked", "k", null).versionId()).isEqualTo(v.versionId());
    }

    @Test
    void delete_governance_needsBypass() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.GOVERNANCE, inDays(1)));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
        store.deleteObject("locked", "k", v.versionId(), true);
        assertKind(ErrorKind.OBJECT_NOT_FOUND, () -> store.headObject("locked", "k", null));
    }

    @Test
    void delete_legalHold_blocksUntilReleased() throws IOException {
        ObjectInfo v = put("locked", "k", ObjectLock.withLegalHold(Map.of(), true));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId(), true));
        store.putObjectLegalHold("locked", "k", v.versionId(), false);
        store.deleteObject("locked", "k", v.versionId());
        assertKind(ErrorKind.OBJECT_NOT_FOUND, () -> store.headObject("locked", "k", null));
    }

    @Test
    void delete_afterRetentionExpired_succeeds() throws Exception {
        ObjectInfo v = put(
                "locked", "k", retention(RetentionMode.COMPLIANCE, Instant.now().plusMillis(1200)));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
        Thread.sleep(1500);
        store.deleteObject("locked", "k", v.versionId());
        assertKind(ErrorKind.OBJECT_NOT_FOUND, () -> store.headObject("locked", "k", null));
    }

    @Test
    void delete_whenTheMachineClockIsSetForward_staysRefused() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, inDays(1)));
        wall.offset = Duration.ofDays(400); // the operator moves the clock past the retention
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
        assertThat(store.retentionNow()).isBefore(Instant.now().plus(Duration.ofMinutes(2)));
    }

    @Test
    void delete_whenTheMachineClockIsSetBackwardsAcrossARestart_staysRefused() throws Exception {
        ObjectInfo v = put(
                "locked", "k", retention(RetentionMode.COMPLIANCE, Instant.now().plusMillis(1500)));
        Thread.sleep(1700);
        Instant trusted = store.retentionNow();
        // now expired: set the clock back a day and restart, which must not make trusted time go back
        store.close();
        wall.offset = Duration.ofDays(-1);
        store = openStore();
        assertThat(store.retentionNow()).isAfterOrEqualTo(trusted);
        store.deleteObject("locked", "k", v.versionId());

        ObjectInfo w = put("locked", "k2", retention(RetentionMode.COMPLIANCE, trusted.plus(Duration.ofHours(1))));
        wall.offset = Duration.ofDays(-3);
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k2", w.versionId()));
    }

    @Test
    void delete_whenTheMachineClockIsSetForwardWhileStopped_staysRefusedUnlessNtpVouchesForIt() throws Exception {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, inDays(1)));
        store.close();
        wall.offset = Duration.ofDays(400); // the operator moves the clock past the retention while the store is down
        store = openStore();
        if (dev.appliance.core.objectlock.HostTimeSync.state()
                == dev.appliance.core.objectlock.HostTimeSync.State.SYNCHRONIZED) {
            // the kernel says NTP disciplines this clock: the jump is real time, and the status says nothing is wrong
            assertThat(store.retentionClock().status().forwardJumpNotBelievedAtStart())
                    .isZero();
        } else {
            assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
            assertThat(store.retentionNow()).isBefore(Instant.now().plus(Duration.ofMinutes(2)));
            assertThat(store.retentionClock().status().forwardJumpNotBelievedAtStart())
                    .isGreaterThan(Duration.ofDays(399));
        }
    }

    // ----------------------------------------------------------------------------------------------------- retention

    @Test
    void retention_compliance_canBeExtended_neverShortenedOrChanged() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.COMPLIANCE, inDays(10)));
        Instant extended = inDays(20).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        store.putObjectRetention(
                "locked", "k", v.versionId(), new Retention(RetentionMode.COMPLIANCE, extended), false);
        assertThat(ObjectLock.retention(
                                store.headObject("locked", "k", v.versionId()).userMetadata())
                        .retainUntil())
                .isEqualTo(extended);
        assertKind(
                ErrorKind.OBJECT_LOCKED,
                () -> store.putObjectRetention(
                        "locked", "k", v.versionId(), new Retention(RetentionMode.COMPLIANCE, inDays(15)), true));
        assertKind(
                ErrorKind.OBJECT_LOCKED,
                () -> store.putObjectRetention(
                        "locked", "k", v.versionId(), new Retention(RetentionMode.GOVERNANCE, inDays(30)), true));
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.putObjectRetention("locked", "k", v.versionId(), null, true));
    }

    @Test
    void retention_governance_shortenOrRemoveNeedsBypass() throws IOException {
        ObjectInfo v = put("locked", "k", retention(RetentionMode.GOVERNANCE, inDays(10)));
        assertKind(
                ErrorKind.OBJECT_LOCKED,
                () -> store.putObjectRetention(
                        "locked", "k", v.versionId(), new Retention(RetentionMode.GOVERNANCE, inDays(2)), false));
        store.putObjectRetention(
                "locked", "k", v.versionId(), new Retention(RetentionMode.GOVERNANCE, inDays(2)), true);
        store.putObjectRetention("locked", "k", v.versionId(), null, true);
        assertThat(ObjectLock.retention(
                        store.headObject("locked", "k", v.versionId()).userMetadata()))
                .isNull();
        store.deleteObject("locked", "k", v.versionId());
    }

    @Test
    void retention_onAnUnlockedVersion_canBeSetRightAfterThePut_andOnlyInTheFuture() throws IOException {
        ObjectInfo v = put("locked", "k", Map.of());
        assertKind(
                ErrorKind.INVALID_ARGUMENT,
                () -> store.putObjectRetention(
                        "locked",
                        "k",
                        v.versionId(),
                        new Retention(RetentionMode.COMPLIANCE, Instant.now().minusSeconds(1)),
                        false));
        store.putObjectRetention("locked", "k", null, new Retention(RetentionMode.COMPLIANCE, inDays(1)), false);
        assertKind(ErrorKind.OBJECT_LOCKED, () -> store.deleteObject("locked", "k", v.versionId()));
    }

    @Test
    void retention_isMetadataOnly_theDataIsUntouched() throws IOException {
        byte[] big = new byte[300_000];
        new java.util.Random(7).nextBytes(big);
        ObjectInfo v = store.putObject(
                "locked", "big", new PutRequest(big.length, null, Map.of(), null), new ByteArrayInputStream(big));
        Map<Path, Long> partFiles = new TreeMap<>();
        for (var d : store.drives()) {
            try (var files = Files.walk(d.objectDir("locked", "big"))) {
                files.filter(p -> p.getFileName().toString().startsWith("part."))
                        .forEach(p -> partFiles.put(p, modified(p)));
            }
        }
        assertThat(partFiles).hasSize(4);
        store.putObjectRetention(
                "locked", "big", v.versionId(), new Retention(RetentionMode.COMPLIANCE, inDays(1)), false);
        partFiles.forEach((p, mtime) -> assertThat(modified(p)).isEqualTo(mtime));
        try (var r = store.getObject("locked", "big", v.versionId(), 0, -1);
                var in = r.openStream()) {
            assertThat(in.readAllBytes()).isEqualTo(big);
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis() * 1000 + Files.size(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void retentionAndLegalHold_onBucketWithoutLock_orOnADeleteMarker_areRefused() throws IOException {
        put("plain", "k", Map.of());
        assertKind(
                ErrorKind.INVALID_REQUEST,
                () -> store.putObjectRetention(
                        "plain", "k", null, new Retention(RetentionMode.COMPLIANCE, inDays(1)), false));
        assertKind(ErrorKind.INVALID_REQUEST, () -> store.putObjectLegalHold("plain", "k", null, true));
        put("locked", "k", Map.of());
        DeleteResult marker = store.deleteObject("locked", "k", null);
        assertKind(
                ErrorKind.METHOD_NOT_ALLOWED,
                () -> store.putObjectRetention(
                        "locked", "k", marker.versionId(), new Retention(RetentionMode.COMPLIANCE, inDays(1)), false));
        assertKind(
                ErrorKind.METHOD_NOT_ALLOWED, () -> store.putObjectLegalHold("locked", "k", marker.versionId(), true));
    }
}
