package dev.appliance.core.objectlock;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps the retention clock's newest trusted time on every drive ({@value #FILE} in each drive's system directory,
 * epoch millis in decimal); the newest readable copy wins at start, so a drive that was away with an older time, or a
 * damaged copy, never sets the clock back.
 */
public final class RetentionClockFiles implements RetentionClock.Store {
    /** The file on every drive that keeps the newest trusted time of the retention clock. */
    public static final String FILE = "retention-clock";

    private final List<LocalDrive> drives;

    public RetentionClockFiles(List<LocalDrive> drives) {
        this.drives = List.copyOf(requireNonNull(drives, "drives"));
    }

    @Override
    public long load() {
        long newest = Long.MIN_VALUE;
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                continue;
            }
            Path f = d.sysDir().resolve(FILE);
            try {
                if (Files.exists(f)) {
                    newest = Math.max(
                            newest,
                            Long.parseLong(new String(Files.readAllBytes(f), StandardCharsets.US_ASCII).strip()));
                }
            } catch (IOException | NumberFormatException e) {
                // a damaged copy: the other drives decide
            }
        }
        return newest;
    }

    @Override
    public void save(long epochMillis) {
        byte[] text = Long.toString(epochMillis).getBytes(StandardCharsets.US_ASCII);
        for (LocalDrive d : drives) {
            if (d.isOnline()) {
                try {
                    d.writeDurably(d.sysDir().resolve(FILE), text);
                } catch (IOException e) {
                    // best effort: the other drives keep it
                }
            }
        }
    }
}
