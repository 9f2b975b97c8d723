package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

import dev.appliance.installer.smart.SmartSource;
import dev.appliance.installer.smart.Smartctl;
import dev.appliance.installer.system.SystemView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Runs every preflight rule against a machine, in the order the report shows them: CPU, memory, kernel and network
 * settings, clock source, open files, time, then the data drives, their disks' SMART health and (asked for) the
 * O_DIRECT probe.
 *
 * <p>Two rules size the machine against what it will hold: the cores against the node's capacity ({@code --capacity},
 * else the drives' total size) and the RAM against its drive count and requests in flight. Both tables are in
 * {@link Requirements} and docs/install.md.
 */
public final class Preflight {
    private Preflight() {}

    /**
     * What the operator said about the node.
     *
     * @param drives the data drives' directories (may be empty: the drive rules then report that they did not run)
     * @param capacityBytes what the node will store; empty: the drives' total size
     * @param requestsInFlight the S3 requests the node serves at once, for the RAM rule
     * @param smart where the drives' SMART reports come from ({@link Smartctl#onPath()} on a host)
     * @param probe whether to write and read a few MiB on each drive with O_DIRECT ({@code check --probe}); off by
     *     default, since it writes to the drives and takes their I/O for a moment
     */
    public record Options(
            List<Path> drives, OptionalLong capacityBytes, int requestsInFlight, SmartSource smart, boolean probe) {
        public Options {
            drives = List.copyOf(drives);
            requireNonNull(capacityBytes, "capacityBytes");
            requireNonNull(smart, "smart");
            if (requestsInFlight < 1) {
                throw new IllegalArgumentException("requestsInFlight: " + requestsInFlight + " (expected >= 1)");
            }
        }

        /** SMART through the {@code smartctl} on this process's PATH, no probe. */
        public Options(List<Path> drives, OptionalLong capacityBytes, int requestsInFlight) {
            this(drives, capacityBytes, requestsInFlight, Smartctl.onPath(), false);
        }

        public Options withSmart(SmartSource source) {
            return new Options(drives, capacityBytes, requestsInFlight, source, probe);
        }

        public Options withProbe(boolean on) {
            return new Options(drives, capacityBytes, requestsInFlight, smart, on);
        }

        /**
         * The running appliance's periodic checks of its own {@code drives}: capacity from the drives, the default
         * requests in flight.
         */
        public static Options forDrives(List<Path> drives) {
            return new Options(drives, OptionalLong.empty(), Requirements.DEFAULT_REQUESTS_IN_FLIGHT);
        }

        public static Options defaults() {
            return new Options(List.of(), OptionalLong.empty(), Requirements.DEFAULT_REQUESTS_IN_FLIGHT);
        }
    }

    public static List<Check> run(SystemView view, Options options) {
        List<DriveFacts> drives = DriveFacts.inspect(view, options.drives());
        List<Check> checks = new ArrayList<>();
        checks.addAll(CpuChecks.run(view, capacity(options, drives)));
        checks.addAll(MemoryChecks.run(view, options.drives().size(), options.requestsInFlight()));
        checks.addAll(KernelChecks.run(view));
        checks.addAll(NetworkChecks.run(view));
        checks.addAll(DriveChecks.run(view, drives));
        if (!drives.isEmpty()) {
            checks.addAll(SmartChecks.run(drives, options.smart()));
        }
        if (options.probe() && !drives.isEmpty()) {
            checks.add(ProbeChecks.run(drives));
        }
        return checks;
    }

    private static CpuChecks.Capacity capacity(Options options, List<DriveFacts> drives) {
        if (options.capacityBytes().isPresent()) {
            return new CpuChecks.Capacity(options.capacityBytes().getAsLong(), "--capacity");
        }
        long total = 0;
        int counted = 0;
        for (DriveFacts d : drives) {
            if (d.space().isPresent()) {
                total += d.space().get().totalBytes();
                counted++;
            }
        }
        return counted == 0
                ? CpuChecks.Capacity.UNKNOWN
                : new CpuChecks.Capacity(total, "the " + counted + " drives' total size");
    }
}
