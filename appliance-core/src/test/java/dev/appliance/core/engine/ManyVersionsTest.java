package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys with hundreds of versions: xl.meta stays small, older versions live in the archive, nothing is lost. */
class ManyVersionsTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void open() throws Exception {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket("bucket");
        store.setVersioning("bucket", VersioningState.ENABLED);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private ObjectInfo put(String key, int i) throws Exception {
        // 40 KiB: 20 KiB shards, too big to inline in a versioned bucket, so versions are archivable.
        byte[] data = body(i);
        return store.putObject("bucket", key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    private static byte[] body(int i) {
        byte[] data = new byte[40 * 1024];
        java.util.Arrays.fill(data, (byte) i);
        data[0] = (byte) (i >>> 8);
        return data;
    }

    private byte[] get(String key, String versionId) throws Exception {
        try (ObjectReader r = store.getObject("bucket", key, versionId, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            return out.toByteArray();
        }
    }

    @Test
    void manyVersions_keepXlMetaBoundedAndEveryVersionReadable() throws Exception {
        int n = 300;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.addFirst(put("hot", i).versionId());
        }
        for (LocalDrive d : store.drives()) {
            XlMeta hot = XlMeta.parse(Files.readAllBytes(d.metaFile("bucket", "hot")));
            XlMeta archive =
                    XlMeta.parse(Files.readAllBytes(d.objectDir("bucket", "hot").resolve(KeyFiles.ARCHIVE_FILE)));
            assertThat(hot.versionCount()).isBetween(KeyFiles.HOT_KEEP, KeyFiles.HOT_MAX);
            assertThat(hot.versionCount() + archive.versionCount()).isEqualTo(n);
        }
        List<ObjectInfo> listed = store.listObjectVersions("bucket", "hot", null, null, null, 1000)
                .versions();
        assertThat(listed).extracting(ObjectInfo::versionId).isEqualTo(ids);
        assertThat(listed.getFirst().latest()).isTrue();
        assertThat(get("hot", null)).isEqualTo(body(n - 1));
        assertThat(get("hot", ids.getLast())).isEqualTo(body(0));
        assertThat(get("hot", ids.get(150))).isEqualTo(body(n - 1 - 150));
        assertThat(store.headObject("bucket", "hot", ids.getLast()).latest()).isFalse();
    }

    @Test
    void deletingArchivedAndHotVersions_keepsTheRestAndFoldsTheArchiveBack() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.addFirst(put("k", i).versionId());
        }
        // An archived version, removed by id.
        store.deleteObject("bucket", "k", ids.getLast());
        ids.removeLast();
        assertThat(store.listObjectVersions("bucket", "k", null, null, null, 1000)
                        .versions())
                .extracting(ObjectInfo::versionId)
                .isEqualTo(ids);
        // Remove every version still in xl.meta: the archive must come back as xl.meta.
        int hotCount = XlMeta.parse(Files.readAllBytes(store.drives().getFirst().metaFile("bucket", "k")))
                .versionCount();
        for (int i = 0; i < hotCount; i++) {
            store.deleteObject("bucket", "k", ids.removeFirst());
        }
        assertThat(store.headObject("bucket", "k", null).versionId()).isEqualTo(ids.getFirst());
        assertThat(get("k", null)).isEqualTo(body(ids.size()));
        for (LocalDrive d : store.drives()) {
            assertThat(Files.exists(d.objectDir("bucket", "k").resolve(KeyFiles.ARCHIVE_FILE)))
                    .isFalse();
        }
        for (String id : List.copyOf(ids)) {
            store.deleteObject("bucket", "k", id);
        }
        assertThat(store.listObjectVersions("bucket", "", null, null, null, 1000)
                        .versions())
                .isEmpty();
        for (LocalDrive d : store.drives()) {
            assertThat(Files.exists(d.objectDir("bucket", "k"))).isFalse();
        }
    }

    @Test
    void nullVersionInTheArchive_isReplacedNotDuplicated() throws Exception {
        store.setVersioning("bucket", VersioningState.SUSPENDED);
        put("k", 1);
        store.setVersioning("bucket", VersioningState.ENABLED);
        for (int i = 0; i < 150; i++) {
            put("k", 100 + i);
        }
        store.setVersioning("bucket", VersioningState.SUSPENDED);
        put("k", 7);
        List<ObjectInfo> versions =
                store.listObjectVersions("bucket", "k", null, null, null, 1000).versions();
        assertThat(versions).hasSize(151);
        assertThat(versions).filteredOn(v -> v.versionId().equals("null")).hasSize(1);
        assertThat(get("k", "null")).isEqualTo(body(7));
    }
}
