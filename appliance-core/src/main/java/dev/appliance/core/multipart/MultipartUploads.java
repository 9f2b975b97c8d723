package dev.appliance.core.multipart;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.CompleteChecksum;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartChecksum;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.WriteConditions;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.DriveCalls.Outcome;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.erasure.ErasureLayout;
import dev.appliance.core.erasure.ErasureSet;
import dev.appliance.core.erasure.KeyFiles;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.meta.ObjectVersion;
import dev.appliance.core.meta.PartInfo;
import dev.appliance.core.meta.VersionType;
import dev.appliance.core.objectlock.ObjectLock;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Multipart uploads of one erasure set.
 *
 * <p>Per drive, an upload lives in {@code .appliance.sys/multipart/<sha256(bucket/key)>/<uploadId>/}:
 * {@code upload.json} (the erasure layout, the data directory and the object's metadata, identical on every drive),
 * {@code part.N.json} per stored part (size, MD5, time) and {@code <dataDir>/part.N}, the drive's shards of part N in the
 * same layout as a single PUT's part file. A part is erasure-coded as it arrives, staged, forced, and renamed into the
 * upload. Completing an upload checks the named parts, removes the others, and commits a version whose data directory
 * is the upload's: the directory is renamed into the object directory, so no data is copied.
 *
 * <p>Checksums, as S3 defines them. An upload may declare an algorithm and a type ({@link MultipartChecksum}); every
 * part then gets a checksum of that algorithm (the client's, verified by the caller, or computed here as the part
 * streams in) and completing builds the object's: {@code COMPOSITE}, the algorithm over the concatenated binary part
 * checksums plus {@code -N}; {@code FULL_OBJECT}, the part CRCs combined with the part lengths ({@link
 * ChecksumAlgorithm#combine}), equal to the CRC of the whole object, without reading any data again. An upload that
 * declared nothing gets S3's default, a full-object CRC-64/NVME: each part's is computed as it streams in (or taken
 * from the client when it sent that algorithm), and a checksum of another algorithm the client sent with a part is
 * kept with the part, and must be named again for that part when completing, as S3 requires.
 */
public final class MultipartUploads {
    static final long MIN_PART_SIZE = 5L << 20;
    static final int MAX_PARTS = 10_000;
    /** S3's limit on one object. */
    static final long MAX_OBJECT_SIZE = 5L << 40;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code upload.json}. */
    record UploadRecord(
            String bucket,
            String key,
            String uploadId,
            long initiatedMillis,
            String dataDir,
            int data,
            int parity,
            int[] distribution,
            Map<String, String> metadata,
            String checksumAlgorithm,
            String checksumType) {}

    /**
     * {@code part.N.json}. {@code checksumAlgorithm}/{@code checksum}: the part's checksum as the client sees it (the
     * upload's declared algorithm, or the one the client sent in an upload that declared none), or null; {@code
     * crc64nvme}: in an upload that declared nothing, the part's CRC-64/NVME for the object's default checksum.
     * Records written before checksums existed lack the three fields (read as null).
     */
    record PartRecord(
            int number,
            long size,
            String etag,
            long modTimeMillis,
            String checksumAlgorithm,
            String checksum,
            String crc64nvme) {
        PartRecord withModTime(long millis) {
            return new PartRecord(number, size, etag, millis, checksumAlgorithm, checksum, crc64nvme);
        }

        UploadedPart toUploadedPart() {
            return new UploadedPart(
                    number,
                    etag,
                    size,
                    Instant.ofEpochMilli(modTimeMillis),
                    checksum == null ? null : ChecksumAlgorithm.valueOf(checksumAlgorithm),
                    checksum);
        }
    }

    /** The checksum {@code rec} declared, or null (also for records written before checksums existed). */
    static MultipartChecksum declaredChecksum(UploadRecord rec) {
        if (rec.checksumAlgorithm() == null) {
            return null;
        }
        ChecksumAlgorithm a = ChecksumAlgorithm.valueOf(rec.checksumAlgorithm());
        return new MultipartChecksum(
                a, rec.checksumType() == null ? a.defaultType() : ChecksumType.valueOf(rec.checksumType()));
    }

    public static MultipartUpload describe(UploadRecord rec) {
        return new MultipartUpload(
                rec.bucket(),
                rec.key(),
                rec.uploadId(),
                Instant.ofEpochMilli(rec.initiatedMillis()),
                declaredChecksum(rec));
    }

    private final ErasureSet set;

    public MultipartUploads(ErasureSet set) {
        this.set = set;
    }

    public static Path uploadsOf(LocalDrive drive, String bucket, String key) {
        return drive.sysDir().resolve("multipart").resolve(sha256Hex(bucket + "/" + key));
    }

    private static Path uploadDir(LocalDrive drive, String bucket, String key, String uploadId) {
        return uploadsOf(drive, bucket, key).resolve(uploadId);
    }

    public String create(String bucket, String key, PutRequest request, MultipartChecksum checksum) {
        String uploadId = UUID.randomUUID().toString();
        TreeMap<String, String> metadata = new TreeMap<>(request.userMetadata());
        metadata.put(
                "content-type", request.contentType() == null ? "application/octet-stream" : request.contentType());
        // As for a single PUT, drives offline now raise the upload's parity (kept in its record for every part).
        ErasureLayout layout = set.writeLayout();
        UploadRecord rec = new UploadRecord(
                bucket,
                key,
                uploadId,
                Instant.now(set.clock()).toEpochMilli(),
                UUID.randomUUID().toString(),
                layout.data(),
                layout.parity(),
                set.placement.distribution(bucket, key, set.size()),
                metadata,
                checksum == null ? null : checksum.algorithm().name(),
                checksum == null ? null : checksum.type().name());
        byte[] json = toJson(rec);
        List<Outcome<Void>> outcomes;
        // Held while the record is written: until then the upload is on only some drives, and the reconcile (which
        // removes uploads too few drives hold) waits for it.
        try (var lock = set.locks.write(UPLOAD_LOCKS, uploadId)) {
            outcomes = set.calls.onAll(set.drives(), (pos, drive) -> {
                drive.writeDurably(uploadDir(drive, bucket, key, uploadId).resolve("upload.json"), json);
                return null;
            });
        }
        DriveCalls.requireQuorum(outcomes, layout.writeQuorum(), "create multipart upload");
        return uploadId;
    }

    /** The lock namespace of upload ids (not a bucket: bucket names never start with a dot). */
    public static final String UPLOAD_LOCKS = ".uploads";

    /**
     * How many drives must hold an upload's record for the upload to exist: a read quorum of the set, and never fewer
     * than the upload's own data count. An upload aborted or completed is gone from a write quorum, so at most the
     * other drives (fewer than this) can still hold it; {@code rec} null: the set's read quorum.
     */
    private int quorum(UploadRecord rec) {
        int readQuorum = set.size() - set.size() / 2;
        return rec == null ? readQuorum : Math.max(readQuorum, rec.data());
    }

    /** The upload's record as a read quorum of drives holds it. */
    public UploadRecord read(String bucket, String key, String uploadId) {
        if (!isUuid(uploadId)) {
            throw noSuchUpload();
        }
        List<Outcome<byte[]>> outcomes = set.calls.onAll(set.drives(), (pos, drive) -> {
            byte[] json =
                    drive.readOrNull(uploadDir(drive, bucket, key, uploadId).resolve("upload.json"));
            if (json == null) {
                drive.requirePresent(); // a drive taken away must not count as one that lacks the upload
            }
            return json;
        });
        Map<String, Integer> votes = new HashMap<>();
        int unanswered = 0;
        for (Outcome<byte[]> o : outcomes) {
            if (!o.ok()) {
                unanswered++;
            } else if (o.value() != null) {
                votes.merge(new String(o.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
        }
        int mostVotes = 0;
        for (var e : votes.entrySet()) {
            try {
                UploadRecord rec = JSON.readValue(e.getKey(), UploadRecord.class);
                if (rec.bucket().equals(bucket) && rec.key().equals(key)) {
                    if (e.getValue() >= quorum(rec)) {
                        return rec;
                    }
                    mostVotes = Math.max(mostVotes, e.getValue());
                }
            } catch (IOException ex) {
                // a damaged record counts as absent
            }
        }
        if (mostVotes + unanswered >= quorum(null)) {
            // The drives not answering could make up the quorum: the upload may exist, so not NoSuchUpload.
            throw new StorageException(
                    ErrorKind.READ_QUORUM,
                    "upload " + uploadId + ": " + unanswered + " drive(s) did not answer, too few to decide whether it"
                            + " exists");
        }
        throw noSuchUpload();
    }

    public UploadedPart uploadPart(
            String bucket, String key, String uploadId, int partNumber, PutRequest request, InputStream body)
            throws IOException {
        if (partNumber < 1 || partNumber > MAX_PARTS) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT,
                    "Part number must be an integer between 1 and 10000, inclusive (got " + partNumber + ")");
        }
        UploadRecord rec = read(bucket, key, uploadId);
        MultipartChecksum declared = declaredChecksum(rec);
        ChecksumAlgorithm sent = request.checksumAlgorithm();
        if (sent == null
                && request.expectedMd5() == null
                && !request.copiedFromStore()
                && rec.metadata() != null
                && ObjectLock.hasLockEntries(rec.metadata())) {
            // As S3: the parts of an object that will be locked must be integrity-checked on the way in.
            throw new StorageException(
                    ErrorKind.INVALID_REQUEST,
                    "Content-MD5 OR x-amz-checksum- HTTP header is required for Upload Part requests with Object Lock"
                            + " parameters");
        }
        if (declared != null && sent != null && sent != declared.algorithm()) {
            throw new StorageException(
                    ErrorKind.INVALID_REQUEST,
                    "Checksum Type mismatch occurred, expected checksum Type: " + lower(declared.algorithm())
                            + ", actual checksum Type: " + lower(sent));
        }
        // What the part's checksums need computed here: the declared algorithm when the client sent none, and the
        // default CRC-64/NVME of an upload that declared nothing unless the client sent exactly that.
        ChecksumAlgorithm compute = declared != null
                ? (sent == null ? declared.algorithm() : null)
                : (sent == ChecksumAlgorithm.CRC64NVME ? null : ChecksumAlgorithm.CRC64NVME);
        ChecksummingStream checksumming = compute == null ? null : new ChecksummingStream(body, compute);
        ErasureLayout layout = set.layout(rec.data(), rec.parity());
        int writeQuorum = layout.writeQuorum();
        UUID dataDir = UUID.fromString(rec.dataDir());
        ErasureSet.ShardSink sink = set.new ShardSink(layout, rec.distribution(), partNumber, dataDir);
        try {
            ErasureSet.Received received =
                    set.receive(sink, checksumming == null ? body : checksumming, request, writeQuorum);
            String sentValue = null;
            if (sent != null) {
                Map<String, String> after = request.metadataAfterBody() == null
                        ? Map.of()
                        : request.metadataAfterBody().get();
                sentValue = after.get(sent.headerName());
                if (sentValue == null) {
                    throw new IllegalStateException("no verified " + sent.headerName() + " after the body");
                }
            }
            String computed = checksumming == null ? null : checksumming.base64();
            String partAlgorithm;
            String partChecksum;
            String crc64nvme = null;
            if (declared != null) {
                partAlgorithm = declared.algorithm().name();
                partChecksum = sent != null ? sentValue : computed;
            } else {
                partAlgorithm = sent == null ? null : sent.name();
                partChecksum = sentValue;
                crc64nvme = sent == ChecksumAlgorithm.CRC64NVME ? sentValue : computed;
            }
            PartRecord part = new PartRecord(
                    partNumber,
                    received.size(),
                    HexFormat.of().formatHex(received.md5()),
                    Instant.now(set.clock()).toEpochMilli(),
                    partAlgorithm,
                    partChecksum,
                    crc64nvme);
            byte[] json = toJson(part);
            boolean[] include = new boolean[set.size()];
            for (int i = 0; i < include.length; i++) {
                include[i] = sink.failed[i] == null;
            }
            try (var lock = partLock(bucket, key, uploadId, partNumber)) {
                read(bucket, key, uploadId); // aborted or completed meanwhile: refuse
                List<Outcome<Void>> outcomes = set.calls.on(set.drives(), include, (pos, drive) -> {
                    installPart(
                            drive,
                            uploadDir(drive, bucket, key, uploadId),
                            rec.dataDir(),
                            partNumber,
                            sink.staging[pos].resolve("part." + partNumber),
                            json);
                    return null;
                });
                List<Outcome<Void>> counted = new ArrayList<>();
                for (int i = 0; i < include.length; i++) {
                    if (include[i]) {
                        counted.add(outcomes.get(i));
                    }
                }
                DriveCalls.requireQuorum(counted, writeQuorum, "upload part " + partNumber);
            }
            return part.toUploadedPart();
        } finally {
            sink.discard();
        }
    }

    /** The lock an upload of part {@code partNumber} holds while it installs the part on the drives. */
    NamespaceLocks.Held partLock(String bucket, String key, String uploadId, int partNumber) {
        return set.locks.write(bucket, key + "\u0000" + uploadId + "\u0000" + partNumber);
    }

    /**
     * Installs a part's shard file, staged and forced, into the upload on one drive, then its record ({@code json}):
     * the file's name made durable before the record that lists it.
     */
    static void installPart(LocalDrive drive, Path uploadDir, String dataDir, int partNumber, Path staged, byte[] json)
            throws IOException {
        Path target = uploadDir.resolve(dataDir).resolve("part." + partNumber);
        drive.createDirectoriesDurably(target.getParent());
        Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        LocalDrive.forceDirectory(target.getParent());
        drive.writeDurably(uploadDir.resolve("part." + partNumber + ".json"), json);
    }

    /** Each drive's stored parts (null for a drive that could not be read). */
    private List<Map<Integer, PartRecord>> partsByDrive(String bucket, String key, UploadRecord rec) {
        List<Outcome<Map<Integer, PartRecord>>> outcomes = set.calls.onAll(set.drives(), (pos, drive) -> {
            drive.beforeRead();
            Map<Integer, PartRecord> parts = new TreeMap<>();
            Path dir = uploadDir(drive, bucket, key, rec.uploadId());
            Path data = dir.resolve(rec.dataDir());
            if (!Files.isDirectory(dir)) {
                drive.requirePresent(); // in place, and without the upload (away at its creation, or replaced)
                return parts;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "part.*.json")) {
                for (Path p : ds) {
                    PartRecord r = JSON.readValue(Files.readAllBytes(p), PartRecord.class);
                    if (Files.exists(data.resolve("part." + r.number()))) {
                        parts.put(r.number(), r);
                    }
                }
            }
            return parts;
        });
        List<Map<Integer, PartRecord>> out = new ArrayList<>();
        for (var o : outcomes) {
            out.add(o.ok() ? o.value() : null);
        }
        return out;
    }

    private static UploadRecord read0(Path uploadDir) throws IOException {
        return JSON.readValue(Files.readAllBytes(uploadDir.resolve("upload.json")), UploadRecord.class);
    }

    /** The parts held identically by at least a read quorum of drives. */
    private Map<Integer, PartRecord> agreedParts(List<Map<Integer, PartRecord>> byDrive, int readQuorum) {
        Map<PartRecord, Integer> votes = new HashMap<>();
        for (Map<Integer, PartRecord> m : byDrive) {
            if (m != null) {
                for (PartRecord r : m.values()) {
                    votes.merge(r.withModTime(0), 1, Integer::sum);
                }
            }
        }
        Map<Integer, PartRecord> agreed = new TreeMap<>();
        for (var e : votes.entrySet()) {
            if (e.getValue() >= readQuorum) {
                PartRecord r = e.getKey();
                PartRecord best = agreed.get(r.number());
                if (best == null) {
                    long time = 0;
                    for (Map<Integer, PartRecord> m : byDrive) {
                        PartRecord d = m == null ? null : m.get(r.number());
                        if (d != null && d.withModTime(0).equals(r)) {
                            time = Math.max(time, d.modTimeMillis());
                        }
                    }
                    agreed.put(r.number(), r.withModTime(time));
                }
            }
        }
        return agreed;
    }

    public List<UploadedPart> listParts(String bucket, String key, String uploadId, int marker, int maxParts) {
        UploadRecord rec = read(bucket, key, uploadId);
        List<UploadedPart> out = new ArrayList<>();
        for (PartRecord r :
                agreedParts(partsByDrive(bucket, key, rec), rec.data()).values()) {
            if (r.number() > marker && out.size() < maxParts) {
                out.add(r.toUploadedPart());
            }
        }
        return out;
    }

    public ObjectInfo complete(
            String bucket,
            String key,
            String uploadId,
            List<CompletedPart> requested,
            CompleteChecksum expected,
            WriteConditions conditions,
            VersioningState versioning) {
        return complete(bucket, key, uploadId, requested, expected, conditions, versioning, ErasureSet.AtCommit.NONE);
    }

    /**
     * As above; {@code finalMetadata} turns the upload's metadata into the object's, given the object's modification
     * time (the engine adds the bucket's default Object Lock retention there), under the key's lock.
     */
    public ObjectInfo complete(
            String bucket,
            String key,
            String uploadId,
            List<CompletedPart> requested,
            CompleteChecksum expected,
            WriteConditions conditions,
            VersioningState versioning,
            ErasureSet.AtCommit finalMetadata) {
        if (requested.isEmpty()) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT, "You must specify at least one part to complete a multipart upload.");
        }
        try (var lock = set.locks.write(bucket, key);
                var marks = set.markChange(bucket, key)) {
            ObjectInfo latest = set.latestObjectOrNull(bucket, key);
            if (latest != null && uploadId.equals(latest.userMetadata().get(UPLOAD_ID_KEY))) {
                // Completed before, and a crash kept the upload's removal from finishing: finish it, and answer as
                // for any repeated completion. Committing again would find the parts gone from the upload.
                removeUpload(bucket, key, uploadId);
                ObjectInfo done = alreadyCompleted(bucket, key, uploadId, requested);
                if (done == null) {
                    throw noSuchUpload();
                }
                return done;
            }
            restoreInterruptedCompletions(bucket, key);
            UploadRecord rec;
            try {
                rec = read(bucket, key, uploadId);
            } catch (StorageException e) {
                ObjectInfo done = e.kind() == ErrorKind.NO_SUCH_UPLOAD
                        ? alreadyCompleted(bucket, key, uploadId, requested)
                        : null;
                if (done == null) {
                    throw e;
                }
                return done;
            }
            set.checkConditions(bucket, key, conditions);
            MultipartChecksum declared = declaredChecksum(rec);
            ChecksumType effectiveType = declared == null ? ChecksumType.FULL_OBJECT : declared.type();
            if (expected.type() != null && expected.type() != effectiveType) {
                throw new StorageException(
                        ErrorKind.INVALID_REQUEST,
                        "The upload was created using the " + effectiveType
                                + " checksum mode. The complete request must use the same checksum mode.");
            }
            ErasureLayout layout = set.layout(rec.data(), rec.parity());
            List<Map<Integer, PartRecord>> byDrive = partsByDrive(bucket, key, rec);
            Map<Integer, PartRecord> agreed = agreedParts(byDrive, rec.data());
            List<PartInfo> parts = new ArrayList<>();
            List<PartRecord> chosen = new ArrayList<>();
            long size = 0;
            int previous = 0;
            for (CompletedPart c : requested) {
                if (c.partNumber() <= previous) {
                    throw new StorageException(
                            ErrorKind.INVALID_PART_ORDER,
                            "The list of parts was not in ascending order. Parts must be ordered by part number.");
                }
                previous = c.partNumber();
            }
            for (int i = 0; i < requested.size(); i++) {
                CompletedPart c = requested.get(i);
                PartRecord stored = agreed.get(c.partNumber());
                if (stored == null || !stored.etag().equals(c.etag()) || !checksumsMatch(c, stored)) {
                    throw invalidPart();
                }
                if (stored.checksum() != null
                        && !c.checksums().containsKey(ChecksumAlgorithm.valueOf(stored.checksumAlgorithm()))) {
                    // An upload that declared no algorithm got part checksums only because newer SDKs add a
                    // CRC32 to every part by default. AWS then wants them named again on completion (InvalidPart
                    // otherwise); we accept the ETags alone, which identify the parts as they always have, so
                    // clients and scripts that complete with ETags keep working. A checksum that is named must
                    // still match (above).
                    if (declared != null && declared.type() == ChecksumType.COMPOSITE) {
                        throw new StorageException(
                                ErrorKind.INVALID_REQUEST,
                                "The upload was created using a " + lower(declared.algorithm())
                                        + " checksum. The complete request must include the checksum for each part."
                                        + " It was missing for part " + c.partNumber() + " in the request.");
                    }
                    // FULL_OBJECT: the part checksums are optional in the request.
                }
                if (i < requested.size() - 1 && stored.size() < MIN_PART_SIZE) {
                    throw new StorageException(
                            ErrorKind.ENTITY_TOO_SMALL,
                            "Your proposed upload is smaller than the minimum allowed object size: part "
                                    + c.partNumber() + " has " + stored.size()
                                    + " bytes (minimum 5 MiB except the last)");
                }
                chosen.add(stored);
                size += stored.size();
            }
            if (size > MAX_OBJECT_SIZE) {
                throw new StorageException(
                        ErrorKind.ENTITY_TOO_LARGE,
                        "Your proposed upload exceeds the maximum allowed object size: " + size
                                + " bytes (at most 5 TiB)");
            }
            // The object's checksum, from the part checksums alone.
            ChecksumAlgorithm algorithm = declared == null ? ChecksumAlgorithm.CRC64NVME : declared.algorithm();
            List<String> partValues = new ArrayList<>();
            for (PartRecord r : chosen) {
                partValues.add(declared == null ? r.crc64nvme() : r.checksum());
            }
            String objectChecksum = partValues.contains(null)
                    ? null // parts stored before checksums existed
                    : algorithm.multipartValue(
                            effectiveType,
                            partValues.stream()
                                    .map(v -> algorithm.decode(v).orElseThrow())
                                    .toList(),
                            chosen.stream().map(PartRecord::size).toList());
            if (expected.algorithm() != null) {
                if (expected.algorithm() != algorithm) {
                    throw new StorageException(
                            ErrorKind.INVALID_REQUEST,
                            "Checksum Type mismatch occurred, expected checksum Type: " + lower(algorithm)
                                    + ", actual checksum Type: " + lower(expected.algorithm()));
                }
                if (objectChecksum != null && !sameObjectChecksum(expected.value(), objectChecksum)) {
                    throw new StorageException(
                            ErrorKind.BAD_DIGEST,
                            "The " + algorithm.headerName() + " you specified did not match the calculated checksum.");
                }
            }
            for (int i = 0; i < chosen.size(); i++) {
                PartRecord r = chosen.get(i);
                parts.add(new PartInfo(
                        r.number(), r.size(), r.etag(), objectChecksum == null ? null : partValues.get(i)));
            }
            long modTime = set.nowNanos();
            TreeMap<String, String> metadata =
                    new TreeMap<>(finalMetadata.apply(rec.metadata(), Instant.ofEpochSecond(0, modTime)));
            metadata.put(UPLOAD_ID_KEY, uploadId);
            if (objectChecksum != null) {
                metadata.put(algorithm.headerName(), objectChecksum);
                metadata.put(CHECKSUM_TYPE_KEY, effectiveType.name());
            }
            String etag = multipartEtag(chosen.stream().map(PartRecord::etag).toList());
            UUID versionId = versioning == VersioningState.ENABLED ? UUID.randomUUID() : ObjectVersion.NULL_VERSION_ID;
            UUID dataDir = UUID.fromString(rec.dataDir());
            ObjectVersion version = new ObjectVersion(
                    versionId,
                    VersionType.OBJECT,
                    modTime,
                    dataDir,
                    size,
                    rec.data(),
                    rec.parity(),
                    ErasureSet.BLOCK_SIZE,
                    rec.distribution(),
                    set.bitrot.id(),
                    parts,
                    etag,
                    metadata,
                    false);
            // Only drives holding every named part, as agreed, take the version; the others are healed later.
            boolean[] include = holdingEvery(byDrive, parts);
            if (count(include) < layout.writeQuorum()) {
                // Each part reached a write quorum, but not all of them the same drives: rebuild the missing parts
                // on the upload's other drives in service, then count again.
                PartShardRepair repair = new PartShardRepair(set, layout, rec.distribution());
                boolean[] lacking = lacking(byDrive, include);
                List<Outcome<Map<Integer, PartRecord>>> repaired = set.calls.on(
                        set.drives(),
                        lacking,
                        (pos, drive) -> repair.rebuild(
                                pos,
                                parts,
                                byDrive,
                                d -> uploadDir(d, bucket, key, uploadId),
                                toJson(rec),
                                rec.dataDir(),
                                n -> partLock(bucket, key, uploadId, n)));
                for (int i = 0; i < lacking.length; i++) {
                    if (lacking[i] && repaired.get(i).ok()) {
                        Map<Integer, PartRecord> now = new TreeMap<>(byDrive.get(i));
                        now.putAll(repaired.get(i).value());
                        byDrive.set(i, now);
                    }
                }
                include = holdingEvery(byDrive, parts);
            }
            int holding = count(include);
            if (holding < layout.writeQuorum()) {
                // Refused before anything moves: committing on too few drives would only be undone again.
                throw new StorageException(
                        ErrorKind.WRITE_QUORUM,
                        "complete upload: " + holding + " drive(s) in service hold every named part, "
                                + layout.writeQuorum() + " needed");
            }
            var late = new DriveCalls.LateChanges<KeyFiles.Change>();
            List<Outcome<KeyFiles.Change>> outcomes = set.calls.on(
                    set.drives(),
                    include,
                    (pos, drive) -> {
                        Path dir = uploadDir(drive, bucket, key, uploadId);
                        Path data = dir.resolve(rec.dataDir());
                        try (DirectoryStream<Path> ds = Files.newDirectoryStream(data)) {
                            for (Path p : ds) {
                                String name = p.getFileName().toString();
                                int n = Integer.parseInt(name.substring("part.".length()));
                                if (parts.stream().noneMatch(x -> x.number() == n)) {
                                    Files.delete(p);
                                }
                            }
                        }
                        return set.commitOnDrive(drive, bucket, key, version, null, data);
                    },
                    late);
            // a refused completion puts each drive's parts back into the upload, for the client's retry
            set.finishMutation(
                    bucket,
                    key,
                    versionId,
                    include,
                    outcomes,
                    layout.writeQuorum(),
                    "complete upload",
                    late,
                    drive -> uploadDir(drive, bucket, key, uploadId).resolve(rec.dataDir()));
            removeUpload(bucket, key, uploadId);
            return ErasureSet.info(bucket, key, version, true);
        }
    }

    /** The drives in service holding every one of {@code parts} (by number, ETag and size). */
    private boolean[] holdingEvery(List<Map<Integer, PartRecord>> byDrive, List<PartInfo> parts) {
        boolean[] include = new boolean[set.size()];
        for (int i = 0; i < include.length; i++) {
            Map<Integer, PartRecord> m = byDrive.get(i);
            include[i] = m != null
                    && set.drives().get(i).isOnline()
                    && parts.stream().allMatch(p -> PartShardRepair.holds(m, p));
        }
        return include;
    }

    /** The drives in service that lack some of the named parts (the upload itself, perhaps). */
    private boolean[] lacking(List<Map<Integer, PartRecord>> byDrive, boolean[] holdingEvery) {
        boolean[] lacking = new boolean[set.size()];
        for (int i = 0; i < lacking.length; i++) {
            lacking[i] = byDrive.get(i) != null && set.drives().get(i).isOnline() && !holdingEvery[i];
        }
        return lacking;
    }

    private static int count(boolean[] flags) {
        int n = 0;
        for (boolean f : flags) {
            n += f ? 1 : 0;
        }
        return n;
    }

    /**
     * The metadata entry recording which upload made a multipart object: a retried completion of that upload is
     * answered with the object instead of NoSuchUpload. Internal; never returned to clients, never copied.
     */
    public static final String UPLOAD_ID_KEY = "x-appliance-internal-upload-id";

    /**
     * The key's current object, if {@code uploadId} made it and {@code requested} names its parts (numbers and
     * ETags, hence the same multipart ETag); null otherwise.
     */
    private ObjectInfo alreadyCompleted(String bucket, String key, String uploadId, List<CompletedPart> requested) {
        ObjectInfo current = set.latestObjectOrNull(bucket, key);
        if (current == null || !uploadId.equals(current.userMetadata().get(UPLOAD_ID_KEY))) {
            return null;
        }
        String etag;
        try {
            etag = multipartEtag(requested.stream().map(CompletedPart::etag).toList());
        } catch (IllegalArgumentException e) {
            return null; // not hex: not an ETag this store gave out
        }
        return etag.equals(current.etag()) ? current : null;
    }

    /** S3's multipart ETag: the MD5 of the parts' binary MD5s, then {@code -N}. */
    static String multipartEtag(List<String> partEtags) {
        MessageDigest md5s = md5();
        for (String e : partEtags) {
            md5s.update(HexFormat.of().parseHex(e));
        }
        return HexFormat.of().formatHex(md5s.digest()) + "-" + partEtags.size();
    }

    /** The metadata entry naming the checksum type of a multipart object ({@code COMPOSITE} or {@code FULL_OBJECT}). */
    public static final String CHECKSUM_TYPE_KEY = "x-amz-checksum-type";

    /** Every checksum the request names for the part equals the part's own. */
    private static boolean checksumsMatch(CompletedPart c, PartRecord stored) {
        for (Map.Entry<ChecksumAlgorithm, String> e : c.checksums().entrySet()) {
            if (stored.checksum() == null
                    || !e.getKey().name().equals(stored.checksumAlgorithm())
                    || !e.getValue().strip().equals(stored.checksum())) {
                return false;
            }
        }
        return true;
    }

    /** A whole-object value from the request against the computed one; a composite may come with or without "-N". */
    private static boolean sameObjectChecksum(String sent, String computed) {
        String s = sent.strip();
        if (s.equals(computed)) {
            return true;
        }
        int dash = computed.lastIndexOf('-');
        return dash > 0 && s.equals(computed.substring(0, dash));
    }

    private static StorageException invalidPart() {
        return new StorageException(
                ErrorKind.INVALID_PART,
                "One or more of the specified parts could not be found. The part may not have been"
                        + " uploaded, or the specified entity tag may not match the part's entity tag.");
    }

    private static String lower(ChecksumAlgorithm a) {
        return a.name().toLowerCase(Locale.ROOT);
    }

    /** Computes one checksum over the bytes read through it; {@link #base64()} once the body has ended. */
    private static final class ChecksummingStream extends FilterInputStream {
        private final ChecksumAlgorithm.Running running;

        ChecksummingStream(InputStream in, ChecksumAlgorithm algorithm) {
            super(in);
            this.running = algorithm.newRunning();
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                running.update(new byte[] {(byte) b}, 0, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                running.update(b, off, n);
            }
            return n;
        }

        @Override
        public long skip(long n) {
            throw new UnsupportedOperationException("a checksummed body is read, not skipped");
        }

        String base64() {
            return Base64.getEncoder().encodeToString(running.value());
        }
    }

    /**
     * Puts back the parts of a completion a crash stopped between its two renames on a drive: the upload's data
     * directory was renamed into the object directory, and {@code xl.meta} never named it. Without this the parts the
     * client had acknowledged would be gone from the upload (a repeated completion answers InvalidPart) and collected
     * as an unreferenced data directory. The caller holds the key's write lock. Returns how many were put back.
     */
    public int restoreInterruptedCompletions(String bucket, String key) {
        int restored = 0;
        for (Outcome<Integer> o : set.calls.onAll(set.drives(), (pos, drive) -> {
            Path uploads = uploadsOf(drive, bucket, key);
            if (!Files.isDirectory(uploads)) {
                return 0;
            }
            int n = 0;
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(uploads)) {
                for (Path upload : ds) {
                    UploadRecord rec;
                    try {
                        rec = read0(upload);
                    } catch (IOException e) {
                        continue;
                    }
                    Path moved = drive.objectDir(bucket, key).resolve(rec.dataDir());
                    if (Files.isDirectory(upload.resolve(rec.dataDir()))
                            || !Files.isDirectory(moved)
                            || referenced(drive, bucket, key, UUID.fromString(rec.dataDir()))) {
                        continue;
                    }
                    drive.moveDurably(moved, upload.resolve(rec.dataDir()));
                    LocalDrive.forceDirectory(moved.getParent());
                    n++;
                }
            }
            return n;
        })) {
            restored += o.ok() ? o.value() : 0;
        }
        return restored;
    }

    /** Whether a version on this drive names {@code dataDir}; a drive whose metadata is damaged counts as naming it. */
    private static boolean referenced(LocalDrive drive, String bucket, String key, UUID dataDir) throws IOException {
        try {
            KeyFiles f = KeyFiles.forRead(drive, bucket, key);
            if (f == null) {
                return false;
            }
            for (var p : f.allVersions()) {
                if (dataDir.equals(p.file().version(p.index()).dataDir())) {
                    return true;
                }
            }
            return false;
        } catch (dev.appliance.core.meta.CorruptMetaException e) {
            return true;
        }
    }

    /**
     * Removes what is left of this key's uploads that made one of its versions: a crash between a completion's commit
     * and the removal of its upload leaves the upload's records (and on drives the commit missed, its parts), which
     * would be listed as an upload in progress. The caller holds the key's write lock. Returns how many were removed.
     */
    public int removeCompleted(String bucket, String key) {
        java.util.Set<String> uploads = new java.util.HashSet<>();
        for (Outcome<List<String>> o : set.calls.onAll(set.drives(), (pos, drive) -> {
            List<String> ids = new ArrayList<>();
            Path dir = uploadsOf(drive, bucket, key);
            if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                    ds.forEach(p -> ids.add(p.getFileName().toString()));
                }
            }
            return ids;
        })) {
            if (o.ok()) {
                uploads.addAll(o.value());
            }
        }
        if (uploads.isEmpty()) {
            return 0;
        }
        int removed = 0;
        for (ObjectInfo v : set.versions(bucket, key)) {
            String made = v.userMetadata().get(UPLOAD_ID_KEY);
            if (made != null && uploads.remove(made)) {
                removeUpload(bucket, key, made);
                removed++;
            }
        }
        return removed;
    }

    /**
     * Removes the upload from every drive. Acknowledged once a write quorum of drives positively lacks it, so that the
     * drives away now (which may still hold it) can never make it exist again when they return; fewer answer 503.
     */
    public void abort(String bucket, String key, String uploadId) {
        UploadRecord rec = null;
        try {
            rec = read(bucket, key, uploadId);
        } catch (StorageException e) {
            // A creation a crash cut short leaves the record on too few drives to use the upload (listings do not
            // show it, and the reconcile removes it): aborting it removes what is there.
            if (e.kind() != ErrorKind.NO_SUCH_UPLOAD || !isUuid(uploadId) || !onAnyDrive(bucket, key, uploadId)) {
                throw e;
            }
        }
        ErasureLayout layout = rec == null ? set.writeLayout() : set.layout(rec.data(), rec.parity());
        DriveCalls.requireQuorum(removeUpload(bucket, key, uploadId), layout.writeQuorum(), "abort multipart upload");
    }

    private boolean onAnyDrive(String bucket, String key, String uploadId) {
        for (Outcome<Boolean> o : set.calls.onAll(
                set.drives(), (pos, drive) -> Files.isDirectory(uploadDir(drive, bucket, key, uploadId)))) {
            if (o.ok() && o.value()) {
                return true;
            }
        }
        return false;
    }

    /** Each drive's outcome: ok where the drive (present) no longer holds the upload. */
    private List<Outcome<Void>> removeUpload(String bucket, String key, String uploadId) {
        return set.calls.onAll(set.drives(), (pos, drive) -> {
            drive.moveToTrash(uploadDir(drive, bucket, key, uploadId));
            drive.pruneEmptyParents(
                    uploadsOf(drive, bucket, key), drive.sysDir().resolve("multipart"));
            drive.requirePresent(); // a drive taken away "lacks" everything, yet may hold the upload when it returns
            return null;
        });
    }

    /**
     * Uploads of {@code bucket} under {@code prefix} that exist: held by a {@link #quorum} of the set's drives, as for
     * every other use of an upload. A drive that was away while an upload was aborted or completed returns holding it;
     * that copy alone never makes it listed again (the reconcile removes it). A creation a crash cut short on a quorum
     * of drives is listed, and can be used or aborted; one on fewer is not, and the reconcile removes it.
     */
    public List<MultipartUpload> list(String bucket, String prefix) {
        List<MultipartUpload> found = new ArrayList<>();
        for (Holders h : holders(uploadsByDrive(null)).values()) {
            UploadRecord rec = h.agreed();
            if (rec != null && rec.bucket().equals(bucket) && rec.key().startsWith(prefix)) {
                found.add(describe(rec));
            }
        }
        return found;
    }

    /** An upload directory's record on a drive that holds the directory without one (a part came before it). */
    private static final String NO_RECORD = "";

    /**
     * What each drive holds of uploads: {@code <hash>/<uploadId>} to the text of its {@code upload.json} ({@link
     * #NO_RECORD} when the directory has none); only that one upload when {@code only} is not null. A drive that is
     * offline or taken away fails.
     */
    private List<Outcome<Map<String, String>>> uploadsByDrive(String only) {
        return set.calls.onAll(set.drives(), (pos, drive) -> {
            drive.requirePresent();
            Map<String, String> held = new HashMap<>();
            Path root = drive.sysDir().resolve("multipart");
            List<Path> dirs = new ArrayList<>();
            if (only != null) {
                dirs.add(root.resolve(only));
            } else if (Files.isDirectory(root)) {
                try (DirectoryStream<Path> keys = Files.newDirectoryStream(root)) {
                    for (Path k : keys) {
                        try (DirectoryStream<Path> uploads = Files.newDirectoryStream(k)) {
                            uploads.forEach(dirs::add);
                        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException e) {
                            // removed meanwhile, or not an upload directory
                        }
                    }
                }
            }
            for (Path u : dirs) {
                if (Files.isDirectory(u)) {
                    byte[] json = drive.readOrNull(u.resolve("upload.json"));
                    held.put(
                            u.getParent().getFileName() + "/" + u.getFileName(),
                            json == null ? NO_RECORD : new String(json, StandardCharsets.UTF_8));
                }
            }
            return held;
        });
    }

    /** Which drives hold one upload's directory, and its records' votes. */
    private final class Holders {
        final boolean[] holds = new boolean[set.size()];
        final Map<String, Integer> votes = new HashMap<>();
        /** Drives that did not answer (offline, taken away, failing): they may hold it. */
        int unanswered;

        /** The record a {@link #quorum} of drives holds: the upload exists. Null otherwise. */
        UploadRecord agreed() {
            for (var e : votes.entrySet()) {
                UploadRecord rec = parse(e.getKey());
                if (rec != null && e.getValue() >= quorum(rec)) {
                    return rec;
                }
            }
            return null;
        }

        /**
         * Provably never acknowledged, or ended: no record is held by a {@link #quorum}, and the drives holding the
         * most-held one together with every drive that did not answer are fewer than its <em>write</em> quorum. An
         * acknowledged creation reached a write quorum, and aborting or completing takes it from a write quorum, so
         * such an upload was aborted or completed while drives that still hold it were away, or its creation was cut
         * short. The write quorum, not the read quorum: a creation cut short on two of four drives, one of them away
         * at a start, must be removed from the other then, or the two would make it exist (listed, absent before)
         * once that drive returns (as for a version, {@code ObjectHealer}'s dangling rule).
         */
        boolean gone() {
            if (agreed() != null) {
                return false;
            }
            int most = 0;
            // the most-held record's own layout decides; with no readable record, the set's layout for new writes
            int writeQuorum = set.writeLayout().writeQuorum();
            for (var e : votes.entrySet()) {
                UploadRecord rec = parse(e.getKey());
                if (rec != null && e.getValue() > most) {
                    most = e.getValue();
                    writeQuorum = set.layout(rec.data(), rec.parity()).writeQuorum();
                }
            }
            return most + unanswered < writeQuorum;
        }
    }

    private static UploadRecord parse(String json) {
        try {
            return json.isEmpty() ? null : JSON.readValue(json, UploadRecord.class);
        } catch (IOException e) {
            return null; // damaged: counts as absent
        }
    }

    private Map<String, Holders> holders(List<Outcome<Map<String, String>>> byDrive) {
        return holders(byDrive, d -> false);
    }

    /**
     * As above; a drive {@code absenceUnknown} names (one being filled after a replacement: uploads are not copied to
     * it) counts, for each upload it lacks, as one that did not answer, never as evidence the upload is gone.
     */
    private Map<String, Holders> holders(
            List<Outcome<Map<String, String>>> byDrive, Predicate<LocalDrive> absenceUnknown) {
        Map<String, Holders> all = new HashMap<>();
        int unanswered = 0;
        for (int i = 0; i < byDrive.size(); i++) {
            Outcome<Map<String, String>> o = byDrive.get(i);
            if (!o.ok()) {
                unanswered++;
                continue;
            }
            for (var e : o.value().entrySet()) {
                Holders h = all.computeIfAbsent(e.getKey(), k -> new Holders());
                h.holds[i] = true;
                if (!e.getValue().equals(NO_RECORD)) {
                    h.votes.merge(e.getValue(), 1, Integer::sum);
                }
            }
        }
        for (Holders h : all.values()) {
            h.unanswered = unanswered;
            for (int i = 0; i < byDrive.size(); i++) {
                if (byDrive.get(i).ok()
                        && !h.holds[i]
                        && absenceUnknown.test(set.drives().get(i))) {
                    h.unanswered++;
                }
            }
        }
        return all;
    }

    /**
     * Removes the directories of uploads that no longer exist and never can again ({@link Holders#gone}): what a drive
     * that was away kept of uploads aborted or completed meanwhile, and creations a crash cut short on too few drives.
     * Run when a drive returns, at start and after each scanner cycle. Each is checked again under the upload's lock,
     * which a creation holds while it writes the record (until then it is on only some drives). Returns how many
     * directories were removed.
     */
    public int reconcile() {
        return reconcile(d -> false);
    }

    /**
     * As above; {@code absenceUnknown}: drives whose lack of an upload proves nothing (being filled after a replacement,
     * which copies no uploads): each counts as a drive that did not answer for the uploads it lacks.
     */
    public int reconcile(Predicate<LocalDrive> absenceUnknown) {
        int removed = 0;
        for (var e : holders(uploadsByDrive(null), absenceUnknown).entrySet()) {
            String path = e.getKey();
            String uploadId = path.substring(path.indexOf('/') + 1);
            if (!e.getValue().gone() || !isUuid(uploadId)) {
                continue;
            }
            try (var lock = set.locks.write(UPLOAD_LOCKS, uploadId)) {
                Holders now = holders(uploadsByDrive(path), absenceUnknown).get(path);
                if (now == null || !now.gone()) {
                    continue;
                }
                for (Outcome<Boolean> o : set.calls.on(set.drives(), now.holds, (pos, drive) -> {
                    Path dir = drive.sysDir().resolve("multipart").resolve(path);
                    drive.moveToTrash(dir);
                    drive.pruneEmptyParents(dir.getParent(), drive.sysDir().resolve("multipart"));
                    return true;
                })) {
                    removed += o.ok() && Boolean.TRUE.equals(o.value()) ? 1 : 0;
                }
            }
        }
        return removed;
    }

    private static StorageException noSuchUpload() {
        return new StorageException(
                ErrorKind.NO_SUCH_UPLOAD,
                "The specified upload does not exist. The upload ID may be invalid, or the upload may have been"
                        + " aborted or completed.");
    }

    private static boolean isUuid(String s) {
        try {
            return s != null
                    && s.length() == 36
                    && UUID.fromString(s).toString().equals(s);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static byte[] toJson(Object o) {
        try {
            return JSON.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256Hex(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
