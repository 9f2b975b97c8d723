package dev.appliance.core.erasure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.PutRequest;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.drive.DriveFormat;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.engine.ErasureObjectStore;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyTest {
    @TempDir
    Path tmp;

    /** {@code n} new drive directories under {@code tmp/group}. */
    private List<Path> drives(String group, int n) {
        return TestStore.on(tmp.resolve(group)).drives(n).drives();
    }

    @Test
    void setSize_picksTheLargestAllowedDivisor() {
        assertThat(Topology.setSize(4, 0)).isEqualTo(4);
        assertThat(Topology.setSize(16, 0)).isEqualTo(16);
        assertThat(Topology.setSize(32, 0)).isEqualTo(16);
        assertThat(Topology.setSize(24, 0)).isEqualTo(12);
        assertThat(Topology.setSize(18, 0)).isEqualTo(9);
        assertThatThrownBy(() -> Topology.setSize(17, 0)).hasMessageContaining("17");
        assertThatThrownBy(() -> Topology.setSize(8, 3)).hasMessageContaining("set drive count: 3");
        assertThatThrownBy(() -> Topology.setSize(1, 0)).hasMessageContaining("at least 2");
    }

    @Test
    void defaultParity_followsSetSize() {
        assertThat(Topology.defaultParity(2)).isEqualTo(1);
        assertThat(Topology.defaultParity(4)).isEqualTo(2);
        assertThat(Topology.defaultParity(6)).isEqualTo(3);
        assertThat(Topology.defaultParity(8)).isEqualTo(4);
        assertThat(Topology.defaultParity(16)).isEqualTo(4);
    }

    @Test
    void firstStart_formatsEveryDriveWithItsSlot() throws Exception {
        List<Path> paths = drives("d", 8);
        try (var store = ErasureObjectStore.open(StoreConfig.of(paths))) {
            assertThat(store.setCount()).isEqualTo(1);
            assertThat(store.parity()).isEqualTo(4);
        }
        DriveFormat first = DriveFormat.fromJson(Files.readAllBytes(new LocalDrive(paths.get(0)).formatFile()));
        for (int i = 0; i < paths.size(); i++) {
            DriveFormat f = DriveFormat.fromJson(Files.readAllBytes(new LocalDrive(paths.get(i)).formatFile()));
            assertThat(f.sameDeployment(first)).isTrue();
            assertThat(f.positionOfThisDrive()).containsExactly(0, i);
        }
    }

    @Test
    void drivesInAnotherOrder_areRefusedNamingTheDrive() throws Exception {
        List<Path> paths = drives("d", 4);
        ErasureObjectStore.open(StoreConfig.of(paths)).close();
        List<Path> swapped = new ArrayList<>(paths);
        Collections.swap(swapped, 1, 2);
        assertThatThrownBy(() -> ErasureObjectStore.open(StoreConfig.of(swapped)))
                .hasMessageContaining(paths.get(2).toString())
                .hasMessageContaining("original order");
    }

    @Test
    void driveFromAnotherDeployment_isRefusedNamingTheDrive() throws Exception {
        List<Path> a = drives("a", 4);
        List<Path> b = drives("b", 4);
        ErasureObjectStore.open(StoreConfig.of(a)).close();
        ErasureObjectStore.open(StoreConfig.of(b)).close();
        List<Path> mixed = List.of(a.get(0), a.get(1), a.get(2), b.get(3));
        assertThatThrownBy(() -> ErasureObjectStore.open(StoreConfig.of(mixed)))
                .hasMessageContaining(b.get(3).toString())
                .hasMessageContaining("another deployment");
    }

    @Test
    void differentDriveCount_isRefused() throws Exception {
        List<Path> paths = drives("d", 4);
        ErasureObjectStore.open(StoreConfig.of(paths)).close();
        List<Path> more = new ArrayList<>(paths);
        more.addAll(drives("e", 4));
        assertThatThrownBy(() -> ErasureObjectStore.open(StoreConfig.of(more))).hasMessageContaining("formatted as");
    }

    @Test
    void missingDrives_areReportedAndTheServerStartsWhileReadQuorumHolds() throws Exception {
        List<Path> paths = drives("d", 4);
        try (var store = ErasureObjectStore.open(StoreConfig.of(paths))) {
            store.makeBucket("bucket");
            byte[] data = "survives".getBytes();
            store.putObject("bucket", "k", PutRequest.of(data.length), new ByteArrayInputStream(data));
        }
        LocalDrive.deleteTree(paths.get(3));
        try (var store = ErasureObjectStore.open(StoreConfig.of(paths))) {
            assertThat(store.startupWarnings())
                    .anyMatch(w -> w.contains(paths.get(3).toString()));
            assertThat(store.headObject("bucket", "k", null).size()).isEqualTo(8);
        }
        LocalDrive.deleteTree(paths.get(2));
        LocalDrive.deleteTree(paths.get(1));
        assertThatThrownBy(() -> ErasureObjectStore.open(StoreConfig.of(paths)))
                .hasMessageContaining("needs at least 2");
    }

    @Test
    void nonEmptyUnformattedDrive_isNotFormattedOver() throws Exception {
        List<Path> paths = drives("d", 4);
        Files.writeString(paths.get(2).resolve("precious.txt"), "user data");
        assertThatThrownBy(() -> ErasureObjectStore.open(StoreConfig.of(paths)))
                .hasMessageContaining(paths.get(2).toString());
        assertThat(Files.readString(paths.get(2).resolve("precious.txt"))).isEqualTo("user data");
    }

    @Test
    void sipHash24_matchesTheReferenceVector() {
        // Reference vector from the SipHash paper: key 00..0f, message 00..0e.
        byte[] msg = new byte[15];
        for (int i = 0; i < msg.length; i++) {
            msg[i] = (byte) i;
        }
        long k0 = 0x0706050403020100L;
        long k1 = 0x0f0e0d0c0b0a0908L;
        assertThat(Placement.sipHash24(k0, k1, msg)).isEqualTo(0xa129ca6149be45e5L);
    }

    @Test
    void distribution_isARotationCoveringEveryShardOnce() {
        Placement p = new Placement(java.util.UUID.randomUUID());
        for (String key : List.of("a", "b", "some/longer/key", "x".repeat(300))) {
            int[] dist = p.distribution("bucket", key, 6);
            assertThat(dist).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
            for (int i = 1; i < dist.length; i++) {
                assertThat(dist[i]).isEqualTo(dist[i - 1] % 6 + 1);
            }
        }
    }
}
