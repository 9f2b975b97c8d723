package dev.appliance.installer.prepare;

import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A block device's sysfs directory ({@code /sys/block/sdb}, {@code /sys/block/sdb/sdb1}) and what it says about
 * the device: its number, size, partitions and holders (an md array or device-mapper volume built on it).
 */
record SysfsDevice(Path dir) {
    /** The device numbered {@code majorMinor}, through {@code /sys/dev/block}. */
    static Optional<SysfsDevice> byNumber(SystemView view, String majorMinor) {
        try {
            return Optional.of(
                    new SysfsDevice(view.file("/sys/dev/block/" + majorMinor).toRealPath()));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    String name() {
        return dir.getFileName().toString();
    }

    boolean isPartition() {
        return Files.exists(dir.resolve("partition"));
    }

    /** The whole disk: this device, or for a partition the disk holding it. */
    SysfsDevice disk() {
        return isPartition() && dir.getParent() != null ? new SysfsDevice(dir.getParent()) : this;
    }

    String number() {
        return read("dev");
    }

    /** Bytes: sysfs counts 512-byte sectors whatever the disk's own sector size. */
    long sizeBytes() {
        try {
            return Long.parseLong(read("size")) * 512;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    String model() {
        return (read("device/vendor") + " " + read("device/model")).strip();
    }

    /** {@code hdd}, {@code ssd}, or empty when unknown. */
    String kind() {
        return switch (read("queue/rotational")) {
            case "1" -> "hdd";
            case "0" -> "ssd";
            default -> "";
        };
    }

    List<SysfsDevice> partitions() {
        List<SysfsDevice> parts = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (Files.exists(p.resolve("partition"))) {
                    parts.add(new SysfsDevice(p));
                }
            }
        } catch (IOException | SecurityException e) { // none readable
        }
        parts.sort((a, b) -> a.name().compareTo(b.name()));
        return parts;
    }

    /** The devices built on this one ({@code md127}, {@code dm-0}). */
    List<String> holders() {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir.resolve("holders"))) {
            for (Path p : s) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException | SecurityException e) { // no holders directory: none
        }
        names.sort(String::compareTo);
        return names;
    }

    /** A loop device's backing file, or empty. */
    String backingFile() {
        return read("loop/backing_file");
    }

    private String read(String relative) {
        try {
            return Files.readString(dir.resolve(relative)).strip();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }
}
