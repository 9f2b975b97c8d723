package dev.appliance.installer.check;

import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code net.mtu}: one MTU on this node's network interfaces that are up. Across the nodes and switches the MTU must
 * match too, but the installer sees one node only; a node whose own interfaces differ is the first place a mismatch
 * shows (a bond or VLAN set to 9000 over a port left at 1500 drops or fragments every large frame, which stalls large
 * transfers while small requests work).
 */
final class NetworkChecks {
    private NetworkChecks() {}

    /** An interface that is up, and its MTU. */
    record Interface(String name, int mtu, boolean hardware) {}

    static List<Check> run(SystemView view) {
        return List.of(mtu(interfaces(view)));
    }

    /**
     * The interfaces of {@code /sys/class/net} that are up, but {@code lo}; hardware ones (a {@code device} link) and
     * bonds are judged, or every one when there is none (a container's virtual interface).
     */
    static List<Interface> interfaces(SystemView view) {
        List<Interface> up = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(view.file("/sys/class/net"))) {
            for (Path dir : s) {
                String name = dir.getFileName().toString();
                if (name.equals("lo") || !read(dir.resolve("operstate")).equals("up")) {
                    continue;
                }
                try {
                    int mtu = Integer.parseInt(read(dir.resolve("mtu")));
                    boolean hardware = Files.exists(dir.resolve("device")) || Files.isDirectory(dir.resolve("bonding"));
                    up.add(new Interface(name, mtu, hardware));
                } catch (NumberFormatException e) { // no MTU to judge
                }
            }
        } catch (IOException | SecurityException e) { // no sysfs: judged as unknown
        }
        List<Interface> hardware = up.stream().filter(Interface::hardware).toList();
        return hardware.isEmpty() ? up : hardware;
    }

    static Check mtu(List<Interface> interfaces) {
        String expected = "one MTU on every interface that is up";
        String remediation = "set one MTU on every interface that carries S3 or node-to-node traffic, and the same on"
                + " the switches and the other nodes (nmcli connection modify IFACE 802-3-ethernet.mtu N; ip link set"
                + " IFACE mtu N now): a mismatch drops or fragments large frames and stalls large transfers";
        if (interfaces.isEmpty()) {
            return Check.of(
                    "net.mtu", Result.WARN, "unknown: no interface up in /sys/class/net", expected, remediation);
        }
        Map<Integer, List<String>> byMtu = new TreeMap<>();
        for (Interface i : interfaces) {
            byMtu.computeIfAbsent(i.mtu(), k -> new ArrayList<>()).add(i.name());
        }
        List<String> parts = new ArrayList<>();
        byMtu.forEach((mtu, names) ->
                parts.add(String.join(", ", names.stream().sorted().toList()) + ": " + mtu));
        return Check.of(
                "net.mtu",
                byMtu.size() == 1 ? Result.PASS : Result.WARN,
                String.join("; ", parts),
                expected,
                remediation);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }
}
