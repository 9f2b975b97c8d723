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

/** The machine's disks from {@code /sys/block}, each with what would stop it from becoming a data drive. */
public final class CandidateDisks {
    private CandidateDisks() {}

    /** Virtual and removable devices that are never data drives; md and dm volumes are built on disks. */
    private static final List<String> NOT_DISKS = List.of("loop", "ram", "zram", "sr", "fd", "nbd", "dm-", "md");

    /**
     * One disk.
     *
     * @param device {@code /dev/NAME}
     * @param sizeBytes from sysfs, -1 when unknown
     * @param kind {@code hdd}, {@code ssd} or empty
     * @param model vendor and model
     * @param notes what stands in the way (root disk, partitions, mounted, held by a volume, contents); empty for a
     *     blank, unused disk: a candidate
     */
    public record Disk(String device, long sizeBytes, String kind, String model, List<String> notes) {
        public Disk {
            requireNonNull(device, "device");
            requireNonNull(kind, "kind");
            requireNonNull(model, "model");
            notes = List.copyOf(notes);
        }

        public boolean candidate() {
            return notes.isEmpty();
        }
    }

    public static List<Disk> list(SystemView view) {
        List<Mount> mounts = view.mounts();
        Optional<String> rootDisk = Target.rootDisk(view, mounts);
        List<Disk> disks = new ArrayList<>();
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(view.file("/sys/block"))) {
            s.forEach(entries::add);
        } catch (IOException | SecurityException e) {
            return disks;
        }
        entries.sort(
                (a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (NOT_DISKS.stream().anyMatch(name::startsWith)) {
                continue;
            }
            SysfsDevice d;
            try {
                d = new SysfsDevice(entry.toRealPath());
            } catch (IOException e) {
                continue;
            }
            disks.add(describe(view, d, mounts, rootDisk));
        }
        return disks;
    }

    private static Disk describe(SystemView view, SysfsDevice d, List<Mount> mounts, Optional<String> rootDisk) {
        List<String> notes = new ArrayList<>();
        if (rootDisk.equals(Optional.of(d.name()))) {
            notes.add("the root disk");
        }
        List<SysfsDevice> parts = d.partitions();
        if (!parts.isEmpty()) {
            notes.add("partitions "
                    + String.join(", ", parts.stream().map(SysfsDevice::name).toList()));
        }
        List<SysfsDevice> all = new ArrayList<>(List.of(d));
        all.addAll(parts);
        List<String> at = new ArrayList<>();
        List<String> holders = new ArrayList<>();
        for (SysfsDevice p : all) {
            for (Mount m : mounts) {
                if (m.device().equals(p.number())) {
                    at.add(m.mountPoint().toString());
                }
            }
            holders.addAll(p.holders());
        }
        if (!at.isEmpty()) {
            notes.add("mounted at " + String.join(", ", at));
        }
        if (!holders.isEmpty()) {
            notes.add("held by " + String.join(", ", holders) + " (RAID/LVM member)");
        }
        Path node = view.file("/dev/" + d.name());
        if (notes.isEmpty() && Files.exists(node)) { // a disk in use is not read: its notes say enough
            try {
                notes.addAll(Signatures.find(node, d.sizeBytes()));
            } catch (IOException e) {
                notes.add("unreadable (" + e.getMessage() + ")");
            }
        }
        return new Disk("/dev/" + d.name(), d.sizeBytes(), d.kind(), d.model(), notes);
    }
}
