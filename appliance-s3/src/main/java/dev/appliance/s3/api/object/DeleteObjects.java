package dev.appliance.s3.api.object;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.DeleteResult;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.api.sosapi.SosApi;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * DeleteObjects ({@code POST /bucket?delete}): up to 1000 keys, each deleted as DeleteObject would, each answered on
 * its own ({@code <Deleted>} or {@code <Error>}); quiet mode answers only the errors.
 *
 * <p>As S3 requires, the body must carry an integrity check: {@code Content-MD5} (checked here) or an {@code
 * x-amz-checksum-*} header or trailer (checked by the body stream before it ends). Authorization is asked per key
 * ({@code s3:DeleteObject}, or {@code s3:DeleteObjectVersion} with a version id); a refused key is an {@code
 * AccessDenied} entry, the others are still deleted. Veeam's read-only SOSAPI keys are refused per key as a single
 * DELETE refuses them.
 */
public final class DeleteObjects {
    /** S3's limit on keys per request. */
    public static final int MAX_KEYS = 1000;

    /**
     * Largest accepted body: 1000 keys of 1024 UTF-8 bytes, each byte possibly escaped ({@code &#xD;}, {@code
     * &quot;}: up to 6 bytes), with version ids and markup.
     */
    public static final int MAX_BODY = 8 * 1024 * 1024;

    /** Conditional-delete fields of {@code <Object>} that this endpoint does not implement. */
    private static final Set<String> UNSUPPORTED_OBJECT_FIELDS = Set.of("ETag", "LastModifiedTime", "Size");

    /** One {@code <Object>} of the request; {@code versionId} null when absent. */
    public record Entry(String key, String versionId) {
        public Entry {
            requireNonNull(key, "key");
        }
    }

    /** The parsed {@code <Delete>} document. */
    public record Request(boolean quiet, List<Entry> objects) {
        public Request {
            objects = List.copyOf(objects);
        }
    }

    /** What happened to one key. */
    public sealed interface Outcome permits Deleted, Failed {
        String key();
    }

    /**
     * A key deleted (or already absent).
     *
     * @param versionId the version id the request named, or null
     * @param deleteMarker true when a delete marker was created or the removed version was one
     * @param deleteMarkerVersionId the marker's version id when {@code deleteMarker}
     */
    public record Deleted(String key, String versionId, boolean deleteMarker, String deleteMarkerVersionId)
            implements Outcome {}

    /** A key that could not be deleted. */
    public record Failed(String key, String versionId, S3ErrorCode code, String message) implements Outcome {}

    private final ObjectStore store;
    private final Authorizer authorizer;

    private final dev.appliance.s3.audit.AuditSink audit;

    public DeleteObjects(ObjectStore store, Authorizer authorizer) {
        this(store, authorizer, dev.appliance.s3.audit.AuditSink.NONE);
    }

    /** Each key's outcome is told to {@code audit} as one {@code s3:DeleteObject} event. */
    public DeleteObjects(ObjectStore store, Authorizer authorizer, dev.appliance.s3.audit.AuditSink audit) {
        this.store = requireNonNull(store, "store");
        this.authorizer = requireNonNull(authorizer, "authorizer");
        this.audit = requireNonNull(audit, "audit");
    }

    public S3Response handle(S3Request r) throws IOException {
        String contentMd5 = r.header("content-md5");
        if (contentMd5 == null && !hasChecksum(r)) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest,
                    "Missing required header for this request: Content-MD5 or x-amz-checksum-*");
        }
        byte[] expectedMd5 = ObjectHandlers.contentMd5(contentMd5);
        // reads to the end of the stream: a wrong x-amz-checksum-* header or trailer fails here (BadDigest)
        byte[] body = Params.readSmallBody(r, MAX_BODY);
        if (expectedMd5 != null && !MessageDigest.isEqual(md5(body), expectedMd5)) {
            throw new S3Exception(S3ErrorCode.BadDigest);
        }
        Request request = parse(body);
        store.bucketInfo(r.bucket()); // NoSuchBucket for the whole request
        // x-amz-bypass-governance-retention applies to every key; the permission is asked per key
        boolean askBypass = r.header(LockHeaders.BYPASS_HEADER) != null;
        return S3Response.xml(render(deleteAll(r, request.objects(), askBypass), request.quiet()));
    }

    /** Deletes run this many at a time: a batch of 1000 (Veeam's) is bound by drive round trips, not CPU. */
    static final int PARALLEL_DELETES = 16;

    /**
     * Every entry's outcome, in request order. Different keys are deleted in parallel; the entries of one key run in
     * request order, one after another, as a client that lists them one after another would expect.
     */
    private List<Outcome> deleteAll(S3Request r, List<Entry> entries, boolean askBypass) {
        Outcome[] outcomes = new Outcome[entries.size()];
        java.util.Map<String, List<Integer>> byKey = new java.util.LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            byKey.computeIfAbsent(entries.get(i).key(), k -> new ArrayList<>()).add(i);
        }
        java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(PARALLEL_DELETES);
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (List<Integer> positions : byKey.values()) {
                slots.acquireUninterruptibly();
                pool.execute(() -> {
                    try {
                        for (int i : positions) {
                            outcomes[i] = deleteOne(r, entries.get(i), askBypass);
                            audit(r, entries.get(i), outcomes[i]);
                        }
                    } finally {
                        slots.release();
                    }
                });
            }
        }
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) { // an unexpected failure inside deleteOne
                Entry e = entries.get(i);
                outcomes[i] = new Failed(
                        e.key(), e.versionId(), S3ErrorCode.InternalError, S3ErrorCode.InternalError.defaultMessage());
            }
        }
        return List.of(outcomes);
    }

    private Outcome deleteOne(S3Request r, Entry e, boolean askBypass) {
        String action = e.versionId() == null ? "s3:DeleteObject" : "s3:DeleteObjectVersion";
        if (!authorizer.allowed(
                r.access(action, r.bucket(), e.key()).withConditionKey("s3:versionid", e.versionId()))) {
            return new Failed(
                    e.key(), e.versionId(), S3ErrorCode.AccessDenied, S3ErrorCode.AccessDenied.defaultMessage());
        }
        if (SosApi.isVirtualKey(e.key())) {
            // as a single DELETE of it: otherwise a versioned bucket would list a delete marker under the virtual key
            S3Exception readOnly = SosApi.readOnly();
            return new Failed(e.key(), e.versionId(), readOnly.code(), readOnly.getMessage());
        }
        try {
            boolean bypass = askBypass && LockHeaders.bypassGovernance(r, authorizer, e.key());
            DeleteResult result = store.deleteObject(r.bucket(), e.key(), e.versionId(), bypass);
            return deleted(e, result);
        } catch (StorageException se) {
            if (se.kind() == ErrorKind.OBJECT_NOT_FOUND || se.kind() == ErrorKind.VERSION_NOT_FOUND) {
                return new Deleted(e.key(), e.versionId(), false, null); // deletes are idempotent in S3
            }
            S3Exception mapped = ErrorMapper.map(se);
            return new Failed(e.key(), e.versionId(), mapped.code(), mapped.getMessage());
        } catch (S3Exception s3) {
            return new Failed(e.key(), e.versionId(), s3.code(), s3.getMessage());
        }
    }

    private void audit(S3Request r, Entry e, Outcome o) {
        if (audit == dev.appliance.s3.audit.AuditSink.NONE) {
            return;
        }
        String outcome;
        int status;
        if (o instanceof Failed f) {
            outcome = f.code() == S3ErrorCode.AccessDenied ? "denied" : f.code().code();
            status = f.code().status();
        } else {
            outcome = "allowed";
            status = 200;
        }
        String resource = r.bucket() + "/" + e.key() + (e.versionId() == null ? "" : "?versionId=" + e.versionId());
        audit.record(new dev.appliance.s3.audit.AuditSink.AuditedCall(
                java.time.Instant.now(),
                r.auth().accessKey(),
                r.sourceIp(),
                "s3:DeleteObject", // as a single DELETE is: the version, if any, is in the resource
                resource,
                outcome,
                status,
                r.requestId(),
                java.util.Map.of("via", "DeleteObjects")));
    }

    /** The {@code <Deleted>} entry for an engine result, shaped as S3 shapes it. */
    static Deleted deleted(Entry e, DeleteResult result) {
        if (e.versionId() != null) {
            // a named version removed; when it was a marker, S3 names it twice
            return new Deleted(
                    e.key(), e.versionId(), result.deleteMarker(), result.deleteMarker() ? e.versionId() : null);
        }
        if (result.deleteMarker()) {
            return new Deleted(e.key(), null, true, result.versionId());
        }
        return new Deleted(e.key(), null, false, null);
    }

    private static boolean hasChecksum(S3Request r) {
        if (r.header("x-amz-trailer") != null) {
            return true; // the trailer's presence and value are checked by the body stream
        }
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            if (r.header(a.headerName()) != null) {
                return true;
            }
        }
        return false;
    }

    private static byte[] md5(byte[] body) {
        try {
            return MessageDigest.getInstance("MD5").digest(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("MD5 unavailable", e);
        }
    }

    /**
     * Parses a {@code <Delete>} document (S3's namespace or none). Anything but {@code Quiet} and 1 to 1000 {@code
     * Object}s each with exactly one {@code Key} and at most one {@code VersionId} is {@code MalformedXML};
     * conditional-delete fields ({@code ETag}, {@code LastModifiedTime}, {@code Size}) are {@code NotImplemented}.
     * Keys are taken exactly as sent (no whitespace trimming).
     */
    public static Request parse(byte[] body) {
        if (body.length == 0) {
            throw malformed("empty body");
        }
        XmlElement root = XmlReader.parse(body, MAX_BODY);
        if (!root.name().equals("Delete")) {
            throw malformed("the root element must be Delete");
        }
        boolean quiet = false;
        boolean quietSeen = false;
        List<Entry> objects = new ArrayList<>();
        for (XmlElement child : root.children()) {
            switch (child.name()) {
                case "Quiet" -> {
                    if (quietSeen) {
                        throw malformed("Quiet given twice");
                    }
                    quietSeen = true;
                    quiet = switch (child.text().toLowerCase(Locale.ROOT)) {
                        case "true" -> true;
                        case "false" -> false;
                        default -> throw malformed("Quiet must be true or false");
                    };
                }
                case "Object" -> {
                    if (objects.size() == MAX_KEYS) {
                        throw malformed("more than " + MAX_KEYS + " objects");
                    }
                    objects.add(entry(child));
                }
                default -> throw malformed("unexpected element " + child.name());
            }
        }
        if (objects.isEmpty()) {
            throw malformed("no Object to delete");
        }
        return new Request(quiet, objects);
    }

    private static Entry entry(XmlElement object) {
        String key = null;
        String versionId = null;
        for (XmlElement f : object.children()) {
            String name = f.name();
            if (name.equals("Key")) {
                if (key != null) {
                    throw malformed("Key given twice");
                }
                if (!f.children().isEmpty()) {
                    throw malformed("Key must be text");
                }
                key = f.rawText();
            } else if (name.equals("VersionId")) {
                if (versionId != null) {
                    throw malformed("VersionId given twice");
                }
                versionId = f.text();
            } else if (UNSUPPORTED_OBJECT_FIELDS.contains(name)) {
                throw new S3Exception(
                        S3ErrorCode.NotImplemented,
                        "Conditional deletes (" + name + " in DeleteObjects) are not supported.");
            } else {
                throw malformed("unexpected element " + name + " in Object");
            }
        }
        if (key == null) {
            throw malformed("Object without Key");
        }
        return new Entry(key, versionId == null || versionId.isEmpty() ? null : versionId);
    }

    /** The {@code <DeleteResult>} document; with {@code quiet} only the errors. */
    public static byte[] render(List<Outcome> outcomes, boolean quiet) {
        XmlWriter x = new XmlWriter().startDocument("DeleteResult");
        for (Outcome o : outcomes) {
            switch (o) {
                case Deleted d -> {
                    if (!quiet) {
                        x.start("Deleted").element("Key", d.key()).element("VersionId", d.versionId());
                        if (d.deleteMarker()) {
                            x.element("DeleteMarker", true).element("DeleteMarkerVersionId", d.deleteMarkerVersionId());
                        }
                        x.end();
                    }
                }
                case Failed f ->
                    x.start("Error")
                            .element("Key", f.key())
                            .element("VersionId", f.versionId())
                            .element("Code", f.code().code())
                            .element("Message", f.message())
                            .end();
            }
        }
        return x.toBytes();
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MalformedXML, S3ErrorCode.MalformedXML.defaultMessage() + " (" + why + ")");
    }
}
