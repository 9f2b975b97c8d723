package dev.appliance.core.identity;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.testing.TestStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * Real drives in a temporary directory, formatted by the engine, for opening an {@link IdentityStore} on them again and
 * again as a restart would (fresh drive objects, a fresh load). A drive is taken away by moving its directory aside
 * (and marking it out of service, as the engine's drive check does), and brought back by moving it home.
 */
final class IdentityDrives implements AutoCloseable {
    static final byte[] KEY = key(1);
    static final byte[] OTHER_KEY = key(2);

    private final Path tmp;
    private final int count;
    private final Set<Integer> away = new TreeSet<>();
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("test-drive-io-", 0).factory());
    private final DriveCalls calls =
            new DriveCalls(executor, java.time.Clock.systemUTC(), dev.appliance.core.drive.DriveSettings.DEFAULTS);
    private List<LocalDrive> drives = List.of();

    IdentityDrives(Path tmp, int count) throws IOException {
        this.tmp = tmp;
        this.count = count;
        try (ApplianceStore formatting = TestStore.on(tmp).drives(count).open()) {
            formatting.deploymentId();
        }
    }

    static byte[] key(int seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 31 + i);
        }
        return k;
    }

    List<Path> roots() {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(TestStore.on(tmp).drive(i));
        }
        return out;
    }

    Path root(int i) {
        return roots().get(i);
    }

    /** Opens the identity state as a restart does: fresh drives (those away out of service), a fresh load. */
    IdentityStore open(Clock clock, byte[] key) throws IOException {
        List<LocalDrive> fresh = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LocalDrive d = new LocalDrive(root(i));
            if (away.contains(i)) {
                d.markOffline("away (test)");
            } else {
                d.prepare();
            }
            fresh.add(d);
        }
        drives = List.copyOf(fresh);
        IdentityStore store = IdentityStore.open(drives, calls, clock, key);
        store.repair();
        return store;
    }

    /** Moves drive {@code i} aside; {@code noticed}: also out of service (else writes to it fail when tried). */
    void takeAway(int i, boolean noticed) throws IOException {
        Files.move(root(i), tmp.resolve("drive" + i + ".away"));
        away.add(i);
        if (noticed && !drives.isEmpty()) {
            drives.get(i).markOffline("away (test)");
        }
    }

    /** Moves drive {@code i} home and, while a store is open, back into service (as the drive check does). */
    void bringBack(int i) throws IOException {
        Files.move(tmp.resolve("drive" + i + ".away"), root(i));
        away.remove(i);
        if (!drives.isEmpty()) {
            drives.get(i).prepare();
            drives.get(i).markOnline();
        }
    }

    Set<Integer> away() {
        return Set.copyOf(away);
    }

    Path identityFile(int i) {
        return root(i).resolve(".appliance.sys").resolve(IdentityStore.DIR).resolve(IdentityStore.FILE);
    }

    /** Every regular file under every drive root (away drives included), for greps. */
    List<Path> allFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(tmp)) {
            s.filter(Files::isRegularFile).forEach(out::add);
        }
        return out;
    }

    @Override
    public void close() {
        executor.close();
    }
}
