package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.ListObjectsResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ErasureObjectStoreTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private ErasureObjectStore open(int n) {
        store = TestEngine.open(TestStore.on(tmp).drives(n));
        return store;
    }

    private ErasureObjectStore reopen(int n) {
        store.close();
        store = TestEngine.open(TestStore.on(tmp).drives(n));
        return store;
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static ObjectInfo put(ObjectStore s, String bucket, String key, byte[] data) throws IOException {
        return s.putObject(bucket, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    private static byte[] get(ObjectStore s, String bucket, String key, String versionId) throws IOException {
        try (ObjectReader r = s.getObject(bucket, key, versionId, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            return out.toByteArray();
        }
    }

    static Stream<Arguments> sizesAndTopologies() {
        List<Arguments> args = new ArrayList<>();
        for (int drives : new int[] {4, 6, 8}) {
            for (int size : new int[] {0, 1, 100, 16 * 1024, 200 * 1024, (1 << 20) - 1, 1 << 20, (3 << 20) + 12345}) {
                args.add(Arguments.of(drives, size));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} drives, {1} bytes")
    @MethodSource("sizesAndTopologies")
    void putThenGet_returnsIdenticalBytesAndMd5Etag(int drives, int size) throws Exception {
        open(drives);
        store.makeBucket("bucket");
        byte[] data = random(size, size);
        ObjectInfo info = put(store, "bucket", "dir/object", data);
        assertThat(info.etag())
                .isEqualTo(HexFormat.of()
                        .formatHex(MessageDigest.getInstance("MD5").digest(data)));
        assertThat(get(store, "bucket", "dir/object", null)).isEqualTo(data);
        ObjectInfo head = store.headObject("bucket", "dir/object", null);
        assertThat(head.size()).isEqualTo(size);
        assertThat(head.etag()).isEqualTo(info.etag());
        assertThat(head.versionId()).isEqualTo("null");
    }

    @Test
    void rangeRead_returnsExactSlicesAcrossBlocks() throws Exception {
        open(4);
        store.makeBucket("bucket");
        byte[] data = random(3 * (1 << 20) + 77, 7);
        put(store, "bucket", "k", data);
        long[][] ranges = {{0, 1}, {5, 100}, {(1 << 20) - 3, 10}, {(2 << 20) + 5, (1 << 20) + 72}, {data.length - 1, 1}
        };
        for (long[] r : ranges) {
            try (ObjectReader reader = store.getObject("bucket", "k", null, r[0], r[1])) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                reader.transferTo(out);
                byte[] expected = java.util.Arrays.copyOfRange(data, (int) r[0], (int) (r[0] + r[1]));
                assertThat(out.toByteArray()).as("range %d+%d", r[0], r[1]).isEqualTo(expected);
            }
        }
        assertThatThrownBy(() -> store.getObject("bucket", "k", null, data.length, 1))
                .isInstanceOf(StorageException.class)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_RANGE);
    }

    @Test
    void contentMd5Mismatch_isRejectedAndNothingIsStored() throws Exception {
        open(4);
        store.makeBucket("bucket");
        byte[] data = random(1000, 1);
        PutRequest req = new PutRequest(data.length, null, Map.of(), new byte[16]);
        assertThatThrownBy(() -> store.putObject("bucket", "k", req, new ByteArrayInputStream(data)))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.BAD_DIGEST);
        assertThatThrownBy(() -> store.headObject("bucket", "k", null))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
        assertNoStagingLeft();
    }

    @Test
    void bodyThatFailsMidway_commitsNothing() throws Exception {
        open(4);
        store.makeBucket("bucket");
        InputStream failing = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                if (n++ > 2_500_000) {
                    throw new IOException("client went away");
                }
                return n & 0xff;
            }
        };
        assertThatThrownBy(() -> store.putObject("bucket", "k", PutRequest.of(5_000_000), failing))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("client went away");
        assertThatThrownBy(() -> store.headObject("bucket", "k", null)).isInstanceOf(StorageException.class);
        assertNoStagingLeft();
    }

    @Test
    void shortBody_isIncompleteBody() throws Exception {
        open(4);
        store.makeBucket("bucket");
        assertThatThrownBy(() ->
                        store.putObject("bucket", "k", PutRequest.of(100), new ByteArrayInputStream(new byte[10])))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INCOMPLETE_BODY);
    }

    private void assertNoStagingLeft() throws IOException {
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> s = Files.list(d.sysDir().resolve("tmp"))) {
                assertThat(s.toList()).as("staging on %s", d.root()).isEmpty();
            }
        }
    }

    @Test
    void versionedBucket_keepsEveryVersionNewestFirstAndDeleteMarkersHideTheKey() throws Exception {
        open(4);
        store.makeBucket("versioned");
        store.setVersioning("versioned", VersioningState.ENABLED);
        ObjectInfo v1 = put(store, "versioned", "k", "one".getBytes());
        ObjectInfo v2 = put(store, "versioned", "k", "two".getBytes());
        assertThat(v1.versionId()).isNotEqualTo("null").isNotEqualTo(v2.versionId());
        assertThat(get(store, "versioned", "k", null)).isEqualTo("two".getBytes());
        assertThat(get(store, "versioned", "k", v1.versionId())).isEqualTo("one".getBytes());

        var del = store.deleteObject("versioned", "k", null);
        assertThat(del.deleteMarker()).isTrue();
        assertThatThrownBy(() -> store.headObject("versioned", "k", null))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
                    assertThat(e.deleteMarker()).isTrue();
                    assertThat(e.versionId()).isEqualTo(del.versionId());
                });
        assertThatThrownBy(() -> store.headObject("versioned", "k", del.versionId()))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.METHOD_NOT_ALLOWED));

        ListVersionsResult versions = store.listObjectVersions("versioned", "", null, null, null, 1000);
        assertThat(versions.versions())
                .extracting(ObjectInfo::versionId)
                .containsExactly(del.versionId(), v2.versionId(), v1.versionId());
        assertThat(versions.versions().get(0).deleteMarker()).isTrue();
        assertThat(versions.versions().get(0).latest()).isTrue();
        assertThat(store.listObjects("versioned", "", null, null, 1000).objects())
                .isEmpty();

        // Removing the marker by id brings the key back.
        store.deleteObject("versioned", "k", del.versionId());
        assertThat(get(store, "versioned", "k", null)).isEqualTo("two".getBytes());
        store.deleteObject("versioned", "k", v2.versionId());
        assertThat(get(store, "versioned", "k", null)).isEqualTo("one".getBytes());
    }

    @Test
    void suspendedBucket_replacesOnlyTheNullVersion() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        ObjectInfo kept = put(store, "bkt", "k", "versioned".getBytes());
        store.setVersioning("bkt", VersioningState.SUSPENDED);
        assertThat(put(store, "bkt", "k", "null-1".getBytes()).versionId()).isEqualTo("null");
        put(store, "bkt", "k", "null-2".getBytes());
        List<ObjectInfo> versions =
                store.listObjectVersions("bkt", "", null, null, null, 1000).versions();
        assertThat(versions).extracting(ObjectInfo::versionId).containsExactly("null", kept.versionId());
        assertThat(get(store, "bkt", "k", "null")).isEqualTo("null-2".getBytes());
        var marker = store.deleteObject("bkt", "k", null);
        assertThat(marker.versionId()).isEqualTo("null");
        assertThat(store.listObjectVersions("bkt", "", null, null, null, 1000).versions())
                .extracting(ObjectInfo::versionId, ObjectInfo::deleteMarker)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("null", true),
                        org.assertj.core.groups.Tuple.tuple(kept.versionId(), false));
    }

    @Test
    void unversionedOverwriteAndDelete_leaveNoDataBehind() throws Exception {
        open(4);
        store.makeBucket("bkt");
        put(store, "bkt", "a/b/c", random(300_000, 1));
        put(store, "bkt", "a/b/c", random(400_000, 2));
        assertThat(get(store, "bkt", "a/b/c", null)).isEqualTo(random(400_000, 2));
        store.deleteObject("bkt", "a/b/c", null);
        assertThatThrownBy(() -> store.headObject("bkt", "a/b/c", null)).isInstanceOf(StorageException.class);
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> s = Files.list(d.bucketDir("bkt"))) {
                assertThat(s.toList()).as("bucket dir on %s", d.root()).isEmpty();
            }
        }
        store.deleteBucket("bkt");
        assertThat(store.listBuckets()).isEmpty();
    }

    @Test
    void listing_sortsByUtf8AndRollsUpCommonPrefixes() throws Exception {
        open(4);
        store.makeBucket("bkt");
        List<String> keys = List.of("a", "a-b", "a/", "a/x", "a/y/z", "b/c", "c", "\uD83D\uDE00", "\uFFFD", "z/");
        for (String k : keys) {
            put(store, "bkt", k, k.getBytes());
        }
        ListObjectsResult all = store.listObjects("bkt", "", null, null, 1000);
        assertThat(all.objects())
                .extracting(ObjectInfo::key)
                .containsExactly("a", "a-b", "a/", "a/x", "a/y/z", "b/c", "c", "z/", "\uFFFD", "\uD83D\uDE00");

        ListObjectsResult top = store.listObjects("bkt", "", "/", null, 1000);
        assertThat(top.objects())
                .extracting(ObjectInfo::key)
                .containsExactly("a", "a-b", "c", "\uFFFD", "\uD83D\uDE00");
        assertThat(top.commonPrefixes()).containsExactly("a/", "b/", "z/");

        ListObjectsResult inA = store.listObjects("bkt", "a/", "/", null, 1000);
        assertThat(inA.objects()).extracting(ObjectInfo::key).containsExactly("a/", "a/x");
        assertThat(inA.commonPrefixes()).containsExactly("a/y/");

        ListObjectsResult partial = store.listObjects("bkt", "a", null, null, 1000);
        assertThat(partial.objects()).extracting(ObjectInfo::key).containsExactly("a", "a-b", "a/", "a/x", "a/y/z");
    }

    @Test
    void listing_paginatesWithoutGapsOrRepeats() throws Exception {
        open(4);
        store.makeBucket("bkt");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 57; i++) {
            String k = (i % 3 == 0 ? "dir" + (i % 5) + "/" : "") + "key-" + String.format("%03d", i);
            keys.add(k);
            put(store, "bkt", k, new byte[] {(byte) i});
        }
        keys.sort(null);
        List<String> seen = new ArrayList<>();
        String marker = null;
        do {
            ListObjectsResult page = store.listObjects("bkt", "", null, marker, 10);
            page.objects().forEach(o -> seen.add(o.key()));
            marker = page.truncated() ? page.nextMarker() : null;
        } while (marker != null);
        assertThat(seen).isEqualTo(keys);

        List<String> tops = new ArrayList<>();
        marker = null;
        do {
            ListObjectsResult page = store.listObjects("bkt", "", "/", marker, 3);
            page.objects().forEach(o -> tops.add(o.key()));
            tops.addAll(page.commonPrefixes());
            marker = page.truncated() ? page.nextMarker() : null;
        } while (marker != null);
        assertThat(tops).doesNotHaveDuplicates().contains("dir0/", "dir1/", "dir2/", "dir3/", "dir4/", "key-001");
    }

    @Test
    void versionListing_paginatesByVersion() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        List<String> expected = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ids.addFirst(key + ":"
                        + put(store, "bkt", key, new byte[] {(byte) i}).versionId());
            }
            expected.addAll(ids);
        }
        List<String> seen = new ArrayList<>();
        String keyMarker = null;
        String versionMarker = null;
        do {
            ListVersionsResult page = store.listObjectVersions("bkt", "", null, keyMarker, versionMarker, 5);
            page.versions().forEach(v -> seen.add(v.key() + ":" + v.versionId()));
            keyMarker = page.truncated() ? page.nextKeyMarker() : null;
            versionMarker = page.truncated() ? page.nextVersionIdMarker() : null;
        } while (keyMarker != null);
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void invalidNames_areRefused() throws Exception {
        open(4);
        assertThatThrownBy(() -> store.makeBucket("Bad_Bucket"))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_BUCKET_NAME);
        store.makeBucket("bkt");
        assertThatThrownBy(() -> store.makeBucket("bkt"))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.BUCKET_ALREADY_OWNED);
        for (String key : List.of("../escape", "a/../../b", "/abs", "a//b", "a/./b", "nul\0byte", "x/..")) {
            assertThatThrownBy(() -> put(store, "bkt", key, new byte[1]))
                    .as(key)
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(ErrorKind.INVALID_OBJECT_NAME);
        }
        assertThatThrownBy(() -> put(store, "bkt", "k".repeat(1025), new byte[1]))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.KEY_TOO_LONG);
        assertThat(Files.exists(tmp.resolve("escape"))).isFalse();
        assertThatThrownBy(() -> store.headObject("bkt", "k", "not-a-uuid"))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
    }

    @Test
    void bucketsAndData_surviveRestart() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        byte[] data = random(2_000_000, 3);
        put(store, "bkt", "k", data);
        reopen(4);
        assertThat(store.versioning("bkt")).isEqualTo(VersioningState.ENABLED);
        assertThat(get(store, "bkt", "k", null)).isEqualTo(data);
    }

    @Test
    void concurrentSmallVersions_neverOverfillTheInlineSectionAndAllSucceed() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        byte[] data = random(18 * 1024, 9);
        int writers = 8;
        int perWriter = 8;
        var pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        List<java.util.concurrent.Future<ObjectInfo>> results = new ArrayList<>();
        for (int i = 0; i < writers * perWriter; i++) {
            results.add(pool.submit(() -> put(store, "bkt", "hot", data)));
        }
        for (var f : results) {
            assertThat(f.get().etag()).isNotNull();
        }
        pool.shutdown();
        assertThat(store.listObjectVersions("bkt", "hot", null, null, null, 1000)
                        .versions())
                .hasSize(writers * perWriter);
        for (LocalDrive d : store.drives()) {
            var meta = dev.appliance.core.meta.XlMeta.parse(Files.readAllBytes(d.metaFile("bkt", "hot")));
            assertThat(meta.inlineBytes()).isLessThanOrEqualTo(dev.appliance.core.meta.XlMeta.MAX_INLINE_BYTES);
        }
        assertThat(get(store, "bkt", "hot", null)).isEqualTo(data);
    }

    @Test
    void readerOpenedBeforeAnOverwrite_stillStreamsTheOldBytes() throws Exception {
        open(4);
        store.makeBucket("bkt");
        byte[] old = random(3_000_000, 1);
        byte[] fresh = random(3_000_000, 2);
        put(store, "bkt", "k", old);
        try (ObjectReader r = store.getObject("bkt", "k", null, 0, -1)) {
            put(store, "bkt", "k", fresh);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            assertThat(out.toByteArray()).isEqualTo(old);
        }
        assertThat(get(store, "bkt", "k", null)).isEqualTo(fresh);
    }

    @Test
    void prefixHoldingOnlyDeleteMarkers_isHiddenFromCurrentListingsButNotFromVersions() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        put(store, "bkt", "gone/a", "x".getBytes());
        put(store, "bkt", "gone/deeper/b", "y".getBytes());
        put(store, "bkt", "kept/c", "z".getBytes());
        put(store, "bkt", "gone-key", "k".getBytes());
        store.deleteObject("bkt", "gone/a", null);
        store.deleteObject("bkt", "gone/deeper/b", null);
        store.deleteObject("bkt", "gone-key", null);
        ListObjectsResult top = store.listObjects("bkt", "", "/", null, 1000);
        assertThat(top.commonPrefixes()).containsExactly("kept/");
        assertThat(top.objects()).isEmpty();
        ListObjectsResult dash = store.listObjects("bkt", "", "-", null, 1000);
        assertThat(dash.commonPrefixes()).isEmpty();
        ListVersionsResult versions = store.listObjectVersions("bkt", "", "/", null, null, 1000);
        assertThat(versions.commonPrefixes()).containsExactly("gone/", "kept/");
    }

    @Test
    void updateMetadata_rewritesOneVersionWithoutTouchingItsData() throws Exception {
        open(4);
        store.makeBucket("bkt");
        store.setVersioning("bkt", VersioningState.ENABLED);
        byte[] small = random(1000, 1);
        byte[] large = random(2_000_000, 2);
        ObjectInfo v1 = put(store, "bkt", "k", small);
        ObjectInfo v2 = put(store, "bkt", "k", large);
        ObjectInfo tagged = store.updateMetadata(
                "bkt", "k", v1.versionId(), name -> !name.equals("x-amz-tagging"), Map.of("x-amz-tagging", "a=1&b=2"));
        assertThat(tagged.versionId()).isEqualTo(v1.versionId());
        assertThat(store.headObject("bkt", "k", v1.versionId()).userMetadata())
                .containsEntry("x-amz-tagging", "a=1&b=2");
        assertThat(get(store, "bkt", "k", v1.versionId())).isEqualTo(small);
        store.updateMetadata("bkt", "k", null, name -> true, Map.of("x-amz-tagging", "latest=yes"));
        assertThat(store.headObject("bkt", "k", null).userMetadata()).containsEntry("x-amz-tagging", "latest=yes");
        assertThat(store.headObject("bkt", "k", null).versionId()).isEqualTo(v2.versionId());
        assertThat(get(store, "bkt", "k", null)).isEqualTo(large);
        store.updateMetadata("bkt", "k", v1.versionId(), name -> !name.equals("x-amz-tagging"), Map.of());
        assertThat(store.headObject("bkt", "k", v1.versionId()).userMetadata()).doesNotContainKey("x-amz-tagging");
        assertThat(store.listObjectVersions("bkt", "k", null, null, null, 10).versions())
                .hasSize(2);
    }

    @Test
    void metadataUpdates_countAsForegroundLoad_whileTheyRun() throws Exception {
        open(4);
        store.makeBucket("bkt");
        put(store, "bkt", "k", random(1000, 3));
        java.util.List<Integer> inFlight = new java.util.ArrayList<>();
        store.updateMetadata(
                "bkt",
                "k",
                null,
                name -> {
                    inFlight.add(store.foreground().active());
                    return true;
                },
                Map.of("x-amz-tagging", "a=1"));
        assertThat(inFlight)
                .as("the scanner and the healer see a tagging or retention change as a client call in flight")
                .isNotEmpty()
                .allMatch(n -> n == 1);
        assertThat(store.foreground().active())
                .as("and no longer once it answered")
                .isZero();
    }

    @Test
    void headDeleteAndListings_countAsForegroundLoad_whileTheyRun() throws Exception {
        open(4);
        store.makeBucket("bkt");
        put(store, "bkt", "k", random(1000, 4));
        java.util.List<java.util.function.Supplier<Object>> calls = java.util.List.of(
                () -> store.headObject("bkt", "k", null),
                () -> store.listObjects("bkt", "", null, null, 10),
                () -> store.listObjectVersions("bkt", "", null, null, null, 10),
                () -> store.deleteObject("bkt", "k", null, false));
        for (var d : store.drives()) {
            d.injectFaults(new dev.appliance.core.drive.DriveFaults(false, false, false, false, 200));
        }
        try {
            for (var call : calls) {
                var running = java.util.concurrent.CompletableFuture.supplyAsync(call);
                HealTestDrives.await(
                        "the call seen in flight", () -> store.foreground().active() == 1);
                running.get();
                assertThat(store.foreground().active())
                        .as("and no longer once it answered")
                        .isZero();
            }
        } finally {
            for (var d : store.drives()) {
                d.injectFaults(null);
            }
        }
    }

    @Test
    void bucketTags_persistAcrossRestart() throws Exception {
        open(4);
        store.makeBucket("bkt");
        assertThat(store.bucketTags("bkt")).isEmpty();
        store.setBucketTags("bkt", Map.of("team", "backup", "env", "lab"));
        reopen(4);
        assertThat(store.bucketTags("bkt")).containsExactlyInAnyOrderEntriesOf(Map.of("team", "backup", "env", "lab"));
        store.setBucketTags("bkt", Map.of());
        reopen(4);
        assertThat(store.bucketTags("bkt")).isEmpty();
    }
}
