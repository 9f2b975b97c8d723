package dev.appliance.installer.smart;

import static java.util.Objects.requireNonNull;

/** What reading one disk's SMART data gave. */
public sealed interface SmartReading {
    /** {@code smartctl} is not installed: no disk can be read. */
    record NotInstalled(String looked) implements SmartReading {
        public NotInstalled {
            requireNonNull(looked, "looked");
        }
    }

    /** The disk could not be read (no such device, no SMART support, a timeout, output that is not JSON). */
    record Unreadable(String why) implements SmartReading {
        public Unreadable {
            requireNonNull(why, "why");
        }
    }

    /** The disk answered. */
    record Read(SmartHealth health) implements SmartReading {
        public Read {
            requireNonNull(health, "health");
        }
    }
}
