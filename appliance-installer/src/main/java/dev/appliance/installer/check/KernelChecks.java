package dev.appliance.installer.check;

import dev.appliance.core.objectlock.HostTimeSync;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Network and kernel settings, the service's open-file limit, the clock source and time synchronisation. */
final class KernelChecks {
    private KernelChecks() {}

    /** Open files the service needs: a shard file per drive for every request in flight, plus connections. */
    static final long OPEN_FILES = 1_048_576;

    /** The systemd unit the package installs, and where systemd looks for it (the first found wins). */
    static final String UNIT = "appliance.service";

    /** The hard open-file limit systemd gives a unit that sets none (since systemd 240). */
    static final long SYSTEMD_DEFAULT_HARD = 524_288;

    private static final List<String> UNIT_DIRS = List.of("/etc/systemd/system", "/usr/lib/systemd/system");

    static List<Check> run(SystemView view) {
        List<Check> checks = new ArrayList<>();
        for (SysctlRule rule : SysctlRule.RECOMMENDED) {
            if (rule.key().startsWith("net.")) {
                checks.add(sysctl(view, rule));
            }
        }
        checks.add(clocksource(view));
        checks.add(openFiles(view));
        checks.add(timeSync(view));
        return checks;
    }

    /** One check of a tuned kernel parameter; its id is the parameter's name. */
    static Check sysctl(SystemView view, SysctlRule rule) {
        Optional<String> value = view.sysctl(rule.key());
        return Check.of(
                rule.key(),
                value.isPresent() && rule.satisfiedBy(value.get()) ? Result.PASS : Result.WARN,
                value.orElse("unknown: /proc/sys/" + rule.key().replace('.', '/') + " unreadable"),
                rule.expected(),
                "./appliance installer tune --apply, then sysctl --system (or now: sysctl -w " + rule.key() + "=\""
                        + rule.recommended() + "\"); why: " + rule.why());
    }

    private static Check openFiles(SystemView view) {
        String expected = ">= " + OPEN_FILES;
        String remediation = "LimitNOFILE=" + OPEN_FILES + " in the " + UNIT + " unit (the packaged unit sets it;"
                + " a drop-in: systemctl edit appliance); for a server started from a shell raise the nofile limits"
                + " in /etc/security/limits.d/ and log in again";
        Optional<UnitLimit> unit = unitLimit(view);
        long limit;
        String source;
        if (unit.isPresent()) {
            limit = unit.get().limit();
            source = unit.get().source();
        } else {
            Optional<Long> own = ownLimit(view);
            if (own.isEmpty()) {
                return Check.of(
                        "limits.open-files",
                        Result.WARN,
                        "unknown: no " + UNIT + " and /proc/self/limits unreadable",
                        expected,
                        remediation);
            }
            limit = own.get();
            // The JVM raises its soft limit to the hard one at start, so this is what a server started here gets.
            source = "what a server started from this shell gets; no " + UNIT + " installed";
        }
        return Check.of(
                "limits.open-files",
                limit >= OPEN_FILES ? Result.PASS : Result.WARN,
                (limit == Long.MAX_VALUE ? "unlimited" : Long.toString(limit)) + " (" + source + ")",
                expected,
                remediation);
    }

    /** @param source where the limit in force was set, for the report */
    record UnitLimit(long limit, String source) {}

    /**
     * {@code LimitNOFILE} of the installed unit: the unit file systemd loads (/etc before /usr/lib), then its drop-ins
     * in name order, the last setting winning. Of {@code SOFT:HARD} the hard limit counts: the JVM raises its soft
     * limit to the hard one at start ({@code -XX:+MaxFDLimit}, on by default). {@code infinity} is unlimited.
     */
    static Optional<UnitLimit> unitLimit(SystemView view) {
        List<Path> files = new ArrayList<>();
        for (String dir : UNIT_DIRS) {
            if (Files.isRegularFile(view.file(dir + "/" + UNIT))) {
                files.add(view.file(dir + "/" + UNIT));
                break;
            }
        }
        if (files.isEmpty()) {
            return Optional.empty();
        }
        for (String dir : UNIT_DIRS) {
            Path dropIns = view.file(dir + "/" + UNIT + ".d");
            if (Files.isDirectory(dropIns)) {
                try (Stream<Path> s = Files.list(dropIns)) {
                    s.filter(p -> p.getFileName().toString().endsWith(".conf"))
                            .sorted()
                            .forEach(files::add);
                } catch (IOException e) { // an unreadable drop-in directory: judge the unit alone
                }
            }
        }
        UnitLimit found = null;
        for (Path f : files) {
            try {
                for (String line : Files.readAllLines(f)) {
                    String s = line.strip();
                    if (s.startsWith("LimitNOFILE=")) {
                        String[] softHard = s.substring("LimitNOFILE=".length()).split(":");
                        String hard = softHard[softHard.length - 1].strip();
                        long limit = hard.equals("infinity") ? Long.MAX_VALUE : Long.parseLong(hard);
                        found = new UnitLimit(
                                limit, "LimitNOFILE in /" + view.root().relativize(f));
                    }
                }
            } catch (IOException | NumberFormatException e) { // unreadable or malformed: systemd ignores it too
            }
        }
        return found == null
                ? Optional.of(new UnitLimit(
                        SYSTEMD_DEFAULT_HARD, UNIT + " sets no LimitNOFILE: systemd's default 1024:524288"))
                : Optional.of(found);
    }

    /** The hard "Max open files" of {@code /proc/self/limits} (soft, hard, unit), which a started JVM raises to. */
    static Optional<Long> ownLimit(SystemView view) {
        for (String line : view.lines("/proc/self/limits")) {
            if (line.startsWith("Max open files")) {
                String[] f = line.substring("Max open files".length()).strip().split("\\s+");
                String hard = f.length > 1 ? f[1] : f[0];
                try {
                    return Optional.of(hard.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(hard));
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    private static Check clocksource(SystemView view) {
        String dir = "/sys/devices/system/clocksource/clocksource0/";
        Optional<String> current = view.read(dir + "current_clocksource");
        String available = view.read(dir + "available_clocksource").orElse("unknown");
        return Check.of(
                "kernel.clocksource",
                current.isPresent() && current.get().equals("tsc") ? Result.PASS : Result.WARN,
                current.map(c -> c + " (available: " + available + ")").orElse("unknown: " + dir + " unreadable"),
                "tsc",
                "if tsc is available, switch now (echo tsc > " + dir + "current_clocksource) and keep it with"
                        + " 'clocksource=tsc tsc=reliable' on the kernel command line (grubby --update-kernel=ALL"
                        + " --args=...); other sources make every timestamp a slow hardware read, and a kernel that"
                        + " marked the TSC unstable (dmesg | grep -i tsc) needs a BIOS or hypervisor fix first");
    }

    private static Check timeSync(SystemView view) {
        HostTimeSync.State state = view.timeSync();
        Result result =
                switch (state) {
                    case SYNCHRONIZED -> Result.PASS;
                    case UNSYNCHRONIZED -> Result.FAIL;
                    case UNKNOWN -> Result.WARN;
                };
        String measured =
                switch (state) {
                    case SYNCHRONIZED -> "synchronised (the kernel's NTP state)";
                    case UNSYNCHRONIZED -> "not synchronised (the kernel's NTP state)";
                    case UNKNOWN -> "unknown: the kernel's NTP state cannot be read here";
                };
        return Check.of(
                "time.sync",
                result,
                measured,
                "synchronised by chrony or another NTP client",
                "dnf install chrony && systemctl enable --now chronyd, then chronyc tracking (timedatectl shows"
                        + " 'System clock synchronized: yes'): Object Lock retention is judged against this clock,"
                        + " and an unsynchronised clock is not trusted to move retention forward"
                        + " (docs/object-lock.md)");
    }
}
