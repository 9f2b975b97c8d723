package dev.appliance.installer.prepare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** A block device's {@code major:minor}, as sysfs and mountinfo name it, read from the device node. */
final class DeviceNumber {
    private DeviceNumber() {}

    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    /** {@code 8:16} for a block device node; empty for anything else (an image file). */
    static Optional<String> of(Path node) throws IOException {
        int mode = (Integer) Files.getAttribute(node, "unix:mode");
        if ((mode & S_IFMT) != S_IFBLK) {
            return Optional.empty();
        }
        long rdev = (Long) Files.getAttribute(node, "unix:rdev");
        // glibc's encoding of dev_t: the major in bits 8-19 and 32-43, the minor in bits 0-7 and 20-31
        long major = ((rdev >>> 8) & 0xfffL) | ((rdev >>> 32) & ~0xfffL);
        long minor = (rdev & 0xffL) | ((rdev >>> 12) & ~0xffL);
        return Optional.of(major + ":" + minor);
    }
}
