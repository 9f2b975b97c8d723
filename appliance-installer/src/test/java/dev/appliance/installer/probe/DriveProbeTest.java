package dev.appliance.installer.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe on real directories, on whatever filesystems this machine has. */
class DriveProbeTest {
    @TempDir
    Path tmp;

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    @Test
    void aWritableDrive_isMeasured_orReportedWithoutODirect_andTheProbeFileIsGone() throws IOException {
        ProbeOutcome o = DriveProbe.probe(tmp);
        // most filesystems take O_DIRECT; an overlay or an old tmpfs refuses it, which is a warning, never a crash
        assertThat(o).isInstanceOfAny(ProbeOutcome.Measured.class, ProbeOutcome.NoDirectIo.class);
        if (o instanceof ProbeOutcome.Measured m) {
            assertThat(m.latencyNanos()).isPositive();
            assertThat(m.writeBytesPerSecond()).isPositive();
            assertThat(m.readBytesPerSecond()).isPositive();
        }
        assertThat(o.drive()).isEqualTo(tmp);
        assertThat(isEmpty(tmp)).isTrue();
    }

    @Test
    void onTmpfs_theProbeMeasuresOrWarns_neverFails() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm (tmpfs) on this machine");
        Path dir = Files.createTempDirectory(shm, "probe-test-");
        try {
            ProbeOutcome o = DriveProbe.probe(dir);
            assertThat(o).isInstanceOfAny(ProbeOutcome.Measured.class, ProbeOutcome.NoDirectIo.class);
            if (o instanceof ProbeOutcome.NoDirectIo n) {
                assertThat(n.why()).startsWith("the filesystem refuses O_DIRECT");
            }
            assertThat(isEmpty(dir)).isTrue();
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void aDirectoryThatIsNotThere_fails() {
        Path missing = tmp.resolve("missing");
        ProbeOutcome o = DriveProbe.probe(missing);
        assertThat(o).isInstanceOf(ProbeOutcome.Failed.class);
        assertThat(((ProbeOutcome.Failed) o).why()).startsWith("cannot write a file there: ");
    }

    /**
     * The probe's buffer holds one chunk exactly, wherever the allocation lands: with a block of 1 every allocation is
     * aligned already, the case that made the last chunk's read run past the end of the file ("the file ended at
     * 33554432 of 33554432 bytes written", seen under load).
     */
    @Test
    void theAlignedBufferHoldsExactlyTheChunk_alsoWhenTheAllocationWasAlignedAlready() {
        for (int block : new int[] {1, 512, 4096}) {
            var buf = DriveProbe.aligned(DriveProbe.CHUNK_BYTES, block);
            assertThat(buf.capacity()).as("block %d", block).isEqualTo(DriveProbe.CHUNK_BYTES);
            assertThat(buf.clear().remaining()).isEqualTo(DriveProbe.CHUNK_BYTES);
            assertThat(buf.alignmentOffset(0, block)).isZero();
        }
    }
}
