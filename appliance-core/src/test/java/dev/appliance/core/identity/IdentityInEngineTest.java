package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The identity state as the engine serves it: keyed by {@link StoreConfig#identityKey}, kept across restarts, repaired at start. */
class IdentityInEngineTest {
    @TempDir
    Path tmp;

    private List<Path> drives() throws IOException {
        List<Path> out =
                IntStream.range(0, 4).mapToObj(i -> tmp.resolve("d" + i)).toList();
        for (Path p : out) {
            Files.createDirectories(p);
        }
        return out;
    }

    @Test
    void theEngineServesTheIdentityState_keptAcrossRestarts_andRepairedAtStart() throws IOException {
        List<Path> drives = drives();
        StoreConfig config =
                new StoreConfig(drives, 0, -1, true, Clock.systemUTC()).withIdentityKey(IdentityDrives.KEY);
        NewAccessKey key;
        try (ApplianceStore store = Stores.open(config)) {
            store.identity().createUser("veeam");
            key = store.identity().createAccessKey("veeam");
        }
        Path file = drives.get(1).resolve(".appliance.sys/identity/identity.bin");
        byte[] good = Files.readAllBytes(file);
        Files.write(file, new byte[] {0});
        try (ApplianceStore store = Stores.open(config)) {
            assertThat(store.identity()
                            .credential(key.key().accessKeyId())
                            .orElseThrow()
                            .secretAccessKey())
                    .isEqualTo(key.secretAccessKey());
            assertThat(Files.readAllBytes(file)).isEqualTo(good);
        }
        // the key is not known at open (the application reads the root credential from the drives after): unlock
        try (ApplianceStore store = Stores.open(new StoreConfig(drives, 0, -1, true, Clock.systemUTC()))) {
            assertThatThrownBy(() -> store.identity().users())
                    .isInstanceOfSatisfying(IdentityException.class, e -> assertThat(e.kind())
                            .isEqualTo(IdentityException.Kind.SERVICE_FAILURE));
            store.identity().unlock(IdentityDrives.KEY);
            assertThat(store.identity().users()).extracting(User::name).containsExactly("veeam");
        }
    }

    @Test
    void anIdentityKeyOfTheWrongSize_isRefusedByTheConfig() {
        assertThatThrownBy(() -> StoreConfig.of(List.of(tmp)).withIdentityKey(new byte[16]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("identityKey: 16 bytes");
    }
}
