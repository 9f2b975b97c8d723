package dev.appliance.installer.check;

import dev.appliance.installer.system.BlockDevice;
import dev.appliance.installer.system.FilesystemSpace;
import dev.appliance.installer.system.Mount;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What is known of one data drive before the rules judge it.
 *
 * @param given the path as given on the command line
 * @param exists whether it is a directory
 * @param mount the mount holding it (its real path), from {@code /proc/self/mountinfo}
 * @param space its filesystem's space and inodes
 * @param device the block device under that filesystem, from sysfs
 */
record DriveFacts(
        Path given,
        boolean exists,
        Optional<Mount> mount,
        Optional<FilesystemSpace> space,
        Optional<BlockDevice> device) {

    static List<DriveFacts> inspect(SystemView view, List<Path> drives) {
        List<Mount> mounts = view.mounts();
        List<DriveFacts> facts = new ArrayList<>();
        for (Path given : drives) {
            if (!Files.isDirectory(given)) {
                facts.add(new DriveFacts(given, false, Optional.empty(), Optional.empty(), Optional.empty()));
                continue;
            }
            Path real;
            try {
                real = given.toRealPath(); // a symlinked drive is judged by where its data lands
            } catch (IOException e) {
                real = given.toAbsolutePath().normalize();
            }
            Optional<Mount> mount = Mount.holding(mounts, real);
            Optional<FilesystemSpace> space;
            try {
                space = Optional.of(view.space(real));
            } catch (IOException e) {
                space = Optional.empty();
            }
            facts.add(new DriveFacts(given, true, mount, space, mount.flatMap(m -> view.blockDevice(m.device()))));
        }
        return facts;
    }
}
