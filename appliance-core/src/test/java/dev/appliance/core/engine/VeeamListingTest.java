package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Version listings as Veeam makes them: directory-marker objects at every level, block keys looked up by exact prefix,
 * prefix + delimiter listings that never return an ancestor's marker.
 */
class VeeamListingTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void open() throws Exception {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket("veeam");
        store.setVersioning("veeam", VersioningState.ENABLED);
        for (String key : List.of(
                "Veeam/",
                "Veeam/Backup/",
                "Veeam/Backup/Repo/",
                "Veeam/Backup/Repo/Clients/",
                "Veeam/Backup/Repo/Clients/c1/blk1",
                "Veeam/Backup/Repo/a.blk",
                "Veeam/Backup/Repo/a.blk.2",
                "Veeam/Backup/Repo/b.blk")) {
            byte[] body = key.endsWith("/") ? new byte[0] : key.getBytes();
            store.putObject("veeam", key, PutRequest.of(body.length), new ByteArrayInputStream(body));
        }
        // a checkpoint rewritten under the same key: two versions
        store.putObject("veeam", "Veeam/Backup/Repo/a.blk", PutRequest.of(2), new ByteArrayInputStream(new byte[2]));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static List<String> keys(ListVersionsResult r) {
        return r.versions().stream().map(ObjectInfo::key).toList();
    }

    @Test
    void prefixAndDelimiter_neverReturnAnAncestorsMarker() {
        ListVersionsResult r = store.listObjectVersions("veeam", "Veeam/Backup/Repo/", "/", null, null, 1000);
        assertThat(keys(r))
                .containsExactly(
                        "Veeam/Backup/Repo/",
                        "Veeam/Backup/Repo/a.blk",
                        "Veeam/Backup/Repo/a.blk",
                        "Veeam/Backup/Repo/a.blk.2",
                        "Veeam/Backup/Repo/b.blk")
                .allMatch(k -> k.startsWith("Veeam/Backup/Repo/"));
        assertThat(r.commonPrefixes()).containsExactly("Veeam/Backup/Repo/Clients/");
    }

    @Test
    void exactBlockKeyAsPrefix_findsItsVersions_andKeysItPrefixes() {
        ListVersionsResult r = store.listObjectVersions("veeam", "Veeam/Backup/Repo/a.blk", "/", null, null, 1000);
        assertThat(keys(r))
                .containsExactly("Veeam/Backup/Repo/a.blk", "Veeam/Backup/Repo/a.blk", "Veeam/Backup/Repo/a.blk.2");
        assertThat(r.versions().get(0).latest()).isTrue();
        assertThat(r.versions().get(1).latest()).isFalse();
        assertThat(r.commonPrefixes()).isEmpty();
        assertThat(keys(store.listObjectVersions("veeam", "Veeam/Backup/Repo/b.blk", "/", null, null, 1000)))
                .containsExactly("Veeam/Backup/Repo/b.blk");
        assertThat(keys(store.listObjectVersions("veeam", "Veeam/Backup/Repo/zzz", "/", null, null, 1000)))
                .isEmpty();
    }
}
