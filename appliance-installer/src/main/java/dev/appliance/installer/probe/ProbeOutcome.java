package dev.appliance.installer.probe;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/** What probing one drive gave. */
public sealed interface ProbeOutcome {
    Path drive();

    /**
     * The drive's speed.
     *
     * @param latencyNanos the median time to write one block with O_DIRECT and sync it: what a durable commit costs
     * @param writeBytesPerSecond sequential O_DIRECT writes of {@link DriveProbe#CHUNK_BYTES}, then one sync
     * @param readBytesPerSecond the same bytes read back with O_DIRECT (from the disk, not the page cache)
     */
    record Measured(Path drive, long latencyNanos, long writeBytesPerSecond, long readBytesPerSecond)
            implements ProbeOutcome {
        public Measured {
            requireNonNull(drive, "drive");
        }
    }

    /** The filesystem refuses O_DIRECT (an older kernel's tmpfs, some network filesystems); plain I/O works. */
    record NoDirectIo(Path drive, String why) implements ProbeOutcome {
        public NoDirectIo {
            requireNonNull(drive, "drive");
            requireNonNull(why, "why");
        }
    }

    /** The drive could not be written, synced or read back as written. */
    record Failed(Path drive, String why) implements ProbeOutcome {
        public Failed {
            requireNonNull(drive, "drive");
            requireNonNull(why, "why");
        }
    }
}
