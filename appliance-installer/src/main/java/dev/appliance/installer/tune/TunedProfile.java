package dev.appliance.installer.tune;

import dev.appliance.installer.check.SysctlRule;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The tuned profile {@code appliance}: {@code throughput-performance}, transparent huge pages {@code madvise}, and
 * every {@link SysctlRule#RECOMMENDED} parameter, so the profile and the sysctl file ({@link SysctlTuning}) hold the
 * same values. {@code tune --apply} writes it to {@value #FILE}, which tuned prefers to the packaged copy in
 * {@code /usr/lib/tuned/appliance/}; the RPM ships {@link #standard()} (packaging/rpm/files/tuned.conf, held equal by a
 * test).
 */
public final class TunedProfile {
    private TunedProfile() {}

    public static final String FILE = "/etc/tuned/appliance/tuned.conf";

    /** The profile with every recommended value, as the RPM ships it. */
    public static List<String> standard() {
        return render(SysctlRule::recommended);
    }

    /** The profile for this host: a running value that already meets its rule is kept, as in the sysctl file. */
    public static List<String> proposed(SystemView view) {
        return render(rule -> view.sysctl(rule.key()).filter(rule::satisfiedBy).orElse(rule.recommended()));
    }

    private static List<String> render(Function<SysctlRule, String> value) {
        List<String> lines = new ArrayList<>();
        lines.add("# tuned profile for the appliance (tuned-adm profile appliance), made by appliance-installer from");
        lines.add("# the kernel settings its preflight checks (docs/install.md#tuning): throughput-performance plus");
        lines.add(
                "# the settings for many concurrent S3 connections moving large objects and a JVM with a large heap.");
        lines.add("[main]");
        lines.add("summary=Appliance object store: many connections, large transfers, a large JVM heap");
        lines.add("include=throughput-performance");
        lines.add("");
        lines.add("[vm]");
        lines.add("transparent_hugepages=madvise");
        lines.add("");
        lines.add("[sysctl]");
        for (SysctlRule rule : SysctlRule.RECOMMENDED) {
            lines.add(rule.key() + "=" + value.apply(rule));
        }
        return lines;
    }

    /** The profile on the host now; empty when there is none. */
    public static List<String> current(SystemView view) throws IOException {
        return WholeFile.lines(view.file(FILE));
    }

    public static List<String> diff(SystemView view) throws IOException {
        return LineDiff.of(current(view), proposed(view));
    }

    /** Writes the proposed profile whole or not at all. */
    public static Path apply(SystemView view) throws IOException {
        return WholeFile.replace(view.file(FILE), proposed(view));
    }
}
