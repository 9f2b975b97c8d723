package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata journal: rewrites land in place once journaled, a checkpoint empties the journal, and recovery after a
 * simulated power loss (a journal written, files not yet written back) restores exactly the rewrites whose file is
 * still the one they overwrote, and nothing else.
 */
class MetadataJournalTest {
    @TempDir
    Path tmp;

    LocalDrive drive;
    Path meta;

    @BeforeEach
    void setUp() throws IOException {
        drive = new LocalDrive(tmp.resolve("disk1"));
        Files.createDirectories(drive.root());
        drive.prepare();
        meta = drive.root().resolve("bucket/key/xl.meta");
        drive.writeDurably(meta, bytes("version 1"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer buffer(String s) {
        return ByteBuffer.wrap(bytes(s));
    }

    private Path journalDir() {
        return drive.sysDir().resolve("journal");
    }

    /** Writes what a crash would leave: a segment holding records, as the journal writes them. */
    private void crashWith(long epoch, byte[]... records) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MetadataJournal.header(epoch));
        for (byte[] r : records) {
            out.writeBytes(r);
        }
        Files.createDirectories(journalDir());
        Files.write(journalDir().resolve("meta-" + (epoch % 2)), out.toByteArray());
    }

    private byte[] recordFor(Path file, String content) throws IOException {
        boolean birth = MetadataJournal.probeBirthTime(Files.createDirectories(journalDir()));
        return MetadataJournal.record(
                drive.root().relativize(file).toString(), MetadataJournal.identity(file, birth), bytes(content));
    }

    private String read(Path file) throws IOException {
        return Files.readString(file);
    }

    @Test
    void replace_rewritesInPlace_andCheckpointEmptiesTheJournal() throws IOException {
        long inode = (Long) Files.getAttribute(meta, "unix:ino");
        try (MetadataJournal j = MetadataJournal.open(drive)) {
            j.replace(meta, buffer("version 1 with retention until 2027"));
            assertThat(read(meta)).isEqualTo("version 1 with retention until 2027");
            j.replace(meta, buffer("v1 shorter"));
            assertThat(read(meta)).isEqualTo("v1 shorter");
            assertThat((Long) Files.getAttribute(meta, "unix:ino"))
                    .as("same file")
                    .isEqualTo(inode);
            assertThat(j.size()).isPositive();
            j.checkpoint();
            assertThat(j.size()).isZero();
            j.replace(meta, buffer("after the checkpoint"));
            assertThat(j.size()).isPositive();
        }
        assertThat(read(meta)).isEqualTo("after the checkpoint");
        assertThat(Files.size(journalDir().resolve("meta-0"))
                        + Files.size(journalDir().resolve("meta-1")))
                .as("closing checkpoints")
                .isZero();
    }

    @Test
    void recover_restoresARewriteThatNeverReachedTheFile() throws IOException {
        crashWith(7, recordFor(meta, "retention extended"));
        try (MetadataJournal j = MetadataJournal.open(drive)) {
            assertThat(read(meta)).isEqualTo("retention extended");
            assertThat(j.size()).isZero();
        }
    }

    @Test
    void recover_restoresATornFile_withTheLastRecordOfIt() throws IOException {
        byte[] first = recordFor(meta, "first rewrite");
        byte[] second = recordFor(meta, "second rewrite");
        // the in-place write of the second rewrite was cut: a mix of old and new bytes, same inode
        Files.write(meta, bytes("secoversion 1"), java.nio.file.StandardOpenOption.WRITE);
        crashWith(3, first, second);
        MetadataJournal.open(drive).close();
        assertThat(read(meta)).isEqualTo("second rewrite");
    }

    @Test
    void recover_leavesAFileReplacedOrDeletedAfterTheRewrite() throws IOException {
        Path other = drive.root().resolve("bucket/other/xl.meta");
        drive.writeDurably(other, bytes("other v1"));
        byte[] rewriteMeta = recordFor(meta, "rewrite of meta");
        byte[] rewriteOther = recordFor(other, "rewrite of other");
        // after the rewrites: meta replaced by a durable write (a new version: new inode), other deleted
        drive.writeDurably(meta, bytes("version 2 written durably"));
        Files.delete(other);
        crashWith(1, rewriteMeta, rewriteOther);
        MetadataJournal.open(drive).close();
        assertThat(read(meta)).isEqualTo("version 2 written durably");
        assertThat(other).doesNotExist();
    }

    @Test
    void recover_ordersSegmentsByEpoch_andIgnoresATornTail() throws IOException {
        byte[] older = recordFor(meta, "older");
        byte[] newer = recordFor(meta, "newer");
        byte[] torn = recordFor(meta, "never acknowledged");
        crashWith(4, newer, Arrays.copyOf(torn, torn.length - 3)); // meta-0, epoch 4
        crashWith(3, older); // meta-1, epoch 3: older, though its file name sorts after
        try (MetadataJournal j = MetadataJournal.open(drive)) {
            assertThat(read(meta)).isEqualTo("newer");
            // epochs continue past the newest seen, so a later crash orders correctly again
            j.replace(meta, buffer("after restart"));
        }
        assertThat(read(meta)).isEqualTo("after restart");
    }

    @Test
    void recover_neverWritesOutsideTheObjectSpace() throws IOException {
        Path outside = tmp.resolve("outside");
        Files.writeString(outside, "canary");
        Path format = drive.formatFile();
        Files.writeString(format, "{}");
        // Records that name the real files with their real identities: only the path check keeps them out.
        boolean birth = MetadataJournal.probeBirthTime(Files.createDirectories(journalDir()));
        crashWith(
                1,
                recordFor(outside, "escaped"),
                recordFor(format, "replaced"),
                MetadataJournal.record(
                        outside.toString(), MetadataJournal.identity(outside, birth), bytes("absolute")));
        MetadataJournal.open(drive).close();
        assertThat(read(outside)).isEqualTo("canary");
        assertThat(read(format)).isEqualTo("{}");
    }

    @Test
    void records_stopAtTheFirstDamagedRecord() throws IOException {
        byte[] a = recordFor(meta, "a");
        byte[] b = recordFor(meta, "b");
        byte[] c = recordFor(meta, "c");
        b[b.length - 1] ^= 1; // content changed after its CRC
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MetadataJournal.header(1));
        out.writeBytes(a);
        out.writeBytes(b);
        out.writeBytes(c);
        List<MetadataJournal.Record> records = MetadataJournal.records(out.toByteArray());
        assertThat(records).hasSize(1);
        assertThat(records.getFirst().content()).isEqualTo(bytes("a"));
    }

    @Test
    void concurrentRewritesAndCheckpoints_endWithEveryFileAtItsLastContent() throws Exception {
        int files = 32;
        int rounds = 40;
        List<Path> paths = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            Path p = drive.root().resolve("bucket/k" + i + "/xl.meta");
            drive.writeDurably(p, bytes("start " + i));
            paths.add(p);
        }
        AtomicBoolean running = new AtomicBoolean(true);
        try (MetadataJournal j = MetadataJournal.open(drive)) {
            Thread checkpoints = Thread.ofPlatform().start(() -> {
                while (running.get()) {
                    try {
                        j.checkpoint();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            });
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < files; i++) {
                    int f = i;
                    done.add(pool.submit(() -> {
                        for (int r = 1; r <= rounds; r++) {
                            j.replace(paths.get(f), buffer("file " + f + " round " + r + " " + "x".repeat(r * 7)));
                        }
                        return null;
                    }));
                }
                for (Future<?> d : done) {
                    d.get();
                }
            } finally {
                running.set(false);
                checkpoints.join();
            }
        }
        for (int i = 0; i < files; i++) {
            assertThat(read(paths.get(i))).isEqualTo("file " + i + " round " + rounds + " " + "x".repeat(rounds * 7));
        }
    }
}
