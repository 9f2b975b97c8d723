package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The cross-node rules of {@code compare}: the nodes of one cluster judged against each other from their saved {@code
 * check --json} reports. An erasure set spans the nodes, so every write waits for its slowest node and every shard
 * crosses the network between them: what a single node's rules cannot see is a node that differs from the others.
 *
 * <p>Verdicts follow the preflight's policy (fail only where the cluster must not hold backups as it is): a CPU
 * model, kernel or RAM difference costs speed or predictability and warns; a node lacking AVX2 the others have, and
 * MTUs that differ between the nodes, fail (see each rule for why).
 */
public final class NodeRules {
    private NodeRules() {}

    /** RAM may differ by this share of the largest node's before {@code nodes.memory} warns. */
    static final double RAM_TOLERANCE = 0.10;

    /**
     * One node's facts and where they came from.
     *
     * @param source the file they were read from ({@code -} for standard input), to name it when host names clash
     */
    public record Node(String source, NodeFacts facts) {
        public Node {
            requireNonNull(source, "source");
            requireNonNull(facts, "facts");
        }
    }

    /**
     * The cross-node checks, in report order; with a single node only {@code nodes.count}, which warns that there is
     * nothing to compare.
     */
    public static List<Check> compare(List<Node> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("nodes: none (expected the reports of one or more nodes)");
        }
        Function<Node, String> name = names(nodes);
        List<Check> checks = new ArrayList<>();
        checks.add(count(nodes));
        if (nodes.size() == 1) {
            return checks;
        }
        checks.add(cpuModel(nodes, name));
        checks.add(cpuFlags(nodes, name));
        checks.add(memory(nodes, name));
        checks.add(kernel(nodes, name));
        checks.add(mtu(nodes, name));
        return checks;
    }

    /** Each node by its host name, with its file when two nodes share a name. */
    private static Function<Node, String> names(List<Node> nodes) {
        Map<String, Long> counts =
                nodes.stream().collect(Collectors.groupingBy(n -> n.facts().hostname(), Collectors.counting()));
        return n -> counts.get(n.facts().hostname()) > 1
                ? n.facts().hostname() + " (" + n.source() + ")"
                : n.facts().hostname();
    }

    private static Check count(List<Node> nodes) {
        String expected = "two or more reports, one per node, with distinct host names";
        Map<String, List<String>> sourcesByHost = new LinkedHashMap<>();
        for (Node n : nodes) {
            sourcesByHost
                    .computeIfAbsent(n.facts().hostname(), k -> new ArrayList<>())
                    .add(n.source());
        }
        List<String> clashes = new ArrayList<>();
        sourcesByHost.forEach((host, sources) -> {
            if (sources.size() > 1) {
                clashes.add(host + " in " + String.join(", ", sources));
            }
        });
        if (!clashes.isEmpty()) {
            // The same node's report twice compares a node with itself and hides the node that was meant; two nodes
            // sharing a name cannot be told apart in the cluster's configuration or its logs.
            return Check.of(
                    "nodes.count",
                    Result.FAIL,
                    nodes.size() + " reports, one host name in several: " + String.join("; ", clashes),
                    expected,
                    "give each node's report once (check --json > node-N.json on each node), and each node its own"
                            + " host name (hostnamectl set-hostname NAME)");
        }
        if (nodes.size() == 1) {
            return Check.of(
                    "nodes.count",
                    Result.WARN,
                    "1 node (" + nodes.getFirst().facts().hostname() + "): nothing to compare",
                    expected,
                    "run appliance-installer check --json > node-N.json on every node, copy the files to one host and"
                            + " give them all to compare");
        }
        return Check.of(
                "nodes.count",
                Result.PASS,
                nodes.size() + " nodes: " + String.join(", ", sourcesByHost.keySet()),
                expected,
                "");
    }

    /**
     * Warn, not fail: a node with another CPU works and stores the same bytes, only at its own speed; the set's writes
     * and healing then go at the slowest node's pace, which the operator should know before sizing by the fastest.
     */
    private static Check cpuModel(List<Node> nodes, Function<Node, String> name) {
        Map<String, List<String>> byModel = group(nodes, n -> n.facts().cpuModel(), name);
        return Check.of(
                "nodes.cpu-model",
                byModel.size() == 1 ? Result.PASS : Result.WARN,
                byModel.size() == 1 ? byModel.keySet().iterator().next() + " on every node" : describe(byModel),
                "one CPU model on every node",
                "an erasure set spans the nodes, so every write and every heal waits for the slowest node: use one"
                        + " CPU model throughout (on VMs, the same CPU model passed through on every host), or size"
                        + " the cluster by the slowest node");
    }

    /**
     * AVX2 on some nodes only fails: that node codes and checksums several times slower than its peers and every set
     * waits for it, and a node without it among nodes with it is nearly always a VM whose host CPU was not passed
     * through, a setting to fix rather than a hardware limit. AES-NI and SHA differences warn; AVX-512 is noted only,
     * as on a single node.
     */
    private static Check cpuFlags(List<Node> nodes, Function<Node, String> name) {
        String expected = "the same of " + String.join(", ", NodeFacts.FLAGS) + " on every node (AVX-512 only noted)";
        List<String> unknown = nodes.stream()
                .filter(n -> n.facts().cpuFlags().isEmpty())
                .map(name)
                .toList();
        List<String> parts = new ArrayList<>();
        Result result = Result.PASS;
        List<String> fixes = new ArrayList<>();
        for (String flag : NodeFacts.FLAGS) {
            List<String> with = new ArrayList<>();
            List<String> without = new ArrayList<>();
            for (Node n : nodes) {
                n.facts().cpuFlags().ifPresent(f -> (f.contains(flag) ? with : without).add(name.apply(n)));
            }
            if (without.isEmpty() && with.isEmpty()) {
                continue;
            }
            if (without.isEmpty()) {
                parts.add(flag + ": every node");
            } else if (with.isEmpty()) {
                parts.add(flag + ": no node");
            } else {
                parts.add(flag + ": only " + String.join(", ", with) + " (not " + String.join(", ", without) + ")");
                if (flag.equals("avx2")) {
                    result = Result.FAIL;
                    fixes.add(String.join(", ", without) + " lack AVX2 that " + String.join(", ", with)
                            + " have: every set waits for its several times slower coding; on a VM pass the host's"
                            + " CPU model through (libvirt host-passthrough, VMware EVC at Haswell or above), else"
                            + " replace the node's CPU");
                } else if (!flag.equals("avx512f")) {
                    result = worse(result, Result.WARN);
                    fixes.add(String.join(", ", without) + " lack " + flag + " that " + String.join(", ", with)
                            + " have: give the nodes one CPU model (on VMs, the host's CPU passed through)");
                }
            }
        }
        if (!unknown.isEmpty()) {
            parts.add("unknown on " + String.join(", ", unknown));
            result = worse(result, Result.WARN);
            fixes.add("no CPU flags in the report of " + String.join(", ", unknown)
                    + ": run check --json there again on the host itself (/proc/cpuinfo readable)");
        }
        return Check.of("nodes.cpu-flags", result, String.join("; ", parts), expected, String.join("; ", fixes));
    }

    /**
     * Warn above a 10% difference: the server sizes its requests in flight by its own RAM, so a smaller node serves
     * fewer at once and the cluster's capacity is the smallest node's times the node count.
     */
    private static Check memory(List<Node> nodes, Function<Node, String> name) {
        String expected = "RAM within " + Math.round(RAM_TOLERANCE * 100) + "% of the largest node's on every node";
        List<String> parts = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        long largest = 0;
        long smallest = Long.MAX_VALUE;
        for (Node n : nodes) {
            if (n.facts().ramBytes().isEmpty()) {
                unknown.add(name.apply(n));
                parts.add(name.apply(n) + ": unknown");
                continue;
            }
            long ram = n.facts().ramBytes().getAsLong();
            largest = Math.max(largest, ram);
            smallest = Math.min(smallest, ram);
            parts.add(name.apply(n) + ": " + Sizes.binary(ram));
        }
        boolean apart = smallest != Long.MAX_VALUE && smallest < largest * (1 - RAM_TOLERANCE);
        if (!unknown.isEmpty()) {
            return Check.of(
                    "nodes.memory",
                    Result.WARN,
                    String.join("; ", parts),
                    expected,
                    "no MemTotal in the report of " + String.join(", ", unknown)
                            + ": run check --json there again on the host itself (/proc/meminfo readable)");
        }
        long target = largest;
        List<String> small = nodes.stream()
                .filter(n -> n.facts().ramBytes().getAsLong() < target * (1 - RAM_TOLERANCE))
                .map(name)
                .toList();
        return Check.of(
                "nodes.memory",
                apart ? Result.WARN : Result.PASS,
                String.join("; ", parts),
                expected,
                "give " + String.join(", ", small) + " RAM to match the largest node (" + Sizes.binary(largest)
                        + "): each node serves requests in flight by its own RAM, so the cluster's share of them is"
                        + " set by the smallest");
    }

    /** Warn: releases differ during a rolling update too, but kept apart they behave differently under load. */
    private static Check kernel(List<Node> nodes, Function<Node, String> name) {
        Map<String, List<String>> byRelease = group(nodes, n -> n.facts().kernelRelease(), name);
        return Check.of(
                "nodes.kernel",
                byRelease.size() == 1 ? Result.PASS : Result.WARN,
                byRelease.size() == 1 ? byRelease.keySet().iterator().next() + " on every node" : describe(byRelease),
                "one kernel release on every node",
                "update every node to one kernel (dnf update kernel, then reboot one node at a time): I/O schedulers,"
                        + " network drivers and their defaults change between releases, so nodes on different ones"
                        + " differ in speed and behaviour");
    }

    /**
     * Fail: the set of MTUs of each node's interfaces (those {@code net.mtu} judges) must be the same on every node.
     * Shards cross between the nodes in large frames; a node at 9000 sending to one at 1500 has its large frames
     * dropped where path MTU discovery is filtered, so small requests work and large transfers stall. Comparing the
     * sets, not interface names, keeps nodes with differently named ports comparable; a node with no interface in its
     * report warns.
     */
    private static Check mtu(List<Node> nodes, Function<Node, String> name) {
        String expected = "the same MTUs on every node's interfaces that are up (one per network)";
        Map<Set<Integer>, List<Node>> bySet = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        for (Node n : nodes) {
            Map<String, Integer> mtus = n.facts().mtus();
            if (mtus.isEmpty()) {
                unknown.add(name.apply(n));
                parts.add(name.apply(n) + ": no interface up");
                continue;
            }
            bySet.computeIfAbsent(new TreeSet<>(mtus.values()), k -> new ArrayList<>())
                    .add(n);
            parts.add(name.apply(n) + ": " + interfaces(mtus));
        }
        String how = "(nmcli connection modify IFACE 802-3-ethernet.mtu N; ip link set IFACE mtu N now): large frames"
                + " between nodes with different MTUs are dropped or fragmented, which stalls shard transfers";
        int largestGroup = bySet.values().stream().mapToInt(List::size).max().orElse(0);
        if (bySet.size() > 1
                && bySet.values().stream().filter(g -> g.size() == largestGroup).count() > 1) {
            // No majority to name the odd ones against: every node is listed with its values.
            return Check.of(
                    "nodes.mtu",
                    Result.FAIL,
                    String.join("; ", parts),
                    expected,
                    "give the nodes one set of MTUs (" + String.join("; ", parts) + "), and the same on the switch"
                            + " ports between them " + how);
        }
        if (bySet.size() > 1) {
            // The largest group is taken as what the cluster means; the others are named against it.
            List<Node> most = bySet.values().stream()
                    .filter(g -> g.size() == largestGroup)
                    .findFirst()
                    .orElseThrow();
            Set<Integer> meant = new TreeSet<>(most.getFirst().facts().mtus().values());
            List<String> off = new ArrayList<>();
            bySet.forEach((set, members) -> {
                if (members != most) {
                    for (Node n : members) {
                        off.add(name.apply(n) + " (" + interfaces(n.facts().mtus()) + ")");
                    }
                }
            });
            return Check.of(
                    "nodes.mtu",
                    Result.FAIL,
                    String.join("; ", parts),
                    expected,
                    "set " + String.join(", ", off) + " to the MTUs of "
                            + most.stream().map(name).collect(Collectors.joining(", ")) + " (" + mtuList(meant)
                            + "), and the same on the switch ports between them " + how);
        }
        if (!unknown.isEmpty()) {
            return Check.of(
                    "nodes.mtu",
                    Result.WARN,
                    String.join("; ", parts),
                    expected,
                    "no interface that is up in the report of " + String.join(", ", unknown)
                            + ": run check --json there again on the host itself (/sys/class/net readable)");
        }
        return Check.of(
                "nodes.mtu",
                Result.PASS,
                mtuList(bySet.keySet().iterator().next()) + " on every node; " + String.join("; ", parts),
                expected,
                "");
    }

    private static Result worse(Result a, Result b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** {@code eth0 9000, eth1 1500}. */
    private static String interfaces(Map<String, Integer> mtus) {
        return mtus.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** {@code MTU 9000} or {@code MTUs 1500, 9000}. */
    private static String mtuList(Set<Integer> mtus) {
        return (mtus.size() == 1 ? "MTU " : "MTUs ")
                + mtus.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** The nodes' names by a value, in the order the values first appear. */
    private static Map<String, List<String>> group(
            List<Node> nodes, Function<Node, String> value, Function<Node, String> name) {
        Map<String, List<String>> by = new LinkedHashMap<>();
        for (Node n : nodes) {
            by.computeIfAbsent(Objects.requireNonNull(value.apply(n)), k -> new ArrayList<>())
                    .add(name.apply(n));
        }
        return by;
    }

    /** {@code A (node-1, node-2); B (node-3)}. */
    private static String describe(Map<String, List<String>> grouped) {
        return grouped.entrySet().stream()
                .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
                .collect(Collectors.joining("; "));
    }
}
