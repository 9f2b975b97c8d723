package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

import dev.appliance.installer.system.SystemView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Runs every preflight rule against a machine, in the order the report shows them: CPU, memory, kernel and network
 * settings, clock source, open files, time, then the data drives.
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
     */
    public record Options(List<Path> drives, OptionalLong capacityBytes, int requestsInFlight) {
        public Options {
            drives = List.copyOf(drives);
            requireNonNull(capacityBytes, "capacityBytes");
            if (requestsInFlight < 1) {
                throw new IllegalArgumentException("requestsInFlight: " + requestsInFlight + " (expected >= 1)");
            }
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
        checks.addAll(DriveChecks.run(view, drives));
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
