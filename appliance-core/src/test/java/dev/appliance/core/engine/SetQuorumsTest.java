package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.naming.BucketNames;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ErasureObjectStore#setQuorums}: what the health probes and indicators decide on must be what the write and
 * read paths decide on, drive for drive out of service.
 */
class SetQuorumsTest {
    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private ErasureObjectStore open(int drives, int parity) throws IOException {
        List<Path> paths = IntStream.rangeClosed(1, drives)
                .mapToObj(i -> tmp.resolve("d" + i))
                .toList();
        for (Path p : paths) {
            Files.createDirectories(p);
        }
        store = ErasureObjectStore.open(new StoreConfig(paths, 0, parity, true, java.time.Clock.systemUTC()));
        return store;
    }

    @ParameterizedTest(name = "{0} drives EC parity {1}, {2} offline: readable {3}, writable {4}")
    @CsvSource({
        "4, 2, 0, true, true",
        "4, 2, 1, true, true",
        "4, 2, 2, true, false", // 2+2 needs 3 to write
        "4, 2, 3, false, false",
        "6, 2, 2, true, true", // written 3+3 then, which needs 4
        "6, 2, 3, false, false",
        // written 4+4 then (needs 5), while what was written 6+2 cannot be read: writable, not readable
        "8, 2, 3, false, true",
        "8, 2, 4, false, false"
    })
    void quorums_followTheDrivesInService_andAgreeWithTheWritePath(
            int drives, int parity, int offline, boolean readable, boolean writable) throws Exception {
        open(drives, parity);
        store.makeBucket("bucket");
        List<LocalDrive> all = store.drives();
        for (int i = 0; i < offline; i++) {
            all.get(i).markOffline("taken away by the test");
        }

        List<SetQuorum> quorums = store.setQuorums();
        assertThat(quorums).hasSize(1);
        SetQuorum q = quorums.getFirst();
        assertThat(q.set()).isEqualTo(1);
        assertThat(q.drives()).isEqualTo(drives);
        assertThat(q.online()).isEqualTo(drives - offline);
        assertThat(q.readable()).isEqualTo(readable);
        assertThat(q.writable()).isEqualTo(writable);

        byte[] data = new byte[10_000];
        if (writable) {
            store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        } else {
            assertThatThrownBy(() ->
                            store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data)))
                    .isInstanceOf(StorageException.class)
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(ErrorKind.WRITE_QUORUM);
        }

        all.forEach(LocalDrive::markOnline);
        assertThat(store.setQuorums().getFirst().online()).isEqualTo(drives);
        assertThat(store.setQuorums().getFirst().writable()).isTrue();
    }

    @Test
    void aFaultyDrive_countsAsOutOfService() throws Exception {
        open(4, 2);
        store.drives().get(0).markFaulty("I/O errors");
        store.drives().get(1).markFaulty("I/O errors");
        SetQuorum q = store.setQuorums().getFirst();
        assertThat(q.online()).isEqualTo(2);
        assertThat(q.writable()).isFalse();
        assertThat(q.readable()).isTrue();
    }

    @Test
    void theProbesName_isNotABucketName() throws Exception {
        open(4, 2);
        assertThatThrownBy(() -> store.makeBucket(BucketNames.RESERVED))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("reserved for the health probes")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_BUCKET_NAME);
    }
}
