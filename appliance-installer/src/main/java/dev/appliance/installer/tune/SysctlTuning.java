package dev.appliance.installer.tune;

import dev.appliance.installer.check.SysctlRule;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The appliance's sysctl file, {@value #FILE}: every {@link SysctlRule#RECOMMENDED} parameter, at the recommended value
 * unless the running kernel already has one that meets the rule (an administrator's higher buffer is never lowered).
 * Writing only the file changes nothing until {@code sysctl --system} or the next boot loads it.
 */
public final class SysctlTuning {
    private SysctlTuning() {}

    /** Late in sysctl.d's name order, so it wins over the distribution's defaults (which use lower numbers). */
    public static final String FILE = "/etc/sysctl.d/90-appliance.conf";

    /** The file as it would be written for this host. */
    public static List<String> proposed(SystemView view) {
        List<String> lines = new ArrayList<>();
        lines.add("# Kernel settings for the appliance, written by appliance-installer tune --apply");
        lines.add("# (docs/install.md). A running value that already met the rule was kept.");
        lines.add("# Load without a reboot: sysctl --system");
        for (SysctlRule rule : SysctlRule.RECOMMENDED) {
            Optional<String> running = view.sysctl(rule.key());
            String value = running.filter(rule::satisfiedBy).orElse(rule.recommended());
            lines.add("");
            lines.add("# " + rule.key() + ": " + rule.why());
            lines.add(rule.key() + " = " + value);
        }
        return lines;
    }

    /** The file on the host now; empty when there is none. */
    public static List<String> current(SystemView view) throws IOException {
        return WholeFile.lines(view.file(FILE));
    }

    /** The change from the host's file to the proposed one, marked per line; empty when it is up to date. */
    public static List<String> diff(SystemView view) throws IOException {
        return LineDiff.of(current(view), proposed(view));
    }

    /**
     * Writes the proposed file whole or not at all: a temporary file beside it, forced to disk, renamed over it, the
     * directory forced, so a crash leaves the old file or the new one, never half of one.
     */
    public static Path apply(SystemView view) throws IOException {
        return WholeFile.replace(view.file(FILE), proposed(view));
    }
}
