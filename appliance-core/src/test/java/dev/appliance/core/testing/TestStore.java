package dev.appliance.core.testing;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.drive.TestDriveSettings;
import dev.appliance.core.engine.Stores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The one way tests lay out and open a real store: drive directories {@code drive1} … {@code driveN} under a folder
 * (usually a JUnit {@code @TempDir}), and the {@link StoreConfig} over them. Defaults are those of {@link
 * StoreConfig#of}: four drives, one set, default parity, the system clock, the metadata journal on; but drives are
 * checked only when a test asks ({@link #driveSettings}).
 *
 * <pre>{@code
 * ApplianceStore store = TestStore.on(tmp).drives(6).parity(2).clock(clock).open();
 * }</pre>
 *
 * Engine tests that need the concrete store pass its opener: {@code TestStore.on(tmp).open(ErasureObjectStore::open)}.
 * Every call to {@link #drives()} or an {@code open} gives the same directories, so a test reopens a store by opening
 * the same builder again.
 */
public final class TestStore {
    /** The name of a drive directory before its 1-based number. */
    public static final String DRIVE_PREFIX = "drive";

    private final Path root;
    private int driveCount = 4;
    private int setDriveCount = 0;
    private int parity = -1;
    private Clock clock = Clock.systemUTC();
    private boolean metadataJournal = true;
    private DriveSettings driveSettings = TestDriveSettings.MANUAL_CHECKS;
    private List<Path> created;

    private TestStore(Path root) {
        this.root = requireNonNull(root, "root");
    }

    /** A store whose drives are directories directly under {@code root}. */
    public static TestStore on(Path root) {
        return new TestStore(root);
    }

    public TestStore drives(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("drives: " + count + " (expected at least 1)");
        }
        this.driveCount = count;
        this.created = null;
        return this;
    }

    /** Drives per erasure set; 0 (the default) lets the engine pick. */
    public TestStore setDriveCount(int drivesPerSet) {
        this.setDriveCount = drivesPerSet;
        return this;
    }

    /** Parity shards per set; -1 (the default) lets the engine pick. */
    public TestStore parity(int parity) {
        this.parity = parity;
        return this;
    }

    public TestStore clock(Clock clock) {
        this.clock = requireNonNull(clock, "clock");
        return this;
    }

    public TestStore metadataJournal(boolean enabled) {
        this.metadataJournal = enabled;
        return this;
    }

    /**
     * Drive call deadlines, fault thresholds and the drive check interval; by default {@link
     * TestDriveSettings#MANUAL_CHECKS}: no periodic check, which would take drives a test moved away for a moment out
     * of service at random.
     */
    public TestStore driveSettings(DriveSettings settings) {
        this.driveSettings = requireNonNull(settings, "settings");
        return this;
    }

    /** The folder the drive directories are in. */
    public Path root() {
        return root;
    }

    /** The directory of the drive at {@code position} (0-based, the order of {@link #drives()}); not created. */
    public Path drive(int position) {
        return root.resolve(DRIVE_PREFIX + (position + 1));
    }

    /**
     * The drive directories in order. The first call creates them; later calls do not, so that a drive a test has
     * removed or taken {@link #away} stays missing when the store is opened again.
     */
    public List<Path> drives() {
        if (created == null) {
            List<Path> dirs = new ArrayList<>(driveCount);
            for (int i = 0; i < driveCount; i++) {
                Path dir = drive(i);
                if (!Files.exists(awayPath(dir))) {
                    try {
                        Files.createDirectories(dir);
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot create the drive directory " + dir, e);
                    }
                }
                dirs.add(dir);
            }
            created = List.copyOf(dirs);
        }
        return created;
    }

    /** How the engine is told to open {@link #drives()}. */
    public StoreConfig config() {
        return new StoreConfig(drives(), setDriveCount, parity, true, clock, metadataJournal, driveSettings, null);
    }

    /** Opens (formatting on first use) the store on {@link #drives()}, its background agents started. */
    public ApplianceStore open() {
        return Stores.open(config());
    }

    /** Opens the store with {@code opener} (an engine test's way to the concrete store and its test hooks). */
    public <S> S open(Function<StoreConfig, S> opener) {
        return opener.apply(config());
    }

    /** Where {@link #away} keeps a drive's directory. */
    public static Path awayPath(Path drive) {
        return drive.resolveSibling(drive.getFileName() + ".away");
    }

    /**
     * Makes a drive unreachable the way an unmounted disk is: its directory is gone until {@link #back}. Works whether
     * a store is open or not.
     */
    public static void away(Path drive) throws IOException {
        Files.move(drive, awayPath(drive));
    }

    public static void back(Path drive) throws IOException {
        Files.move(awayPath(drive), drive);
    }
}
