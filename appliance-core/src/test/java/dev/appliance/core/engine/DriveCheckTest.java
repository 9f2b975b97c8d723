package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.testing.TestStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ErasureObjectStore#checkDrives}: every refusal {@code open} would make, made before anything is written, so
 * that a refused start leaves the drives (and the directories that would have become drives) as they were.
 */
class DriveCheckTest {
    @TempDir
    Path tmp;

    private List<Path> paths(String prefix, int n) {
        return IntStream.rangeClosed(1, n)
                .mapToObj(i -> tmp.resolve(prefix + i))
                .toList();
    }

    /** Every file and directory under the temporary directory. */
    private List<Path> everything() throws IOException {
        try (Stream<Path> s = Files.walk(tmp)) {
            return s.toList();
        }
    }

    @Test
    void newDrivesStillToBeCreated_pass_andNothingIsWritten() throws IOException {
        List<Path> drives = paths("new", 4);
        ErasureObjectStore.checkDrives(StoreConfig.of(drives), true);
        assertThat(everything()).containsExactly(tmp);

        // Without leave to create them, missing directories cannot be a new deployment.
        assertThatThrownBy(() -> ErasureObjectStore.checkDrives(StoreConfig.of(drives), false))
                .hasMessageContaining("every drive must be present the first time");
        assertThat(everything()).containsExactly(tmp);
    }

    @Test
    void rootFilesystem_isRefusedNamingTheFlag_evenForDirectoriesNotCreatedYet() throws IOException {
        assumeTrue(
                Files.getFileStore(tmp).equals(Files.getFileStore(Path.of("/"))),
                "the temporary directory is on the root filesystem (it is on this machine's builds)");
        List<Path> drives = paths("root", 4);
        StoreConfig production = new StoreConfig(drives, 0, -1, false, Clock.systemUTC());
        assertThatThrownBy(() -> ErasureObjectStore.checkDrives(production, true))
                .hasMessageContaining("is on the root filesystem")
                .hasMessageContaining("--allow-root-drives");
        assertThat(everything()).containsExactly(tmp);
    }

    @Test
    void aBadParityOrAReorderedDeployment_isRefusedWithoutWriting() throws Exception {
        List<Path> drives = TestStore.on(tmp).drives();
        assertThatThrownBy(() -> ErasureObjectStore.checkDrives(
                        TestStore.on(tmp).parity(3).config(), true))
                .hasMessageContaining("parity: 3");
        TestEngine.open(TestStore.on(tmp)).close();
        List<Path> before = everything();
        List<Path> swapped = new ArrayList<>(drives);
        swapped.set(0, drives.get(1));
        swapped.set(1, drives.get(0));
        assertThatThrownBy(() -> ErasureObjectStore.checkDrives(StoreConfig.of(swapped), false))
                .hasMessageContaining("original order");
        assertThat(everything()).containsExactlyElementsOf(before);
        ErasureObjectStore.checkDrives(StoreConfig.of(drives), false); // the deployment as formatted passes
    }
}
