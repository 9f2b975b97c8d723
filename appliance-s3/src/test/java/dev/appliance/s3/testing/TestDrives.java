package dev.appliance.s3.testing;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.StoreConfig;
import dev.appliance.core.engine.Stores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A real erasure-coded store on four drive directories ({@code drive1} … {@code drive4}) under a folder. */
public final class TestDrives {
    public static final int DRIVES = 4;

    private TestDrives() {}

    /** The drive directories under {@code root}, created if absent. */
    public static List<Path> create(Path root) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (int i = 1; i <= DRIVES; i++) {
            dirs.add(Files.createDirectories(root.resolve("drive" + i)));
        }
        return dirs;
    }

    /** Opens a store on four drives under {@code root}. */
    public static ObjectStore openStore(Path root) throws IOException {
        return Stores.open(StoreConfig.of(create(root)));
    }
}
