package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A kernel parameter the appliance wants, how a running value is judged against it, and why. The preflight checks
 * these and {@code tune} writes them: one table, so the two cannot drift.
 *
 * @param key the name {@code sysctl} uses ({@code net.core.rmem_max})
 * @param recommended the value {@code tune} writes when the running one falls short
 * @param comparison how a running value is judged
 * @param why what falls short without it, for the remediation line
 */
public record SysctlRule(String key, String recommended, Comparison comparison, String why) {
    /** How a running value is held against the recommended one. */
    public enum Comparison {
        AT_LEAST,
        AT_MOST,
        EQUALS,
        /** A {@code min default max} triple ({@code tcp_rmem}) whose maximum must reach the recommended maximum. */
        MAX_AT_LEAST
    }

    public SysctlRule {
        requireNonNull(key, "key");
        requireNonNull(recommended, "recommended");
        requireNonNull(comparison, "comparison");
        requireNonNull(why, "why");
    }

    /** 64 MiB: a socket buffer that keeps a 25 Gbit/s link busy across a few milliseconds of round trip. */
    private static final String SOCKET_BUFFER = "67108864";

    /** Every parameter {@code tune} writes, in the order it writes them. */
    public static final List<SysctlRule> RECOMMENDED = List.of(
            new SysctlRule(
                    "net.core.rmem_max",
                    SOCKET_BUFFER,
                    Comparison.AT_LEAST,
                    "caps every socket's receive buffer, so large uploads crawl on fast or distant links"),
            new SysctlRule(
                    "net.core.wmem_max",
                    SOCKET_BUFFER,
                    Comparison.AT_LEAST,
                    "caps every socket's send buffer, so large downloads (restores) crawl on fast or distant links"),
            new SysctlRule(
                    "net.ipv4.tcp_rmem",
                    "4096 131072 " + SOCKET_BUFFER,
                    Comparison.MAX_AT_LEAST,
                    "TCP receive-buffer autotuning stops at its maximum"),
            new SysctlRule(
                    "net.ipv4.tcp_wmem",
                    "4096 65536 " + SOCKET_BUFFER,
                    Comparison.MAX_AT_LEAST,
                    "TCP send-buffer autotuning stops at its maximum"),
            new SysctlRule(
                    "net.core.somaxconn",
                    "4096",
                    Comparison.AT_LEAST,
                    "caps the accept queue (the S3 port asks for 1024): bursts of new connections from many Veeam"
                            + " proxies are refused"),
            new SysctlRule(
                    "net.ipv4.tcp_max_syn_backlog",
                    "8192",
                    Comparison.AT_LEAST,
                    "half-open connections beyond it are dropped during connection bursts"),
            new SysctlRule(
                    "net.core.netdev_max_backlog",
                    "30000",
                    Comparison.AT_LEAST,
                    "packets a CPU may queue from the NIC: the default 1000 drops bursts at 10 Gbit/s and above"),
            new SysctlRule(
                    "net.ipv4.tcp_slow_start_after_idle",
                    "0",
                    Comparison.EQUALS,
                    "every keep-alive connection that paused restarts from a small window, slowing the next"
                            + " request"),
            new SysctlRule(
                    "vm.swappiness",
                    "10",
                    Comparison.AT_MOST,
                    "the kernel swaps the JVM's heap out to keep page cache, and a collection then waits on disk"),
            new SysctlRule(
                    "vm.max_map_count",
                    "262144",
                    Comparison.AT_LEAST,
                    "the JVM (ZGC) and memory-mapped files fail with out-of-memory errors past this many mappings"));

    /** The rule for {@code key}. */
    public static SysctlRule of(String key) {
        return RECOMMENDED.stream()
                .filter(r -> r.key().equals(key))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("sysctl: " + key + " (expected one of the tuned)"));
    }

    /** Whether the running {@code value} (fields joined by single spaces) meets the rule; false when not a number. */
    public boolean satisfiedBy(String value) {
        try {
            return switch (comparison) {
                case AT_LEAST -> Long.parseLong(value.strip()) >= Long.parseLong(recommended);
                case AT_MOST -> Long.parseLong(value.strip()) <= Long.parseLong(recommended);
                case EQUALS -> Long.parseLong(value.strip()) == Long.parseLong(recommended);
                case MAX_AT_LEAST -> {
                    String[] fields = value.strip().split("\\s+");
                    yield fields.length == 3 && Long.parseLong(fields[2]) >= Long.parseLong(lastField(recommended));
                }
            };
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** What the rule asks for, as the report prints it. */
    public String expected() {
        return switch (comparison) {
            case AT_LEAST -> ">= " + recommended;
            case AT_MOST -> "<= " + recommended;
            case EQUALS -> "= " + recommended;
            case MAX_AT_LEAST -> "maximum >= " + lastField(recommended) + " (" + recommended + ")";
        };
    }

    private static String lastField(String triple) {
        String[] f = triple.split(" ");
        return f[f.length - 1];
    }
}
