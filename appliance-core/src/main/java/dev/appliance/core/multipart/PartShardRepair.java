package dev.appliance.core.multipart;

import dev.appliance.core.bitrot.BitrotAlgorithm;
import dev.appliance.core.codec.ReedSolomon;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureLayout;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.multipart.MultipartUploads.PartRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Rebuilds, on a drive of an upload that lacks some of the parts being completed, those parts' shards from the drives
 * that hold them. Each part was acknowledged on a write quorum, but not necessarily on the same drives (a drive away
 * for one part, another for the next), so fewer than a write quorum may hold all of them; without this, such an
 * upload could never be completed. A rebuilt shard is staged, forced, and renamed into the upload with the part's
 * record, exactly as an uploaded part, so the completion that follows commits on the drive like on any other.
 */
final class PartShardRepair {
    private final ErasureSet set;
    private final ErasureLayout layout;
    private final int[] distribution;

    PartShardRepair(ErasureSet set, ErasureLayout layout, int[] distribution) {
        this.set = set;
        this.layout = layout;
        this.distribution = distribution.clone();
    }

    /**
     * Rebuilds on drive {@code target} the named parts it lacks from drives holding the same part record, reading
     * {@code data} of their shards, each block checked against its bitrot checksum; each part's record, as the holders
     * have it, is then written beside it, under the part's lock ({@code lockForPart}) as an upload of the part would.
     * A target without the upload's record (away at the creation, or replaced since) gets {@code uploadRecord} first.
     * {@code byDrive} is only read (the drives' calls run at once).
     *
     * @return the records of the parts rebuilt
     * @throws IOException when a part cannot be rebuilt (too few intact holders, a drive failing): the target then
     *     stays without it, as before
     */
    Map<Integer, PartRecord> rebuild(
            int target,
            List<PartInfo> parts,
            List<Map<Integer, PartRecord>> byDrive,
            Function<LocalDrive, Path> uploadDirOf,
            byte[] uploadRecord,
            String dataDir,
            IntFunction<NamespaceLocks.Held> lockForPart)
            throws IOException {
        LocalDrive drive = set.drives().get(target);
        Path uploadDir = uploadDirOf.apply(drive);
        if (!Files.exists(uploadDir.resolve("upload.json"))) {
            // away when the upload was created, or replaced since: it gets the upload's record with its parts
            drive.writeDurably(uploadDir.resolve("upload.json"), uploadRecord);
        }
        Map<Integer, PartRecord> rebuilt = new TreeMap<>();
        for (PartInfo part : parts) {
            if (holds(byDrive.get(target), part)) {
                continue;
            }
            List<Integer> holders = new ArrayList<>();
            PartRecord record = null;
            for (int pos = 0; pos < byDrive.size(); pos++) {
                if (pos != target
                        && holds(byDrive.get(pos), part)
                        && set.drives().get(pos).isOnline()) {
                    holders.add(pos);
                    record = byDrive.get(pos).get(part.number());
                }
            }
            if (holders.size() < layout.data()) {
                throw new IOException("part " + part.number() + ": " + holders.size() + " drive(s) hold it, "
                        + layout.data() + " needed to rebuild it");
            }
            // Data shards first: where they are intact the codec has nothing to solve for them.
            holders.sort(Comparator.comparingInt(pos -> distribution[pos]));
            Path staged = drive.newStagingPath(".part");
            try {
                while (true) {
                    try {
                        write(staged, target, part, holders, uploadDirOf, dataDir);
                        break;
                    } catch (DamagedSource e) {
                        // that holder's copy is damaged: start the part again from the others, if enough remain
                        holders.remove(Integer.valueOf(e.position));
                        Files.deleteIfExists(staged);
                        if (holders.size() < layout.data()) {
                            throw e;
                        }
                    }
                }
                try (var lock = lockForPart.apply(part.number())) {
                    MultipartUploads.installPart(
                            drive, uploadDir, dataDir, part.number(), staged, MultipartUploads.toJson(record));
                }
                rebuilt.put(part.number(), record);
            } finally {
                Files.deleteIfExists(staged);
            }
        }
        return rebuilt;
    }

    static boolean holds(Map<Integer, PartRecord> parts, PartInfo part) {
        if (parts == null) {
            return false;
        }
        PartRecord r = parts.get(part.number());
        return r != null && r.etag().equals(part.etag()) && r.size() == part.size();
    }

    private void write(
            Path staged,
            int target,
            PartInfo part,
            List<Integer> holders,
            Function<LocalDrive, Path> uploadDirOf,
            String dataDir)
            throws IOException {
        BitrotAlgorithm bitrot = set.bitrot;
        ReedSolomon codec = ReedSolomon.of(layout.data(), layout.parity());
        int cs = layout.checksumLength();
        byte[][] shards = new byte[layout.total()][layout.fullShardLength()];
        byte[] buf = new byte[cs + layout.fullShardLength()];
        byte[] checksum = new byte[cs];
        List<Integer> sources = new ArrayList<>();
        List<FileChannel> in = new ArrayList<>();
        set.drives().get(target).beforeWrite();
        try (FileChannel out = FileChannel.open(staged, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (int pos : holders) {
                if (sources.size() == layout.data()) {
                    break;
                }
                LocalDrive source = set.drives().get(pos);
                source.beforeRead();
                Path file = uploadDirOf.apply(source).resolve(dataDir).resolve("part." + part.number());
                if (Files.size(file) == layout.shardFileSize(part.size())) {
                    sources.add(pos);
                    in.add(FileChannel.open(file, StandardOpenOption.READ));
                }
            }
            if (sources.size() < layout.data()) {
                throw new IOException("part " + part.number() + ": too few complete shard files to rebuild it");
            }
            for (long b = 0; b < layout.blockCount(part.size()); b++) {
                int len = layout.shardLength(layout.blockLength(part.size(), b));
                long at = layout.blockOffset(b);
                boolean[] present = new boolean[layout.total()];
                for (int s = 0; s < sources.size(); s++) {
                    int pos = sources.get(s);
                    if (!LocalDrive.readFully(in.get(s), buf, cs + len, at)) {
                        throw new IOException("part " + part.number() + " on "
                                + set.drives().get(pos).root() + " ended early at block " + b);
                    }
                    if (!bitrot.verify(buf, cs, len, buf, 0)) {
                        throw new DamagedSource(
                                pos,
                                "part " + part.number() + " on "
                                        + set.drives().get(pos).root() + " failed its checksum at block " + b);
                    }
                    int shard = distribution[pos] - 1;
                    System.arraycopy(buf, cs, shards[shard], 0, len);
                    present[shard] = true;
                }
                codec.reconstruct(shards, present, 0, len);
                byte[] shard = shards[distribution[target] - 1];
                bitrot.checksum(shard, 0, len, checksum, 0);
                LocalDrive.writeFully(out, ByteBuffer.wrap(checksum));
                LocalDrive.writeFully(out, ByteBuffer.wrap(shard, 0, len));
            }
            out.force(false);
        } finally {
            for (FileChannel c : in) {
                c.close();
            }
        }
    }

    /** A source shard failed its bitrot check. */
    private static final class DamagedSource extends IOException {
        private static final long serialVersionUID = 1L;
        final int position;

        DamagedSource(int position, String message) {
            super(message);
            this.position = position;
        }
    }
}
