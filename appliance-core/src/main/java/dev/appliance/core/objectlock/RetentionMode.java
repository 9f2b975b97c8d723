package dev.appliance.core.objectlock;

import java.util.Optional;

/** S3's two retention modes. */
public enum RetentionMode {
    /** Protected unless the caller asks to bypass governance retention and is allowed to. */
    GOVERNANCE,
    /** Protected from everyone, root included, until the retain-until date; may only be extended. */
    COMPLIANCE;

    /** The mode S3 names {@code name} (exact, upper case), or empty. */
    public static Optional<RetentionMode> forName(String name) {
        for (RetentionMode m : values()) {
            if (m.name().equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
