package dev.appliance.app.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.drive.LocalDrive;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialStoreTest {
    @TempDir
    Path tmp;

    private List<LocalDrive> drives() throws Exception {
        List<LocalDrive> drives = IntStream.rangeClosed(1, 4)
                .mapToObj(i -> new LocalDrive(tmp.resolve("d" + i)))
                .toList();
        for (LocalDrive d : drives) {
            d.prepare();
        }
        return drives;
    }

    @Test
    void firstStart_generatesStrongCredentialsAndKeepsThemEncrypted() throws Exception {
        List<LocalDrive> drives = drives();
        UUID deployment = UUID.randomUUID();
        Path config = tmp.resolve("config");
        var first = new CredentialStore(drives, deployment, config).resolve(Map.of());
        assertThat(first.generated()).isTrue();
        assertThat(first.credentials().accessKey()).hasSize(20);
        assertThat(first.credentials().secretKey()).hasSize(40);

        for (LocalDrive d : drives) {
            byte[] blob = Files.readAllBytes(d.sysDir().resolve("config/root-credentials.enc"));
            assertThat(new String(blob, StandardCharsets.ISO_8859_1))
                    .doesNotContain(first.credentials().secretKey())
                    .doesNotContain(first.credentials().accessKey());
        }
        Path key = config.resolve("keys").resolve(deployment + ".key");
        assertThat(Files.getPosixFilePermissions(key))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

        var second = new CredentialStore(drives, deployment, config).resolve(Map.of());
        assertThat(second.generated()).isFalse();
        assertThat(second.credentials()).isEqualTo(first.credentials());
    }

    @Test
    void environment_winsAndMustNameBothValues() throws Exception {
        List<LocalDrive> drives = drives();
        var store = new CredentialStore(drives, UUID.randomUUID(), tmp.resolve("config"));
        var env = store.resolve(Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "s3cretpassword"));
        assertThat(env.credentials()).isEqualTo(new RootCredentials("admin", "s3cretpassword"));
        assertThat(env.generated()).isFalse();
        assertThatThrownBy(() -> store.resolve(Map.of("APPLIANCE_ROOT_USER", "admin")))
                .hasMessageContaining("both");
        assertThatThrownBy(
                        () -> store.resolve(Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "short")))
                .hasMessageContaining("8 to 128");
    }

    @Test
    void missingKey_isExplainedNotGuessed() throws Exception {
        List<LocalDrive> drives = drives();
        UUID deployment = UUID.randomUUID();
        new CredentialStore(drives, deployment, tmp.resolve("config")).resolve(Map.of());
        assertThatThrownBy(() -> new CredentialStore(drives, deployment, tmp.resolve("elsewhere")).resolve(Map.of()))
                .hasMessageContaining("APPLIANCE_ROOT_USER");
    }
}
