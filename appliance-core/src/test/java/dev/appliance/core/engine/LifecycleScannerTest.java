package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Expiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.scanner.DataScanner;
import dev.appliance.core.scanner.ScanReport;
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
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background scanner on a real four-drive store: lifecycle actions (each as S3 does it), locked versions kept,
 * incomplete uploads aborted, usage handed to the usage tracker, and a key of 20,000 versions trimmed in batches.
 * Time is moved with a clock the test sets; days are real 24-hour days rounded to midnight UTC.
 */
class LifecycleScannerTest {
    @TempDir
    Path tmp;

    private final MovableClock wall = new MovableClock();
    private ErasureObjectStore store;

    @BeforeEach
    void open() throws IOException {
        store = openStore();
        store.makeBucket("versioned");
        store.setVersioning("versioned", VersioningState.ENABLED);
        store.makeBucket("plain");
        store.makeBucket("locked", true);
    }

    private ErasureObjectStore openStore() {
        return TestEngine.open(TestStore.on(tmp).clock(wall));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private ObjectInfo put(String bucket, String key, String text) throws IOException {
        return put(bucket, key, text, Map.of());
    }

    private ObjectInfo put(String bucket, String key, String text, Map<String, String> metadata) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return store.putObject(
                bucket, key, new PutRequest(body.length, null, metadata, null), new ByteArrayInputStream(body));
    }

    private static LifecycleConfiguration rules(Rule... rules) {
        return new LifecycleConfiguration(List.of(rules));
    }

    private static Rule expireDays(String id, String prefix, int days) {
        return new Rule(id, true, new Filter(prefix, null, null, null), new Expiration(days, null, false), null, null);
    }

    private static Rule noncurrent(String id, Integer days, Integer newer) {
        return new Rule(id, true, Filter.ALL, null, new NoncurrentExpiration(days, newer), null);
    }

    private List<ObjectInfo> versions(String bucket, String key) {
        return store.listObjectVersions(bucket, key, null, null, null, 1000).versions().stream()
                .filter(v -> v.key().equals(key))
                .toList();
    }

    @Test
    void expiringTheCurrentVersion_ofAVersionedBucket_addsADeleteMarker() throws IOException {
        store.setLifecycleConfiguration("versioned", rules(expireDays("tmp", "tmp/", 2)));
        ObjectInfo v = put("versioned", "tmp/a", "one");
        put("versioned", "keep/a", "two");

        // x-amz-expiration: two days after creation, rounded up to the next midnight UTC
        Lifecycle.Expiry predicted = store.expiration(store.headObject("versioned", "tmp/a", null));
        Instant midnightAfter =
                v.modTime().truncatedTo(java.time.temporal.ChronoUnit.DAYS).plus(Duration.ofDays(3));
        assertThat(predicted).isEqualTo(new Lifecycle.Expiry(midnightAfter, "tmp"));
        assertThat(store.expiration(store.headObject("versioned", "keep/a", null)))
                .isNull();

        wall.forwardDays(1);
        assertThat(store.scanNow().buckets().get("versioned").expiredCurrent()).isZero();
        wall.forwardDays(2);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");
        assertThat(scan.expiredCurrent()).isEqualTo(1);

        List<ObjectInfo> after = versions("versioned", "tmp/a");
        assertThat(after).hasSize(2);
        assertThat(after.get(0).deleteMarker()).isTrue();
        assertThat(after.get(1).versionId()).isEqualTo(v.versionId());
        assertThatThrownBy(() -> store.headObject("versioned", "tmp/a", null))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.deleteMarker())
                        .isTrue());
        assertThat(store.headObject("versioned", "keep/a", null)).isNotNull();
        // figures after the action: one object left, two versions, one marker
        assertThat(scan.objects()).isEqualTo(1);
        assertThat(scan.versions()).isEqualTo(2);
        assertThat(scan.deleteMarkers()).isEqualTo(1);
        assertThat(store.scanNow().buckets().get("versioned").expiredCurrent())
                .isZero(); // a marker does not expire again
    }

    @Test
    void expiringInAnUnversionedBucket_removesTheObject() throws IOException {
        store.setLifecycleConfiguration("plain", rules(expireDays("all", "", 1)));
        put("plain", "a", "one");
        wall.forwardDays(2);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("plain");
        assertThat(scan.expiredCurrent()).isEqualTo(1);
        assertThat(scan.keys()).isZero();
        assertThat(versions("plain", "a")).isEmpty();
    }

    @Test
    void noncurrentVersions_expireByDaysSinceTheyBecameNoncurrent() throws IOException {
        store.setLifecycleConfiguration("versioned", rules(noncurrent("nc", 3, null)));
        ObjectInfo v1 = put("versioned", "k", "1");
        wall.forwardDays(2);
        ObjectInfo v2 = put("versioned", "k", "2"); // v1 noncurrent from now on, though it is two days old
        ObjectInfo v3 = put("versioned", "k", "3");
        wall.forwardDays(2);
        assertThat(store.scanNow().buckets().get("versioned").removedNoncurrent())
                .isZero();
        wall.forwardDays(2); // four days since v2 and v3 replaced v1 and v2: due
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");
        assertThat(scan.removedNoncurrent()).isEqualTo(2);
        assertThat(versions("versioned", "k")).extracting(ObjectInfo::versionId).containsExactly(v3.versionId());
        assertThat(v1.versionId()).isNotEqualTo(v2.versionId());
    }

    @Test
    void newerNoncurrentVersions_keepsTheNewestNoncurrentOnes() throws IOException {
        store.setLifecycleConfiguration("versioned", rules(noncurrent("keep2", 1, 2)));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(put("versioned", "k", "v" + i).versionId());
        }
        wall.forwardDays(3);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");
        assertThat(scan.removedNoncurrent()).isEqualTo(3);
        assertThat(versions("versioned", "k"))
                .extracting(ObjectInfo::versionId)
                .containsExactly(ids.get(5), ids.get(4), ids.get(3));
    }

    @Test
    void expiredObjectDeleteMarker_removesOnlyMarkersWithNothingBehindThem() throws IOException {
        store.setLifecycleConfiguration(
                "versioned",
                rules(
                        new Rule("eodm", true, Filter.ALL, new Expiration(null, null, true), null, null),
                        noncurrent("nc", 1, null)));
        put("versioned", "gone", "x");
        store.deleteObject("versioned", "gone", null);
        put("versioned", "kept", "x");
        store.deleteObject("versioned", "kept", null);
        ObjectInfo lone = null;
        store.deleteObject("versioned", "lone", null); // a marker on a key that never had a version
        assertThat(versions("versioned", "lone")).hasSize(1);

        ScanReport.BucketScan first = store.scanNow().buckets().get("versioned");
        assertThat(first.removedDeleteMarkers()).isEqualTo(1);
        assertThat(versions("versioned", "lone")).isEmpty();
        assertThat(versions("versioned", "gone")).hasSize(2);

        // once the noncurrent version behind the marker expires, the marker is alone and goes in the same pass
        wall.forwardDays(2);
        ScanReport.BucketScan later = store.scanNow().buckets().get("versioned");
        assertThat(later.removedNoncurrent()).isEqualTo(2);
        assertThat(later.removedDeleteMarkers()).isEqualTo(2);
        assertThat(versions("versioned", "gone")).isEmpty();
        assertThat(versions("versioned", "kept")).isEmpty();
        assertThat(later.keys()).isZero();
        assertThat(lone).isNull();
    }

    @Test
    void versionsUnderRetentionOrLegalHold_areSkippedAndCounted() throws IOException {
        store.setLifecycleConfiguration("locked", rules(noncurrent("nc", 1, null)));
        Map<String, String> retained = ObjectLock.withRetention(
                Map.of(), new Retention(RetentionMode.COMPLIANCE, Instant.now().plus(Duration.ofDays(3650))));
        ObjectInfo kept = put("locked", "k", "retained", retained);
        ObjectInfo held = put("locked", "k", "held");
        store.putObjectLegalHold("locked", "k", held.versionId(), true);
        ObjectInfo free = put("locked", "k", "free");
        ObjectInfo current = put("locked", "k", "current");
        wall.forwardDays(3);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("locked");
        assertThat(scan.skippedLocked()).isEqualTo(2);
        assertThat(scan.removedNoncurrent()).isEqualTo(1);
        assertThat(versions("locked", "k"))
                .extracting(ObjectInfo::versionId)
                .containsExactly(current.versionId(), held.versionId(), kept.versionId());
        assertThat(free.versionId()).isNotIn(current.versionId(), held.versionId(), kept.versionId());
    }

    @Test
    void abortIncompleteMultipartUpload_abortsOldUploadsUnderThePrefix() throws IOException {
        store.setLifecycleConfiguration(
                "plain", rules(new Rule("mpu", true, new Filter("tmp/", null, null, null), null, null, 1)));
        String old = store.createMultipartUpload("plain", "tmp/big", PutRequest.of(-1));
        String other = store.createMultipartUpload("plain", "data/big", PutRequest.of(-1));
        byte[] part = new byte[1024];
        store.uploadPart("plain", "tmp/big", old, 1, PutRequest.of(part.length), new ByteArrayInputStream(part));
        ScanReport.BucketScan now = store.scanNow().buckets().get("plain");
        assertThat(now.abortedUploads()).isZero();
        assertThat(now.incompleteUploads()).isEqualTo(2);

        wall.forwardDays(2);
        ScanReport.BucketScan later = store.scanNow().buckets().get("plain");
        assertThat(later.abortedUploads()).isEqualTo(1);
        assertThat(later.incompleteUploads()).isEqualTo(1);
        assertThat(store.listMultipartUploads("plain", ""))
                .extracting(u -> u.uploadId())
                .containsExactly(other);
        assertThatThrownBy(() -> store.listParts("plain", "tmp/big", old, 0, 100))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.NO_SUCH_UPLOAD));
    }

    @Test
    void scan_countsUsagePerBucketAndKey_andHandsItToTheUsageTracker() throws IOException {
        for (int i = 0; i < 5; i++) {
            put("versioned", "hot", "v" + i);
        }
        put("versioned", "cold", "12345");
        store.deleteObject("versioned", "gone", null);
        ScanReport report = store.scanNow();
        ScanReport.BucketScan scan = report.buckets().get("versioned");
        assertThat(scan.keys()).isEqualTo(3);
        assertThat(scan.objects()).isEqualTo(2);
        assertThat(scan.versions()).isEqualTo(6);
        assertThat(scan.deleteMarkers()).isEqualTo(1);
        assertThat(scan.bytes()).isEqualTo(5 * 2 + 5);
        assertThat(scan.versionsOfKeys()).isEqualTo(7);
        assertThat(scan.topKeys())
                .containsExactly(
                        new ScanReport.KeyVersions("hot", 5),
                        new ScanReport.KeyVersions("cold", 1),
                        new ScanReport.KeyVersions("gone", 1));
        var usage = store.bucketUsage("versioned");
        assertThat(usage.objects()).isEqualTo(2);
        assertThat(usage.versions()).isEqualTo(6);
        assertThat(usage.deleteMarkers()).isEqualTo(1);
        assertThat(usage.bytes()).isEqualTo(15);
        assertThat(report.drives()).hasSize(4);
        assertThat(report.drives()).allSatisfy(d -> {
            assertThat(d.online()).isTrue();
            assertThat(d.versions()).isEqualTo(7);
            assertThat(d.totalBytes()).isPositive();
        });
        assertThat(report.cycle()).isEqualTo(1);
    }

    @Test
    void lifecycleConfiguration_survivesARestart_andIsRemovedWithTheBucket() throws IOException {
        LifecycleConfiguration config = rules(
                expireDays("a", "logs/", 7),
                new Rule(
                        "b",
                        false,
                        new Filter("x/", Map.of("k", "v"), 10L, 1000L),
                        new Expiration(null, Instant.parse("2030-01-01T00:00:00Z"), false),
                        new NoncurrentExpiration(3, 5),
                        null),
                new Rule("c", true, Filter.ALL, new Expiration(null, null, true), null, 2));
        store.setLifecycleConfiguration("versioned", config);
        store.close();
        store = openStore();
        assertThat(store.lifecycleConfiguration("versioned")).isEqualTo(config);
        store.setLifecycleConfiguration("versioned", null);
        assertThat(store.lifecycleConfiguration("versioned")).isNull();
        store.setLifecycleConfiguration("plain", config);
        store.deleteBucket("plain");
        store.makeBucket("plain");
        assertThat(store.lifecycleConfiguration("plain")).isNull();
    }

    @Test
    void aPutBeyondTheVersionCap_isRefusedWithAClearMessage() throws IOException {
        store.maxVersionsPerKey(3);
        for (int i = 0; i < 3; i++) {
            put("versioned", "capped", "v" + i);
        }
        assertThatThrownBy(() -> put("versioned", "capped", "v3"))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.TOO_MANY_VERSIONS))
                .hasMessageContaining("'capped'")
                .hasMessageContaining("limit of 3 versions per key")
                .hasMessageContaining("NoncurrentVersionExpiration");
        assertThat(versions("versioned", "capped")).hasSize(3);
        assertThatThrownBy(() -> store.maxVersionsPerKey(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A key with 20,000 versions: the noncurrent ones (all but the newest 5 kept by NewerNoncurrentVersions) go in 8
     * batches of an eighth of the key's versions, each one metadata rewrite per drive; the versions are walked one at
     * a time, never listed. The key's metadata is written directly (20,000 PUTs would take minutes).
     */
    @Test
    void aKeyWith20000Versions_isTrimmedInBatches() throws Exception {
        int total = 20_000;
        store.maxVersionsPerKey(30_000);
        ObjectInfo newest = put("versioned", "many", "");
        writeOlderVersions(store, "versioned", "many", total - 1);
        assertThat(store.scanNow().buckets().get("versioned").topKeys())
                .containsExactly(new ScanReport.KeyVersions("many", total));

        store.setLifecycleConfiguration("versioned", rules(noncurrent("trim", 1, 5)));
        wall.forwardDays(2);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");

        long removed = total - 1 - 5;
        int batch = total / DataScanner.BATCHES_PER_KEY; // 2,500: an eighth of the key's versions, above 1,000
        assertThat(scan.removedNoncurrent()).isEqualTo(removed);
        assertThat(scan.largestBatch()).isEqualTo(batch);
        assertThat(scan.removalBatches()).isEqualTo((removed + batch - 1) / batch);
        assertThat(scan.versions()).isEqualTo(6);
        List<ObjectInfo> left = versions("versioned", "many");
        assertThat(left).hasSize(6);
        assertThat(left.getFirst().versionId()).isEqualTo(newest.versionId());
        for (LocalDrive d : store.drives()) {
            Path dir = d.objectDir("versioned", "many");
            assertThat(XlMeta.parse(Files.readAllBytes(dir.resolve(LocalDrive.META_FILE)))
                            .versionCount())
                    .isEqualTo(6);
            assertThat(dir.resolve(KeyFiles.ARCHIVE_FILE)).doesNotExist();
        }
    }

    @Test
    void aSmallerKey_isTrimmedInBatchesOfTheConfiguredSize() throws Exception {
        store.scannerBatchSize(100);
        put("versioned", "some", "");
        writeOlderVersions(store, "versioned", "some", 499);
        store.setLifecycleConfiguration("versioned", rules(noncurrent("trim", 1, null)));
        wall.forwardDays(2);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");
        assertThat(scan.removedNoncurrent()).isEqualTo(499);
        assertThat(scan.largestBatch()).isEqualTo(100);
        assertThat(scan.removalBatches()).isEqualTo(5);
        assertThat(versions("versioned", "some")).hasSize(1);
    }

    /** Writes {@code count} zero-byte versions older than the key's only version into xl.meta and its archive. */
    static void writeOlderVersions(ErasureObjectStore store, String bucket, String key, int count) throws Exception {
        LocalDrive first = store.drives().getFirst();
        XlMeta hot = XlMeta.parse(Files.readAllBytes(first.metaFile(bucket, key)));
        ObjectVersion template = hot.version(0);
        List<XlMeta.Pick> all = new ArrayList<>();
        all.add(new XlMeta.Pick(hot, 0));
        for (int i = 1; i <= count; i++) {
            ObjectVersion v = new ObjectVersion(
                    UUID.randomUUID(),
                    template.type(),
                    template.modTimeNanos() - i * 1_000_000L,
                    null,
                    0,
                    template.dataShards(),
                    template.parityShards(),
                    template.blockSize(),
                    template.distribution(),
                    template.bitrotAlgorithm(),
                    template.parts(),
                    template.etag(),
                    template.metadata(),
                    false);
            all.add(new XlMeta.Pick(XlMeta.empty().withVersion(v, null), 0));
        }
        byte[] newHot = XlMeta.assemble(all.subList(0, KeyFiles.HOT_KEEP)).toBytes();
        byte[] archive =
                XlMeta.assemble(all.subList(KeyFiles.HOT_KEEP, all.size())).toBytes();
        for (LocalDrive d : store.drives()) {
            Path dir = d.objectDir(bucket, key);
            d.writeDurably(dir.resolve(KeyFiles.ARCHIVE_FILE), archive);
            d.writeDurably(dir.resolve(LocalDrive.META_FILE), newHot);
        }
    }
}
