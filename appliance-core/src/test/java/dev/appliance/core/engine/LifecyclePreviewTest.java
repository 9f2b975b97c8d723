package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Expiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import dev.appliance.core.lifecycle.LifecyclePreview;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lifecycle preview on a real four-drive store with a clock the test moves: objects of different ages, noncurrent
 * versions, a lone delete marker, an old upload and a locked version are counted as the scanner would act on them
 * today, nothing is changed, and a scanner cycle with the same rules then does exactly what the preview said.
 */
class LifecyclePreviewTest {
    @TempDir
    Path tmp;

    private final MovableClock wall = new MovableClock();
    private ErasureObjectStore store;

    @BeforeEach
    void open() {
        store = TestEngine.open(TestStore.on(tmp).clock(wall));
        store.makeBucket("versioned");
        store.setVersioning("versioned", VersioningState.ENABLED);
        store.makeBucket("plain");
        store.makeBucket("locked", true);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private ObjectInfo put(String bucket, String key, String text) {
        return put(bucket, key, text, Map.of());
    }

    private ObjectInfo put(String bucket, String key, String text, Map<String, String> metadata) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        try {
            return store.putObject(
                    bucket, key, new PutRequest(body.length, null, metadata, null), new ByteArrayInputStream(body));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static LifecycleConfiguration rules(Rule... rules) {
        return new LifecycleConfiguration(List.of(rules));
    }

    /** Every version of the bucket (key, id, marker or not) and every open upload: what must not change. */
    private List<String> contents(String bucket) {
        List<String> all = new java.util.ArrayList<>(
                store.listObjectVersions(bucket, null, null, null, null, 1000).versions().stream()
                        .map(v -> v.key() + "@" + v.versionId() + (v.deleteMarker() ? " marker" : ""))
                        .toList());
        store.listMultipartUploads(bucket, "").stream()
                .map(MultipartUpload::uploadId)
                .forEach(all::add);
        return all;
    }

    private static List<String> keys(LifecyclePreview.Action action) {
        return action.samples().stream().map(LifecyclePreview.Sample::key).toList();
    }

    @Test
    void aPreview_countsWhatTheRulesWouldDoToday_changesNothing_andTheScannerThenDoesJustThat() throws IOException {
        ObjectInfo oldFirst = put("versioned", "logs/a", "first-of-a");
        put("versioned", "logs/a", "second");
        put("versioned", "logs/b", "only-b");
        ObjectInfo goneVersion = put("versioned", "gone/x", "gone!");
        store.deleteObject("versioned", "gone/x", null);
        store.createMultipartUpload("versioned", "logs/upload", PutRequest.of(-1));
        wall.forwardDays(10);
        put("versioned", "logs/fresh", "new");

        LifecycleConfiguration config = rules(
                new Rule(
                        "logs",
                        true,
                        new Filter("logs/", null, null, null),
                        new Expiration(3, null, false),
                        new NoncurrentExpiration(1, null),
                        2),
                new Rule(
                        "markers",
                        true,
                        new Filter("gone/", null, null, null),
                        new Expiration(null, null, true),
                        new NoncurrentExpiration(1, null),
                        null));
        List<String> before = contents("versioned");
        java.time.Instant asked = wall.instant();

        LifecyclePreview p = store.previewLifecycle("versioned", config, LifecyclePreview.DEFAULT_VERSION_CAP);

        assertThat(p.asOf()).isBetween(asked, wall.instant()); // the engine's clock, moved 10 days
        assertThat(p.stopped()).isFalse();
        assertThat(p.keysExamined()).isEqualTo(4);
        assertThat(p.versionsExamined()).isEqualTo(6);
        // logs/a and logs/b are 10 days old: a delete marker each; logs/fresh is not due
        assertThat(p.expiredCurrent().count()).isEqualTo(2);
        assertThat(keys(p.expiredCurrent())).containsExactlyInAnyOrder("logs/a", "logs/b");
        // logs/a's first version and gone/x's object version became noncurrent 10 days ago
        assertThat(p.removedNoncurrent().count()).isEqualTo(2);
        assertThat(p.removedNoncurrent().samples())
                .extracting(LifecyclePreview.Sample::versionId)
                .containsExactlyInAnyOrder(oldFirst.versionId(), goneVersion.versionId());
        // with its only version gone, gone/x's marker is an expired object delete marker
        assertThat(p.removedDeleteMarkers().count()).isEqualTo(1);
        assertThat(p.removedDeleteMarkers().samples().getFirst().ruleId()).isEqualTo("markers");
        assertThat(p.abortedUploads().count()).isEqualTo(1);
        assertThat(keys(p.abortedUploads())).containsExactly("logs/upload");
        assertThat(p.keptByLock().count()).isZero();
        assertThat(p.bytesFreed()).isEqualTo("first-of-a".length() + "gone!".length());

        assertThat(contents("versioned")).isEqualTo(before);

        store.setLifecycleConfiguration("versioned", config);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("versioned");
        assertThat(scan.expiredCurrent()).isEqualTo(p.expiredCurrent().count());
        assertThat(scan.removedNoncurrent()).isEqualTo(p.removedNoncurrent().count());
        assertThat(scan.removedDeleteMarkers())
                .isEqualTo(p.removedDeleteMarkers().count());
        assertThat(scan.abortedUploads()).isEqualTo(p.abortedUploads().count());
        assertThat(scan.skippedLocked()).isEqualTo(p.keptByLock().count());
    }

    @Test
    void lockedVersions_thatARuleMatches_areCountedAsKeptByLock() {
        Map<String, String> retained = ObjectLock.withRetention(
                Map.of(), new Retention(RetentionMode.COMPLIANCE, wall.instant().plus(Duration.ofDays(3650))));
        put("locked", "k", "retained", retained);
        ObjectInfo free = put("locked", "k", "free");
        put("locked", "k", "current");
        wall.forwardDays(3);
        LifecycleConfiguration config =
                rules(new Rule("nc", true, Filter.ALL, null, new NoncurrentExpiration(1, null), null));
        List<String> before = contents("locked");

        LifecyclePreview p = store.previewLifecycle("locked", config, LifecyclePreview.DEFAULT_VERSION_CAP);

        assertThat(p.keptByLock().count()).isEqualTo(1);
        assertThat(p.keptByLock().samples().getFirst().size()).isEqualTo("retained".length());
        assertThat(p.removedNoncurrent().count()).isEqualTo(1);
        assertThat(p.removedNoncurrent().samples().getFirst().versionId()).isEqualTo(free.versionId());
        assertThat(p.bytesFreed()).isEqualTo("free".length());
        assertThat(contents("locked")).isEqualTo(before);

        store.setLifecycleConfiguration("locked", config);
        ScanReport.BucketScan scan = store.scanNow().buckets().get("locked");
        assertThat(scan.skippedLocked()).isEqualTo(1);
        assertThat(scan.removedNoncurrent()).isEqualTo(1);
    }

    @Test
    void inAnUnversionedBucket_expiryRemovesTheObject_andFreesItsBytes() {
        put("plain", "tmp/a", "12345");
        put("plain", "data/b", "kept");
        wall.forwardDays(2);
        LifecycleConfiguration config = rules(new Rule(
                "tmp", true, new Filter("tmp/", null, null, null), new Expiration(1, null, false), null, null));

        LifecyclePreview p = store.previewLifecycle("plain", config, LifecyclePreview.DEFAULT_VERSION_CAP);

        assertThat(p.expiredCurrent().samples())
                .extracting(
                        LifecyclePreview.Sample::key,
                        LifecyclePreview.Sample::versionId,
                        LifecyclePreview.Sample::ruleId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("tmp/a", "null", "tmp"));
        assertThat(p.bytesFreed()).isEqualTo(5);
        assertThat(store.headObject("plain", "tmp/a", null).size()).isEqualTo(5);
    }

    @Test
    void theWalk_stopsAtItsCap_andSaysSo() {
        for (int i = 0; i < 5; i++) {
            put("versioned", "many", "v" + i);
        }
        put("versioned", "other", "x");
        wall.forwardDays(3);
        LifecycleConfiguration config =
                rules(new Rule("nc", true, Filter.ALL, null, new NoncurrentExpiration(1, null), null));

        LifecyclePreview p = store.previewLifecycle("versioned", config, 3);

        assertThat(p.stopped()).isTrue();
        assertThat(p.versionsExamined()).isEqualTo(3);
        assertThat(p.keysExamined()).isEqualTo(1); // "many" (before "other"), not all of its versions
        assertThat(p.versionCap()).isEqualTo(3);
        assertThat(p.removedNoncurrent().count()).isEqualTo(2);
        assertThat(store.previewLifecycle("versioned", config, 100).stopped()).isFalse();
    }

    @Test
    void samples_areBoundedButCountsAreNot() {
        for (int i = 0; i < LifecyclePreview.SAMPLES + 5; i++) {
            put("plain", "k" + i, "x");
        }
        wall.forwardDays(2);
        LifecycleConfiguration config =
                rules(new Rule("all", true, Filter.ALL, new Expiration(1, null, false), null, null));

        LifecyclePreview p = store.previewLifecycle("plain", config, LifecyclePreview.DEFAULT_VERSION_CAP);

        assertThat(p.expiredCurrent().count()).isEqualTo(LifecyclePreview.SAMPLES + 5);
        assertThat(p.expiredCurrent().samples()).hasSize(LifecyclePreview.SAMPLES);
    }

    @Test
    void anUnknownBucket_isNoSuchBucket() {
        LifecycleConfiguration config =
                rules(new Rule("all", true, Filter.ALL, new Expiration(1, null, false), null, null));
        assertThatThrownBy(() -> store.previewLifecycle("nope", config, 10))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BUCKET_NOT_FOUND));
    }
}
