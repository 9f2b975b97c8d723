package dev.appliance.installer.check;

import dev.appliance.installer.system.SystemView;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Enough RAM for the drives and the requests in flight, and a kernel that keeps the JVM's heap in RAM. */
final class MemoryChecks {
    private MemoryChecks() {}

    /** The drive count the RAM rule assumes when no drives are given: the smallest recommended set. */
    static final int DRIVES_WHEN_NONE_GIVEN = 4;

    static List<Check> run(SystemView view, int drives, int requestsInFlight) {
        List<Check> checks = new ArrayList<>();
        checks.add(ram(view, drives, requestsInFlight));
        checks.add(swap(view));
        checks.add(transparentHugePages(view));
        checks.add(KernelChecks.sysctl(view, SysctlRule.of("vm.max_map_count")));
        return checks;
    }

    /** A {@code /proc/meminfo} field ({@code MemTotal:  16314284 kB}) in bytes. */
    static OptionalLong meminfo(SystemView view, String field) {
        for (String line : view.lines("/proc/meminfo")) {
            if (line.startsWith(field + ":")) {
                String[] f = line.substring(field.length() + 1).strip().split("\\s+");
                try {
                    long v = Long.parseLong(f[0]);
                    return OptionalLong.of(f.length > 1 && f[1].equalsIgnoreCase("kB") ? v * 1024 : v);
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    private static Check ram(SystemView view, int drives, int requestsInFlight) {
        int counted = drives > 0 ? drives : DRIVES_WHEN_NONE_GIVEN;
        long required = Requirements.ramFor(counted, requestsInFlight);
        String expected = ">= " + Sizes.binary(required) + " for " + counted + " drives"
                + (drives > 0 ? "" : " (no --drives: the smallest set assumed)") + " and " + requestsInFlight
                + " requests in flight (docs/install.md#ram-by-drives-and-concurrency)";
        String remediation = "add RAM (or give the VM more) to reach " + Sizes.binary(required)
                + ", or plan fewer requests in flight (--max-requests on the server, --concurrency here)";
        OptionalLong total = meminfo(view, "MemTotal");
        if (total.isEmpty()) {
            return Check.of("memory.ram", Result.WARN, "unknown: no MemTotal in /proc/meminfo", expected, remediation);
        }
        long have = total.getAsLong();
        Result result;
        if (have >= required * Requirements.MEM_TOTAL_TOLERANCE) {
            result = Result.PASS;
        } else {
            // Below the table the server lowers its requests in flight; below half, it cannot hold its buffers.
            result = have * 2 >= required ? Result.WARN : Result.FAIL;
        }
        return Check.of("memory.ram", result, Sizes.binary(have), expected, remediation);
    }

    private static Check swap(SystemView view) {
        SysctlRule rule = SysctlRule.of("vm.swappiness");
        String expected = "swap off, or vm.swappiness " + rule.expected();
        String remediation = "sysctl vm.swappiness (./appliance installer tune --apply writes " + rule.recommended()
                + "), or turn swap off: swapoff -a and remove the swap lines from /etc/fstab; " + rule.why();
        OptionalLong swap = meminfo(view, "SwapTotal");
        if (swap.isPresent() && swap.getAsLong() == 0) {
            return Check.of("memory.swap", Result.PASS, "swap off", expected, remediation);
        }
        String swappiness = view.sysctl(rule.key()).orElse("unknown");
        String measured = (swap.isPresent() ? Sizes.binary(swap.getAsLong()) + " of swap" : "swap unknown")
                + ", vm.swappiness " + swappiness;
        return Check.of(
                "memory.swap",
                rule.satisfiedBy(swappiness) ? Result.PASS : Result.WARN,
                measured,
                expected,
                remediation);
    }

    private static Check transparentHugePages(SystemView view) {
        String expected = "madvise or never";
        String remediation = "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled, kept across reboots with"
                + " transparent_hugepage=madvise on the kernel command line (grubby --update-kernel=ALL --args=...)"
                + " or the appliance's tuned profile: 'always' stalls the JVM while the kernel compacts memory";
        var enabled = view.read("/sys/kernel/mm/transparent_hugepage/enabled");
        if (enabled.isEmpty()) {
            return Check.of("memory.thp", Result.PASS, "not in this kernel", expected, remediation);
        }
        String selected = selectedMode(enabled.get());
        boolean ok = selected.equals("madvise") || selected.equals("never");
        return Check.of("memory.thp", ok ? Result.PASS : Result.WARN, selected, expected, remediation);
    }

    /** {@code always [madvise] never} → {@code madvise}: the kernel brackets the mode in force. */
    static String selectedMode(String modes) {
        int open = modes.indexOf('[');
        int close = modes.indexOf(']', open + 1);
        return open >= 0 && close > open ? modes.substring(open + 1, close) : modes.strip();
    }
}
