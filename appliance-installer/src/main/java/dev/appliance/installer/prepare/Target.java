package dev.appliance.installer.prepare;

import static java.util.Objects.requireNonNull;

import dev.appliance.installer.system.Mount;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A device given to {@code prepare-drives --format}, and what stands in the way of formatting it.
 *
 * @param device as given ({@code /dev/sdb}, or an image file)
 * @param blockDevice whether it is a block device node (else a regular file: an image)
 * @param inUse reasons it is refused even with {@code --force}: the root disk, mounted, part of a RAID or LVM
 *     volume, active swap, attached to a loop device, not a device at all
 * @param contents what it already holds (filesystem, partition table, volume signatures), refused without
 *     {@code --force}
 */
public record Target(Path device, boolean blockDevice, List<String> inUse, List<String> contents) {
    public Target {
        requireNonNull(device, "device");
        inUse = List.copyOf(inUse);
        contents = List.copyOf(contents);
    }

    /** Why it is refused, or empty when it may be formatted. */
    public Optional<String> refusal(boolean force) {
        if (!inUse.isEmpty()) {
            return Optional.of(device + " is " + String.join(", ", inUse) + ": refused, even with --force");
        }
        if (!contents.isEmpty() && !force) {
            return Optional.of(device + " holds " + String.join(", ", contents)
                    + ": refused; if that is no longer wanted, give --force to overwrite it");
        }
        return Optional.empty();
    }

    /** Looks at the device: the node, sysfs and mountinfo under the view's root, the device's first bytes. */
    public static Target inspect(SystemView view, Path device) {
        List<String> inUse = new ArrayList<>();
        List<String> contents = new ArrayList<>();
        if (!Files.exists(device)) {
            inUse.add("not there (no such device or file)");
            return new Target(device, false, inUse, contents);
        }
        Optional<String> number;
        try {
            number = DeviceNumber.of(device);
        } catch (IOException | UnsupportedOperationException e) {
            inUse.add("unreadable (" + e.getMessage() + ")");
            return new Target(device, false, inUse, contents);
        }
        if (number.isEmpty() && !Files.isRegularFile(device)) {
            inUse.add("neither a block device nor an image file");
            return new Target(device, false, inUse, contents);
        }
        List<Mount> mounts = view.mounts();
        long size = -1;
        if (number.isPresent()) {
            Optional<SysfsDevice> sys = SysfsDevice.byNumber(view, number.get());
            List<SysfsDevice> parts = new ArrayList<>();
            if (sys.isPresent()) {
                size = sys.get().sizeBytes();
                if (size == 0) {
                    inUse.add("empty (size 0: a loop device with no file attached?)");
                }
                parts.add(sys.get());
                parts.addAll(sys.get().partitions());
                if (rootDisk(view, mounts).equals(Optional.of(sys.get().disk().name()))) {
                    inUse.add("the root disk");
                }
            }
            List<String> numbers = new ArrayList<>(List.of(number.get()));
            parts.forEach(p -> numbers.add(p.number()));
            mountedAt(mounts, numbers).ifPresent(inUse::add);
            List<String> holders = new ArrayList<>();
            parts.forEach(p -> holders.addAll(p.holders()));
            if (!holders.isEmpty()) {
                inUse.add("held by " + String.join(", ", holders) + " (a RAID, LVM or device-mapper member)");
            }
            List<String> names = new ArrayList<>();
            parts.forEach(p -> names.add(p.name()));
            swap(view, device, names).ifPresent(inUse::add);
        } else {
            loopAttached(view, mounts, device).ifPresent(inUse::add);
        }
        if (!inUse.isEmpty()) {
            return new Target(device, number.isPresent(), inUse, contents); // refused already: not even read
        }
        try {
            contents.addAll(Signatures.find(device, size));
        } catch (IOException e) {
            inUse.add("unreadable (" + e.getMessage() + ")");
        }
        return new Target(device, number.isPresent(), inUse, contents);
    }

    /** The disk under the root filesystem ({@code sda} for {@code sda2}). */
    static Optional<String> rootDisk(SystemView view, List<Mount> mounts) {
        return Mount.holding(mounts, Path.of("/"))
                .flatMap(m -> SysfsDevice.byNumber(view, m.device()))
                .map(d -> d.disk().name());
    }

    private static Optional<String> mountedAt(List<Mount> mounts, List<String> numbers) {
        List<String> at = new ArrayList<>();
        for (Mount m : mounts) {
            if (numbers.contains(m.device())) {
                at.add(m.mountPoint().toString());
            }
        }
        return at.isEmpty() ? Optional.empty() : Optional.of("mounted at " + String.join(", ", at));
    }

    private static Optional<String> swap(SystemView view, Path device, List<String> names) {
        for (String line : view.lines("/proc/swaps")) {
            String first = line.strip().split("\\s+")[0];
            if (!first.startsWith("/")) {
                continue; // the header line
            }
            Path name = Path.of(first).getFileName();
            if (first.equals(device.toString()) || (name != null && names.contains(name.toString()))) {
                return Optional.of("active swap (" + first + ")");
            }
        }
        return Optional.empty();
    }

    /** An image file a loop device is attached to (and maybe mounted through). */
    private static Optional<String> loopAttached(SystemView view, List<Mount> mounts, Path image) {
        Path real;
        try {
            real = image.toRealPath();
        } catch (IOException e) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(view.file("/sys/block"), "loop*")) {
            for (Path p : s) {
                SysfsDevice loop = new SysfsDevice(p.toRealPath());
                String backing = loop.backingFile();
                if (!backing.isEmpty() && Path.of(backing).equals(real)) {
                    return Optional.of("attached to /dev/" + loop.name()
                            + mountedAt(mounts, List.of(loop.number()))
                                    .map(m -> ", " + m)
                                    .orElse(""));
                }
            }
        } catch (IOException | SecurityException e) { // no sysfs: nothing attached that we can see
        }
        return Optional.empty();
    }
}
