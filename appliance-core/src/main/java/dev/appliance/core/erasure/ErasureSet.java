package dev.appliance.core.erasure;

import dev.appliance.core.DeleteResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.WriteConditions;
import dev.appliance.core.bitrot.BitrotAlgorithm;
import dev.appliance.core.codec.ReedSolomon;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.DriveCalls.Outcome;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.SyncGroup;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.md5.Md5Lanes;
import dev.appliance.core.meta.CorruptMetaException;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.meta.VersionType;
import dev.appliance.core.meta.XlMeta;
import dev.appliance.core.naming.VersionIds;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One erasure set: {@code n} drives that jointly hold every shard of the objects placed on them.
 *
 * <h2>Quorum</h2>
 *
 * Writes need {@link ErasureLayout#writeQuorum()} drives (data, or data+1 when data equals parity); reads need
 * {@code data} drives agreeing on a version; deletes and delete markers need {@code n/2+1}. A write that reaches fewer
 * drives than its quorum is undone on the drives it reached and fails; one that reaches the quorum but not every drive
 * is acknowledged and the version is reported for healing.
 *
 * <h2>Write path</h2>
 *
 * The body is read one erasure block at a time; each block is split into data shards, parity is computed, and every
 * drive's shard (checksum first) is appended to its staging part file, or kept in memory when the version is small
 * enough to be stored inline in {@code xl.meta}. Part files are forced to stable storage, then, under the key's write
 * lock, each drive commits: it renames the data directory into the object directory, writes the new {@code xl.meta}
 * to staging, forces it, renames it over the old one and forces the object directory. Only after a write quorum of
 * drives committed is the write acknowledged.
 *
 * <h2>Read path</h2>
 *
 * {@code xl.meta} is read from every drive; the newest version whose identity (id, data directory, size, layout,
 * checksums) at least a read quorum of drives hold is the answer, with the metadata of the highest metadata generation
 * among them ({@link VersionAgreement}). Data is read block by block from the drives that agree, preferring data
 * shards so a healthy read needs no decoding; a missing shard, a short file or a checksum mismatch drops that drive for the
 * rest of the read, another shard is read instead, the missing data shards are reconstructed, and the version is
 * reported for healing.
 */
public final class ErasureSet {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(ErasureSet.class.getName());

    /**
     * Where a set reports what it could not finish on every drive (a partial write, a failed undo, a version held by
     * too few drives): the heal queue. An interface so the read and write paths do not depend on healing.
     */
    public interface HealReports {
        void report(String bucket, String key, String versionId, String reason);

        /** {@code durable}: journaled before the call returns (the write path's reports after an uncertain change). */
        void report(String bucket, String key, String versionId, String reason, boolean durable);
    }

    public static final int BLOCK_SIZE = 1 << 20;
    static final int INLINE_LIMIT = 128 * 1024;
    static final int INLINE_LIMIT_VERSIONED = 16 * 1024;
    static final int DEFAULT_MAX_VERSIONS = 10_000;
    /**
     * In versioned buckets every new version rewrites {@code xl.meta}, so inline data stops at a smaller file size
     * there: a key with thousands of versions keeps a file of tens of kilobytes.
     */
    static final int VERSIONED_META_CAP = 64 * 1024;

    private final int index;
    private final List<LocalDrive> drives;
    public final int data;
    final int parity;
    public final Placement placement;
    public final DriveCalls calls;
    public final NamespaceLocks locks;
    private final HealReports heal;
    private final Clock clock;
    public final BitrotAlgorithm bitrot = BitrotAlgorithm.CRC32C_PAIR;
    /** The most versions one key may have; a write beyond it fails ({@link ErrorKind#TOO_MANY_VERSIONS}). */
    public volatile int maxVersions;

    public ErasureSet(
            int index,
            List<LocalDrive> drives,
            int parity,
            Placement placement,
            DriveCalls calls,
            NamespaceLocks locks,
            HealReports heal,
            Clock clock) {
        this.index = index;
        this.drives = List.copyOf(drives);
        this.parity = parity;
        this.data = drives.size() - parity;
        this.placement = placement;
        this.calls = calls;
        this.locks = locks;
        this.heal = heal;
        this.clock = clock;
        this.maxVersions = DEFAULT_MAX_VERSIONS;
    }

    public List<LocalDrive> drives() {
        return drives;
    }

    public Clock clock() {
        return clock;
    }

    public int size() {
        return drives.size();
    }

    public ErasureLayout layout(int d, int p) {
        return new ErasureLayout(d, p, BLOCK_SIZE, bitrot.checksumLength());
    }

    /**
     * The layout of a version written now. Drives offline when the write starts would leave it with less protection
     * than the set's parity promises (a drive that misses the write holds none of its shards), so each one raises the
     * parity by one, up to half the set: with one drive of 4+2 away the version is written 3+3 and still survives the
     * loss of two more drives. The version records its own counts; reads and heals follow them.
     */
    public ErasureLayout writeLayout() {
        int offline = (int) drives.stream().filter(d -> !d.isOnline()).count();
        int p = Math.max(parity, Math.min(drives.size() / 2, parity + offline));
        return layout(drives.size() - p, p);
    }

    // ---------------------------------------------------------------------------------------------------- write

    /**
     * What a new version stores that depends on its modification time, applied once that time is fixed: the bucket's
     * default retention, which S3 counts from the version's creation.
     */
    @FunctionalInterface
    public interface AtCommit {
        AtCommit NONE = (metadata, modTime) -> metadata;

        Map<String, String> apply(Map<String, String> metadata, java.time.Instant modTime);
    }

    public ObjectInfo put(String bucket, String key, VersioningState versioning, PutRequest request, InputStream body)
            throws IOException {
        return put(bucket, key, versioning, request, body, AtCommit.NONE, null);
    }

    /**
     * A record kept beside a write's commit on each drive (the audit event of a call that sets retention): appended
     * after the rename that commits the version on a drive and before the flush that makes that rename durable, so one
     * flush serves both and the record costs no flush of its own.
     */
    public interface CommitRecord {
        /**
         * Appends the record on {@code drive} (one of this set's); with group commit unforced, the commit's flush
         * following, else forced. A failure is this drive's record's alone: the version's commit goes on.
         */
        void append(LocalDrive drive) throws IOException;

        /** The write met its quorum: the record is durable on {@code drives} drives, those whose commit is too. */
        void committed(int drives);
    }

    /**
     * Writes a new version: {@code atCommit} adds what depends on its modification time, {@code record} (null: none)
     * is kept beside the commit ({@link CommitRecord}).
     */
    public ObjectInfo put(
            String bucket,
            String key,
            VersioningState versioning,
            PutRequest request,
            InputStream body,
            AtCommit atCommit,
            CommitRecord record)
            throws IOException {
        ErasureLayout layout = writeLayout();
        int writeQuorum = layout.writeQuorum();
        int online = (int) drives.stream().filter(LocalDrive::isOnline).count();
        if (online < writeQuorum) {
            throw new StorageException(
                    ErrorKind.WRITE_QUORUM,
                    "erasure set " + (index + 1) + ": " + online + " of " + drives.size()
                            + " drives online, writes need " + writeQuorum);
        }
        boolean versioned = versioning == VersioningState.ENABLED;
        UUID versionId = versioned ? UUID.randomUUID() : ObjectVersion.NULL_VERSION_ID;
        int[] distribution = placement.distribution(bucket, key, drives.size());

        checkConditions(bucket, key, request);
        // One call per drive marks the change, stages the write and, for a small body, sizes xl.meta for inline data;
        // for a body of one block, the call that writes it does so.
        ShardSink sink = new ShardSink(
                layout,
                distribution,
                inlineShardBytes(request.size(), layout, versioned),
                versioned,
                new ChangingKey(bucket, key),
                request.size());
        boolean inline = sink.inline;
        try (ChangeMarks marks = sink.marks()) {
            // The commit's first flush, before its renames, also makes the part files durable (group commit).
            Received received = receive(sink, body, request, writeQuorum, true);
            long written = received.size();
            byte[] md5 = received.md5();
            String etag = HexFormat.of().formatHex(md5);
            TreeMap<String, String> metadata = new TreeMap<>(request.userMetadata());
            if (request.metadataAfterBody() != null) {
                metadata.putAll(request.metadataAfterBody().get());
            }
            metadata.put(
                    "content-type", request.contentType() == null ? "application/octet-stream" : request.contentType());
            long now = nowNanos();
            ObjectVersion version = new ObjectVersion(
                    versionId,
                    VersionType.OBJECT,
                    now,
                    inline ? null : sink.dataDir,
                    written,
                    layout.data(),
                    layout.parity(),
                    BLOCK_SIZE,
                    distribution,
                    bitrot.id(),
                    List.of(new PartInfo(1, written, null)),
                    etag,
                    new TreeMap<>(atCommit.apply(metadata, java.time.Instant.ofEpochSecond(0, now))),
                    inline);
            commit(bucket, key, version, sink, versioning, request, record);
            return info(bucket, key, version, true);
        } finally {
            sink.discard();
        }
    }

    /**
     * Change marks of one key on every online drive ({@link LocalDrive#markChange}), removed by {@link #close()} once
     * the change and its cleanup (replaced data directories to trash) are done. A crash in between leaves them, and the
     * next start heals the key as a whole: that removes what the interrupted change left (a data directory renamed in
     * without its {@code xl.meta}, a replaced one not yet in trash, a version on too few drives).
     */
    public ChangeMarks markChange(String bucket, String key) {
        // On every drive at once, within the drive deadline: a drive that overruns is taken out of service (so the
        // change leaves it out), and a mark it writes late is removed when it lands.
        List<Outcome<LocalDrive.Mark>> written = calls.onEach(
                drives,
                null,
                "marking a change",
                false,
                (pos, d) -> d.markChange(bucket, key),
                (pos, late) -> drives.get(pos).removeChangeMark(late));
        LocalDrive.Mark[] marks = new LocalDrive.Mark[drives.size()];
        for (int i = 0; i < marks.length; i++) {
            // a drive that failed will fail the change itself; its quorum decides
            marks[i] = written.get(i).ok() ? written.get(i).value() : null;
        }
        return new ChangeMarks(marks, this);
    }

    public record ChangeMarks(LocalDrive.Mark[] marks, ErasureSet set) implements AutoCloseable {
        /**
         * Removes the marks before returning (a finished change leaves none): slots at once, files within the drive
         * deadline (a drive that overruns is taken out of service and its removal goes on). File marks of drives out
         * of service by now are removed in the background, so a stalled drive does not hold the request once more; one
         * left behind only makes the next start heal the key again.
         */
        @Override
        public void close() {
            boolean[] online = new boolean[marks.length];
            boolean any = false;
            for (int i = 0; i < marks.length; i++) {
                if (marks[i] == null) {
                    continue;
                }
                LocalDrive d = set.drives.get(i);
                if (!marks[i].isFile()) {
                    d.removeChangeMark(marks[i]); // a slot: one store, no drive call
                    continue;
                }
                if (d.isOnline()) {
                    online[i] = any = true;
                } else {
                    LocalDrive.Mark m = marks[i];
                    try {
                        set.calls.submit(() -> {
                            d.removeChangeMark(m);
                            return null;
                        });
                    } catch (java.util.concurrent.RejectedExecutionException e) {
                        // closing: the next start finds the mark and heals the key once more
                    }
                }
            }
            if (any) {
                set.calls.onEach(
                        set.drives,
                        online,
                        "removing a change mark",
                        false,
                        (pos, d) -> {
                            d.removeChangeMark(marks[pos]);
                            return Boolean.TRUE;
                        },
                        null);
            }
        }
    }

    /** What was read from a request body: its length and MD5. */
    public record Received(long size, byte[] md5) {}

    /**
     * Streams the body into {@code sink}, checks length and Content-MD5, reads the body to its end (streams verify
     * checksums, payload hashes and chunk signatures there, and a failure must stop the commit), and forces the shard
     * files to stable storage.
     */
    public Received receive(ShardSink sink, InputStream body, PutRequest request, int writeQuorum) throws IOException {
        return receive(sink, body, request, writeQuorum, false);
    }

    /**
     * As above; {@code flushedByCommit}: the caller commits the files with {@link KeyFiles}, whose group-commit flush
     * before the committing rename covers the part files too, so they are not flushed on their own first (one flush
     * wait fewer per write). Without group commit each file is forced here as always.
     */
    private Received receive(
            ShardSink sink, InputStream body, PutRequest request, int writeQuorum, boolean flushedByCommit)
            throws IOException {
        sink.flushedByCommit = flushedByCommit;
        long written = sink.stream(body, request.size());
        if (request.size() >= 0 && written < request.size()) {
            throw new StorageException(
                    ErrorKind.INCOMPLETE_BODY,
                    "the body ended after " + written + " of " + request.size() + " bytes announced");
        }
        if (body.read() != -1) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT, "the body is longer than the " + written + " bytes announced");
        }
        byte[] md5 = sink.md5();
        if (request.expectedMd5() != null && !MessageDigest.isEqual(md5, request.expectedMd5())) {
            throw new StorageException(
                    ErrorKind.BAD_DIGEST, "The Content-MD5 you specified did not match what we received.");
        }
        sink.finish(writeQuorum);
        return new Received(written, md5);
    }

    /** If-Match / If-None-Match: * of a write, against the current version (checked again under the key's lock). */
    public void checkConditions(String bucket, String key, PutRequest request) {
        checkConditions(bucket, key, new WriteConditions(request.ifMatch(), request.ifNoneMatchAny()));
    }

    public void checkConditions(String bucket, String key, WriteConditions request) {
        if (request.ifMatch() == null && !request.ifNoneMatchAny()) {
            return;
        }
        ObjectInfo current = latestObjectOrNull(bucket, key);
        if (request.ifNoneMatchAny() && current != null) {
            throw new StorageException(
                    ErrorKind.PRECONDITION_FAILED, "At least one of the pre-conditions you specified did not hold");
        }
        if (request.ifMatch() != null) {
            if (current == null) {
                throw new StorageException(ErrorKind.OBJECT_NOT_FOUND, "The specified key does not exist.");
            }
            String wanted = request.ifMatch().replace("\"", "").trim();
            if (!wanted.equals("*") && !wanted.equals(current.etag())) {
                throw new StorageException(
                        ErrorKind.PRECONDITION_FAILED, "At least one of the pre-conditions you specified did not hold");
            }
        }
    }

    /**
     * The bytes a body of {@code size} adds to each drive's {@code xl.meta} inline, or -1 when it is too large to inline
     * (or of unknown size). Whether it is inlined also depends on the room left in {@code xl.meta}
     * ({@link #metaFits}).
     */
    private static long inlineShardBytes(long size, ErasureLayout layout, boolean versioned) {
        if (size < 0) {
            return -1;
        }
        long shardBytes = layout.shardFileSize(size);
        if (shardBytes - layout.blockCount(size) * layout.checksumLength()
                > (versioned ? INLINE_LIMIT_VERSIONED : INLINE_LIMIT)) {
            return -1;
        }
        return shardBytes;
    }

    private static boolean metaFits(long largestMeta, long shardBytes, boolean versioned) {
        return largestMeta + shardBytes <= (versioned ? VERSIONED_META_CAP : XlMeta.MAX_INLINE_BYTES);
    }

    /** The size of a key's {@code xl.meta} on a drive (0 if it has none): it bounds the inline bytes the file holds. */
    private static long metaSize(LocalDrive drive, String bucket, String key) throws IOException {
        drive.beforeRead();
        var attributes = LocalDrive.attributesIfPresent(drive.metaFile(bucket, key)); // a new key: absent, no exception
        return attributes == null ? 0L : attributes.size();
    }

    /**
     * Inline data must never make {@code xl.meta} big: past the cap, versions keep their data in part files. The file
     * size bounds the inline bytes it holds, so a stat per drive answers without reading the file.
     */
    private boolean metaHasRoomFor(String bucket, String key, long shardBytes, boolean versioned) {
        long largestMeta = 0;
        for (Outcome<Long> o : calls.onBounded(
                drives, null, data, "reading a metadata size", (pos, drive) -> metaSize(drive, bucket, key), null)) {
            if (o.ok()) {
                largestMeta = Math.max(largestMeta, o.value());
            }
        }
        return metaFits(largestMeta, shardBytes, versioned);
    }

    /** The key a write marks as changing on each drive ({@link LocalDrive#markChange}) in the call that stages it. */
    record ChangingKey(String bucket, String key) {}

    /** Erasure-codes a body into per-drive staging part files or inline buffers. */
    public final class ShardSink {
        final ErasureLayout layout;
        final int[] distribution;
        /** Whether the shards go into {@code xl.meta} (decided once staged: it depends on the room left there). */
        final boolean inline;

        final UUID dataDir;
        final int partNumber;
        /** Per drive, the staged data directory (holding {@code part.N}; created only for part files). */
        public final Path[] staging = new Path[drives.size()];

        final ShardFileWriter[] files = new ShardFileWriter[drives.size()];
        final java.io.ByteArrayOutputStream[] inlineShards = new java.io.ByteArrayOutputStream[drives.size()];
        public final Throwable[] failed = new Throwable[drives.size()];
        final MessageDigest md5 = newMd5();
        /**
         * The body's MD5 when it is one block: hashed side by side with other writes' bodies while the drives write,
         * finished when {@link #md5()} asks (null: {@link #md5} hashes the body as it is read).
         */
        private Md5Lanes.Body md5Lane;
        /** The erasure-coding memory of this write (null until streaming starts); see {@link #discard()}. */
        private ShardBuffers buffers;

        private boolean buffersInUseByLateCall;
        /** The change marks written with the staging (none when the caller marks the change itself). */
        private final ChangeMarks marks;
        /**
         * The key whose staging (mark first) waits for the call that writes the body's only block, one call per drive
         * fewer; null when staged at once.
         */
        private final ChangingKey stagedWithTheBlock;
        /** Whether every drive still writing completed its part file with the last block's append (see {@link #finish}). */
        private boolean filesFinished;
        /** See {@link ErasureSet#receive(ShardSink, InputStream, PutRequest, int, boolean)}. */
        private boolean flushedByCommit;

        /** A sink of part files for part {@code partNumber} in data directory {@code dataDir} (a multipart part). */
        public ShardSink(ErasureLayout layout, int[] distribution, int partNumber, UUID dataDir) throws IOException {
            this(layout, distribution, -1, false, partNumber, dataDir, null, false);
        }

        /**
         * A sink of a new version of {@code changing}, whose change it marks on each drive while staging. {@code
         * inlineBytes}: what the body adds inline to each drive's {@code xl.meta}, or -1 if it is never inlined; it is
         * inlined if {@code xl.meta} has room for it on every drive that answers (sized in the same call). A body of
         * {@code size} bytes that fills at most one block and is never inlined is staged by the call that writes it.
         */
        ShardSink(
                ErasureLayout layout,
                int[] distribution,
                long inlineBytes,
                boolean versioned,
                ChangingKey changing,
                long size)
                throws IOException {
            this(
                    layout,
                    distribution,
                    inlineBytes,
                    versioned,
                    1,
                    UUID.randomUUID(),
                    changing,
                    inlineBytes < 0 && size > 0 && size <= layout.blockSize());
        }

        private ShardSink(
                ErasureLayout layout,
                int[] distribution,
                long inlineBytes,
                boolean versioned,
                int partNumber,
                UUID dataDir,
                ChangingKey changing,
                boolean stageWithTheBlock)
                throws IOException {
            this.dataDir = dataDir;
            this.partNumber = partNumber;
            this.layout = layout;
            this.distribution = distribution;
            if (stageWithTheBlock && changing != null) {
                this.stagedWithTheBlock = changing;
                this.marks = new ChangeMarks(new LocalDrive.Mark[drives.size()], ErasureSet.this);
                this.inline = false;
                return;
            }
            this.stagedWithTheBlock = null;
            boolean inlineCandidate = inlineBytes >= 0 && changing != null;
            // In parallel and bounded: a drive too slow to mark or open its staging file is left out of this write (its
            // staging is private, so a late answer harms nothing: its mark and files are removed when it lands), and
            // the version is reported for healing.
            List<Outcome<Staged>> opened = calls.onBounded(
                    drives,
                    null,
                    layout.writeQuorum(),
                    calls.writeStragglerMillis(),
                    "creating a write's staging files",
                    (pos, d) -> stage(d, changing, inlineCandidate),
                    Staged::discard);
            LocalDrive.Mark[] written = new LocalDrive.Mark[drives.size()];
            long largestMeta = 0;
            for (int i = 0; i < drives.size(); i++) {
                Outcome<Staged> o = opened.get(i);
                if (!o.ok()) {
                    failed[i] = o.error();
                } else {
                    staging[i] = o.value().dir();
                    files[i] = o.value().file();
                    written[i] = o.value().mark();
                    largestMeta = Math.max(largestMeta, o.value().metaSize());
                }
            }
            this.marks = new ChangeMarks(written, ErasureSet.this);
            this.inline = inlineCandidate && metaFits(largestMeta, inlineBytes, versioned);
            try {
                checkQuorum(layout.writeQuorum());
                if (inlineCandidate && !inline) {
                    createPartFiles(); // xl.meta has no room left for the body: part files after all
                }
                for (int i = 0; i < drives.size() && inline; i++) {
                    if (failed[i] == null) {
                        inlineShards[i] = new java.io.ByteArrayOutputStream();
                    }
                }
            } catch (RuntimeException e) {
                // the caller never gets this sink to discard: staging and marks must not stay until the next start
                discard();
                marks.close();
                throw e;
            }
        }

        /** The change marks written while staging: closed once the change and its cleanup are done. */
        ChangeMarks marks() {
            return marks;
        }

        /**
         * One drive's change mark (if asked for), private staged data directory (renamed whole into the object
         * directory at commit; not created for inline data), its open part file unless inline, and the size of the
         * key's {@code xl.meta} there when the body may go inline.
         */
        record Staged(Path dir, ShardFileWriter file, LocalDrive.Mark mark, long metaSize) {
            void discard() {
                try {
                    if (file != null) {
                        file.close();
                    }
                    LocalDrive.deleteTree(dir);
                } catch (IOException ignored) {
                    // cleaned at the next start
                }
                if (mark != null) {
                    LocalDrive.clearChangeMark(mark);
                }
            }
        }

        private Staged stage(LocalDrive d, ChangingKey changing, boolean inlineCandidate) throws IOException {
            // the mark first: the next start must find it if a crash leaves anything of this write behind
            LocalDrive.Mark mark = changing == null ? null : d.markChange(changing.bucket(), changing.key());
            try {
                Path dir = d.newStagingPath("");
                if (inlineCandidate) {
                    return new Staged(dir, null, mark, metaSize(d, changing.bucket(), changing.key()));
                }
                return new Staged(dir, createPartFile(d, dir), mark, 0);
            } catch (IOException | RuntimeException e) {
                if (mark != null) {
                    LocalDrive.clearChangeMark(mark);
                }
                throw e;
            }
        }

        private ShardFileWriter createPartFile(LocalDrive d, Path dir) throws IOException {
            try {
                Files.createDirectory(dir);
                int alignment = d.directIoAlignment();
                return ShardFileWriter.create(
                        dir.resolve("part." + partNumber),
                        alignment > 0 && alignment <= ShardBuffers.ALIGNMENT,
                        alignment);
            } catch (IOException e) {
                new Staged(dir, null, null, 0).discard();
                throw e;
            }
        }

        /** Creates the part files of a body staged for inlining that turned out not to fit (a second call per drive). */
        private void createPartFiles() {
            List<Outcome<Staged>> created = calls.onBounded(
                    drives,
                    writing(),
                    layout.writeQuorum(),
                    calls.writeStragglerMillis(),
                    "creating a write's part files",
                    (pos, d) -> {
                        d.beforeWrite();
                        return new Staged(staging[pos], createPartFile(d, staging[pos]), null, 0);
                    },
                    Staged::discard);
            for (int i = 0; i < drives.size(); i++) {
                Outcome<Staged> o = created.get(i);
                if (failed[i] == null && !o.ok()) {
                    failed[i] = o.error();
                } else if (failed[i] == null) {
                    files[i] = o.value().file();
                }
            }
            checkQuorum(layout.writeQuorum());
        }

        /**
         * Streams the body through the codec into the drives, block by block; returns the bytes read (fewer than a
         * known {@code size} only if the body ended early, which the caller refuses). With the last block each drive
         * also completes its part file (see {@link #finish}), in the same call.
         */
        long stream(InputStream body, long size) throws IOException {
            ReedSolomon codec = ReedSolomon.of(layout.data(), layout.parity());
            ShardBuffers coding = ShardBuffers.take(layout, size);
            buffers = coding; // a drive call given up on may still use them after discard() let go of the field
            byte[][] shards = coding.shards;
            byte[] checksum = coding.checksum;
            // the drive writes of a body of one block leave time for other writes' bodies to join its MD5
            boolean md5InLanes = Md5Lanes.usable() && size >= Md5Lanes.MIN_BODY && size <= coding.block.length;
            long total = 0;
            while (size < 0 || total < size) {
                int want = (int) (size < 0 ? coding.block.length : Math.min(coding.block.length, size - total));
                int n = size < 0 ? readBlock(body, coding, want) : readIntoShards(body, coding, want, !md5InLanes);
                if (n == 0 || (size >= 0 && n < want)) {
                    return total + n; // a known length not reached: the caller refuses the write
                }
                total += n;
                int shardLen = layout.shardLength(n);
                if (md5InLanes) {
                    md5Lane = submitToLanes(shards, n, shardLen);
                }
                codec.encodeParity(shards, 0, shardLen);
                boolean last = size < 0 ? n < want : total == size;
                if (inline) {
                    for (int pos = 0; pos < drives.size(); pos++) {
                        if (failed[pos] == null) {
                            byte[] shard = shards[distribution[pos] - 1];
                            bitrot.checksum(shard, 0, shardLen, checksum, 0);
                            inlineShards[pos].write(checksum);
                            inlineShards[pos].write(shard, 0, shardLen);
                        }
                    }
                } else {
                    // Each drive appends its shard in parallel; a drive that lags is left out of the rest of the
                    // write (the shards of a block are not touched again until every drive kept in answered). Writes
                    // go from a reused direct buffer per drive: a heap buffer would be copied by the JDK into a fresh
                    // temporary direct buffer on every call.
                    int shardLength = shardLen;
                    int checksumLength = bitrot.checksumLength();
                    ChangingKey stageNow = stagedWithTheBlock;
                    List<Outcome<Staged>> outcomes = calls.onBounded(
                            drives,
                            writing(),
                            layout.writeQuorum(),
                            calls.writeStragglerMillis(),
                            "writing a shard",
                            (pos, drive) -> {
                                // the body's only block: this call stages it first (mark first), one call fewer
                                Staged staged = stageNow == null ? null : stage(drive, stageNow, false);
                                try {
                                    ShardFileWriter file = staged == null ? files[pos] : staged.file();
                                    int index = distribution[pos] - 1;
                                    byte[] shard = shards[index];
                                    byte[] cs = new byte[checksumLength];
                                    bitrot.checksum(shard, 0, shardLength, cs, 0);
                                    drive.beforeWrite();
                                    file.append(cs, shard, shardLength, coding.writeBuffer(index));
                                    if (last) {
                                        // one call fewer per drive and write
                                        finishFile(file, staged == null ? staging[pos] : staged.dir(), drive);
                                    }
                                    return staged;
                                } catch (IOException | RuntimeException e) {
                                    if (staged != null) {
                                        staged.discard();
                                    }
                                    throw e;
                                }
                            },
                            // a drive given up on: what it staged goes when its call ends
                            stageNow == null ? null : Staged::discard);
                    if (stageNow != null) {
                        for (int i = 0; i < outcomes.size(); i++) {
                            Outcome<Staged> o = outcomes.get(i);
                            if (failed[i] == null && o.ok()) {
                                staging[i] = o.value().dir();
                                files[i] = o.value().file();
                                marks.marks()[i] = o.value().mark();
                            }
                        }
                    }
                    // a drive given up on may still be writing from these buffers: never hand them to another write
                    buffersInUseByLateCall |= recordFailures(outcomes);
                    filesFinished = last; // a drive that failed that call is out of the write
                }
                checkQuorum(layout.writeQuorum());
                if (n < want) {
                    break;
                }
            }
            return total;
        }

        /**
         * The reference path, for a body of unknown length: reads up to {@code want} bytes into the block, then copies
         * them into the data shards (zero-padded).
         */
        private int readBlock(InputStream body, ShardBuffers coding, int want) throws IOException {
            int n = body.readNBytes(coding.block, 0, want);
            md5.update(coding.block, 0, n);
            int shardLen = layout.shardLength(n);
            for (int j = 0; j < layout.data(); j++) {
                int from = j * shardLen;
                int len = Math.max(0, Math.min(shardLen, n - from));
                if (len > 0) {
                    System.arraycopy(coding.block, from, coding.shards[j], 0, len);
                }
                Arrays.fill(coding.shards[j], len, shardLen, (byte) 0);
            }
            return n;
        }

        /**
         * The fast path, for a body of known length: reads the next {@code want} bytes straight into the data shards
         * (zero-padded), a copy fewer than {@link #readBlock}, which it must match (ShardSinkPathsTest). Returns fewer
         * than {@code want} only if the body ended early; the shards are then not coded.
         */
        private int readIntoShards(InputStream body, ShardBuffers coding, int want, boolean hash) throws IOException {
            int shardLen = layout.shardLength(want);
            int n = 0;
            for (int j = 0; j < layout.data(); j++) {
                int len = Math.max(0, Math.min(shardLen, want - j * shardLen));
                int got = len == 0 ? 0 : body.readNBytes(coding.shards[j], 0, len);
                if (hash) {
                    md5.update(coding.shards[j], 0, got);
                }
                n += got;
                if (got < len) {
                    return n;
                }
                Arrays.fill(coding.shards[j], len, shardLen, (byte) 0);
            }
            return n;
        }

        /** The body's {@code n} bytes, as {@link #readIntoShards} laid them in the data shards, to the lanes. */
        private Md5Lanes.Body submitToLanes(byte[][] shards, int n, int shardLen) {
            byte[][] segments = new byte[layout.data()][];
            int[] lengths = new int[layout.data()];
            for (int j = 0; j < lengths.length; j++) {
                segments[j] = shards[j];
                lengths[j] = Math.max(0, Math.min(shardLen, n - j * shardLen));
            }
            return Md5Lanes.shared().submit(segments, lengths);
        }

        byte[] md5() {
            return md5Lane != null ? md5Lane.digest() : md5.digest();
        }

        long inlineLength() {
            long max = 0;
            for (var b : inlineShards) {
                max = b == null ? max : Math.max(max, b.size());
            }
            return max;
        }

        /** Writes the inline shards as part files (they have exactly the part file layout) and returns the version. */
        ObjectVersion spillInline(ObjectVersion v) {
            boolean[] include = new boolean[drives.size()];
            for (int i = 0; i < include.length; i++) {
                include[i] = failed[i] == null;
            }
            List<Outcome<Void>> outcomes = calls.onBounded(
                    drives,
                    include,
                    layout.writeQuorum(),
                    calls.writeStragglerMillis(),
                    "writing a part file",
                    (pos, drive) -> {
                        drive.beforeWrite();
                        Path dir = Files.createDirectory(staging[pos]);
                        LocalDrive.writeAndForce(dir.resolve("part.1"), inlineShards[pos].toByteArray());
                        LocalDrive.forceDirectory(dir);
                        return null;
                    },
                    null);
            for (int i = 0; i < include.length; i++) {
                if (include[i] && !outcomes.get(i).ok()) {
                    failed[i] = outcomes.get(i).error();
                }
            }
            checkQuorum(layout.writeQuorum());
            return v.inPartFiles(dataDir);
        }

        /**
         * Forces every part file to stable storage (in parallel across drives); with group commit and {@code
         * flushedByCommit}, only completes and closes them, the commit's flush making them durable. Drives that did so
         * with the last block's append are not called again.
         */
        void finish(int writeQuorum) {
            if (inline) {
                return;
            }
            if (!filesFinished) {
                List<Outcome<Void>> outcomes = calls.onBounded(
                        drives,
                        writing(),
                        writeQuorum,
                        calls.writeStragglerMillis(),
                        "forcing a part file",
                        (pos, drive) -> {
                            drive.beforeWrite();
                            finishFile(files[pos], staging[pos], drive);
                            return null;
                        },
                        null);
                recordFailures(outcomes);
            }
            checkQuorum(writeQuorum);
        }

        /** Completes a drive's part file: what waits in its buffer, then its durability (see {@link #finish}). */
        private void finishFile(ShardFileWriter file, Path dir, LocalDrive drive) throws IOException {
            file.finish();
            SyncGroup group = drive.syncGroup();
            if (group != null) {
                // one flush shared with the other writes on this filesystem covers file and directory
                file.close(); // closing again in discard() does nothing
                if (!flushedByCommit) {
                    group.await(drive.root());
                }
                return;
            }
            file.force();
            file.close();
            // the part file's name lives in the data directory, which the commit renames into place
            LocalDrive.forceDirectory(dir);
        }

        /** The drives still taking part in this write. */
        private boolean[] writing() {
            boolean[] include = new boolean[drives.size()];
            for (int i = 0; i < include.length; i++) {
                include[i] = failed[i] == null;
            }
            return include;
        }

        /** Records the drives that failed now; returns whether there were any. */
        private boolean recordFailures(List<? extends Outcome<?>> outcomes) {
            boolean any = false;
            for (int i = 0; i < outcomes.size(); i++) {
                if (failed[i] == null && !outcomes.get(i).ok()) {
                    failed[i] = outcomes.get(i).error();
                    any = true;
                }
            }
            return any;
        }

        void checkQuorum(int writeQuorum) {
            int ok = 0;
            List<Throwable> errors = new ArrayList<>();
            for (Throwable t : failed) {
                if (t == null) {
                    ok++;
                } else {
                    errors.add(t);
                }
            }
            if (ok < writeQuorum) {
                throw quorumFailure(ErrorKind.WRITE_QUORUM, "write", ok, writeQuorum, errors);
            }
        }

        /**
         * Closes files, removes staging directories that were not committed, and returns the coding buffers for reuse
         * unless a drive was given up on while writing: its call may still be running and reading them.
         */
        public void discard() {
            // a batch of other writes may still be hashing this body's shards
            buffersInUseByLateCall |= md5Lane != null && md5Lane.abandon();
            ShardBuffers b = buffers;
            buffers = null;
            if (b != null && !buffersInUseByLateCall) {
                b.close();
            }
            for (int i = 0; i < drives.size(); i++) {
                try {
                    if (files[i] != null) {
                        files[i].close();
                    }
                } catch (IOException ignored) {
                    // the staging directory is removed below, or at the next start
                }
                if (staging[i] != null && Files.exists(staging[i])) {
                    try {
                        LocalDrive.deleteTree(staging[i]);
                    } catch (IOException ignored) {
                        // cleaned at the next start
                    }
                }
            }
        }
    }

    private void commit(
            String bucket,
            String key,
            ObjectVersion version,
            ShardSink sink,
            VersioningState versioning,
            PutRequest request,
            CommitRecord record) {
        int writeQuorum = layout(version.dataShards(), version.parityShards()).writeQuorum();
        try (var lock = locks.write(bucket, key)) {
            checkConditions(bucket, key, request);
            // Another writer may have filled the inline section since this write chose to inline: spill to part files.
            // Not in a bucket never versioned: the commit replaces the key's only version, so the section holds this
            // write's shard alone (at most INLINE_LIMIT, half the format's cap); a versioning change racing the write
            // adds at most VERSIONED_META_CAP beside it.
            ObjectVersion v = version.inline()
                            && versioning != VersioningState.UNVERSIONED
                            && !metaHasRoomFor(bucket, key, sink.inlineLength(), versioning == VersioningState.ENABLED)
                    ? sink.spillInline(version)
                    : version;
            boolean[] include = new boolean[drives.size()];
            for (int i = 0; i < include.length; i++) {
                include[i] = sink.failed[i] == null;
            }
            var late = new DriveCalls.LateChanges<KeyFiles.Change>();
            boolean[] recorded = record == null ? null : new boolean[drives.size()];
            List<Outcome<KeyFiles.Change>> outcomes = calls.on(
                    drives,
                    include,
                    (pos, drive) -> {
                        byte[] inlineShard = v.inline() ? sink.inlineShards[pos].toByteArray() : null;
                        Path stagedDataDir = v.inline() ? null : sink.staging[pos];
                        Runnable beforeLastFlush =
                                record == null ? null : () -> recorded[pos] = appendRecord(record, drive, bucket, key);
                        return commitOnDrive(drive, bucket, key, v, inlineShard, stagedDataDir, beforeLastFlush);
                    },
                    late);
            finishMutation(bucket, key, v.versionId(), include, outcomes, writeQuorum, "write", late, null);
            if (record != null) {
                int durable = 0;
                for (int i = 0; i < outcomes.size(); i++) {
                    // read after the drive's call ended (its outcome): a late call is not ok and not counted
                    durable += include[i] && outcomes.get(i).ok() && recorded[i] ? 1 : 0;
                }
                record.committed(durable);
            }
        }
    }

    /** Appends {@code record} on a drive that just committed; false when it failed there (the commit goes on). */
    private static boolean appendRecord(CommitRecord record, LocalDrive drive, String bucket, String key) {
        try {
            record.append(drive);
            return true;
        } catch (IOException | RuntimeException e) {
            // counted out by the caller; the record's owner reports one kept on too few drives
            LOG.fine(
                    "a record kept with the commit of " + bucket + "/" + key + " on " + drive.root() + " failed: " + e);
            return false;
        }
    }

    public KeyFiles.Change commitOnDrive(
            LocalDrive drive, String bucket, String key, ObjectVersion version, byte[] inlineShard, Path stagedDataDir)
            throws IOException {
        return commitOnDrive(drive, bucket, key, version, inlineShard, stagedDataDir, null);
    }

    private KeyFiles.Change commitOnDrive(
            LocalDrive drive,
            String bucket,
            String key,
            ObjectVersion version,
            byte[] inlineShard,
            Path stagedDataDir,
            Runnable beforeLastFlush)
            throws IOException {
        try {
            return KeyFiles.forUpdate(drive, bucket, key)
                    .add(version, inlineShard, stagedDataDir, maxVersions, beforeLastFlush);
        } catch (StorageException e) {
            if (e.kind() != ErrorKind.TOO_MANY_VERSIONS) {
                throw e;
            }
            throw new StorageException(
                    ErrorKind.TOO_MANY_VERSIONS,
                    "Key '" + key + "' in bucket '" + bucket + "' has reached the limit of " + maxVersions
                            + " versions per key. Remove old versions (DeleteObject with a versionId) or add a"
                            + " NoncurrentVersionExpiration lifecycle rule; the limit is set with"
                            + " --max-versions-per-key.");
        }
    }

    /**
     * After a mutation ran on the drives: on quorum, cleans what the new state no longer references and reports drives
     * that missed it for healing; below quorum, undoes it on the drives it reached and fails.
     */
    public void finishMutation(
            String bucket,
            String key,
            UUID versionId,
            boolean[] include,
            List<Outcome<KeyFiles.Change>> outcomes,
            int quorum,
            String what) {
        finishMutation(bucket, key, versionId, include, outcomes, quorum, what, null, null);
    }

    /**
     * As above; {@code late} holds the changes of drives given up on at the deadline, undone if the quorum refuses. A
     * refused change's new data directory goes back to {@code dataDirHome(drive)} instead of to trash (null: trash),
     * for data that outlives the refusal: a multipart upload's parts, which a retried completion needs.
     */
    public void finishMutation(
            String bucket,
            String key,
            UUID versionId,
            boolean[] include,
            List<Outcome<KeyFiles.Change>> outcomes,
            int quorum,
            String what,
            DriveCalls.LateChanges<KeyFiles.Change> late,
            java.util.function.Function<LocalDrive, Path> dataDirHome) {
        int ok = 0;
        List<Throwable> errors = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (include[i] && outcomes.get(i).ok()) {
                ok++;
            } else if (include[i]) {
                errors.add(outcomes.get(i).error());
            }
        }
        if (ok < quorum) {
            // Undone on the drives that answered in time, at once and within the deadline: a drive whose undo overruns
            // is taken out of service until it ends (so the refused change cannot be seen there), and the key is
            // reported for healing. Even on drives out of service by now: the refused change must not stay there.
            boolean[] reached = new boolean[outcomes.size()];
            boolean anyReached = false;
            for (int i = 0; i < outcomes.size(); i++) {
                reached[i] =
                        include[i] && outcomes.get(i).ok() && outcomes.get(i).value() != null;
                anyReached |= reached[i];
            }
            boolean undoTimedOut = false;
            if (anyReached) {
                List<Outcome<Boolean>> undone = calls.onEach(
                        drives,
                        reached,
                        "undoing a refused " + what,
                        true,
                        (pos, d) -> {
                            undo(d, bucket, key, outcomes.get(pos).value(), dataDirHome);
                            return Boolean.TRUE;
                        },
                        null);
                undoTimedOut = undone.stream().anyMatch(o -> o.error() instanceof DriveCalls.DriveTimeoutException);
            }
            if (late != null) {
                late.refused((pos, change) -> undo(drives.get(pos), bucket, key, change, dataDirHome));
            }
            if (undoTimedOut || errors.stream().anyMatch(e -> e instanceof DriveCalls.DriveTimeoutException)) {
                // A drive given up on may still apply the refused change (or finish its undo later); the heal
                // removes what is left once the drive is back.
                heal.report(bucket, key, "", what + " refused; a drive that timed out may still apply it", true);
            }
            throw quorumFailure(ErrorKind.WRITE_QUORUM, what, ok, quorum, errors);
        }
        if (late != null) {
            late.accepted();
        }
        // Replaced data directories to trash, on every drive at once within the deadline: a drive that overruns is
        // taken out of service while its move goes on (harmless: nothing references the directory any more).
        boolean[] replaced = new boolean[outcomes.size()];
        boolean anyReplaced = false;
        for (int i = 0; i < outcomes.size(); i++) {
            Outcome<KeyFiles.Change> o = outcomes.get(i);
            replaced[i] = include[i] && o.ok() && o.value() != null && o.value().replacedDataDir() != null;
            anyReplaced |= replaced[i];
        }
        if (anyReplaced) {
            calls.onEach(
                    drives,
                    replaced,
                    "moving a replaced data directory to trash",
                    false,
                    (pos, d) -> {
                        try {
                            d.moveToTrash(d.objectDir(bucket, key)
                                    .resolve(outcomes.get(pos)
                                            .value()
                                            .replacedDataDir()
                                            .toString()));
                        } catch (IOException e) {
                            // an unreferenced data dir is harmless and collected later
                        }
                        return Boolean.TRUE;
                    },
                    null);
        }
        if (ok < drives.size()) {
            // Durably journaled before the write is acknowledged: a crash must not forget the drives it missed.
            heal.report(
                    bucket,
                    key,
                    VersionIds.format(versionId),
                    what + " reached " + ok + " of " + drives.size() + " drives",
                    true);
        }
    }

    private void undo(
            LocalDrive drive,
            String bucket,
            String key,
            KeyFiles.Change change,
            java.util.function.Function<LocalDrive, Path> dataDirHome) {
        if (change == null) {
            return;
        }
        try {
            KeyFiles.undo(drive, bucket, key, change, dataDirHome == null ? null : dataDirHome.apply(drive));
            if (!Files.exists(drive.metaFile(bucket, key))) {
                // the write created the key's directory here: an empty one would outlive the refused write
                drive.pruneEmptyParents(drive.objectDir(bucket, key), drive.bucketDir(bucket));
            }
        } catch (IOException e) {
            heal.report(bucket, key, "", "undo of a failed write on " + drive.root() + " failed: " + e.getMessage());
        }
    }

    private static StorageException quorumFailure(
            ErrorKind kind, String what, int ok, int quorum, List<Throwable> errors) {
        for (Throwable t : errors) {
            if (t instanceof StorageException se && se.kind() == ErrorKind.TOO_MANY_VERSIONS) {
                return se;
            }
        }
        boolean full = errors.stream().anyMatch(ErasureSet::isDiskFull);
        String first = errors.isEmpty() ? "" : ": " + errors.getFirst();
        return new StorageException(
                full ? ErrorKind.STORAGE_FULL : kind,
                what + " reached " + ok + " drive(s), " + quorum + " needed" + (full ? " (drives are full)" : "")
                        + first);
    }

    static boolean isDiskFull(Throwable t) {
        return DriveCalls.isDiskFull(t);
    }

    // ---------------------------------------------------------------------------------------------------- read

    /** Each drive's metadata files for a key (null entries: absent, corrupt or unreadable). */
    public final class MetaSnapshot {
        final String bucket;
        final String key;
        public final KeyFiles[] files = new KeyFiles[drives.size()];
        final XlMeta[] metas = new XlMeta[drives.size()];
        int absent;
        public int failed;
        /** Drives given up on as too slow: they may well hold the version, so their absence is not reported. */
        int slow;
        /** Drives out of service, or given up on as slow, when read: they said nothing of the key. */
        private final boolean[] unheard = new boolean[drives.size()];

        public MetaSnapshot(String bucket, String key) {
            this(bucket, key, calls.stragglerMillis());
        }

        /** Reads every drive's metadata, giving drives that lag {@code graceMillis} once {@code data} answered. */
        public MetaSnapshot(String bucket, String key, long graceMillis) {
            this.bucket = bucket;
            this.key = key;
            List<Outcome<KeyFiles>> outcomes = calls.onBounded(
                    drives,
                    null,
                    data,
                    graceMillis,
                    "reading metadata",
                    (pos, drive) -> KeyFiles.forRead(drive, bucket, key),
                    null);
            for (int i = 0; i < outcomes.size(); i++) {
                Outcome<KeyFiles> o = outcomes.get(i);
                if (!o.ok()) {
                    failed++;
                    if (o.error() instanceof DriveCalls.DriveTimeoutException) {
                        slow++;
                    }
                    unheard[i] = o.error() instanceof DriveCalls.DriveOfflineException
                            || o.error() instanceof DriveCalls.DriveTimeoutException;
                    if (o.error() instanceof CorruptMetaException e) {
                        heal.report(
                                bucket,
                                key,
                                "",
                                "corrupt xl.meta on " + drives.get(i).root() + ": " + e.getMessage());
                    }
                } else if (o.value() == null) {
                    absent++;
                } else {
                    files[i] = o.value();
                    metas[i] = o.value().hot();
                }
            }
        }

        /**
         * Whether a drive in service, and given time to answer, lacks what {@code holders} hold. A drive out of service,
         * or whose {@code format.json} is gone (pulled; the drive check takes it out within seconds), is not reported
         * object by object: every read would queue a heal that cannot write to it. What such a drive misses was
         * reported by the writes that missed it, and a replacement is healed whole.
         */
        private boolean lacksOnDriveInService(boolean[] holders) {
            for (int i = 0; i < holders.length; i++) {
                if (!holders[i]
                        && !unheard[i]
                        && Files.isRegularFile(drives.get(i).formatFile())) {
                    return true;
                }
            }
            return false;
        }

        /** Where drive {@code i} holds a version, or null (a damaged archive counts as not holding it). */
        XlMeta.Pick locate(int i, UUID versionId) {
            if (files[i] == null) {
                return null;
            }
            try {
                return files[i].locate(versionId);
            } catch (IOException | CorruptMetaException e) {
                heal.report(
                        bucket,
                        key,
                        VersionIds.format(versionId),
                        "metadata archive unreadable on " + drives.get(i).root() + ": " + e.getMessage());
                return null;
            }
        }
    }

    /** A version agreed by a quorum of drives, and which drives hold it identically. */
    public record Resolved(ObjectVersion version, boolean latest, boolean[] holders, XlMeta[] metas) {}

    /** The latest version ({@code versionId} null) or the given one, agreed by quorum, or an exception saying why not. */
    public Resolved resolve(String bucket, String key, UUID versionId) {
        MetaSnapshot snap = new MetaSnapshot(bucket, key);
        try {
            return resolve(snap, versionId);
        } catch (StorageException e) {
            if (snap.slow == 0 || e.kind() != ErrorKind.READ_QUORUM) {
                throw e;
            }
            // The drives that answered in time do not agree without the slow ones: ask again and wait for them
            // (up to the drive timeout) rather than fail a read they can answer.
            return resolve(new MetaSnapshot(bucket, key, calls.timeoutMillis()), versionId);
        }
    }

    /** As {@link #resolve(String, String, UUID)}, from metadata already read. */
    public Resolved resolve(MetaSnapshot snap, UUID versionId) {
        String bucket = snap.bucket;
        String key = snap.key;
        Resolved r = versionId == null ? resolveLatest(snap) : resolveVersion(snap, versionId);
        if (r != null) {
            if (snap.lacksOnDriveInService(r.holders())) {
                heal.report(
                        bucket,
                        key,
                        VersionIds.format(r.version().versionId()),
                        "metadata present on " + count(r.holders()) + " of " + drives.size() + " drives");
            }
            return r;
        }
        int readable = drives.size() - snap.failed;
        if (snap.slow > 0 && drives.size() - snap.absent >= data) {
            // Drives given up on as slow might hold the version: "no such key" would be a guess.
            throw new StorageException(
                    ErrorKind.READ_QUORUM,
                    "erasure set " + (index + 1) + ": no version agreed by the drives that answered, and " + snap.slow
                            + " drive(s) were too slow to ask");
        }
        if (readable < data) {
            throw new StorageException(
                    ErrorKind.READ_QUORUM,
                    "erasure set " + (index + 1) + ": only " + readable + " of " + drives.size()
                            + " drives could be read (" + data + " needed)");
        }
        if (versionId != null) {
            requireCertainAbsence(snap, versionId);
            throw new StorageException(ErrorKind.VERSION_NOT_FOUND, "The specified version does not exist.");
        }
        throw new StorageException(ErrorKind.OBJECT_NOT_FOUND, "The specified key does not exist.");
    }

    /**
     * Throws {@link ErrorKind#READ_QUORUM} when some drives hold {@code versionId} without quorum but the drives that
     * could not be read might make it up: "no such version" would then be a guess, and a wrong one for a version that
     * was acknowledged. Positive "absent" answers from enough drives make the absence certain (a dangling write).
     */
    private void requireCertainAbsence(MetaSnapshot snap, UUID versionId) {
        XlMeta.Pick[] found = new XlMeta.Pick[drives.size()];
        for (int i = 0; i < found.length; i++) {
            found[i] = snap.locate(i, versionId);
        }
        if (VersionAgreement.mightHaveQuorum(found, snap.failed, drives.size())) {
            throw new StorageException(
                    ErrorKind.READ_QUORUM,
                    "erasure set " + (index + 1) + ": version " + VersionIds.format(versionId) + " is held by "
                            + VersionAgreement.count(found) + " drive(s), too few for quorum, and " + snap.failed
                            + " drive(s) could not be read");
        }
    }

    private Resolved resolveVersion(MetaSnapshot snap, UUID versionId) {
        XlMeta.Pick[] found = new XlMeta.Pick[drives.size()];
        for (int i = 0; i < found.length; i++) {
            found[i] = snap.locate(i, versionId);
        }
        return agree(snap, versionId, found);
    }

    /**
     * The version as agreed by a quorum of drives ({@link VersionAgreement}: same identity, newest metadata
     * generation); null without quorum. The holders are every drive holding the identity: they all hold its shards,
     * whatever retention or tags their copy of the metadata says.
     */
    public Resolved agree(MetaSnapshot snap, UUID versionId, XlMeta.Pick[] found) {
        VersionAgreement.Result r = VersionAgreement.agree(
                found,
                drives.size(),
                (i, ex) -> heal.report(
                        snap.bucket,
                        snap.key,
                        VersionIds.format(versionId),
                        "corrupt version body on " + drives.get(i).root() + ": " + ex.getMessage()));
        if (!r.agreed()) {
            return null;
        }
        boolean latest = false;
        for (int i = 0; i < found.length; i++) {
            if (r.holders()[i]) {
                latest = found[i].index() == 0 && found[i].file() == snap.metas[i];
                break;
            }
        }
        if (count(r.current()) < count(r.holders())) {
            heal.report(
                    snap.bucket,
                    snap.key,
                    VersionIds.format(versionId),
                    "metadata differs between drives (" + count(r.current()) + " of " + count(r.holders())
                            + " hold the newest)");
        }
        return new Resolved(r.version(), latest, r.holders(), snap.metas);
    }

    /**
     * Orders two bodies held under one version id, the preferred first: the one more drives hold, then the newer, then
     * the larger body checksum. Two bodies share an id when a crash stopped the overwrite of a null version half way
     * (e.g. on 2 of 4 drives): that write was never acknowledged, so either may win, but reads, listings and the healer
     * must all pick the same one, and the healer must be able to give it back its redundancy.
     */
    static int comparePreferred(
            int holdersA, long modTimeA, int checksumA, int holdersB, long modTimeB, int checksumB) {
        if (holdersA != holdersB) {
            return Integer.compare(holdersB, holdersA);
        }
        if (modTimeA != modTimeB) {
            return Long.compare(modTimeB, modTimeA);
        }
        return Integer.compare(checksumB, checksumA);
    }

    private Resolved resolveLatest(MetaSnapshot snap) {
        // Candidates are each drive's newest version; a drive carrying a dangling newer version is outvoted.
        java.util.Set<UUID> candidates = new java.util.LinkedHashSet<>();
        for (XlMeta m : snap.metas) {
            if (m != null && m.versionCount() > 0) {
                candidates.add(m.header(0).versionId());
            }
        }
        Resolved best = newestAgreed(snap, candidates);
        if (best == null) {
            // Rare: every drive's newest version lacks quorum. Consider every version to find the newest agreed one.
            java.util.Set<UUID> all = new java.util.LinkedHashSet<>();
            for (int i = 0; i < drives.size(); i++) {
                for (XlMeta.Pick p : allVersions(snap, i)) {
                    all.add(p.file().header(p.index()).versionId());
                }
            }
            List<UUID> unagreed = new ArrayList<>();
            best = newestAgreed(snap, all, unagreed);
            if (best == null && snap.failed > 0) {
                // "No such key" while unreadable drives may hold an acknowledged version would be a guess. (An
                // agreed version is served: a HEAD racing a PUT's commit on a degraded set must not fail.)
                for (UUID id : unagreed) {
                    requireCertainAbsence(snap, id);
                }
            }
        }
        return best == null ? null : new Resolved(best.version(), true, best.holders(), best.metas());
    }

    private Resolved newestAgreed(MetaSnapshot snap, java.util.Collection<UUID> ids) {
        return newestAgreed(snap, ids, new ArrayList<>());
    }

    /** The newest of {@code ids} agreed by quorum, or null; the ids without quorum are added to {@code unagreed}. */
    private Resolved newestAgreed(MetaSnapshot snap, java.util.Collection<UUID> ids, List<UUID> unagreed) {
        Resolved best = null;
        for (UUID id : ids) {
            Resolved r = resolveVersion(snap, id);
            if (r != null && (best == null || sortsBefore(r.version(), best.version()))) {
                best = r;
            } else if (r == null) {
                // A version some drive holds as its newest but too few agree on: maybe dangling (a write that
                // crashed before reaching quorum, or a delete that missed drives); the healer decides.
                heal.report(snap.bucket, snap.key, VersionIds.format(id), "held by too few drives for quorum");
                unagreed.add(id);
            }
        }
        return best;
    }

    private List<XlMeta.Pick> allVersions(MetaSnapshot snap, int i) {
        if (snap.files[i] == null) {
            return List.of();
        }
        try {
            return snap.files[i].allVersions();
        } catch (IOException | CorruptMetaException e) {
            heal.report(
                    snap.bucket,
                    snap.key,
                    "",
                    "metadata archive unreadable on " + drives.get(i).root());
            List<XlMeta.Pick> hotOnly = new ArrayList<>();
            for (int j = 0; j < snap.metas[i].versionCount(); j++) {
                hotOnly.add(new XlMeta.Pick(snap.metas[i], j));
            }
            return hotOnly;
        }
    }

    private static boolean sortsBefore(ObjectVersion a, ObjectVersion b) {
        return a.modTimeNanos() > b.modTimeNanos();
    }

    private static int count(boolean[] flags) {
        int n = 0;
        for (boolean f : flags) {
            if (f) {
                n++;
            }
        }
        return n;
    }

    public ObjectInfo head(String bucket, String key, UUID versionId) {
        Resolved r = resolve(bucket, key, versionId);
        ObjectVersion v = r.version();
        if (v.isDeleteMarker()) {
            String id = VersionIds.format(v.versionId());
            if (versionId != null) {
                throw new StorageException(
                        ErrorKind.METHOD_NOT_ALLOWED,
                        "The specified method is not allowed against this resource.",
                        null,
                        true,
                        id);
            }
            throw new StorageException(ErrorKind.OBJECT_NOT_FOUND, "The specified key does not exist.", null, true, id);
        }
        return info(bucket, key, v, r.latest());
    }

    public ErasureReader open(String bucket, String key, UUID versionId, long offset, long length) {
        try (var lock = locks.read(bucket, key)) {
            Resolved r = resolve(bucket, key, versionId);
            ObjectVersion v = r.version();
            if (v.isDeleteMarker()) {
                head(bucket, key, versionId); // throws the right not-found / not-allowed answer
            }
            if (offset < 0
                    || offset > v.size()
                    || (offset == v.size() && v.size() > 0)
                    || (length >= 0 && offset + length > v.size())) {
                throw new StorageException(
                        ErrorKind.INVALID_RANGE,
                        "range from " + offset + " for " + length + " bytes is outside the object of " + v.size()
                                + " bytes");
            }
            long len = length < 0 ? v.size() - offset : length;
            ErasureReader reader = new ErasureReader(
                    this, bucket, key, info(bucket, key, v, r.latest()), v, r.holders(), r.metas(), offset, len);
            try {
                reader.openFirstPart();
            } catch (RuntimeException e) {
                reader.close(); // releases the directories it had pinned, so trash is still purged
                throw e;
            }
            return reader;
        }
    }

    /** Reports a version whose shards were found missing or corrupt while reading. */
    void reportReadDamage(String bucket, String key, ObjectVersion v, String reason) {
        heal.report(bucket, key, VersionIds.format(v.versionId()), reason);
    }

    public BitrotAlgorithm bitrotFor(ObjectVersion v) {
        return BitrotAlgorithm.byId(v.bitrotAlgorithm());
    }

    public ErasureLayout layoutOf(ObjectVersion v) {
        return new ErasureLayout(
                v.dataShards(), v.parityShards(), v.blockSize(), bitrotFor(v).checksumLength());
    }

    // ---------------------------------------------------------------------------------------------------- delete

    public DeleteResult delete(String bucket, String key, VersioningState versioning, UUID versionId) {
        return delete(bucket, key, versioning, versionId, null);
    }

    /**
     * Deletes as S3 does. With {@code guard} (Object Lock buckets), a version named for removal is first checked by it,
     * under the key's write lock, so no concurrent retention change can slip between the check and the removal.
     */
    public DeleteResult delete(
            String bucket,
            String key,
            VersioningState versioning,
            UUID versionId,
            java.util.function.Consumer<Map<String, String>> guard) {
        int quorum = drives.size() / 2 + 1;
        try (var lock = locks.write(bucket, key);
                var marks = markChange(bucket, key)) {
            if (versionId != null) {
                if (guard != null) {
                    ObjectVersion target = versionOrNull(bucket, key, versionId);
                    if (target != null && !target.isDeleteMarker()) {
                        guard.accept(target.metadata()); // delete markers carry no lock
                    }
                }
                return removeVersion(bucket, key, versionId, quorum);
            }
            switch (versioning) {
                case UNVERSIONED -> {
                    removeVersion(bucket, key, ObjectVersion.NULL_VERSION_ID, quorum);
                    return new DeleteResult(null, false);
                }
                case ENABLED -> {
                    return addDeleteMarker(bucket, key, UUID.randomUUID(), quorum);
                }
                case SUSPENDED -> {
                    return addDeleteMarker(bucket, key, ObjectVersion.NULL_VERSION_ID, quorum);
                }
                default -> throw new IllegalStateException("versioning: " + versioning);
            }
        }
    }

    /** The version agreed by quorum, or null when the key or version does not exist. */
    private ObjectVersion versionOrNull(String bucket, String key, UUID versionId) {
        try {
            return resolve(bucket, key, versionId).version();
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.OBJECT_NOT_FOUND || e.kind() == ErrorKind.VERSION_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    public DeleteResult addDeleteMarker(String bucket, String key, UUID markerId, int quorum) {
        ObjectVersion marker = ObjectVersion.deleteMarker(markerId, nowNanos());
        boolean[] include = onlineMask();
        var late = new DriveCalls.LateChanges<KeyFiles.Change>();
        List<Outcome<KeyFiles.Change>> outcomes =
                calls.on(drives, include, (pos, drive) -> commitOnDrive(drive, bucket, key, marker, null, null), late);
        finishMutation(bucket, key, markerId, include, outcomes, quorum, "delete marker", late, null);
        return new DeleteResult(VersionIds.format(markerId), true);
    }

    public DeleteResult removeVersion(String bucket, String key, UUID versionId, int quorum) {
        boolean[] include = onlineMask();
        boolean[] wasMarker = new boolean[drives.size()];
        var late = new DriveCalls.LateChanges<KeyFiles.Change>();
        List<Outcome<KeyFiles.Change>> outcomes = calls.on(
                drives,
                include,
                (pos, drive) -> {
                    KeyFiles.Change change =
                            KeyFiles.forUpdate(drive, bucket, key).remove(versionId);
                    wasMarker[pos] = change != null && change.removedDeleteMarker();
                    return change;
                },
                late);
        finishMutation(bucket, key, versionId, include, outcomes, quorum, "delete", late, null);
        // Prune the key's directory (and empty parents) once no version is left on a drive.
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive d = drives.get(i);
            if (include[i] && outcomes.get(i).ok() && !Files.exists(d.metaFile(bucket, key))) {
                d.pruneEmptyParents(d.objectDir(bucket, key), d.bucketDir(bucket));
            }
        }
        boolean marker = false;
        for (boolean b : wasMarker) {
            marker |= b;
        }
        return new DeleteResult(VersionIds.format(versionId), marker);
    }

    private boolean[] onlineMask() {
        boolean[] include = new boolean[drives.size()];
        for (int i = 0; i < include.length; i++) {
            include[i] = drives.get(i).isOnline();
        }
        return include;
    }

    // ---------------------------------------------------------------------------------------------------- metadata

    /**
     * Rewrites the stored metadata of one version (the latest when {@code versionId} is null) without touching its
     * data: the new body, one metadata generation above the newest any holder has, goes to every drive holding the
     * version's identity (whatever metadata their copy has), with the delete quorum (n/2+1).
     */
    public ObjectInfo updateMetadata(
            String bucket,
            String key,
            UUID versionId,
            java.util.function.UnaryOperator<java.util.SortedMap<String, String>> change) {
        try (var lock = locks.write(bucket, key)) {
            // Read once: under the write lock the files cannot change between the resolve and the rewrite.
            MetaSnapshot snap = new MetaSnapshot(bucket, key);
            Resolved r = resolve(snap, versionId);
            if (r.version().isDeleteMarker()) {
                head(bucket, key, versionId); // the right not-found / not-allowed answer
            }
            // A new generation: drives that miss this update (away, or a crash) keep an older one and lose to it.
            ObjectVersion updated = r.version()
                    .withMetadata(change.apply(r.version().metadata()))
                    .withMetaGeneration(r.version().metaGeneration() + 1);
            boolean[] include = r.holders().clone();
            var late = new DriveCalls.LateChanges<KeyFiles.Change>();
            List<Outcome<KeyFiles.Change>> outcomes = calls.on(
                    drives,
                    include,
                    (pos, drive) -> {
                        KeyFiles read = snap.files[pos];
                        KeyFiles.Change c =
                                (read != null ? read : KeyFiles.forUpdate(drive, bucket, key)).replace(updated);
                        if (c == null) {
                            throw new IOException("version " + updated.versionId() + " missing on " + drive.root());
                        }
                        return c;
                    },
                    late);
            finishMutation(
                    bucket,
                    key,
                    updated.versionId(),
                    include,
                    outcomes,
                    drives.size() / 2 + 1,
                    "metadata update",
                    late,
                    null);
            return info(bucket, key, updated, r.latest());
        }
    }

    // ---------------------------------------------------------------------------------------------------- listing

    /** Every version of a key agreed by quorum, newest first (empty when the key has none). */
    public List<ObjectInfo> versions(String bucket, String key) {
        MetaSnapshot snap = new MetaSnapshot(bucket, key);
        List<Map<UUID, XlMeta.Pick>> byDrive = new ArrayList<>();
        java.util.Set<UUID> ids = new java.util.LinkedHashSet<>();
        for (int i = 0; i < drives.size(); i++) {
            Map<UUID, XlMeta.Pick> m = new HashMap<>();
            for (XlMeta.Pick p : allVersions(snap, i)) {
                UUID id = p.file().header(p.index()).versionId();
                m.putIfAbsent(id, p);
                ids.add(id);
            }
            byDrive.add(m);
        }
        List<ObjectVersion> agreed = new ArrayList<>();
        for (UUID id : ids) {
            XlMeta.Pick[] found = new XlMeta.Pick[drives.size()];
            for (int i = 0; i < found.length; i++) {
                found[i] = byDrive.get(i).get(id);
            }
            Resolved r = agree(snap, id, found);
            if (r != null) {
                agreed.add(r.version());
            }
        }
        agreed.sort((a, b) -> Long.compare(b.modTimeNanos(), a.modTimeNanos()));
        List<ObjectInfo> out = new ArrayList<>(agreed.size());
        for (int i = 0; i < agreed.size(); i++) {
            out.add(info(bucket, key, agreed.get(i), i == 0));
        }
        return out;
    }

    /** The latest version of a key if it is an object (not a delete marker), else null. */
    public ObjectInfo latestObjectOrNull(String bucket, String key) {
        try {
            Resolved r = resolve(bucket, key, null);
            return r.version().isDeleteMarker() ? null : info(bucket, key, r.version(), true);
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.OBJECT_NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    public long nowNanos() {
        var now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    public static ObjectInfo info(String bucket, String key, ObjectVersion v, boolean latest) {
        Map<String, String> meta = new TreeMap<>(v.metadata());
        String contentType = meta.remove("content-type");
        return new ObjectInfo(
                bucket,
                key,
                VersionIds.format(v.versionId()),
                latest,
                v.isDeleteMarker(),
                v.size(),
                v.etag(),
                java.time.Instant.ofEpochSecond(0, v.modTimeNanos()),
                contentType,
                meta,
                v.parts().stream().map(PartInfo::size).toList(),
                v.parts().stream().map(PartInfo::checksum).toList());
    }

    private static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JDK", e);
        }
    }
}
