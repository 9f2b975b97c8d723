package dev.appliance.installer;

import dev.appliance.installer.check.Check;
import dev.appliance.installer.check.NodeFacts;
import dev.appliance.installer.check.NodeRules;
import dev.appliance.installer.check.Preflight;
import dev.appliance.installer.check.Requirements;
import dev.appliance.installer.check.Result;
import dev.appliance.installer.check.Sizes;
import dev.appliance.installer.prepare.CandidateDisks;
import dev.appliance.installer.prepare.DrivePreparation;
import dev.appliance.installer.prepare.Target;
import dev.appliance.installer.system.SystemView;
import dev.appliance.installer.tune.SysctlTuning;
import dev.appliance.installer.tune.TunedProfile;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * {@code appliance-installer check | tune | prepare-drives | compare}: the preflight report, the kernel settings it
 * recommends, formatting data disks, and the nodes' reports judged against each other. From a checkout: {@code
 * ./appliance installer ...}.
 *
 * <p>Exit status: {@code check} and {@code compare} exit with their worst result (0 pass, 1 warn, 2 fail); a bad
 * argument or a report {@code compare} cannot read exits {@value #EXIT_USAGE} (sysexits' EX_USAGE) after naming it; a
 * file {@code tune --apply} cannot write exits {@value #EXIT_IO}.
 */
public final class InstallerMain {
    private InstallerMain() {}

    static final int EXIT_USAGE = 64;
    static final int EXIT_IO = 74;

    static final String USAGE = """
            usage: appliance-installer check [--json] [--drives DIR...] [--probe] [--capacity SIZE] [--concurrency N]
                                             [--root DIR]
                   appliance-installer tune [--dry-run | --apply] [--root DIR]
                   appliance-installer prepare-drives [--root DIR]
                   appliance-installer prepare-drives --format DEV... [--yes] [--force] [--label-prefix P]
                                                      [--mount-base DIR] [--no-mount] [--root DIR]
                   appliance-installer compare [--json] FILE...
                   appliance-installer --help
            """;

    static final String HELP = USAGE + """

            check    Checks this machine against what the appliance needs (CPU, memory, kernel and network
                     settings, clock source, open-file limit, time synchronisation, data drives and their disks'
                     SMART health) and prints one line per rule: pass, warn or fail, what was measured, and for a
                     warn or fail what was expected and how to fix it (docs/install.md#preflight-checks).
              --json             print {"checks":[{"id","result","measured","expected","remediation"}, ...],
                                 "node":{...}}: the node's facts compare judges (host name, CPU model and
                                 flags, cores, RAM, kernel release, MTU by interface, version)
              --drives DIR...    every data drive of this node (their mount points); without it the drive
                                 rules do not run and the report warns
              --probe            also write, sync and read back 32 MiB on each drive with O_DIRECT (a file that
                                 is deleted after) and flag drives far slower than the others' median
              --capacity SIZE    what this node will store (10TB, 1.5PB, 500TiB), for the CPU cores rule;
                                 default: the drives' total size
              --concurrency N    S3 requests in flight the node should serve, for the RAM rule (default 256)
              --root DIR         read /proc, /sys and /etc under DIR instead of / (images, tests)
                     SMART is read with smartctl --json (smartmontools 7 or later) from PATH or /usr/sbin; without
                     it the report warns.

            tune     Shows how /etc/sysctl.d/90-appliance.conf and the tuned profile /etc/tuned/appliance/tuned.conf
                     would change to hold the recommended kernel and network settings (a value the host already
                     exceeds is kept).
              --dry-run          show the change only (the default)
              --apply            show it, then write the files; load them with: sysctl --system and
                                 tuned-adm profile appliance
              --root DIR         the files under DIR instead of /

            prepare-drives
                     Without --format: lists the disks in /sys/block with their size, type, model and what stands
                     in the way of using them (root disk, partitions, mounted, RAID/LVM member, a filesystem or
                     partition table on them); blank, unused disks are candidates.
                     With --format: formats each device XFS with the label PREFIXn (mkfs.xfs -L), adds
                     "LABEL=PREFIXn MOUNT-BASE/PREFIXn xfs defaults,noatime,nofail 0 0" to /etc/fstab, creates the
                     mount points and mounts them. A device holding a filesystem, partition table, RAID, LVM, LUKS
                     or swap signature is refused unless --force; the root disk and a mounted, held or
                     swapped-on device are refused always.
              --format DEV...    the devices (/dev/sdb ...; an image file works too)
              --yes              do it; without it, only show what would be done
              --force            overwrite what the devices hold (mkfs.xfs -f)
              --label-prefix P   labels P1, P2, ... after the highest already in /etc/fstab (default disk)
              --mount-base DIR   mount points DIR/P1, ... (default /mnt)
              --no-mount         write /etc/fstab and the mount points, do not mount (mount -a later)
              --root DIR         /etc/fstab, /proc and /sys under DIR, mount points under DIR too

            compare  Judges the nodes of one cluster against each other from their check --json reports (run
                     "appliance-installer check --json > node-N.json" on each node, copy the files to one host):
                     nodes.count (two or more reports, distinct host names), nodes.cpu-model, nodes.cpu-flags (a
                     node lacking AVX2 the others have fails), nodes.memory (RAM within 10%), nodes.kernel and
                     nodes.mtu (the same MTUs on every node's interfaces that are up; a difference fails). Printed as
                     check prints its rules. It reads only the files: no network, no SSH.
              FILE...            the nodes' reports; - reads one from standard input
              --json             print {"checks":[...]} as check --json does

            exit status: 0 every check passed, 1 a warning, 2 a failure (check, compare); 0 done (tune,
                         prepare-drives); 64 a bad argument, a device prepare-drives refuses, or a report compare
                         cannot read (the message names the file); 74 a file could not be written
                         (tune --apply) or a command failed (prepare-drives)
            """;

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args), System.in, System.out, System.err, SystemView::under));
    }

    /** {@link #run(List, InputStream, PrintStream, PrintStream, Function)} with nothing on standard input. */
    public static int run(List<String> args, PrintStream out, PrintStream err, Function<Path, SystemView> views) {
        return run(args, InputStream.nullInputStream(), out, err, views);
    }

    /**
     * Runs one command.
     *
     * @param in what {@code compare -} reads
     * @param views the machine under a root directory ({@code /} unless {@code --root})
     * @return the exit status
     */
    public static int run(
            List<String> args, InputStream in, PrintStream out, PrintStream err, Function<Path, SystemView> views) {
        if (args.isEmpty()) {
            err.print(USAGE);
            return EXIT_USAGE;
        }
        try {
            return switch (args.getFirst()) {
                case "check" -> check(args.subList(1, args.size()), out, views);
                case "tune" -> tune(args.subList(1, args.size()), out, err, views);
                case "prepare-drives" -> prepareDrives(args.subList(1, args.size()), out, err, views);
                case "compare" -> compare(args.subList(1, args.size()), in, out, err);
                case "-h", "--help", "help" -> {
                    out.print(HELP);
                    yield 0;
                }
                default ->
                    throw new UsageException("unknown command '" + args.getFirst()
                            + "' (expected check, tune, prepare-drives or compare)");
            };
        } catch (UsageException e) {
            err.println("appliance-installer: " + e.getMessage());
            err.print(USAGE);
            return EXIT_USAGE;
        }
    }

    private static int check(List<String> args, PrintStream out, Function<Path, SystemView> views) {
        boolean json = false;
        boolean probe = false;
        List<Path> drives = new ArrayList<>();
        OptionalLong capacity = OptionalLong.empty();
        int concurrency = Requirements.DEFAULT_REQUESTS_IN_FLIGHT;
        Path root = Path.of("/");
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--json" -> json = true;
                case "--probe" -> probe = true;
                case "--drives" -> {
                    int first = i + 1;
                    while (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                        drives.add(Path.of(args.get(++i)));
                    }
                    if (i < first) {
                        throw new UsageException("--drives: no directory given (expected --drives DIR...)");
                    }
                }
                case "--capacity" -> {
                    String v = value(args, ++i, a);
                    try {
                        capacity = OptionalLong.of(Sizes.parse(v));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--capacity: " + e.getMessage());
                    }
                }
                case "--concurrency" -> concurrency = positive(value(args, ++i, a), a);
                case "--root" -> root = root(value(args, ++i, a));
                case "-h", "--help" -> {
                    out.print(HELP);
                    return 0;
                }
                default -> throw new UsageException("unknown option '" + a + "' for check (see --help)");
            }
        }
        SystemView view = views.apply(root);
        List<Check> checks = Preflight.run(view, new Preflight.Options(drives, capacity, concurrency).withProbe(probe));
        out.print(
                json
                        ? Report.json(checks, NodeFacts.of(view, version())) + System.lineSeparator()
                        : Report.text(checks));
        return Result.worst(checks).exitCode();
    }

    /** The packaged jar's version (its manifest); empty when run from classes, as in tests. */
    private static Optional<String> version() {
        return Optional.ofNullable(InstallerMain.class.getPackage().getImplementationVersion());
    }

    private static int compare(List<String> args, InputStream in, PrintStream out, PrintStream err) {
        boolean json = false;
        List<String> files = new ArrayList<>();
        for (String a : args) {
            switch (a) {
                case "--json" -> json = true;
                case "-h", "--help" -> {
                    out.print(HELP);
                    return 0;
                }
                default -> {
                    if (a.startsWith("--")) {
                        throw new UsageException("unknown option '" + a + "' for compare (see --help)");
                    }
                    if (files.contains(a)) {
                        throw new UsageException("compare: " + a + " given twice");
                    }
                    files.add(a);
                }
            }
        }
        if (files.isEmpty()) {
            throw new UsageException("compare: no report given (expected compare FILE..., one check --json per node)");
        }
        List<NodeRules.Node> nodes = new ArrayList<>();
        try {
            for (String f : files) {
                nodes.add(NodeReport.read(f, in));
            }
        } catch (NodeReport.Unusable e) {
            err.println("appliance-installer: compare: " + e.getMessage());
            return EXIT_USAGE;
        }
        List<Check> checks = NodeRules.compare(nodes);
        out.print(json ? Report.json(checks) + System.lineSeparator() : Report.text(checks));
        return Result.worst(checks).exitCode();
    }

    private static int tune(List<String> args, PrintStream out, PrintStream err, Function<Path, SystemView> views) {
        boolean apply = false;
        boolean dryRun = false;
        Path root = Path.of("/");
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--apply" -> apply = true;
                case "--dry-run" -> dryRun = true;
                case "--root" -> root = root(value(args, ++i, a));
                case "-h", "--help" -> {
                    out.print(HELP);
                    return 0;
                }
                default -> throw new UsageException("unknown option '" + a + "' for tune (see --help)");
            }
        }
        if (apply && dryRun) {
            throw new UsageException("--apply and --dry-run together (expected one of them)");
        }
        SystemView view = views.apply(root);
        boolean atRoot = root.equals(Path.of("/"));
        String sysctlFile =
                atRoot ? SysctlTuning.FILE : view.file(SysctlTuning.FILE).toString();
        String tunedFile =
                atRoot ? TunedProfile.FILE : view.file(TunedProfile.FILE).toString();
        String writing = sysctlFile;
        try {
            boolean sysctlChanges = show(out, sysctlFile, SysctlTuning.diff(view));
            boolean tunedChanges = show(out, tunedFile, TunedProfile.diff(view));
            if (!sysctlChanges && !tunedChanges) {
                return 0;
            }
            if (!apply) {
                out.println();
                out.println("Dry run: nothing written. Write it with: appliance-installer tune --apply");
                return 0;
            }
            out.println();
            if (sysctlChanges) {
                SysctlTuning.apply(view);
                out.println("Wrote " + sysctlFile + ". Load it now with: sysctl --system");
            }
            if (tunedChanges) {
                writing = tunedFile;
                TunedProfile.apply(view);
                out.println("Wrote " + tunedFile + ". Use it with: tuned-adm profile appliance");
            }
            return 0;
        } catch (IOException | SecurityException e) {
            err.println(
                    "appliance-installer: cannot write " + writing + ": " + e + " (run as root, or give --root DIR)");
            return EXIT_IO;
        }
    }

    /** Prints the file's diff, or that it is up to date; whether it would change. */
    private static boolean show(PrintStream out, String file, List<String> diff) {
        if (diff.isEmpty()) {
            out.println(file + " is up to date: nothing to change.");
            return false;
        }
        out.println("--- " + file + " (now)");
        out.println("+++ " + file + " (tuned)");
        diff.forEach(out::println);
        return true;
    }

    private static int prepareDrives(
            List<String> args, PrintStream out, PrintStream err, Function<Path, SystemView> views) {
        List<Path> devices = new ArrayList<>();
        boolean format = false;
        boolean yes = false;
        boolean force = false;
        boolean mount = true;
        String labelPrefix = DrivePreparation.DEFAULT_LABEL_PREFIX;
        Path mountBase = Path.of(DrivePreparation.DEFAULT_MOUNT_BASE);
        Path root = Path.of("/");
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--format" -> {
                    format = true;
                    int first = i + 1;
                    while (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                        Path d = Path.of(args.get(++i));
                        if (devices.contains(d)) {
                            throw new UsageException("--format: " + d + " given twice");
                        }
                        devices.add(d);
                    }
                    if (i < first) {
                        throw new UsageException("--format: no device given (expected --format DEV...)");
                    }
                }
                case "--yes" -> yes = true;
                case "--force" -> force = true;
                case "--no-mount" -> mount = false;
                case "--label-prefix" -> labelPrefix = value(args, ++i, a);
                case "--mount-base" -> mountBase = Path.of(value(args, ++i, a));
                case "--root" -> root = root(value(args, ++i, a));
                case "-h", "--help" -> {
                    out.print(HELP);
                    return 0;
                }
                default -> throw new UsageException("unknown option '" + a + "' for prepare-drives (see --help)");
            }
        }
        SystemView view = views.apply(root);
        if (!format) {
            if (yes || force) {
                throw new UsageException((yes ? "--yes" : "--force") + " without --format DEV... (nothing to do)");
            }
            listDisks(view, out);
            return 0;
        }
        List<Target> targets = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        for (Path d : devices) {
            Target t = Target.inspect(view, d);
            targets.add(t);
            t.refusal(force).ifPresent(refusals::add);
        }
        if (!refusals.isEmpty()) {
            refusals.forEach(r -> err.println("appliance-installer: prepare-drives: " + r));
            err.println("appliance-installer: prepare-drives: nothing was done");
            return EXIT_USAGE;
        }
        List<DrivePreparation.Step> steps;
        try {
            steps = DrivePreparation.plan(view, targets, labelPrefix, mountBase);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        String them = steps.size() == 1 ? "it" : "them";
        out.println(
                (yes ? "Formatting " : "Would format ") + steps.size() + (steps.size() == 1 ? " device" : " devices")
                        + " XFS (erasing everything on " + them + "), add " + them + " to /etc/fstab by label"
                        + (mount ? " and mount " + them + ":" : ":"));
        for (DrivePreparation.Step s : steps) {
            out.println("  " + s.target().device() + " -> " + s.fstabLine());
        }
        if (!yes) {
            out.println();
            out.println("Dry run: nothing done. Do it with --yes.");
            return 0;
        }
        try {
            DrivePreparation.execute(view, steps, force, mount, out);
        } catch (DrivePreparation.StepFailed e) {
            err.println("appliance-installer: prepare-drives: " + e.getMessage());
            return EXIT_IO;
        }
        out.println();
        out.println("Done. Next: chown appliance:appliance "
                + String.join(
                        " ", steps.stream().map(s -> s.mountPoint().toString()).toList())
                + ", then list them in APPLIANCE_DRIVES_PATHS (docs/install.md).");
        return 0;
    }

    private static void listDisks(SystemView view, PrintStream out) {
        List<CandidateDisks.Disk> disks = CandidateDisks.list(view);
        if (disks.isEmpty()) {
            out.println("No disks found in " + view.file("/sys/block") + ".");
            return;
        }
        out.println(String.format(Locale.ROOT, "%-16s %10s %-4s %-28s %s", "DEVICE", "SIZE", "TYPE", "MODEL", "STATE"));
        for (CandidateDisks.Disk d : disks) {
            out.println(String.format(
                    Locale.ROOT,
                    "%-16s %10s %-4s %-28s %s",
                    d.device(),
                    d.sizeBytes() < 0 ? "?" : Sizes.decimal(d.sizeBytes()),
                    d.kind().isEmpty() ? "?" : d.kind(),
                    d.model().isEmpty() ? "-" : d.model(),
                    d.candidate() ? "candidate" : String.join("; ", d.notes())));
        }
        long candidates = disks.stream().filter(CandidateDisks.Disk::candidate).count();
        out.println();
        out.println(candidates + (candidates == 1 ? " candidate" : " candidates")
                + " (blank and unused). Format with: appliance-installer prepare-drives --format DEV... --yes");
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size() || args.get(i).startsWith("--")) {
            throw new UsageException(option + ": no value given");
        }
        return args.get(i);
    }

    private static int positive(String v, String option) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) { // reported below with the value
        }
        throw new UsageException(option + ": '" + v + "' (expected a whole number >= 1)");
    }

    private static Path root(String v) {
        Path p = Path.of(v);
        if (!Files.isDirectory(p)) {
            throw new UsageException("--root: '" + v + "' is not a directory");
        }
        return p;
    }

    /** A bad command line: the message names the value and what was expected. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
