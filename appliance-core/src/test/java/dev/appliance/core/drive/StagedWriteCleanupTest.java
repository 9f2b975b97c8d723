package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A durable write that fails after staging its file leaves nothing in staging (found beside a failing drive's PUT). */
class StagedWriteCleanupTest {
    @TempDir
    Path dir;

    private LocalDrive drive;

    @BeforeEach
    void prepare() throws IOException {
        drive = new LocalDrive(dir);
        drive.prepare();
    }

    @Test
    void aWriteWhoseDirectoryCannotBeCreated_leavesNoStagedFile() throws IOException {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> drive.writeDurably(notADirectory.resolve("child.json"), new byte[] {1, 2, 3}))
                .isInstanceOf(IOException.class);
        assertThat(staging()).isEmpty();
    }

    @Test
    void aReplacementWhoseRenameFails_leavesNoStagedFile() throws IOException {
        Path missingParent = dir.resolve("no-such-dir").resolve("xl.meta");
        assertThatThrownBy(() -> drive.replaceFile(missingParent, ByteBuffer.wrap(new byte[] {4, 5, 6})))
                .isInstanceOf(IOException.class);
        assertThat(staging()).isEmpty();
    }

    private java.util.List<Path> staging() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(LocalDrive.SYS_DIR).resolve("tmp"))) {
            return s.toList();
        }
    }
}
