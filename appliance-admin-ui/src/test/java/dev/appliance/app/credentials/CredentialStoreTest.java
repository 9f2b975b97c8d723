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
    private static final CredentialStore.Display NO_DISPLAY = (c, again) -> {};

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
        var firstStore = new CredentialStore(drives, deployment, config);
        var first = firstStore.resolve(Map.of(), NO_DISPLAY);
        assertThat(first.generated()).isTrue();
        firstStore.confirmShown();
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

        var second = new CredentialStore(drives, deployment, config).resolve(Map.of(), NO_DISPLAY);
        assertThat(second.generated()).isFalse();
        assertThat(second.credentials()).isEqualTo(first.credentials());
    }

    @Test
    void environment_winsAndMustNameBothValues() throws Exception {
        List<LocalDrive> drives = drives();
        var store = new CredentialStore(drives, UUID.randomUUID(), tmp.resolve("config"));
        var env = store.resolve(
                Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "s3cretpassword"), NO_DISPLAY);
        assertThat(env.credentials()).isEqualTo(new RootCredentials("admin", "s3cretpassword"));
        assertThat(env.generated()).isFalse();
        assertThatThrownBy(() -> store.resolve(Map.of("APPLIANCE_ROOT_USER", "admin"), NO_DISPLAY))
                .hasMessageContaining("both");
        assertThatThrownBy(() -> store.resolve(
                        Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "short"), NO_DISPLAY))
                .hasMessageContaining("8 to 128");
    }

    @Test
    void missingKey_isExplainedNotGuessed() throws Exception {
        List<LocalDrive> drives = drives();
        UUID deployment = UUID.randomUUID();
        new CredentialStore(drives, deployment, tmp.resolve("config")).resolve(Map.of(), NO_DISPLAY);
        assertThatThrownBy(() ->
                        new CredentialStore(drives, deployment, tmp.resolve("elsewhere")).resolve(Map.of(), NO_DISPLAY))
                .hasMessageContaining("APPLIANCE_ROOT_USER");
    }

    @Test
    void environment_isCheckedWithoutTouchingAnything() {
        assertThat(CredentialStore.fromEnvironment(Map.of())).isEmpty();
        assertThat(CredentialStore.fromEnvironment(
                        Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "s3cretpassword")))
                .contains(new RootCredentials("admin", "s3cretpassword"));
        assertThatThrownBy(() -> CredentialStore.fromEnvironment(Map.of("APPLIANCE_ROOT_PASSWORD", "s3cretpassword")))
                .hasMessageContaining("both");
        assertThatThrownBy(() -> CredentialStore.fromEnvironment(
                        Map.of("APPLIANCE_ROOT_USER", "ab", "APPLIANCE_ROOT_PASSWORD", "s3cretpassword")))
                .hasMessageContaining("3 to 128");
        assertThatThrownBy(() -> CredentialStore.fromEnvironment(
                        Map.of("APPLIANCE_ROOT_USER", "admin", "APPLIANCE_ROOT_PASSWORD", "1234567")))
                .hasMessageContaining("8 to 128");
    }

    @Test
    void generatedCredentials_areShownBeforeTheyAreStored_andAgainUntilTheStartFinishes() throws Exception {
        List<LocalDrive> drives = drives();
        UUID deployment = UUID.randomUUID();
        Path config = tmp.resolve("config");
        List<String> shown = new java.util.ArrayList<>();
        var first = new CredentialStore(drives, deployment, config).resolve(Map.of(), (c, again) -> {
            for (LocalDrive d : drives) {
                assertThat(d.sysDir().resolve("config/root-credentials.enc"))
                        .as("nothing stored before the operator was shown the credentials")
                        .doesNotExist();
            }
            shown.add((again ? "again " : "new ") + c.secretKey());
        });
        assertThat(shown).containsExactly("new " + first.credentials().secretKey());

        // The start died before it finished (no confirmShown): the next start shows the stored ones again.
        var restart = new CredentialStore(drives, deployment, config);
        var second = restart.resolve(Map.of(), (c, again) -> shown.add((again ? "again " : "new ") + c.secretKey()));
        assertThat(second.credentials()).isEqualTo(first.credentials());
        assertThat(second.generated()).isTrue();
        assertThat(shown)
                .containsExactly(
                        "new " + first.credentials().secretKey(),
                        "again " + first.credentials().secretKey());

        // That start finished: from now on only the user is named.
        restart.confirmShown();
        var third = new CredentialStore(drives, deployment, config)
                .resolve(Map.of(), (c, again) -> shown.add("unexpected " + c.secretKey()));
        assertThat(third.generated()).isFalse();
        assertThat(third.credentials()).isEqualTo(first.credentials());
        assertThat(shown).hasSize(2);
    }
}
