package dev.appliance.installer.check;

import dev.appliance.installer.system.SystemView;
import java.util.ArrayList;
import java.util.List;

/** CPU features the engine's hot paths use, and enough cores for what the node stores. */
final class CpuChecks {
    private CpuChecks() {}

    private static final String NEWER_CPU =
            "use an x86-64-v3 CPU or newer (Intel Haswell, AMD Zen or later); on a VM, pass the host's CPU model"
                    + " through (libvirt cpu mode host-passthrough, VMware EVC at Haswell or above)";

    /**
     * The capacity the cores rule is judged against.
     *
     * @param bytes what the node will store; -1 when unknown
     * @param source where that figure came from, for the report
     */
    record Capacity(long bytes, String source) {
        static final Capacity UNKNOWN = new Capacity(-1, "unknown");
    }

    static List<Check> run(SystemView view, Capacity capacity) {
        CpuInfo cpu = CpuInfo.parse(view.lines("/proc/cpuinfo"));
        List<Check> checks = new ArrayList<>();
        checks.add(feature(
                cpu,
                "cpu.avx2",
                "avx2",
                "Reed-Solomon coding and bitrot checksums run several times slower without AVX2: " + NEWER_CPU));
        checks.add(avx512(cpu));
        checks.add(feature(
                cpu,
                "cpu.aes",
                "aes",
                "TLS on the S3 and console ports runs in software without AES-NI: " + NEWER_CPU));
        checks.add(feature(
                cpu,
                "cpu.sha",
                "sha_ni",
                "SHA-256 (SigV4 payload hashes, content checksums) runs in software without the SHA extensions: use"
                        + " an Intel Ice Lake / AMD Zen CPU or newer, or pass the host's CPU model through to the VM"));
        checks.add(cores(cpu, capacity));
        return checks;
    }

    private static Check feature(CpuInfo cpu, String id, String flag, String remediation) {
        String expected = "the " + flag + " CPU flag";
        if (cpu.flags().isEmpty()) {
            return Check.of(id, Result.WARN, "unknown: no flags line in /proc/cpuinfo", expected, remediation);
        }
        boolean has = cpu.flags().contains(flag);
        return Check.of(
                id,
                has ? Result.PASS : Result.WARN,
                (has ? "" : "no ") + flag + " (" + cpu.model() + ")",
                expected,
                remediation);
    }

    /** Noted, never held against the machine: AVX2 is enough, AVX-512 only widens the coding loops. */
    private static Check avx512(CpuInfo cpu) {
        String measured = cpu.flags().isEmpty()
                ? "unknown"
                : cpu.flags().contains("avx512f") ? "avx512f (wider erasure-coding vectors)" : "no avx512f";
        return Check.of("cpu.avx512", Result.PASS, measured, "optional (noted: AVX2 is enough)", "");
    }

    private static Check cores(CpuInfo cpu, Capacity capacity) {
        int required = capacity.bytes() < 0 ? Requirements.MIN_CORES : Requirements.coresFor(capacity.bytes());
        String measured = cpu.logical() == 0
                ? "unknown: /proc/cpuinfo unreadable"
                : cpu.physicalCores() + " physical cores (" + cpu.logical() + " logical CPUs)";
        String expected = ">= " + required + " physical cores for "
                + (capacity.bytes() < 0
                        ? "an unknown capacity (give --capacity or --drives; the smallest tier is assumed)"
                        : Sizes.decimal(capacity.bytes()) + " stored (" + capacity.source() + ")");
        Result result;
        if (cpu.logical() == 0) {
            result = Result.WARN;
        } else if (cpu.physicalCores() >= required) {
            result = Result.PASS;
        } else {
            // Below the table the node works, slower; below half of it healing a drive takes days.
            result = cpu.physicalCores() * 2 >= required ? Result.WARN : Result.FAIL;
        }
        return Check.of(
                "cpu.cores",
                result,
                measured,
                expected,
                "erasure coding, checksums and healing at network speed need " + required
                        + " cores at this capacity: use a CPU with more cores (or give the VM more), or store less on"
                        + " this node (docs/install.md#cpu-cores-by-capacity)");
    }
}
