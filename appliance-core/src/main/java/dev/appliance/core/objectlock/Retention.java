package dev.appliance.core.objectlock;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/** The retention of one object version: a mode and the instant until which it holds. */
public record Retention(RetentionMode mode, Instant retainUntil) {
    public Retention {
        requireNonNull(mode, "mode");
        requireNonNull(retainUntil, "retainUntil");
    }

    /** True while the retention protects the version at {@code now}. */
    public boolean activeAt(Instant now) {
        return retainUntil.isAfter(now);
    }
}
