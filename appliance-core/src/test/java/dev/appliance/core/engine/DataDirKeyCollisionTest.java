package dev.appliance.core.engine;

import static dev.appliance.core.engine.HealTestDrives.random;
import static dev.appliance.core.engine.HealTestDrives.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key whose path runs through another key's data directory ({@code a/<data dir of a>/…}): refused with {@code
 * INVALID_OBJECT_NAME} before anything is written, so it can neither fail on the drives nor be stored inside {@code
 * a}'s data directory and go to trash with it. UUID-shaped segments that name no data directory stay ordinary keys.
 */
class DataDirKeyCollisionTest {
    private static final String B = "bucket";

    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private void put(String key, byte[] data) throws Exception {
        store.putObject(B, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** The data directories of {@code key} on the first drive (lowercase UUIDs beside its xl.meta). */
    private List<String> dataDirsOf(String key) throws Exception {
        LocalDrive d = store.drives().get(0);
        try (Stream<Path> s = Files.list(d.objectDir(B, key))) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.length() == 36)
                    .toList();
        }
    }

    private void assertRefused(ThrowingCall call) {
        StorageException e = catchThrowableOfType(StorageException.class, call::run);
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_OBJECT_NAME);
        assertThat(e.getMessage()).contains("data directory");
    }

    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void keysThroughAnotherKeysDataDirectory_areRefused_andTheOtherKeySurvives() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        store.makeBucket(B);
        byte[] a = random(500_000, 1); // above the inline limit: a data directory holds its part files
        put("a", a);
        String dir = dataDirsOf("a").getFirst();

        for (String key : List.of("a/" + dir, "a/" + dir + "/part.1", "a/" + dir + "/x", "a/" + dir + "/x/")) {
            assertRefused(() -> put(key, random(300_000, 2)));
            assertRefused(() -> store.copyObject(B, "a", null, B, key, null));
            assertRefused(() -> store.createMultipartUpload(B, key, PutRequest.of(0)));
        }
        assertThat(dataDirsOf("a")).containsExactly(dir);
        try (Stream<Path> s = Files.list(store.drives().get(0).objectDir(B, "a").resolve(dir))) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("part.1");
        }

        // the folder key "a/<dir>/" is stored apart (a/<dir>__XLDIR__), and UUID-shaped segments naming no data
        // directory are ordinary keys, as Veeam writes them
        String other = UUID.randomUUID().toString();
        byte[] folder = random(10, 3);
        byte[] block = random(300_000, 4);
        put("a/" + dir + "/", folder);
        put("a/" + other + "/blocks/1", block);
        put(other + "/" + UUID.randomUUID(), block);

        store.deleteObject(B, "a", null, false); // a's data directory goes to trash
        assertThat(read(store, B, "a/" + dir + "/", null)).isEqualTo(folder);
        assertThat(read(store, B, "a/" + other + "/blocks/1", null)).isEqualTo(block);

        // once a's version is gone, the name is free
        put("a/" + dir, block);
        assertThat(read(store, B, "a/" + dir, null)).isEqualTo(block);
    }

    @Test
    void aNoncurrentVersionsDataDirectory_isProtectedToo() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        store.makeBucket(B);
        store.setVersioning(B, VersioningState.ENABLED);
        byte[] first = random(500_000, 5);
        put("v", first);
        String old = dataDirsOf("v").getFirst();
        put("v", random(500_000, 6)); // the first version is now noncurrent
        assertRefused(() -> put("v/" + old + "/k", random(10, 7)));
        assertThat(dataDirsOf("v")).contains(old);
    }

    @Test
    void aDeleteThroughAnotherKeysDataDirectory_isRefused_andWritesNoMarkerThere() throws Exception {
        store = TestEngine.openQuiet(TestStore.on(tmp).drives(4).parity(2));
        store.makeBucket(B);
        store.setVersioning(B, VersioningState.ENABLED);
        byte[] data = random(500_000, 8);
        put("v", data);
        String dir = dataDirsOf("v").getFirst();
        for (String key : List.of("v/" + dir, "v/" + dir + "/x")) {
            assertRefused(() -> store.deleteObject(B, key, null, false));
        }
        for (LocalDrive d : store.drives()) {
            Path inside = d.objectDir(B, "v").resolve(dir);
            if (Files.isDirectory(inside)) {
                try (Stream<Path> s = Files.list(inside)) {
                    assertThat(s.map(p -> p.getFileName().toString())).containsOnly("part.1");
                }
            }
        }
        assertThat(read(store, B, "v", null)).isEqualTo(data);
    }
}
