package dev.appliance.installer.system;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The block device under a filesystem, as sysfs describes it: {@code /sys/dev/block/MAJOR:MINOR} links to the device's
 * directory ({@code .../block/sda/sda1} for a partition, {@code .../block/dm-0}, {@code .../block/md0}).
 *
 * @param name the device ({@code sda1}, {@code dm-0}, {@code md127})
 * @param disk the whole disk it is part of ({@code sda} for {@code sda1}; the device itself when not a partition)
 * @param layer what stands between the filesystem and the disks: {@code mdraid}, {@code LVM}, {@code dm-crypt},
 *     {@code device-mapper}, or empty for a plain disk or partition
 * @param model the disk's vendor and model as the kernel reports them (empty when absent), where a hardware RAID
 *     controller's logical drive shows itself
 */
public record BlockDevice(String name, String disk, String layer, String model) {
    public BlockDevice {
        requireNonNull(name, "name");
        requireNonNull(disk, "disk");
        requireNonNull(layer, "layer");
        requireNonNull(model, "model");
    }

    static Optional<BlockDevice> resolve(SystemView view, String majorMinor) {
        Path dir;
        try {
            dir = view.file("/sys/dev/block/" + majorMinor).toRealPath();
        } catch (IOException | SecurityException e) { // no such device (an overlay or tmpfs has none)
            return Optional.empty();
        }
        boolean partition = Files.exists(dir.resolve("partition"));
        Path diskDir = partition && dir.getParent() != null ? dir.getParent() : dir;
        String layer = layer(dir);
        if (layer.isEmpty() && partition) {
            layer = layer(diskDir); // a partition of an md array (md0p1)
        }
        String model = (read(diskDir.resolve("device/vendor")) + " " + read(diskDir.resolve("device/model"))).strip();
        return Optional.of(new BlockDevice(
                dir.getFileName().toString(), diskDir.getFileName().toString(), layer, model));
    }

    private static String layer(Path dir) {
        if (Files.isDirectory(dir.resolve("md"))) {
            return "mdraid";
        }
        if (Files.isDirectory(dir.resolve("dm"))) {
            String uuid = read(dir.resolve("dm/uuid"));
            if (uuid.startsWith("LVM-")) {
                return "LVM";
            }
            if (uuid.startsWith("CRYPT-")) {
                return "dm-crypt";
            }
            return "device-mapper";
        }
        return "";
    }

    /**
     * A hardware RAID controller's logical drive, by the names controllers give them (Dell PERC, Broadcom/LSI
     * MegaRAID, HPE Smart Array "LOGICAL VOLUME"): a best guess, since the kernel sees only one disk.
     */
    public boolean looksLikeHardwareRaid() {
        String m = model.toUpperCase(Locale.ROOT);
        return m.contains("RAID") || m.contains("PERC") || m.contains("LOGICAL VOLUME");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }
}
