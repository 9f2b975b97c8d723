package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.bitrot.BitrotAlgorithm;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.drive.FilesystemSync;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.SyncGroup;
import dev.appliance.core.erasure.ErasureLayout;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With group commit, what a write's answer rests on is flushed in order: a PUT's part files are complete when a flush
 * starts that precedes the rename of {@code xl.meta} committing them (the PUT leaves that flush to its commit rather
 * than flushing the part files on their own first), and a multipart part is complete at a flush before UploadPart
 * answers. Each flush records, for every drive, whether the part file was complete and whether the key's
 * {@code xl.meta} was in place as it started.
 */
class FlushOrderTest {
    private static final String B = "bucket";
    private static final int SIZE = (3 << 20) + 17; // several blocks, the last short

    @TempDir
    Path tmp;

    /** Per flush, per drive: the part file complete (anywhere on the drive), the key's xl.meta in place. */
    private record Seen(boolean[] partComplete, boolean[] metaInPlace) {}

    private final List<Seen> flushes = new ArrayList<>();

    private ErasureObjectStore open(String key) {
        ErasureObjectStore store = TestEngine.open(TestStore.on(tmp)
                .parity(2)
                .driveSettings(DriveSettings.DEFAULTS.withGroupCommit(true).withDirectIo(true)));
        List<LocalDrive> drives = store.drives();
        long partFile = new ErasureLayout(2, 2, ErasureSet.BLOCK_SIZE, BitrotAlgorithm.CRC32C_PAIR.checksumLength())
                .shardFileSize(SIZE);
        SyncGroup group = SyncGroup.withFlusher("recording", dir -> {
            boolean[] part = new boolean[drives.size()];
            boolean[] meta = new boolean[drives.size()];
            for (int i = 0; i < drives.size(); i++) {
                part[i] = hasCompletePartFile(drives.get(i).root(), partFile);
                meta[i] = Files.exists(drives.get(i).objectDir(B, key).resolve("xl.meta"));
            }
            synchronized (flushes) {
                flushes.add(new Seen(part, meta));
            }
            if (FilesystemSync.available()) {
                FilesystemSync.sync(dir);
            }
        });
        for (LocalDrive d : drives) {
            d.useSyncGroup(group);
        }
        return store;
    }

    private static boolean hasCompletePartFile(Path root, long size) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.anyMatch(p -> p.getFileName().toString().equals("part.1") && sizeOf(p) == size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1; // renamed meanwhile
        }
    }

    private static byte[] body() {
        byte[] b = new byte[SIZE];
        new Random(7).nextBytes(b);
        return b;
    }

    @Test
    void aPutsPartFilesAreCompleteAtAFlushBeforeTheRenameThatCommitsThem() throws Exception {
        try (ErasureObjectStore store = open("k")) {
            store.makeBucket(B);
            byte[] b = body();
            store.putObject(B, "k", PutRequest.of(b.length), new ByteArrayInputStream(b));

            for (int d = 0; d < 4; d++) {
                int first = -1;
                for (int i = 0; i < flushes.size(); i++) {
                    if (flushes.get(i).partComplete()[d]) {
                        first = i;
                        break;
                    }
                }
                assertThat(first)
                        .as("drive %d: a flush with its part file complete", d)
                        .isNotNegative();
                assertThat(flushes.get(first).metaInPlace()[d])
                        .as("drive %d: xl.meta renamed in before a flush covered the part file", d)
                        .isFalse();
                assertThat(flushes.getLast().metaInPlace()[d])
                        .as("drive %d: a flush after the commit's rename, before the answer", d)
                        .isTrue();
            }
        }
    }

    @Test
    void aMultipartPartIsCompleteAtAFlushBeforeUploadPartAnswers() throws Exception {
        try (ErasureObjectStore store = open("mp")) {
            store.makeBucket(B);
            String id = store.createMultipartUpload(B, "mp", PutRequest.of(-1), null);
            int before = flushes.size();
            byte[] b = body();
            store.uploadPart(B, "mp", id, 1, PutRequest.of(b.length), new ByteArrayInputStream(b));

            for (int d = 0; d < 4; d++) {
                int drive = d;
                assertThat(flushes.subList(before, flushes.size()))
                        .as("drive %d: a flush with the part complete before the answer", d)
                        .anyMatch(s -> s.partComplete()[drive]);
            }
        }
    }
}
