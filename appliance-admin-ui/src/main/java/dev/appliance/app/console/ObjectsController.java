package dev.appliance.app.console;

import dev.appliance.core.DeleteResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.naming.VersionIds;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.policy.S3Action;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The object browser: a bucket's keys by prefix, a key's versions with their Object Lock state, download, small
 * uploads, and deletes that Object Lock may refuse, under {@code /api/v1/admin/buckets/{bucket}/objects}:
 *
 * <ul>
 *   <li>{@code GET ?prefix=&delimiter=/&marker=&limit=}: one page of common prefixes and keys, each key as its latest
 *       version (a delete marker included, so a deleted key can still be found and its versions read);
 *   <li>{@code GET /versions?key=&versionIdMarker=&limit=}: the key's versions, newest first;
 *   <li>{@code GET /content?key=&versionId=}: the bytes, streamed, as an attachment;
 *   <li>{@code PUT /content?key=}: the request body becomes a new version (at most {@link #maxUploadBytes});
 *   <li>{@code DELETE ?key=&versionId=&bypassGovernance=}: removes that version, or without a version id places a
 *       delete marker (in a versioned bucket).
 * </ul>
 *
 * Every route reaches the data as the S3 API does: decided as S3 actions on the bucket and key ({@link ObjectAccess}),
 * and carried out by the same engine calls, so versioning, Object Lock (default retention, refusals), quotas and write
 * quorum apply as they do to S3 clients. A refused delete says why: which retention or legal hold protects the
 * version, until when, and whether a governance bypass would help.
 */
@RestController
class ObjectsController {
    static final String PATH = "/api/v1/admin/buckets/{bucket}/objects";
    /** The largest upload the console takes: bigger files belong to an S3 client (multipart). */
    static final long DEFAULT_MAX_UPLOAD_BYTES = 64L * 1024 * 1024;

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    private final ApplianceStore store;
    private final AdminAuthorization authorization;
    private final long maxUploadBytes;

    ObjectsController(ApplianceStore store, AdminAuthorization authorization) {
        this.store = store;
        this.authorization = authorization;
        this.maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES;
    }

    /**
     * A key as its latest version.
     *
     * @param modified ISO-8601
     * @param etag hex, null for a delete marker
     */
    record ObjectEntry(String key, String versionId, long size, String modified, String etag, boolean deleteMarker) {
        static ObjectEntry of(ObjectInfo v) {
            return new ObjectEntry(
                    v.key(), v.versionId(), v.size(), v.modTime().toString(), v.etag(), v.deleteMarker());
        }
    }

    /**
     * One page of a listing.
     *
     * @param nextMarker the {@code marker} of the next page; null on the last page
     * @param mayUpload whether the caller may write under {@code prefix} (so the page offers the upload); each upload
     *     is decided again
     */
    record ObjectsPage(
            String bucket,
            String prefix,
            String delimiter,
            List<String> prefixes,
            List<ObjectEntry> objects,
            boolean truncated,
            String nextMarker,
            boolean mayUpload) {}

    /**
     * One version of a key with its Object Lock state.
     *
     * @param retentionMode GOVERNANCE, COMPLIANCE or null (none)
     * @param retainUntil ISO-8601, or null
     * @param retentionActive whether the retention still protects the version at the appliance's trusted time
     */
    record VersionView(
            String versionId,
            boolean latest,
            boolean deleteMarker,
            long size,
            String modified,
            String etag,
            String retentionMode,
            String retainUntil,
            boolean retentionActive,
            boolean legalHold) {}

    /**
     * @param now the trusted time the {@code retentionActive} flags were judged at
     * @param nextVersionIdMarker the {@code versionIdMarker} of the next page; null on the last page
     * @param may what the caller may do to this key (so the page offers only that); each delete is decided again
     */
    record VersionsPage(
            String bucket,
            String key,
            String now,
            List<VersionView> versions,
            boolean truncated,
            String nextVersionIdMarker,
            KeyPermissions may) {}

    /**
     * @param deleteVersion remove a version ({@code s3:DeleteObjectVersion})
     * @param placeDeleteMarker hide the key behind a delete marker ({@code s3:DeleteObject})
     * @param bypassGovernance remove a version under governance retention ({@code s3:BypassGovernanceRetention})
     */
    record KeyPermissions(boolean deleteVersion, boolean placeDeleteMarker, boolean bypassGovernance) {}

    /** What a delete did: removed {@code versionId}, or placed a delete marker with that version id. */
    record Deleted(String bucket, String key, String versionId, boolean deleteMarker) {}

    @ObjectAccess(S3Action.LIST_BUCKET_VERSIONS)
    @GetMapping(PATH)
    ObjectsPage list(
            @PathVariable("bucket") String bucket,
            @RequestParam(name = "prefix", required = false) String prefix,
            @RequestParam(name = "delimiter", required = false) String delimiter,
            @RequestParam(name = "marker", required = false) String marker,
            @RequestParam(name = "limit", required = false) String limit,
            @AuthenticationPrincipal AdminPrincipal caller) {
        ObjectTarget.parse(bucket, null);
        int max = limit(limit);
        String p = prefix == null ? "" : prefix;
        String d = delimiter == null ? "/" : delimiter;
        if (!d.isEmpty() && !d.equals("/")) {
            throw new BadField(400, "delimiter", "delimiter: '" + d + "' (expected '/' or empty)");
        }
        // each key's latest version (its first in the version listing) or its common prefix, in key order
        List<String> prefixes = new ArrayList<>();
        List<ObjectEntry> objects = new ArrayList<>();
        String keyMarker = marker == null || marker.isEmpty() ? null : marker;
        String last = null;
        boolean truncated = false;
        int pageSize = Math.min(MAX_LIMIT, max + 1);
        pages:
        while (true) {
            ListVersionsResult page =
                    store.listObjectVersions(bucket, p, d.isEmpty() ? null : d, keyMarker, null, pageSize);
            TreeMap<String, ObjectInfo> items = new TreeMap<>(ObjectKeys.ORDER);
            page.commonPrefixes().forEach(cp -> items.put(cp, null));
            for (ObjectInfo v : page.versions()) {
                items.putIfAbsent(v.key(), v);
            }
            for (Map.Entry<String, ObjectInfo> e : items.entrySet()) {
                if (prefixes.size() + objects.size() >= max) {
                    truncated = true;
                    break pages;
                }
                if (e.getValue() == null) {
                    prefixes.add(e.getKey());
                } else {
                    objects.add(ObjectEntry.of(e.getValue()));
                }
                last = e.getKey();
            }
            if (!page.truncated() || page.nextKeyMarker() == null) {
                break;
            }
            // a page cut inside a key's versions resumes after that key: its latest was taken already
            keyMarker = page.nextKeyMarker();
        }
        boolean mayUpload = may(caller, S3Action.PUT_OBJECT, bucket, p.isEmpty() ? null : p);
        return new ObjectsPage(bucket, p, d, prefixes, objects, truncated, truncated ? last : null, mayUpload);
    }

    @ObjectAccess(S3Action.LIST_BUCKET_VERSIONS)
    @GetMapping(PATH + "/versions")
    VersionsPage versions(
            @PathVariable("bucket") String bucket,
            @RequestParam(name = "versionIdMarker", required = false) String versionIdMarker,
            @RequestParam(name = "limit", required = false) String limit,
            @AuthenticationPrincipal AdminPrincipal caller,
            HttpServletRequest request) {
        String key = ObjectTarget.parse(bucket, request.getQueryString()).requireKey();
        int max = limit(limit);
        String marker = versionIdMarker == null || versionIdMarker.isEmpty() ? null : versionIdMarker;
        if (marker != null) {
            try {
                VersionIds.parse(marker);
            } catch (StorageException e) {
                throw new BadField(400, "versionIdMarker", "versionIdMarker: '" + marker + "' is not a version id");
            }
        }
        // the key sorts first among the keys it prefixes, so its versions open the listing
        ListVersionsResult page =
                store.listObjectVersions(bucket, key, null, marker == null ? null : key, marker, max + 1);
        Instant now = store.retentionNow();
        List<VersionView> versions = new ArrayList<>();
        boolean truncated = false;
        for (ObjectInfo v : page.versions()) {
            if (!v.key().equals(key)) {
                break;
            }
            if (versions.size() >= max) {
                truncated = true;
                break;
            }
            versions.add(view(v, now));
        }
        if (versions.isEmpty() && marker == null) {
            throw new BadField(404, "key", "no version of '" + key + "' in bucket " + bucket);
        }
        return new VersionsPage(
                bucket,
                key,
                now.toString(),
                versions,
                truncated,
                truncated ? versions.getLast().versionId() : null,
                new KeyPermissions(
                        may(caller, S3Action.DELETE_OBJECT_VERSION, bucket, key),
                        may(caller, S3Action.DELETE_OBJECT, bucket, key),
                        may(caller, S3Action.BYPASS_GOVERNANCE_RETENTION, bucket, key)));
    }

    /** What the page may offer: the same decision a request for {@code action} on the object would get. */
    private boolean may(AdminPrincipal caller, S3Action action, String bucket, String key) {
        return caller != null && authorization.allowedOn(caller, action.iamName(), bucket, key);
    }

    @ObjectAccess(value = S3Action.GET_OBJECT, withVersionId = S3Action.GET_OBJECT_VERSION)
    @GetMapping(PATH + "/content")
    void download(@PathVariable("bucket") String bucket, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        ObjectTarget target = ObjectTarget.parse(bucket, request.getQueryString());
        String key = target.requireKey();
        try (ObjectReader reader = store.getObject(bucket, key, target.versionId(), 0, -1)) {
            ObjectInfo info = reader.info();
            // never the stored type: the bytes must not render as a page of the console's origin
            response.setContentType("application/octet-stream");
            response.setContentLengthLong(reader.length());
            response.setHeader(HttpHeaders.CONTENT_DISPOSITION, attachment(key));
            response.setHeader(HttpHeaders.ETAG, "\"" + info.etag() + "\"");
            response.setHeader("x-amz-version-id", info.versionId());
            response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
            reader.transferTo(response.getOutputStream());
        }
    }

    @ObjectAccess(S3Action.PUT_OBJECT)
    @PutMapping(PATH + "/content")
    ResponseEntity<?> upload(@PathVariable("bucket") String bucket, HttpServletRequest request) throws IOException {
        String key = ObjectTarget.parse(bucket, request.getQueryString()).requireKey();
        long length = request.getContentLengthLong();
        if (length < 0) {
            return problem(411, "LengthRequired", null, "send the file with a Content-Length");
        }
        if (length > maxUploadBytes) {
            return problem(
                    413,
                    "EntityTooLarge",
                    null,
                    "the console uploads files of at most " + maxUploadBytes / (1024 * 1024) + " MiB (this one has "
                            + length + " bytes); use an S3 client for larger ones");
        }
        String type = request.getContentType();
        ObjectInfo info = store.putObject(
                bucket,
                key,
                new PutRequest(length, type == null || type.isBlank() ? null : type, Map.of(), null),
                request.getInputStream());
        return ResponseEntity.ok(ObjectEntry.of(info));
    }

    @ObjectAccess(value = S3Action.DELETE_OBJECT, withVersionId = S3Action.DELETE_OBJECT_VERSION)
    @DeleteMapping(PATH)
    ResponseEntity<?> delete(
            @PathVariable("bucket") String bucket,
            @RequestParam(name = "bypassGovernance", defaultValue = "false") boolean bypassGovernance,
            @AuthenticationPrincipal AdminPrincipal caller,
            HttpServletRequest request) {
        ObjectTarget target = ObjectTarget.parse(bucket, request.getQueryString());
        String key = target.requireKey();
        // as S3: asking for the bypass without the permission is not asking, so the engine refuses what needed it
        boolean mayBypass = bypassGovernance
                && caller != null
                && authorization.allowedOn(caller, S3Action.BYPASS_GOVERNANCE_RETENTION.iamName(), bucket, key);
        DeleteResult result;
        try {
            result = store.deleteObject(bucket, key, target.versionId(), mayBypass);
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.OBJECT_LOCKED) {
                return problem(409, "ObjectLocked", "versionId", whyLocked(target, bypassGovernance, mayBypass));
            }
            throw e;
        }
        return ResponseEntity.ok(new Deleted(bucket, key, result.versionId(), result.deleteMarker()));
    }

    /**
     * Why Object Lock kept a version, from the version's own lock state at the trusted time: the engine decided, this
     * only puts its reasons into words.
     */
    private String whyLocked(ObjectTarget target, boolean bypassAsked, boolean mayBypass) {
        ObjectInfo version;
        try {
            version = store.headObject(target.bucket(), target.key(), target.versionId());
        } catch (StorageException e) {
            return "This version is protected by Object Lock.";
        }
        Instant now = store.retentionNow();
        List<String> reasons = new ArrayList<>();
        if (ObjectLock.legalHold(version.userMetadata())) {
            reasons.add("legal hold is on (it must be turned off first, which needs s3:PutObjectLegalHold)");
        }
        Retention retention = ObjectLock.retention(version.userMetadata());
        if (retention != null && retention.activeAt(now)) {
            String until = ObjectLock.format(retention.retainUntil());
            if (retention.mode() == RetentionMode.COMPLIANCE) {
                reasons.add("compliance retention until " + until
                        + ": no one, the root user included, can delete it before then");
            } else if (!bypassAsked) {
                reasons.add("governance retention until " + until
                        + ": deleting it before then needs a governance bypass (bypassGovernance=true) and the"
                        + " s3:BypassGovernanceRetention permission");
            } else if (!mayBypass) {
                reasons.add("governance retention until " + until
                        + ": you asked to bypass it but are not allowed s3:BypassGovernanceRetention");
            }
        }
        return reasons.isEmpty()
                ? "This version is protected by Object Lock."
                : "This version is protected by Object Lock: " + String.join("; ", reasons) + ".";
    }

    private static VersionView view(ObjectInfo v, Instant now) {
        Retention retention = ObjectLock.retention(v.userMetadata());
        return new VersionView(
                v.versionId(),
                v.latest(),
                v.deleteMarker(),
                v.size(),
                v.modTime().toString(),
                v.etag(),
                retention == null ? null : retention.mode().name(),
                retention == null ? null : ObjectLock.format(retention.retainUntil()),
                retention != null && retention.activeAt(now),
                ObjectLock.legalHold(v.userMetadata()));
    }

    /** A page size: default {@link #DEFAULT_LIMIT}, 1 to {@link #MAX_LIMIT}. */
    static int limit(String text) {
        if (text == null || text.isEmpty()) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new BadField(400, "limit", "limit: '" + text + "' (expected 1.." + MAX_LIMIT + ")");
    }

    /**
     * {@code attachment} named by the key's last segment: a plain-ASCII {@code filename} (other characters as
     * {@code _}) for old clients, and the exact name UTF-8 percent-encoded in {@code filename*} (RFC 6266), so no
     * quote, semicolon or line break in a key can reach the header as syntax.
     */
    static String attachment(String key) {
        String trimmed = key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
        String name = trimmed.substring(trimmed.lastIndexOf('/') + 1);
        StringBuilder ascii = new StringBuilder();
        StringBuilder encoded = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            ascii.append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != ';' && c != '%' ? c : '_');
        }
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                encoded.append((char) c);
            } else {
                encoded.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
                encoded.append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
    }

    private static ResponseEntity<Problem> problem(int status, String code, String field, String detail) {
        return ResponseEntity.status(status).body(Problem.of(status, code, field, detail));
    }

    @ExceptionHandler(StorageException.class)
    ResponseEntity<Problem> storageError(StorageException e) {
        String message = String.valueOf(e.getMessage());
        return switch (e.kind()) {
            case BUCKET_NOT_FOUND -> problem(404, "NoSuchBucket", "bucket", message);
            case OBJECT_NOT_FOUND -> problem(404, "NoSuchKey", "key", message);
            case VERSION_NOT_FOUND -> problem(404, "NoSuchVersion", "versionId", message);
            case METHOD_NOT_ALLOWED ->
                problem(409, "DeleteMarker", "versionId", "that version is a delete marker: it has no content");
            case INVALID_OBJECT_NAME, KEY_TOO_LONG -> problem(400, "InvalidInput", "key", message);
            case INVALID_ARGUMENT, INVALID_REQUEST, BAD_DIGEST, INCOMPLETE_BODY ->
                problem(400, "InvalidInput", null, message);
            case ENTITY_TOO_LARGE -> problem(413, "EntityTooLarge", null, message);
            case QUOTA_EXCEEDED -> problem(409, "QuotaExceeded", null, message);
            case OBJECT_LOCKED -> problem(409, "ObjectLocked", null, message);
            case TOO_MANY_VERSIONS -> problem(409, "TooManyVersions", "key", message);
            case STORAGE_FULL -> problem(507, "StorageFull", null, message);
            case WRITE_QUORUM, READ_QUORUM -> problem(503, "ServiceUnavailable", null, message);
            default -> problem(500, "InternalError", null, message);
        };
    }
}
