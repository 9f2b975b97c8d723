package dev.appliance.installer.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code /proc/cpuinfo}: one block of {@code key : value} lines per logical CPU.
 *
 * @param logical logical CPUs (hardware threads)
 * @param physicalCores distinct (package, core) pairs; the logical count when the kernel does not say (some VMs)
 * @param flags the first CPU's feature flags (x86 {@code flags}; empty elsewhere)
 * @param model the first CPU's model name
 */
record CpuInfo(int logical, int physicalCores, Set<String> flags, String model) {
    static CpuInfo parse(List<String> lines) {
        List<Map<String, String>> cpus = new ArrayList<>();
        Map<String, String> current = new LinkedHashMap<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (line.isBlank()) {
                if (!current.isEmpty()) {
                    cpus.add(current);
                    current = new LinkedHashMap<>();
                }
            } else if (colon > 0) {
                current.put(
                        line.substring(0, colon).strip(),
                        line.substring(colon + 1).strip());
            }
        }
        if (!current.isEmpty()) {
            cpus.add(current);
        }
        cpus.removeIf(cpu -> !cpu.containsKey("processor"));
        Set<String> cores = new HashSet<>();
        boolean coreIds = true;
        for (Map<String, String> cpu : cpus) {
            String core = cpu.get("core id");
            if (core == null) {
                coreIds = false;
                break;
            }
            cores.add(cpu.getOrDefault("physical id", "0") + "/" + core);
        }
        Map<String, String> first = cpus.isEmpty() ? new HashMap<>() : cpus.getFirst();
        String flags = first.getOrDefault("flags", "");
        return new CpuInfo(
                cpus.size(),
                coreIds ? cores.size() : cpus.size(),
                flags.isBlank() ? Set.of() : Set.copyOf(Arrays.asList(flags.split("\\s+"))),
                first.getOrDefault("model name", "unknown"));
    }
}
