package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real full drives: four small tmpfs mounts. Writes fail with a clean storage-full error, earlier objects stay
 * readable byte for byte, deletes work, and freeing space makes writes work again. Needs permission to mount
 * (root, as on the CI machines); skipped where mounting is not allowed.
 */
class DiskFullTest {
    @TempDir
    Path tmp;

    private final List<Path> mounted = new ArrayList<>();
    private ErasureObjectStore store;

    private static boolean run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @AfterEach
    void unmount() throws Exception {
        if (store != null) {
            store.close();
        }
        for (Path m : mounted) {
            run("umount", m.toString());
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void fullDrives_failWritesCleanlyAndKeepEarlierData() throws Exception {
        TestStore layout = TestStore.on(tmp);
        for (Path d : layout.drives()) {
            assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", d.toString()), "cannot mount tmpfs here");
            mounted.add(d);
        }
        store = TestEngine.open(layout);
        store.makeBucket("bucket");
        byte[] first = random(1_000_000, 1);
        store.putObject("bucket", "first", PutRequest.of(first.length), new ByteArrayInputStream(first));

        // Each 1.5 MB object puts about 750 KB on every 4 MiB drive: the drives fill within a few objects.
        int stored = 0;
        StorageException failure = null;
        for (int i = 0; i < 20 && failure == null; i++) {
            byte[] data = random(1_500_000, 100 + i);
            try {
                store.putObject("bucket", "fill/" + i, PutRequest.of(data.length), new ByteArrayInputStream(data));
                stored++;
            } catch (StorageException e) {
                failure = e;
            }
        }
        assertThat(failure).as("a write eventually fails").isNotNull();
        assertThat(failure.kind()).isEqualTo(ErrorKind.STORAGE_FULL);
        assertThat(read("first")).isEqualTo(first);
        for (int i = 0; i < stored; i++) {
            assertThat(read("fill/" + i)).isEqualTo(random(1_500_000, 100 + i));
        }
        String failedKey = "fill/" + stored;
        assertThatThrownBy(() -> store.headObject("bucket", failedKey, null))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.OBJECT_NOT_FOUND));

        // Deleting frees space (trash is purged), and writes work again.
        for (int i = 0; i < stored; i++) {
            store.deleteObject("bucket", "fill/" + i, null);
        }
        for (var d : store.drives()) {
            d.purgeTrash();
        }
        byte[] again = random(1_500_000, 7);
        store.putObject("bucket", "again", PutRequest.of(again.length), new ByteArrayInputStream(again));
        assertThat(read("again")).isEqualTo(again);
        assertThat(read("first")).isEqualTo(first);
    }

    private byte[] read(String key) throws Exception {
        try (ObjectReader r = store.getObject("bucket", key, null, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            return out.toByteArray();
        }
    }
}
