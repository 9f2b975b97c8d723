package dev.appliance.installer.prepare;

import static java.util.Objects.requireNonNull;

import dev.appliance.installer.system.FstabEntry;
import dev.appliance.installer.system.Mount;
import dev.appliance.installer.system.SystemView;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Formats devices XFS with a label each, adds them to {@code /etc/fstab} by label and mounts them: the first step of
 * docs/install.md's walkthrough, done the same way on every node.
 */
public final class DrivePreparation {
    private DrivePreparation() {}

    /**
     * {@code noatime}: no access-time write per read. {@code nofail}: a dead disk does not stop the boot in emergency
     * mode; its mount point is then an empty directory on the root filesystem, which the appliance keeps out of
     * service (docs/healing.md) while the other drives serve.
     */
    public static final String MOUNT_OPTIONS = "defaults,noatime,nofail";

    public static final String DEFAULT_LABEL_PREFIX = "disk";

    public static final String DEFAULT_MOUNT_BASE = "/mnt";

    /** XFS labels hold at most 12 characters. */
    private static final int XFS_LABEL_MAX = 12;

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_-]+");

    /**
     * What will be done to one device.
     *
     * @param target the device
     * @param label its XFS label
     * @param mountPoint where it is mounted on the host ({@code /mnt/disk1})
     * @param fstabLine its {@code /etc/fstab} line
     */
    public record Step(Target target, String label, Path mountPoint, String fstabLine) {
        public Step {
            requireNonNull(target, "target");
            requireNonNull(label, "label");
            requireNonNull(mountPoint, "mountPoint");
            requireNonNull(fstabLine, "fstabLine");
        }
    }

    /**
     * Labels {@code PREFIX1}, {@code PREFIX2}, ... in the devices' order, skipping numbers whose label or mount point
     * {@code /etc/fstab} or a mount already uses, or whose mount point is a non-empty directory.
     *
     * @throws IllegalArgumentException for a label prefix XFS cannot hold
     */
    public static List<Step> plan(SystemView view, List<Target> targets, String labelPrefix, Path mountBase) {
        if (!PREFIX.matcher(labelPrefix).matches() || labelPrefix.length() > XFS_LABEL_MAX - 2) {
            throw new IllegalArgumentException("--label-prefix: '" + labelPrefix + "' (expected at most "
                    + (XFS_LABEL_MAX - 2) + " letters, digits, '-' or '_': XFS labels hold " + XFS_LABEL_MAX + ")");
        }
        if (!mountBase.isAbsolute()) {
            throw new IllegalArgumentException("--mount-base: '" + mountBase + "' (expected an absolute path)");
        }
        Set<String> usedLabels = new HashSet<>();
        Set<Path> usedMountPoints = new HashSet<>();
        for (FstabEntry e : view.fstab()) {
            if (e.spec().startsWith("LABEL=")) {
                usedLabels.add(e.spec().substring("LABEL=".length()));
            }
            usedMountPoints.add(e.mountPoint());
        }
        for (Mount m : view.mounts()) {
            usedMountPoints.add(m.mountPoint());
        }
        List<Step> steps = new ArrayList<>();
        int n = 0;
        for (Target t : targets) {
            String label;
            Path mountPoint;
            do {
                n++;
                label = labelPrefix + n;
                mountPoint = mountBase.resolve(label);
            } while (usedLabels.contains(label)
                    || usedMountPoints.contains(mountPoint)
                    || nonEmptyDirectory(view.file(mountPoint.toString())));
            if (label.length() > XFS_LABEL_MAX) {
                throw new IllegalArgumentException("--label-prefix: '" + labelPrefix + "' makes the label '" + label
                        + "', longer than XFS's " + XFS_LABEL_MAX + " characters");
            }
            steps.add(new Step(
                    t, label, mountPoint, "LABEL=" + label + " " + mountPoint + " xfs " + MOUNT_OPTIONS + " 0 0"));
        }
        return steps;
    }

    private static boolean nonEmptyDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isPresent();
        } catch (IOException e) {
            return true;
        }
    }

    /** A command that did not succeed: the message says which and what it printed last. */
    public static final class StepFailed extends Exception {
        private static final long serialVersionUID = 1L;

        StepFailed(String message) {
            super(message);
        }
    }

    /**
     * Formats every device, then writes {@code /etc/fstab} (whole, replaced in one rename), creates the mount points
     * and, when {@code mount}, mounts each device there. Stops at the first failure.
     */
    public static void execute(SystemView view, List<Step> steps, boolean force, boolean mount, PrintStream out)
            throws StepFailed {
        for (Step s : steps) {
            List<String> mkfs = new ArrayList<>(List.of("mkfs.xfs"));
            if (force) {
                mkfs.add("-f");
            }
            mkfs.addAll(List.of("-L", s.label(), s.target().device().toString()));
            run(mkfs, out, "install xfsprogs (dnf install xfsprogs)");
        }
        Path fstab = view.file("/etc/fstab");
        try {
            appendFstab(fstab, steps);
            out.println("Added " + steps.size() + (steps.size() == 1 ? " line" : " lines") + " to " + fstab);
            for (Step s : steps) {
                Files.createDirectories(view.file(s.mountPoint().toString()));
            }
        } catch (IOException e) {
            throw new StepFailed("cannot write " + fstab + " or create the mount points: " + e);
        }
        if (!mount) {
            return;
        }
        for (Step s : steps) {
            String options = "noatime" + (s.target().blockDevice() ? "" : ",loop");
            Path at = view.file(s.mountPoint().toString());
            run(List.of("mount", "-t", "xfs", "-o", options, s.target().device().toString(), at.toString()), out, "");
            out.println("Mounted " + s.target().device() + " at " + at);
        }
    }

    private static void run(List<String> command, PrintStream out, String ifMissing) throws StepFailed {
        out.println("# " + String.join(" ", command));
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new StepFailed("cannot run " + command.getFirst() + ": " + e.getMessage()
                    + (ifMissing.isEmpty() ? "" : " (" + ifMissing + ")"));
        }
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int status = p.waitFor();
            out.print(output);
            if (status != 0) {
                throw new StepFailed(
                        String.join(" ", command) + " exited with status " + status + ": " + lastLine(output));
            }
        } catch (IOException e) {
            throw new StepFailed("reading the output of " + command.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new StepFailed("interrupted while " + command.getFirst() + " ran");
        }
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 || lines[lines.length - 1].isBlank() ? "(no output)" : lines[lines.length - 1];
    }

    /** The old file with the new lines after it, written to a temporary file beside it and renamed over it. */
    private static void appendFstab(Path fstab, List<Step> steps) throws IOException {
        String old;
        try {
            old = Files.readString(fstab, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            old = "";
        }
        StringBuilder text = new StringBuilder(old);
        if (!old.isEmpty() && !old.endsWith("\n")) {
            text.append('\n');
        }
        text.append("# appliance data drives (appliance-installer prepare-drives)\n");
        for (Step s : steps) {
            text.append(s.fstabLine()).append('\n');
        }
        Path dir = fstab.getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, ".fstab.", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            if (Files.getFileStore(temp).supportsFileAttributeView("posix")) {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Files.move(temp, fstab, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
