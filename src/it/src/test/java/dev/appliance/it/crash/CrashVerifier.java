package dev.appliance.it.crash;

import dev.appliance.it.crash.CrashModel.KeyState;
import dev.appliance.it.crash.CrashModel.PendingKind;
import dev.appliance.it.crash.CrashModel.Segment;
import dev.appliance.it.crash.CrashModel.Ver;
import dev.appliance.it.veeam.Payload;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Compares what the appliance serves after a restart with {@link CrashModel}: every acknowledged version is listed,
 * readable byte for byte (GET regenerates the expected bytes while it streams) and answered by HEAD with its size and
 * ETag; every acknowledged delete stays deleted; an operation of unknown outcome happened entirely (its version, with
 * the content it was sent) or not at all, and the model adopts what the appliance answered, the same for listings,
 * GET and HEAD. Nothing is listed that the model cannot explain.
 */
final class CrashVerifier {
    private static final Pattern UUID_NAME =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    final AtomicLong versionsRead = new AtomicLong();
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicLong unknownApplied = new AtomicLong();
    final AtomicLong unknownNotApplied = new AtomicLong();
    final AtomicLong uploadsCompletedOnRetry = new AtomicLong();
    final AtomicLong uploadsAborted = new AtomicLong();

    private final List<KeyState> keys;

    CrashVerifier(List<KeyState> keys) {
        this.keys = keys;
    }

    /** Listed entries of one key. */
    private static final class Listed {
        final List<ObjectVersion> versions = new ArrayList<>();
        final List<DeleteMarkerEntry> markers = new ArrayList<>();
        S3Object current;
    }

    /**
     * Verifies every key, resolving operations of unknown outcome, then finishes or aborts the multipart uploads the
     * load left. Returns the failures (empty when everything matched).
     */
    List<String> verify(S3Client s3, ExecutorService pool) throws Exception {
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        Map<String, Listed> listed = new HashMap<>();
        for (String bucket : keys.stream().map(k -> k.bucket).distinct().toList()) {
            for (var page : s3.listObjectVersionsPaginator(b -> b.bucket(bucket))) {
                page.versions().forEach(v -> listed.computeIfAbsent(bucket + "/" + v.key(), x -> new Listed())
                        .versions
                        .add(v));
                page.deleteMarkers().forEach(m -> listed.computeIfAbsent(bucket + "/" + m.key(), x -> new Listed())
                        .markers
                        .add(m));
            }
            for (var page : s3.listObjectsV2Paginator(b -> b.bucket(bucket))) {
                page.contents()
                        .forEach(o -> listed.computeIfAbsent(bucket + "/" + o.key(), x -> new Listed()).current = o);
            }
        }
        Map<String, KeyState> byName = new HashMap<>();
        keys.forEach(k -> byName.put(k.toString(), k));
        for (String name : listed.keySet()) {
            if (!byName.containsKey(name)) {
                failures.add(name + ": listed, but the load never wrote this key");
            }
        }
        List<Future<?>> futures = new ArrayList<>();
        for (KeyState k : keys) {
            Listed l = listed.getOrDefault(k.toString(), new Listed());
            futures.add(pool.submit(() -> {
                try {
                    verifyKey(s3, k, l, failures);
                } catch (RuntimeException | IOException e) {
                    failures.add(k + ": verification failed with " + e);
                }
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        resolveUploads(s3, failures);
        return failures;
    }

    private void verifyKey(S3Client s3, KeyState k, Listed l, List<String> failures) throws IOException {
        List<String> f = new ArrayList<>();
        if (k.versioned) {
            resolveVersioned(k, l, f);
        } else {
            resolveUnversioned(k, l, f);
        }
        if (!f.isEmpty()) {
            failures.addAll(f);
            return;
        }
        if (k.locked) {
            verifyRetention(s3, k, f);
        }
        // The current listing: the key iff its newest version is an object, with that version's ETag and size.
        Ver latest = k.latest();
        boolean current = latest != null && !latest.marker();
        if (current != (l.current != null)) {
            failures.add(k + ": ListObjectsV2 " + (current ? "misses it" : "lists it")
                    + ", the model's newest version is " + latest);
        } else if (current && !(unquote(l.current.eTag()).equals(latest.etag()) && l.current.size() == latest.size())) {
            failures.add(k + ": ListObjectsV2 shows ETag " + l.current.eTag() + " size " + l.current.size()
                    + ", expected " + latest.etag() + " size " + latest.size());
        }
        for (Ver v : k.versions) {
            String id = k.versioned ? v.versionId() : null;
            if (v.marker()) {
                expectStatus(
                        f,
                        k,
                        "HEAD of delete marker " + v.versionId(),
                        405,
                        () -> s3.headObject(b -> b.bucket(k.bucket).key(k.key).versionId(v.versionId())));
                continue;
            }
            HeadObjectResponse head =
                    s3.headObject(b -> b.bucket(k.bucket).key(k.key).versionId(id));
            if (!unquote(head.eTag()).equals(v.etag()) || head.contentLength() != v.size()) {
                f.add(k + " version " + v.versionId() + ": HEAD answers ETag " + head.eTag() + " size "
                        + head.contentLength() + ", expected " + v.etag() + " size " + v.size());
            }
            try (ResponseInputStream<GetObjectResponse> in =
                    s3.getObject(b -> b.bucket(k.bucket).key(k.key).versionId(id))) {
                if (!unquote(in.response().eTag()).equals(v.etag())) {
                    f.add(k + " version " + v.versionId() + ": GET answers ETag "
                            + in.response().eTag() + ", expected " + v.etag());
                }
                String mismatch = compare(in, v.content());
                if (mismatch != null) {
                    f.add(k + " version " + v.versionId() + ": content differs: " + mismatch);
                }
            }
            versionsRead.incrementAndGet();
            bytesRead.addAndGet(v.size());
        }
        if (latest == null || latest.marker()) {
            expectStatus(
                    f,
                    k,
                    "HEAD of the key",
                    404,
                    () -> s3.headObject(b -> b.bucket(k.bucket).key(k.key)));
            expectStatus(
                    f,
                    k,
                    "GET of the key",
                    404,
                    () -> s3.getObjectAsBytes(b -> b.bucket(k.bucket).key(k.key)));
        } else if (k.versioned) {
            HeadObjectResponse head = s3.headObject(b -> b.bucket(k.bucket).key(k.key));
            if (!Objects.equals(head.versionId(), latest.versionId())) {
                f.add(k + ": HEAD of the key answers version " + head.versionId() + ", the newest is "
                        + latest.versionId());
            }
        }
        failures.addAll(f);
    }

    /**
     * Object Lock bucket: every acknowledged COMPLIANCE retention reads back with its date (a retention update of
     * unknown outcome: the new date or the one before, adopted by the model).
     */
    private void verifyRetention(S3Client s3, KeyState k, List<String> f) {
        var p = k.pending;
        String pendingId = p != null && p.kind() == PendingKind.RETENTION ? p.versionId() : null;
        for (Ver v : k.versions) {
            String id = v.versionId();
            java.time.Instant acknowledged = k.retained.get(id);
            if (v.marker() || (acknowledged == null && !id.equals(pendingId))) {
                continue;
            }
            java.time.Instant read;
            String mode;
            try {
                var r = s3.getObjectRetention(b -> b.bucket(k.bucket).key(k.key).versionId(id))
                        .retention();
                read = r.retainUntilDate();
                mode = r.modeAsString();
            } catch (S3Exception e) {
                read = null;
                mode = e.statusCode() + " " + e.awsErrorDetails().errorCode();
            }
            if (id.equals(pendingId) && k.pendingRetention.equals(read)) {
                k.retained.put(id, read);
                unknownApplied.incrementAndGet();
                acknowledged = read;
            } else if (id.equals(pendingId)) {
                unknownNotApplied.incrementAndGet();
            }
            if (acknowledged != null && !(acknowledged.equals(read) && "COMPLIANCE".equals(mode))) {
                f.add(k + " version " + id + ": retention reads " + mode + " until " + read
                        + ", acknowledged COMPLIANCE until " + acknowledged);
            } else if (acknowledged == null && read != null) {
                f.add(k + " version " + id + ": retention " + mode + " until " + read
                        + " appeared, the update in flight asked for " + k.pendingRetention);
            }
        }
    }

    /** Versioned bucket: the listing must be the model's versions, give or take the one operation of unknown outcome. */
    private void resolveVersioned(KeyState k, Listed l, List<String> f) {
        List<String> modelObjects = new ArrayList<>();
        List<String> modelMarkers = new ArrayList<>();
        for (Ver v : k.versions) {
            (v.marker() ? modelMarkers : modelObjects).add(v.versionId());
        }
        List<String> listedObjects =
                l.versions.stream().map(ObjectVersion::versionId).toList();
        List<String> listedMarkers =
                l.markers.stream().map(DeleteMarkerEntry::versionId).toList();
        var p = k.pending;
        if (p != null && (p.kind() == PendingKind.PUT || p.kind() == PendingKind.LOCKED_PUT)) {
            List<ObjectVersion> extra = l.versions.stream()
                    .filter(v -> !modelObjects.contains(v.versionId()))
                    .toList();
            if (extra.size() == 1
                    && extra.getFirst().versionId().equals(listedObjects.getFirst())
                    && Boolean.TRUE.equals(extra.getFirst().isLatest())) {
                ObjectVersion e = extra.getFirst();
                if (!unquote(e.eTag()).equals(p.ver().etag())
                        || e.size() != p.ver().size()) {
                    f.add(k + ": version " + e.versionId() + " appeared with ETag " + e.eTag() + " size " + e.size()
                            + ", the PUT in flight sent ETag " + p.ver().etag() + " size "
                            + p.ver().size());
                    return;
                }
                k.versions.addFirst(p.ver().withId(e.versionId()));
                modelObjects.addFirst(e.versionId());
                if (p.kind() == PendingKind.LOCKED_PUT) {
                    k.retained.put(e.versionId(), k.pendingRetention); // verifyRetention reads it back
                }
                unknownApplied.incrementAndGet();
            } else if (extra.isEmpty()) {
                unknownNotApplied.incrementAndGet();
            }
        } else if (p != null && p.kind() == PendingKind.MARKER) {
            List<DeleteMarkerEntry> extra = l.markers.stream()
                    .filter(m -> !modelMarkers.contains(m.versionId()))
                    .toList();
            if (extra.size() == 1 && Boolean.TRUE.equals(extra.getFirst().isLatest())) {
                k.versions.addFirst(Ver.marker(extra.getFirst().versionId()));
                modelMarkers.addFirst(extra.getFirst().versionId());
                unknownApplied.incrementAndGet();
            } else if (extra.isEmpty()) {
                unknownNotApplied.incrementAndGet();
            }
        } else if (p != null && p.kind() == PendingKind.DELETE_VERSION) {
            if (!listedObjects.contains(p.versionId()) && !listedMarkers.contains(p.versionId())) {
                if (k.versions.removeIf(v -> v.versionId().equals(p.versionId()))) {
                    modelObjects.remove(p.versionId());
                    modelMarkers.remove(p.versionId());
                    unknownApplied.incrementAndGet();
                }
            } else {
                unknownNotApplied.incrementAndGet();
            }
        }
        if (!listedObjects.equals(modelObjects) || !listedMarkers.equals(modelMarkers)) {
            f.add(k + ": ListObjectVersions shows versions " + listedObjects + " and delete markers " + listedMarkers
                    + ", the model has " + modelObjects + " and " + modelMarkers + " (operation of unknown outcome: "
                    + p + ")");
            return;
        }
        for (ObjectVersion v : l.versions) {
            Ver m = k.versions.stream()
                    .filter(x -> x.versionId().equals(v.versionId()))
                    .findFirst()
                    .orElseThrow();
            if (!unquote(v.eTag()).equals(m.etag()) || v.size() != m.size()) {
                f.add(k + ": version " + v.versionId() + " listed with ETag " + v.eTag() + " size " + v.size()
                        + ", acknowledged with " + m.etag() + " size " + m.size());
            }
        }
        String newest = k.versions.isEmpty() ? null : k.versions.getFirst().versionId();
        List<String> latestListed = new ArrayList<>();
        l.versions.stream()
                .filter(v -> Boolean.TRUE.equals(v.isLatest()))
                .forEach(v -> latestListed.add(v.versionId()));
        l.markers.stream().filter(v -> Boolean.TRUE.equals(v.isLatest())).forEach(v -> latestListed.add(v.versionId()));
        if (!latestListed.equals(newest == null ? List.of() : List.of(newest))) {
            f.add(k + ": IsLatest on " + latestListed + ", the newest version is " + newest);
        }
    }

    /** Unversioned bucket: the key holds the model's object (or nothing), or what the operation in flight left. */
    private void resolveUnversioned(KeyState k, Listed l, List<String> f) {
        if (!l.markers.isEmpty() || l.versions.size() > 1) {
            f.add(k + ": an unversioned key lists " + l.versions.size() + " versions and " + l.markers.size()
                    + " delete markers");
            return;
        }
        ObjectVersion listed = l.versions.isEmpty() ? null : l.versions.getFirst();
        Ver model = k.latest();
        var p = k.pending;
        if (p != null
                && p.kind() == PendingKind.PUT
                && listed != null
                && unquote(listed.eTag()).equals(p.ver().etag())) {
            k.versions.clear();
            k.versions.add(p.ver().withId("null"));
            unknownApplied.incrementAndGet();
            model = k.latest();
        } else if (p != null && p.kind() == PendingKind.DELETE_NULL && listed == null && model != null) {
            k.versions.clear();
            unknownApplied.incrementAndGet();
            model = null;
        } else if (p != null) {
            unknownNotApplied.incrementAndGet();
        }
        if ((model == null) != (listed == null)) {
            f.add(k + ": " + (listed == null ? "not listed" : "listed with ETag " + listed.eTag()) + ", the model has "
                    + model + " (operation of unknown outcome: " + p + ")");
        } else if (listed != null
                && (!unquote(listed.eTag()).equals(model.etag())
                        || listed.size() != model.size()
                        || !"null".equals(listed.versionId()))) {
            f.add(k + ": listed as version " + listed.versionId() + " ETag " + listed.eTag() + " size " + listed.size()
                    + ", the model has " + model + " (operation of unknown outcome: " + p + ")");
        }
    }

    /**
     * Uploads the load left: completed again when every part was acknowledged (a completion whose answer was lost must
     * answer the object it made, one never done completes now), aborted otherwise; then no upload may be left.
     */
    private void resolveUploads(S3Client s3, List<String> failures) {
        for (KeyState k : keys) {
            var u = k.upload;
            if (u == null) {
                continue;
            }
            try {
                if (u.allParts()) {
                    var resp = s3.completeMultipartUpload(b -> b.bucket(k.bucket)
                            .key(k.key)
                            .uploadId(u.uploadId())
                            .multipartUpload(m -> m.parts(CrashLoad.completedParts(u.partEtags()))));
                    String etag = CrashModel.multipartEtag(u.partEtags());
                    if (!unquote(resp.eTag()).equals(etag)) {
                        failures.add(k + ": the repeated completion of upload " + u.uploadId() + " answers ETag "
                                + resp.eTag() + ", expected " + etag);
                    }
                    Ver latest = k.latest();
                    boolean alreadyThere = latest != null
                            && !latest.marker()
                            && latest.etag().equals(etag)
                            && (!k.versioned || latest.versionId().equals(resp.versionId()));
                    if (!alreadyThere) {
                        Ver ver = new Ver(k.versioned ? resp.versionId() : "null", false, u.parts(), etag);
                        if (!k.versioned) {
                            k.versions.clear();
                        }
                        k.versions.addFirst(ver);
                        uploadsCompletedOnRetry.incrementAndGet();
                    }
                } else {
                    s3.abortMultipartUpload(b -> b.bucket(k.bucket).key(k.key).uploadId(u.uploadId()));
                    uploadsAborted.incrementAndGet();
                }
                k.endedUploads.add(u.uploadId());
            } catch (S3Exception e) {
                failures.add(k + ": upload " + u.uploadId() + " (all parts acknowledged: " + u.allParts()
                        + ") after the restart: " + e.statusCode() + " "
                        + e.awsErrorDetails().errorCode() + " "
                        + e.getMessage());
            }
            k.upload = null;
        }
        Map<String, KeyState> byName = new HashMap<>();
        keys.forEach(k -> byName.put(k.toString(), k));
        for (String bucket : keys.stream().map(k -> k.bucket).distinct().toList()) {
            for (var page : s3.listMultipartUploadsPaginator(b -> b.bucket(bucket))) {
                for (MultipartUpload u : page.uploads()) {
                    KeyState k = byName.get(bucket + "/" + u.key());
                    if (k != null && k.endedUploads.contains(u.uploadId())) {
                        failures.add(bucket + "/" + u.key() + ": upload " + u.uploadId()
                                + " is listed, but it was completed or aborted");
                    } else if (k == null || k.pending == null || k.pending.kind() != PendingKind.UPLOAD) {
                        failures.add(bucket + "/" + u.key() + ": upload " + u.uploadId()
                                + " is listed, but no creation of an upload of this key went unanswered at this kill");
                    }
                    // an upload whose creation was in flight: it is listed, so a client can end it
                    try {
                        s3.abortMultipartUpload(
                                b -> b.bucket(bucket).key(u.key()).uploadId(u.uploadId()));
                        uploadsAborted.incrementAndGet();
                        if (k != null) {
                            k.endedUploads.add(u.uploadId());
                        }
                    } catch (S3Exception e) {
                        failures.add(bucket + "/" + u.key() + ": upload " + u.uploadId() + " is listed, but aborting it"
                                + " answers " + e.statusCode() + " "
                                + e.awsErrorDetails().errorCode());
                    }
                }
            }
        }
        keys.forEach(k -> k.pending = null);
    }

    private interface Call {
        void run();
    }

    private static void expectStatus(List<String> f, KeyState k, String what, int status, Call call) {
        try {
            call.run();
            f.add(k + ": " + what + " succeeded, expected status " + status);
        } catch (S3Exception e) {
            if (e.statusCode() != status) {
                f.add(k + ": " + what + " answered " + e.statusCode() + ", expected " + status);
            }
        }
    }

    /** Compares a body with its segments; null when equal, else where it differs. */
    static String compare(InputStream in, List<Segment> content) throws IOException {
        long offset = 0;
        for (Segment s : content) {
            long at = Payload.firstMismatch(s.seed(), s.size(), new Limited(in, s.size()));
            if (at >= 0) {
                return "first difference at byte " + (offset + at);
            }
            offset += s.size();
        }
        if (in.read() != -1) {
            return "longer than the " + offset + " bytes written";
        }
        return null;
    }

    static String unquote(String etag) {
        return etag == null ? "" : etag.replace("\"", "");
    }

    /** A view of the next {@code remaining} bytes of a stream. */
    private static final class Limited extends FilterInputStream {
        private long remaining;

        Limited(InputStream in, long limit) {
            super(in);
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public void close() {
            // the underlying stream is closed by its owner
        }
    }

    // ------------------------------------------------------------------------------------------------ on the drives

    /**
     * What a crash may leave on the drives that must be gone once the appliance has run a while after its restart:
     * staging under {@code .appliance.sys/tmp}, trash, multipart uploads, data directories no version references, and
     * metadata of keys the model says are gone (or missing for keys it holds).
     */
    List<String> leftovers(List<Path> drives) {
        List<String> found = new ArrayList<>();
        for (Path drive : drives) {
            Path sys = drive.resolve(".appliance.sys");
            for (String dir : List.of("tmp", "trash")) {
                for (Path p : children(sys.resolve(dir))) {
                    found.add(drive.getFileName() + ": left in " + dir + ": " + p.getFileName());
                }
            }
            for (Path perKey : children(sys.resolve("multipart"))) {
                for (Path upload : children(perKey)) {
                    found.add(drive.getFileName() + ": multipart upload left: " + upload.getFileName());
                }
            }
            for (String bucket : keys.stream().map(k -> k.bucket).distinct().toList()) {
                found.addAll(orphanDataDirs(drive, drive.resolve(bucket)));
            }
            for (KeyState k : keys) {
                Path meta = drive.resolve(k.bucket).resolve(k.key).resolve("xl.meta");
                if (Files.exists(meta) == k.versions.isEmpty()) {
                    found.add(drive.getFileName() + ": " + k + ": xl.meta "
                            + (k.versions.isEmpty() ? "present" : "missing") + ", the key has " + k.versions.size()
                            + " versions");
                }
            }
        }
        return found;
    }

    /** Data directories (UUID names) whose UUID the key's metadata files on that drive do not contain. */
    private static List<String> orphanDataDirs(Path drive, Path bucketDir) {
        List<String> found = new ArrayList<>();
        if (!Files.isDirectory(bucketDir)) {
            return found;
        }
        try (Stream<Path> all = Files.walk(bucketDir)) {
            for (Path dir : (Iterable<Path>) all.filter(Files::isDirectory)::iterator) {
                if (!UUID_NAME.matcher(dir.getFileName().toString()).matches()) {
                    continue;
                }
                UUID id = UUID.fromString(dir.getFileName().toString());
                byte[] raw = ByteBuffer.allocate(16)
                        .putLong(id.getMostSignificantBits())
                        .putLong(id.getLeastSignificantBits())
                        .array();
                Path keyDir = dir.getParent();
                if (!(contains(keyDir.resolve("xl.meta"), raw) || contains(keyDir.resolve("xl.meta.archive"), raw))) {
                    found.add(drive.getFileName() + ": unreferenced data directory " + drive.relativize(dir));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static boolean contains(Path file, byte[] needle) throws IOException {
        if (!Files.exists(file)) {
            return false;
        }
        byte[] hay = Files.readAllBytes(file);
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static List<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ExecutorService pool(int threads) {
        return Executors.newFixedThreadPool(
                threads, Thread.ofPlatform().name("crash-verify-", 0).factory());
    }
}
