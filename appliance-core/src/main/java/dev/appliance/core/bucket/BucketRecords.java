package dev.appliance.core.bucket;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.appliance.core.PublicAccessBlock;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lock.NamespaceLocks;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.RetentionMode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The bucket records ({@code .appliance.sys/buckets/<bucket>.json} on every drive), kept as versioned copies and
 * resolved by quorum like object metadata (docs/formats/drive-layout.md).
 *
 * <p>Every write carries a {@code generation} higher than any this bucket had (at least the wall-clock milliseconds, so
 * a restart never reuses the number of a write that failed on a drive that was away) and a {@code checksum}
 * (SHA-256 of the record without it). A write is acknowledged once it is on a majority of all drives.
 *
 * <p>Loading reads every drive in service, drops damaged copies (unparseable, or checksum mismatch) and takes, per
 * bucket, the highest generation with a verified copy; copies of equal generation are decided by how many drives hold
 * them. The store starts only with at least a read quorum of drives (the erasure topology), and any read quorum meets every
 * write majority, so the newest acknowledged generation is always among the copies read: a stale minority (a drive that
 * was away while a setting changed) never wins. A generation above it can only be a write that failed (reached fewer
 * drives than a majority, the client was told it failed); it may take effect, as S3 allows for a failed request, and
 * is then spread to every drive, so it never flips back. Records of builds before generations (no {@code generation},
 * no {@code checksum}) count as generation 0 and still need copies on half of the drives, as those builds required.
 *
 * <p>A deleted bucket leaves a tombstone ({@code "deleted": true}) so that a drive that was away during the delete
 * cannot bring it back. {@link #repair} rewrites missing, damaged and stale copies on every drive in service: after
 * load, when a drive returns or is replaced, and after each scanner cycle.
 *
 * <p>Only {@link BucketRegistry} reads and writes records; the record types and {@link #decode} stay public so that
 * store-level tests can check the copies on disk and write records of older builds.
 */
public final class BucketRecords {
    private static final Logger LOG = Logger.getLogger(BucketRecords.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    static final String GENERATION = "generation";
    static final String DELETED = "deleted";
    static final String CHECKSUM = "checksum";

    /**
     * A bucket's settings as stored; {@code quotaBytes} and {@code sosapi} are absent in records of older builds.
     *
     * @param objectLock the Object Lock configuration, or null (absent in records written before Object Lock)
     * @param policy the bucket policy's JSON text as the client gave it, or null for none (absent in records written
     *     before bucket policies)
     * @param publicAccessBlock the public access block, or null for the default, all four flags on (absent in records
     *     written before bucket policies)
     */
    public record BucketRecord(
            String name,
            long createdMillis,
            String versioning,
            Map<String, String> tags,
            Long quotaBytes,
            Boolean sosapi,
            LockRecord objectLock,
            List<RuleRecord> lifecycle,
            Integer versionAlertThreshold,
            String policy,
            AccessBlockRecord publicAccessBlock) {}

    /** A bucket's public access block on disk: S3's four flags. */
    public record AccessBlockRecord(
            boolean blockPublicAcls,
            boolean ignorePublicAcls,
            boolean blockPublicPolicy,
            boolean restrictPublicBuckets) {
        public static AccessBlockRecord of(PublicAccessBlock b) {
            return new AccessBlockRecord(
                    b.blockPublicAcls(), b.ignorePublicAcls(), b.blockPublicPolicy(), b.restrictPublicBuckets());
        }

        public PublicAccessBlock toBlock() {
            return new PublicAccessBlock(blockPublicAcls, ignorePublicAcls, blockPublicPolicy, restrictPublicBuckets);
        }
    }

    /**
     * One lifecycle rule on disk (absent in records written before lifecycle): every field flat, null when not given;
     * {@code dateMillis} is the Expiration date.
     */
    public record RuleRecord(
            String id,
            boolean enabled,
            String prefix,
            Map<String, String> tags,
            Long sizeGreaterThan,
            Long sizeLessThan,
            Integer days,
            Long dateMillis,
            Boolean expiredObjectDeleteMarker,
            Integer noncurrentDays,
            Integer newerNoncurrentVersions,
            Integer abortIncompleteUploadDays) {
        public static RuleRecord of(LifecycleConfiguration.Rule r) {
            var e = r.expiration();
            var nc = r.noncurrentExpiration();
            return new RuleRecord(
                    r.id(),
                    r.enabled(),
                    r.filter().prefix(),
                    r.filter().tags(),
                    r.filter().sizeGreaterThan(),
                    r.filter().sizeLessThan(),
                    e == null ? null : e.days(),
                    e == null || e.date() == null ? null : e.date().toEpochMilli(),
                    e == null ? null : e.expiredObjectDeleteMarker(),
                    nc == null ? null : nc.noncurrentDays(),
                    nc == null ? null : nc.newerNoncurrentVersions(),
                    r.abortIncompleteUploadDays());
        }

        public LifecycleConfiguration.Rule toRule() {
            return new LifecycleConfiguration.Rule(
                    id,
                    enabled,
                    new LifecycleConfiguration.Filter(prefix, tags, sizeGreaterThan, sizeLessThan),
                    expiredObjectDeleteMarker == null
                            ? null
                            : new LifecycleConfiguration.Expiration(
                                    days,
                                    dateMillis == null ? null : Instant.ofEpochMilli(dateMillis),
                                    expiredObjectDeleteMarker),
                    noncurrentDays == null && newerNoncurrentVersions == null
                            ? null
                            : new LifecycleConfiguration.NoncurrentExpiration(noncurrentDays, newerNoncurrentVersions),
                    abortIncompleteUploadDays);
        }
    }

    /** A bucket's Object Lock configuration on disk: lock enabled, default mode or null, days, years. */
    public record LockRecord(String mode, int days, int years) {
        public static LockRecord of(ObjectLockConfiguration c) {
            return new LockRecord(
                    c.defaultMode() == null ? null : c.defaultMode().name(), c.days(), c.years());
        }

        public ObjectLockConfiguration toConfiguration() {
            return new ObjectLockConfiguration(mode == null ? null : RetentionMode.valueOf(mode), days, years);
        }
    }

    /**
     * One copy of a bucket's record: its generation (0 for records of older builds), whether it is a tombstone, the
     * digest of its content (the checksum it carries, verified), the settings (null for a tombstone) and its bytes.
     */
    public record Copy(
            String name, long generation, boolean deleted, String digest, BucketRecord content, byte[] bytes) {
        boolean sameAs(Copy other) {
            return other != null && generation == other.generation && digest.equals(other.digest);
        }
    }

    private final List<LocalDrive> drives;
    private final DriveCalls calls;
    private final Clock clock;
    private final NamespaceLocks bucketLocks;
    /** The resolved record of every bucket this process knows, tombstones included. */
    private final Map<String, Copy> current = new ConcurrentHashMap<>();
    /** The highest generation seen or tried per bucket: the next write goes above it. */
    private final Map<String, Long> highest = new ConcurrentHashMap<>();
    /**
     * Whether the load read a read quorum of drives, so that what this process serves includes every acknowledged
     * change. Without it, repair would overwrite (or tombstone) what it did not see: it waits for the next start.
     */
    private volatile boolean settled;

    BucketRecords(List<LocalDrive> drives, DriveCalls calls, Clock clock, NamespaceLocks bucketLocks) {
        this.drives = drives;
        this.calls = calls;
        this.clock = clock;
        this.bucketLocks = bucketLocks;
    }

    private int writeQuorum() {
        return drives.size() / 2 + 1;
    }

    /** Reads every drive in service and resolves each bucket; returns the settings of the buckets that exist. */
    Map<String, BucketRecord> load() {
        List<DriveCalls.Outcome<Map<String, Copy>>> read = calls.onAll(drives, (pos, d) -> readAll(d));
        int answered = 0;
        Map<String, List<Copy>> byName = new TreeMap<>();
        for (var o : read) {
            if (!o.ok()) {
                continue;
            }
            answered++;
            for (Copy c : o.value().values()) {
                byName.computeIfAbsent(c.name(), n -> new ArrayList<>()).add(c);
                highest.merge(c.name(), c.generation(), Math::max);
            }
        }
        int readQuorum = drives.size() - writeQuorum() + 1;
        settled = answered >= readQuorum;
        if (!settled) {
            LOG.warning("bucket records read from " + answered + " of " + drives.size() + " drives (" + readQuorum
                    + " needed to be sure to see every acknowledged change): settings may be stale, and are not"
                    + " repaired, until the next start");
        }
        Map<String, BucketRecord> live = new TreeMap<>();
        for (var e : byName.entrySet()) {
            Copy winner = resolve(e.getValue());
            if (winner == null) {
                continue;
            }
            current.put(e.getKey(), winner);
            if (!winner.deleted()) {
                live.put(e.getKey(), winner.content());
            }
        }
        return live;
    }

    /**
     * The copy that wins among one bucket's copies: the highest generation, then the content most drives hold, then
     * the greatest digest (any fixed order will do: equal generations with different content are failed writes).
     */
    Copy resolve(List<Copy> copies) {
        long top = copies.stream().mapToLong(Copy::generation).max().orElse(-1);
        if (top < 0) {
            return null;
        }
        Map<String, Integer> votes = new HashMap<>();
        Map<String, Copy> byDigest = new HashMap<>();
        for (Copy c : copies) {
            if (c.generation() == top) {
                votes.merge(c.digest(), 1, Integer::sum);
                byDigest.putIfAbsent(c.digest(), c);
            }
        }
        String best = null;
        for (var v : votes.entrySet()) {
            if (best == null
                    || v.getValue() > votes.get(best)
                    || (v.getValue().equals(votes.get(best)) && v.getKey().compareTo(best) > 0)) {
                best = v.getKey();
            }
        }
        // Older builds wrote no generation and removed the file on delete: half of the drives had to agree.
        if (top == 0 && votes.get(best) < Math.max(1, drives.size() / 2)) {
            return null;
        }
        return byDigest.get(best);
    }

    /** The resolved record of {@code bucket} (null when unknown; a tombstone when deleted). */
    Copy current(String bucket) {
        return current.get(bucket);
    }

    /**
     * Writes {@code content} as the bucket's new record on every drive in service; acknowledged on a majority (else
     * {@link dev.appliance.core.error.StorageException} WRITE_QUORUM, and the record this process serves stays the old one).
     * The caller holds the bucket's write lock.
     */
    void write(BucketRecord content, boolean createDir) {
        Copy copy = encode(content.name(), nextGeneration(content.name()), content);
        List<DriveCalls.Outcome<Void>> outcomes = calls.onAll(drives, (pos, drive) -> {
            if (createDir) {
                drive.createDirectoriesDurably(drive.bucketDir(content.name()));
            }
            drive.writeDurably(drive.bucketMetaFile(content.name()), copy.bytes());
            return null;
        });
        DriveCalls.requireQuorum(outcomes, writeQuorum(), "bucket " + content.name());
        current.put(content.name(), copy);
    }

    /**
     * Replaces the bucket's record with a tombstone and moves its directory to trash, on every drive in service;
     * acknowledged on a majority. The caller holds the bucket's write lock and checked that it is empty.
     */
    void delete(String bucket) {
        Copy tombstone = encode(bucket, nextGeneration(bucket), null);
        List<DriveCalls.Outcome<Void>> outcomes =
                calls.onAll(drives, (pos, drive) -> applyOnDrive(drive, tombstone, false));
        DriveCalls.requireQuorum(outcomes, writeQuorum(), "delete bucket " + bucket);
        current.put(bucket, tombstone);
    }

    /** Writes the bucket's current record on {@code drive} (a replaced drive being filled); nothing if deleted. */
    void restore(String bucket, LocalDrive drive) throws IOException {
        Copy c = current.get(bucket);
        if (c == null || c.deleted()) {
            return;
        }
        applyOnDrive(drive, c, true);
    }

    /**
     * Brings every drive in service in line with the records this process serves: missing, damaged and stale copies
     * are rewritten; a copy newer than the served one (a write that failed, from before a restart) is overtaken by
     * writing the served record again under a higher generation; a record of a bucket this process does not know gets
     * a tombstone above it. Returns how many copies were rewritten.
     */
    int repair() {
        if (!settled) {
            return 0;
        }
        List<DriveCalls.Outcome<Map<String, Copy>>> read = calls.onAll(drives, (pos, d) -> readAll(d));
        Set<String> names = new HashSet<>(current.keySet());
        for (var o : read) {
            if (o.ok()) {
                names.addAll(o.value().keySet());
            }
        }
        int rewritten = 0;
        for (String name : new java.util.TreeSet<>(names)) {
            try (var lock = bucketLocks.write(name, "")) {
                rewritten += repairOne(name, read);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "bucket record of " + name + ": repair failed, tried again later", e);
            }
        }
        return rewritten;
    }

    private int repairOne(String name, List<DriveCalls.Outcome<Map<String, Copy>>> read) {
        Copy served = current.get(name);
        long newestOnDisk = -1;
        for (var o : read) {
            if (o.ok() && o.value().containsKey(name)) {
                Copy c = o.value().get(name);
                newestOnDisk = Math.max(newestOnDisk, c.generation());
                highest.merge(name, c.generation(), Math::max);
            }
        }
        if (served == null) {
            // Only on drives this process did not trust (a failed create, a minority of an older build's records):
            // a tombstone above it keeps it from coming back at the next start.
            served = encode(name, nextGeneration(name), null);
            current.put(name, served);
        } else if (newestOnDisk > served.generation()) {
            served = encode(name, nextGeneration(name), served.content());
            current.put(name, served);
        }
        boolean[] stale = new boolean[drives.size()];
        int count = 0;
        for (int i = 0; i < drives.size(); i++) {
            var o = read.get(i);
            if (o.ok() && !served.sameAs(o.value().get(name))) {
                stale[i] = true;
                count++;
            }
        }
        if (count == 0) {
            return 0;
        }
        Copy write = served;
        List<DriveCalls.Outcome<Void>> outcomes =
                calls.on(drives, stale, (pos, drive) -> applyOnDrive(drive, write, !write.deleted()));
        int done = 0;
        for (int i = 0; i < drives.size(); i++) {
            if (stale[i]) {
                if (outcomes.get(i).ok()) {
                    done++;
                } else {
                    LOG.warning(
                            "bucket record of " + name + " on " + drives.get(i).root() + ": repair failed: "
                                    + outcomes.get(i).error());
                }
            }
        }
        if (done > 0) {
            LOG.info("bucket record of " + name + " (generation " + write.generation() + ") rewritten on " + done
                    + " drive(s) that held a missing, damaged or stale copy");
        }
        return done;
    }

    /** Writes {@code copy} on one drive: a tombstone also moves the bucket's directory there to trash. */
    private static Void applyOnDrive(LocalDrive drive, Copy copy, boolean createDir) throws IOException {
        if (createDir) {
            drive.createDirectoriesDurably(drive.bucketDir(copy.name()));
        }
        // The tombstone first: a crash between the two leaves a deleted bucket with a leftover directory, never a
        // bucket that comes back.
        drive.writeDurably(drive.bucketMetaFile(copy.name()), copy.bytes());
        if (copy.deleted() && Files.exists(drive.bucketDir(copy.name()))) {
            drive.moveToTrash(drive.bucketDir(copy.name()));
            LocalDrive.forceDirectory(drive.root());
        }
        return null;
    }

    private long nextGeneration(String bucket) {
        Copy c = current.get(bucket);
        long above = Math.max(highest.getOrDefault(bucket, 0L), c == null ? 0 : c.generation());
        long next = Math.max(above + 1, clock.millis());
        highest.merge(bucket, next, Math::max);
        return next;
    }

    /** Every readable record on one drive, by bucket; damaged copies are left out (logged). */
    private static Map<String, Copy> readAll(LocalDrive d) throws IOException {
        d.beforeRead();
        Map<String, Copy> out = new HashMap<>();
        Path dir = d.sysDir().resolve("buckets");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.json")) {
            for (Path p : ds) {
                String file = p.getFileName().toString();
                String name = file.substring(0, file.length() - ".json".length());
                try {
                    Copy c = decode(Files.readAllBytes(p));
                    if (!c.name().equals(name)) {
                        throw new IOException("record names bucket " + c.name());
                    }
                    out.put(name, c);
                } catch (NoSuchFileException gone) {
                    // removed since listed
                } catch (IOException | RuntimeException e) {
                    LOG.warning("bucket record " + p + " is damaged, ignored (repaired from the other drives): " + e);
                }
            }
        } catch (NoSuchFileException e) {
            return out;
        }
        return out;
    }

    /** A record as written: the content (or a tombstone), its generation and the checksum of all that. */
    static Copy encode(String name, long generation, BucketRecord content) {
        ObjectNode node;
        if (content == null) {
            node = JSON.createObjectNode();
            node.put("name", name);
            node.put(DELETED, true);
        } else {
            node = JSON.valueToTree(content);
        }
        node.put(GENERATION, generation);
        String digest = digest(node);
        node.put(CHECKSUM, digest);
        try {
            return new Copy(name, generation, content == null, digest, content, JSON.writeValueAsBytes(node));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Parses one copy; throws on damage: not JSON, or a checksum that does not match. */
    public static Copy decode(byte[] bytes) throws IOException {
        JsonNode tree = JSON.readTree(bytes);
        if (!(tree instanceof ObjectNode node) || !node.hasNonNull("name")) {
            throw new IOException("not a bucket record");
        }
        String stored = node.hasNonNull(CHECKSUM) ? node.get(CHECKSUM).asText() : null;
        node.remove(CHECKSUM);
        String digest = digest(node);
        long generation;
        if (stored == null) {
            if (node.has(GENERATION) || node.has(DELETED)) {
                throw new IOException("checksum missing");
            }
            generation = 0; // written before generations
        } else {
            if (!stored.equals(digest)) {
                throw new IOException("checksum mismatch");
            }
            generation = node.get(GENERATION).asLong();
        }
        String name = node.get("name").asText();
        boolean deleted = node.path(DELETED).asBoolean(false);
        BucketRecord content = deleted ? null : JSON.treeToValue(node, BucketRecord.class);
        if (content != null && content.versioning() == null) {
            throw new IOException("versioning missing");
        }
        return new Copy(name, generation, deleted, digest, content, bytes);
    }

    /** SHA-256 of the record as written without its checksum (field order kept as in the file). */
    private static String digest(ObjectNode withoutChecksum) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(JSON.writeValueAsBytes(withoutChecksum)));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
