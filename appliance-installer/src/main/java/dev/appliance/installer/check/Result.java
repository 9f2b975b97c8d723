package dev.appliance.installer.check;

import java.util.Collection;
import java.util.Locale;

/** A check's verdict, in increasing severity; the installer exits with the worst one's {@link #exitCode()}. */
public enum Result {
    /** Meets the expectation. */
    PASS,
    /** Works, but slower, less robust or harder to operate than it should be. */
    WARN,
    /** Not fit to hold backups until fixed. */
    FAIL;

    /** {@code pass}, {@code warn}, {@code fail}: how the report and the JSON spell it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** 0 pass, 1 warn, 2 fail. */
    public int exitCode() {
        return ordinal();
    }

    public static Result worst(Collection<Check> checks) {
        Result worst = PASS;
        for (Check c : checks) {
            if (c.result().compareTo(worst) > 0) {
                worst = c.result();
            }
        }
        return worst;
    }
}
