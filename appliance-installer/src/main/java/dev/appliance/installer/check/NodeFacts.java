package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

import dev.appliance.installer.system.SystemView;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one node's {@code check --json} carries for {@code compare}: the facts the cross-node rules ({@link NodeRules})
 * judge, read here because a node can only see itself (no SSH, no network calls: the operator copies each node's
 * report to one host).
 *
 * @param hostname the kernel's host name ({@code /proc/sys/kernel/hostname}); names the node in the comparison
 * @param cpuModel the first CPU's model name, {@code unknown} without /proc/cpuinfo
 * @param cpuFlags which of {@link #FLAGS} the CPU has; empty when /proc/cpuinfo has no flags line (unknown)
 * @param cores physical cores; empty when unknown
 * @param ramBytes {@code MemTotal}; empty when unknown
 * @param kernelRelease {@code uname -r} ({@code /proc/sys/kernel/osrelease}), {@code unknown} when unreadable
 * @param mtus the MTU of each interface {@code net.mtu} judges (up, not {@code lo}; hardware and bonds when there are
 *     any), by name
 * @param version the installer's (and so the package's) version; empty when run outside the packaged jar
 */
public record NodeFacts(
        String hostname,
        String cpuModel,
        Optional<List<String>> cpuFlags,
        OptionalInt cores,
        OptionalLong ramBytes,
        String kernelRelease,
        SortedMap<String, Integer> mtus,
        Optional<String> version) {

    /** The CPU flags compared across nodes: the ones the cpu.* rules name. */
    public static final List<String> FLAGS = List.of("avx2", "avx512f", "aes", "sha_ni");

    public NodeFacts {
        requireNonNull(hostname, "hostname");
        requireNonNull(cpuModel, "cpuModel");
        cpuFlags = cpuFlags.map(f -> FLAGS.stream().filter(f::contains).toList());
        requireNonNull(cores, "cores");
        requireNonNull(ramBytes, "ramBytes");
        requireNonNull(kernelRelease, "kernelRelease");
        mtus = Collections.unmodifiableSortedMap(new TreeMap<>(mtus));
        requireNonNull(version, "version");
    }

    /** This node's facts as {@code view} shows them. */
    public static NodeFacts of(SystemView view, Optional<String> version) {
        CpuInfo cpu = CpuInfo.parse(view.lines("/proc/cpuinfo"));
        SortedMap<String, Integer> mtus = new TreeMap<>();
        for (NetworkChecks.Interface i : NetworkChecks.interfaces(view)) {
            mtus.put(i.name(), i.mtu());
        }
        return new NodeFacts(
                view.read("/proc/sys/kernel/hostname").filter(h -> !h.isBlank()).orElse("unknown"),
                cpu.model().replaceAll("\\s+", " "),
                cpu.flags().isEmpty() ? Optional.empty() : Optional.of(List.copyOf(cpu.flags())),
                cpu.logical() == 0 ? OptionalInt.empty() : OptionalInt.of(cpu.physicalCores()),
                MemoryChecks.meminfo(view, "MemTotal"),
                view.read("/proc/sys/kernel/osrelease")
                        .filter(r -> !r.isBlank())
                        .orElse("unknown"),
                mtus,
                version);
    }
}
