package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StorageCapacity;
import dev.appliance.core.VersioningState;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pool capacity after erasure overhead, bucket usage over all versions, and the bucket settings record. */
class CapacityAndUsageTest {
    @TempDir
    Path tmp;

    private TestStore layout;
    private ErasureObjectStore store;

    @BeforeEach
    void open() throws Exception {
        layout = TestStore.on(tmp);
        store = TestEngine.open(layout);
        store.makeBucket("bucket");
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void put(String key, int size) throws Exception {
        store.putObject("bucket", key, PutRequest.of(size), new ByteArrayInputStream(new byte[size]));
    }

    @Test
    void fourDrivesOnOneFileSystem_holdHalfOfIt() throws Exception {
        // 2+2 on drive directories sharing one disk: every object byte costs two bytes of that disk
        FileStore fs = Files.getFileStore(tmp);
        StorageCapacity c = store.capacity();
        assertThat(c.usableBytes()).isEqualTo(fs.getTotalSpace() / 4 * 2);
        assertThat(c.freeBytes()).isPositive().isLessThanOrEqualTo(c.usableBytes());
    }

    @Test
    void usage_countsEveryVersionAndMarker() throws Exception {
        store.setVersioning("bucket", VersioningState.ENABLED);
        put("a", 1000);
        put("a", 3000); // a noncurrent version of 1000 stays counted
        put("b", 500);
        store.deleteObject("bucket", "b", null); // marker over b
        BucketUsage u = store.bucketUsage("bucket");
        assertThat(u.objects()).isEqualTo(1);
        assertThat(u.versions()).isEqualTo(3);
        assertThat(u.deleteMarkers()).isEqualTo(1);
        assertThat(u.bytes()).isEqualTo(4500);
    }

    @Test
    void staleUsage_isRecountedInTheBackground() throws Exception {
        put("a", 100);
        assertThat(store.bucketUsage("bucket").bytes()).isEqualTo(100);
        store.usageRefreshInterval(Duration.ZERO);
        put("b", 200);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long seen = store.bucketUsage("bucket").bytes();
        while (seen != 300 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            seen = store.bucketUsage("bucket").bytes();
        }
        assertThat(seen).isEqualTo(300);
    }

    @Test
    void aWrite_makesTheNextReadRecount_withinSeconds_atTheDefaultInterval() throws Exception {
        put("a", 100);
        assertThat(store.bucketUsage("bucket").bytes()).isEqualTo(100);
        put("b", 50);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        long seen = store.bucketUsage("bucket").bytes();
        while (seen != 150 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            seen = store.bucketUsage("bucket").bytes();
        }
        assertThat(seen).isEqualTo(150);
    }

    @Test
    void settings_persistAcrossRestarts_andForgetWithTheBucket() throws Exception {
        assertThat(store.bucketSettings("bucket")).isEqualTo(BucketSettings.DEFAULTS);
        store.setBucketSettings("bucket", new BucketSettings(10L << 30, true));
        store.setBucketTags("bucket", java.util.Map.of("k", "v")); // rewriting the record keeps the settings
        store.close();
        store = TestEngine.open(layout);
        assertThat(store.bucketSettings("bucket")).isEqualTo(new BucketSettings(10L << 30, true));
        store.deleteBucket("bucket");
        store.makeBucket("bucket");
        assertThat(store.bucketSettings("bucket")).isEqualTo(BucketSettings.DEFAULTS);
        assertThatThrownBy(() -> new BucketSettings(0L, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void quota_refusesWritesThatWouldExceedIt_andDeletesFreeRoomAfterTheRecount() throws Exception {
        store.setVersioning("bucket", VersioningState.ENABLED);
        store.setBucketSettings("bucket", new BucketSettings(10_000L, null));
        put("a", 4000);
        put("b", 4000); // 8,000 of 10,000: counted or not yet, the quota knows
        assertThatThrownBy(() -> put("c", 4000))
                .isInstanceOfSatisfying(dev.appliance.core.error.StorageException.class, e -> assertThat(e.kind())
                        .isEqualTo(dev.appliance.core.error.ErrorKind.QUOTA_EXCEEDED))
                .hasMessageContaining("10000-byte quota");
        assertThatThrownBy(() -> store.headObject("bucket", "c", null))
                .as("nothing of the refused write is stored")
                .isInstanceOf(dev.appliance.core.error.StorageException.class);
        put("c", 2000); // exactly up to the quota is fine
        String upload = store.createMultipartUpload("bucket", "mp", PutRequest.of(-1), null);
        assertThatThrownBy(() -> store.uploadPart(
                        "bucket", "mp", upload, 1, PutRequest.of(1), new ByteArrayInputStream(new byte[1])))
                .isInstanceOfSatisfying(dev.appliance.core.error.StorageException.class, e -> assertThat(e.kind())
                        .isEqualTo(dev.appliance.core.error.ErrorKind.QUOTA_EXCEEDED));

        // Removing a version frees its bytes once the bucket is recounted.
        store.usageRefreshInterval(Duration.ZERO);
        String aVersion = store.headObject("bucket", "a", null).versionId();
        store.deleteObject("bucket", "a", aVersion);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        boolean written = false;
        while (!written && System.nanoTime() < deadline) {
            try {
                put("d", 3000);
                written = true;
            } catch (dev.appliance.core.error.StorageException e) {
                Thread.sleep(50);
            }
        }
        assertThat(written).as("room freed by the delete is usable again").isTrue();
        // Without a quota nothing is refused.
        store.setBucketSettings("bucket", BucketSettings.DEFAULTS);
        put("e", 50_000);
    }
}
