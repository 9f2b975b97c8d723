package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.heal.HealQueueStatus;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GET that started on a version finishes with that version's bytes while another client overwrites or deletes it
 * and trash is purged in between: the reader pins the version's data directories, later parts included.
 */
class ReadPinningTest {
    private static final int MIB = 1 << 20;
    private static final String B = "bkt";
    private static final String KEY = "backup/chain.vbk";

    @TempDir
    Path tmp;

    private ErasureObjectStore store;
    private final ExecutorService otherClient = Executors.newSingleThreadExecutor();
    private byte[] original;

    @BeforeEach
    void open() throws Exception {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket(B);
        byte[] first = random(5 * MIB, 1);
        byte[] second = random(MIB, 2);
        original = new byte[first.length + second.length];
        System.arraycopy(first, 0, original, 0, first.length);
        System.arraycopy(second, 0, original, first.length, second.length);
    }

    @AfterEach
    void close() {
        otherClient.shutdownNow();
        store.close();
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** The 5 MiB + 1 MiB object, written as a two-part multipart upload. */
    private ObjectInfo putMultipart() throws Exception {
        String id = store.createMultipartUpload(B, KEY, PutRequest.of(-1));
        UploadedPart p1 =
                store.uploadPart(B, KEY, id, 1, PutRequest.of(5 * MIB), new ByteArrayInputStream(original, 0, 5 * MIB));
        UploadedPart p2 =
                store.uploadPart(B, KEY, id, 2, PutRequest.of(MIB), new ByteArrayInputStream(original, 5 * MIB, MIB));
        return store.completeMultipartUpload(
                B, KEY, id, List.of(new CompletedPart(1, p1.etag()), new CompletedPart(2, p2.etag())));
    }

    private ObjectInfo overwrite() throws IOException {
        byte[] other = random(MIB, 3);
        return store.putObject(B, KEY, PutRequest.of(other.length), new ByteArrayInputStream(other));
    }

    private void purgeTrash() throws IOException {
        for (LocalDrive d : store.drives()) {
            d.purgeTrash();
        }
    }

    private long trashEntries() throws IOException {
        long n = 0;
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> s = Files.list(d.sysDir().resolve("trash"))) {
                n += s.count();
            }
        }
        return n;
    }

    /**
     * A slow client: once the first bytes arrived, another client's change runs (to completion) and trash is purged,
     * then the rest of the body is taken.
     */
    private final class SlowClient extends OutputStream {
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private final Callable<?> meanwhile;
        private boolean changed;

        SlowClient(Callable<?> meanwhile) {
            this.meanwhile = meanwhile;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            received.write(b, off, len);
            if (!changed) {
                changed = true;
                try {
                    otherClient.submit(meanwhile).get(60, TimeUnit.SECONDS);
                    purgeTrash();
                } catch (Exception e) {
                    throw new AssertionError("the concurrent change failed", e);
                }
            }
        }
    }

    private byte[] readWhile(String versionId, long offset, long length, Callable<?> meanwhile) throws Exception {
        SlowClient client = new SlowClient(meanwhile);
        try (ObjectReader r = store.getObject(B, KEY, versionId, offset, length)) {
            r.transferTo(client);
        }
        assertThat(client.changed).as("the change ran during the read").isTrue();
        return client.received.toByteArray();
    }

    private void assertNoHealReported() {
        assertThat(store.healQueue().snapshot()).as("heal reports").isEmpty();
        HealQueueStatus s = store.healQueue().status();
        assertThat(s.healed() + s.failed()).as("heals run").isZero();
    }

    @Test
    void unversioned_overwriteDuringRead_readReturnsTheOriginalBytes() throws Exception {
        putMultipart();

        byte[] got = readWhile(null, 0, -1, this::overwrite);

        assertThat(got).hasSize(original.length);
        assertThat(Arrays.equals(got, original))
                .as("the bytes of the version the read started on")
                .isTrue();
        assertNoHealReported();
        assertThat(store.headObject(B, KEY, null).size()).isEqualTo(MIB);
    }

    @Test
    void unversioned_deleteDuringRead_readReturnsTheOriginalBytes() throws Exception {
        putMultipart();

        byte[] got = readWhile(null, 0, -1, () -> store.deleteObject(B, KEY, null, false));

        assertThat(Arrays.equals(got, original))
                .as("the bytes of the deleted object")
                .isTrue();
        assertNoHealReported();
    }

    @Test
    void unversioned_rangedReadAcrossPartsDuringOverwrite_returnsTheOriginalRange() throws Exception {
        putMultipart();
        long from = 4 * MIB + 12_345;
        long length = 2 * MIB - 12_345 - 7;

        byte[] got = readWhile(null, from, length, this::overwrite);

        assertThat(Arrays.equals(got, Arrays.copyOfRange(original, (int) from, (int) (from + length))))
                .isTrue();
        assertNoHealReported();
    }

    @Test
    void versioned_deleteOfTheVersionBeingRead_readReturnsItsBytes() throws Exception {
        store.setVersioning(B, VersioningState.ENABLED);
        ObjectInfo v = putMultipart();

        byte[] got = readWhile(null, 0, -1, () -> store.deleteObject(B, KEY, v.versionId(), false));

        assertThat(Arrays.equals(got, original)).isTrue();
        assertNoHealReported();
    }

    @Test
    void versioned_overwriteThenVersionDeleteDuringRead_readReturnsTheVersionItStartedOn() throws Exception {
        store.setVersioning(B, VersioningState.ENABLED);
        ObjectInfo v = putMultipart();

        byte[] got = readWhile(v.versionId(), 0, -1, () -> {
            overwrite();
            return store.deleteObject(B, KEY, v.versionId(), false);
        });

        assertThat(Arrays.equals(got, original)).isTrue();
        assertNoHealReported();
    }

    @Test
    void suspended_overwriteOfTheNullVersionDuringRead_readReturnsTheOriginalBytes() throws Exception {
        store.setVersioning(B, VersioningState.ENABLED);
        store.setVersioning(B, VersioningState.SUSPENDED);
        putMultipart();

        byte[] got = readWhile(null, 0, -1, this::overwrite);

        assertThat(Arrays.equals(got, original)).isTrue();
        assertNoHealReported();
    }

    @Test
    void trash_keepsAReadersDirectoryUntilEveryReaderClosed_thenIsPurged() throws Exception {
        putMultipart();
        ObjectReader first = store.getObject(B, KEY, null, 0, -1);
        ObjectReader second = store.getObject(B, KEY, null, 5 * MIB, MIB);
        overwrite();

        purgeTrash();
        assertThat(trashEntries())
                .as("the replaced directory, kept for its readers")
                .isEqualTo(4);

        first.close();
        purgeTrash();
        assertThat(trashEntries()).as("still kept for the second reader").isEqualTo(4);
        ByteArrayOutputStream tail = new ByteArrayOutputStream();
        second.transferTo(tail);
        assertThat(Arrays.equals(tail.toByteArray(), Arrays.copyOfRange(original, 5 * MIB, 6 * MIB)))
                .isTrue();

        second.close();
        second.close(); // closing twice releases nothing more
        purgeTrash();
        assertThat(trashEntries()).as("purged once no reader holds it").isZero();
        for (LocalDrive d : store.drives()) {
            assertThat(d.pinnedDirectories()).isZero();
        }
        assertNoHealReported();
    }

    @Test
    void readerClosedMidRead_failsWithoutReportingDamage() throws Exception {
        putMultipart();
        ObjectReader r = store.getObject(B, KEY, null, 0, -1);
        OutputStream closingClient = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                r.close(); // as a shutdown closing it under a read in progress
            }
        };

        assertThatThrownBy(() -> r.transferTo(closingClient))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed");

        assertNoHealReported();
        purgeTrash();
        assertThat(trashEntries()).isZero();
    }

    @Test
    void trash_isPurgedAfterAReadTheClientAbandoned() throws Exception {
        putMultipart();
        OutputStream disconnecting = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                try {
                    otherClient.submit(ReadPinningTest.this::overwrite).get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError("the concurrent overwrite failed", e);
                }
                throw new IOException("Connection reset by peer");
            }
        };

        try (ObjectReader r = store.getObject(B, KEY, null, 0, -1)) {
            assertThatThrownBy(() -> r.transferTo(disconnecting)).isInstanceOf(IOException.class);
        }

        purgeTrash();
        assertThat(trashEntries()).isZero();
        for (LocalDrive d : store.drives()) {
            assertThat(d.pinnedDirectories()).isZero();
        }
        assertNoHealReported();
    }
}
