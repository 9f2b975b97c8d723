package dev.appliance.core.erasure;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.drive.DriveFormat;
import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Turns the operator's drive list into formatted erasure sets, or refuses with a message naming the drive and the
 * problem.
 *
 * <p>First start (every drive present and empty): a deployment id and one id per drive slot are generated and written
 * to each drive's {@code format.json}. Later starts: the format most drives agree on is the reference; a drive from
 * another deployment, or given at another position than the one it was formatted for, stops the start. A drive that is
 * missing or unreadable is reported and left offline; the server starts while every set keeps read quorum.
 */
public final class Topology {
    private static final Logger LOG = Logger.getLogger(Topology.class.getName());
    static final int MIN_SET = 2;
    static final int MAX_SET = 16;

    public final DriveFormat format;
    public final List<List<LocalDrive>> sets;
    public final int parity;
    public final List<String> warnings;
    /** How the store was opened: drives brought into service later follow the same rules (root filesystem, sync). */
    public final StoreConfig config;

    private Topology(DriveFormat format, List<List<LocalDrive>> sets, List<String> warnings, StoreConfig config) {
        this.format = format;
        this.sets = sets;
        this.parity = format.parity();
        this.warnings = warnings;
        this.config = config;
    }

    /** The set size for {@code drives}: {@code requested}, checked, or (0) the largest that divides them. */
    public static int setSize(int drives, int requested) {
        if (drives < MIN_SET) {
            throw new IllegalArgumentException("drives: " + drives + " (expected at least " + MIN_SET + ")");
        }
        if (requested != 0) {
            if (requested < MIN_SET || requested > MAX_SET || drives % requested != 0) {
                throw new IllegalArgumentException("set drive count: " + requested + " (expected " + MIN_SET + ".."
                        + MAX_SET + " and a divisor of the " + drives + " drives)");
            }
            return requested;
        }
        for (int size = MAX_SET; size >= MIN_SET; size--) {
            if (drives % size == 0) {
                return size;
            }
        }
        throw new IllegalArgumentException("drives: " + drives + " cannot be split into equal erasure sets of "
                + MIN_SET + ".." + MAX_SET + " drives");
    }

    static int defaultParity(int setSize) {
        if (setSize <= 3) {
            return 1;
        }
        if (setSize <= 5) {
            return 2;
        }
        if (setSize <= 7) {
            return 3;
        }
        return 4;
    }

    /** What the drives say before anything is written: the format most of them agree on (null: none formatted). */
    private record Inspection(
            List<LocalDrive> drives, List<String> warnings, DriveFormat reference, int setSize, int parity) {}

    /**
     * Every check {@link #load} makes, writing nothing: a start refused here leaves the drives as they were. With
     * {@code missingAreNew} a drive directory that does not exist yet counts as a new, empty drive (the caller
     * creates it after this check passed); it must then be creatable.
     */
    public static void check(StoreConfig config, boolean missingAreNew) throws IOException {
        Inspection in = inspect(config, missingAreNew);
        if (in.reference() != null) {
            return;
        }
        for (LocalDrive d : in.drives()) {
            if (!d.isOnline()) {
                throw new IllegalStateException("cannot format a new deployment: drive " + d.root() + ": "
                        + d.offlineReason() + " (every drive must be present the first time)");
            }
            Path existing = nearestExisting(d.root());
            if (!Files.isDirectory(existing) || !Files.isWritable(existing)) {
                throw new IllegalStateException("cannot format a new deployment: drive " + d.root() + ": "
                        + (existing.equals(d.root()) ? "" : existing + " ") + "is not a writable directory");
            }
        }
    }

    public static Topology load(StoreConfig config) throws IOException {
        Inspection in = inspect(config, false);
        List<LocalDrive> drives = in.drives();
        List<String> warnings = in.warnings();
        int setSize = in.setSize();
        DriveFormat reference = in.reference();
        if (reference == null) {
            reference = formatFresh(drives, setSize, in.parity());
        }
        int sets = reference.sets().size();
        List<List<LocalDrive>> bySet = new ArrayList<>();
        for (int s = 0; s < sets; s++) {
            List<LocalDrive> set = new ArrayList<>(drives.subList(s * setSize, (s + 1) * setSize));
            int online = 0;
            for (LocalDrive d : set) {
                if (d.isOnline()) {
                    d.prepare();
                    if (config.metadataJournal()) {
                        d.openMetadataJournal();
                    }
                    d.useGroupCommit(config.driveSettings().groupCommit());
                    d.useDirectIo(config.driveSettings().directIo());
                    online++;
                }
            }
            int readQuorum = setSize - reference.parity();
            if (online < readQuorum) {
                throw new IllegalStateException("erasure set " + (s + 1) + " has " + online + " of " + setSize
                        + " drives online (needs at least " + readQuorum + " to start): " + offlineSummary(set));
            }
            bySet.add(List.copyOf(set));
        }
        for (String w : warnings) {
            LOG.warning(w);
        }
        return new Topology(reference, List.copyOf(bySet), List.copyOf(warnings), config);
    }

    private static Inspection inspect(StoreConfig config, boolean missingAreNew) throws IOException {
        List<Path> paths = config.drives();
        int setSize = setSize(paths.size(), config.setDriveCount());
        int parity = config.parity() < 0 ? defaultParity(setSize) : config.parity();
        if (parity < 1 || parity > setSize / 2) {
            throw new IllegalArgumentException(
                    "parity: " + parity + " (expected 1.." + (setSize / 2) + " for sets of " + setSize + " drives)");
        }
        List<LocalDrive> drives = new ArrayList<>();
        List<DriveFormat> formats = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (Path path : paths) {
            LocalDrive drive = new LocalDrive(path);
            drives.add(drive);
            formats.add(missingAreNew && Files.notExists(path) ? null : readFormat(drive, warnings));
        }
        checkDistinct(drives);
        if (!config.allowRootFilesystem()) {
            refuseRootFilesystem(drives);
        }

        DriveFormat reference = reference(formats, drives);
        if (reference != null) {
            validate(reference, formats, drives, setSize, warnings);
        }
        return new Inspection(drives, warnings, reference, setSize, parity);
    }

    /** The path itself when it exists, else its closest existing ancestor (where it would be created). */
    private static Path nearestExisting(Path path) {
        Path p = path.toAbsolutePath();
        while (p.getParent() != null && Files.notExists(p)) {
            p = p.getParent();
        }
        return p;
    }

    private static String offlineSummary(List<LocalDrive> set) {
        StringBuilder sb = new StringBuilder();
        for (LocalDrive d : set) {
            if (!d.isOnline()) {
                sb.append(sb.isEmpty() ? "" : "; ")
                        .append(d.root())
                        .append(": ")
                        .append(d.offlineReason());
            }
        }
        return sb.toString();
    }

    /** Null for an empty drive; marks the drive offline (with a warning) when it cannot be read. */
    private static DriveFormat readFormat(LocalDrive drive, List<String> warnings) {
        Path root = drive.root();
        if (!Files.isDirectory(root)) {
            drive.markOffline("directory does not exist");
            warnings.add("drive " + root + " is missing: directory does not exist");
            return null;
        }
        try {
            byte[] json = Files.readAllBytes(drive.formatFile());
            return DriveFormat.fromJson(json);
        } catch (NoSuchFileException e) {
            if (!isEmptyDrive(root)) {
                drive.markOffline("not empty but has no format.json");
                warnings.add("drive " + root + " is not empty but has no "
                        + drive.formatFile().getFileName()
                        + ": refusing to use it (move its content away to let it be formatted)");
            }
            return null;
        } catch (IOException e) {
            drive.markOffline("format.json unreadable: " + e.getMessage());
            warnings.add("drive " + root + ": format.json unreadable: " + e.getMessage());
            return null;
        }
    }

    /** Nothing but an (unformatted) system directory or {@code lost+found}: a new disk, safe to format. */
    public static boolean isEmptyDrive(Path root) {
        try (Stream<Path> s = Files.list(root)) {
            return s.allMatch(p -> p.getFileName().toString().equals(LocalDrive.SYS_DIR)
                    || p.getFileName().toString().equals("lost+found"));
        } catch (IOException e) {
            return false;
        }
    }

    private static void checkDistinct(List<LocalDrive> drives) {
        Map<Path, Integer> seen = new HashMap<>();
        for (int i = 0; i < drives.size(); i++) {
            Integer before = seen.put(drives.get(i).root(), i);
            if (before != null) {
                throw new IllegalArgumentException("drive " + drives.get(i).root() + " is given twice (positions "
                        + (before + 1) + " and " + (i + 1) + ")");
            }
        }
    }

    private static void refuseRootFilesystem(List<LocalDrive> drives) throws IOException {
        var rootStore = Files.getFileStore(Path.of("/"));
        for (LocalDrive d : drives) {
            // A directory still to be created lands on the filesystem of its closest existing ancestor.
            if (d.isOnline() && Files.getFileStore(nearestExisting(d.root())).equals(rootStore)) {
                throw new IllegalArgumentException("drive " + d.root() + " is on the root filesystem: give each drive"
                        + " its own mounted filesystem, or start with --allow-root-drives to accept it (trials only;"
                        + " the embedded default allows it)");
            }
        }
    }

    /** The format most formatted drives agree on, or null when no drive is formatted. */
    private static DriveFormat reference(List<DriveFormat> formats, List<LocalDrive> drives) {
        Map<UUID, Integer> votes = new HashMap<>();
        Map<UUID, DriveFormat> byDeployment = new HashMap<>();
        for (DriveFormat f : formats) {
            if (f != null) {
                votes.merge(f.deploymentId(), 1, Integer::sum);
                byDeployment.putIfAbsent(f.deploymentId(), f);
            }
        }
        if (votes.isEmpty()) {
            return null;
        }
        UUID winner = votes.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow()
                .getKey();
        int agree = votes.get(winner);
        int formatted = votes.values().stream().mapToInt(Integer::intValue).sum();
        if (votes.size() > 1 && agree * 2 <= formatted) {
            throw new IllegalStateException(
                    "no deployment is recorded on a majority of the " + formatted + " formatted drives (best: " + winner
                            + " on " + agree + "): refusing to start on a mix of drives");
        }
        return byDeployment.get(winner);
    }

    private static DriveFormat formatFresh(List<LocalDrive> drives, int setSize, int parity) throws IOException {
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                throw new IllegalStateException("cannot format a new deployment: drive " + d.root() + ": "
                        + d.offlineReason() + " (every drive must be present the first time)");
            }
        }
        UUID deployment = UUID.randomUUID();
        List<List<UUID>> sets = new ArrayList<>();
        for (int s = 0; s < drives.size() / setSize; s++) {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < setSize; i++) {
                ids.add(UUID.randomUUID());
            }
            sets.add(ids);
        }
        DriveFormat base = new DriveFormat(
                DriveFormat.CURRENT_VERSION,
                DriveFormat.FORMAT,
                deployment,
                sets.get(0).get(0),
                sets,
                DriveFormat.PLACEMENT_SIPHASH,
                parity);
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            Files.createDirectories(d.sysDir().resolve("tmp"));
            d.writeDurably(
                    d.formatFile(),
                    base.forDrive(sets.get(i / setSize).get(i % setSize)).toJson());
        }
        LOG.info("formatted a new deployment " + deployment + ": " + drives.size() + " drives in " + sets.size()
                + " set(s) of " + setSize + ", parity " + parity);
        return base;
    }

    private static void validate(
            DriveFormat ref, List<DriveFormat> formats, List<LocalDrive> drives, int setSize, List<String> warnings) {
        int refDrives = ref.sets().stream().mapToInt(List::size).sum();
        if (refDrives != drives.size() || ref.sets().getFirst().size() != setSize) {
            throw new IllegalStateException(
                    "the drives were formatted as " + ref.sets().size() + " set(s) of "
                            + ref.sets().getFirst().size() + " drives (" + refDrives + " in all), but " + drives.size()
                            + " drives in sets of " + setSize + " were given");
        }
        for (int i = 0; i < drives.size(); i++) {
            DriveFormat f = formats.get(i);
            LocalDrive d = drives.get(i);
            if (f == null) {
                if (d.isOnline()) {
                    d.markOffline("unformatted");
                    warnings.add("drive " + d.root() + " is unformatted (a new or replaced drive): it is formatted into"
                            + " set " + (i / setSize + 1) + " slot " + (i % setSize + 1)
                            + " and the set is healed onto it (progress: appliance heal status)");
                }
                continue;
            }
            if (!f.deploymentId().equals(ref.deploymentId())) {
                throw new IllegalStateException("drive " + d.root() + " belongs to another deployment ("
                        + f.deploymentId() + ", this one is " + ref.deploymentId() + "): refusing to start");
            }
            if (!f.sameDeployment(ref)) {
                throw new IllegalStateException("drive " + d.root() + " records a different topology than the other"
                        + " drives of deployment " + ref.deploymentId() + ": refusing to start");
            }
            int[] pos = f.positionOfThisDrive();
            if (pos == null) {
                throw new IllegalStateException("drive " + d.root() + " has an id (" + f.thisDrive()
                        + ") that its own format does not list: refusing to start");
            }
            int expected = pos[0] * setSize + pos[1];
            if (expected != i) {
                throw new IllegalStateException("drive " + d.root() + " was formatted as drive " + (expected + 1)
                        + " (set " + (pos[0] + 1) + ", slot " + (pos[1] + 1) + ") but is given as drive " + (i + 1)
                        + ": give the drives in their original order");
            }
        }
    }
}
