package dev.appliance.s3.api.object;

import dev.appliance.core.DeleteResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.WriteConditions;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.lifecycle.LifecycleHandlers;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Object operations: PutObject, GetObject, HeadObject, DeleteObject. */
public final class ObjectHandlers {
    /** S3's single-PUT limit. */
    static final long MAX_PUT_SIZE = 5L << 30;
    /** S3's limit on user-defined metadata (names plus values of x-amz-meta-*). */
    static final int MAX_USER_METADATA = 2048;

    /** Standard headers kept with the object and returned on GET/HEAD. */
    private static final List<String> STORED_HEADERS =
            List.of("cache-control", "content-disposition", "content-encoding", "content-language", "expires");

    private static final Map<String, String> RESPONSE_OVERRIDES = Map.of(
            "response-content-type", "Content-Type",
            "response-content-language", "Content-Language",
            "response-expires", "Expires",
            "response-cache-control", "Cache-Control",
            "response-content-disposition", "Content-Disposition",
            "response-content-encoding", "Content-Encoding");

    private static final Set<String> UNSUPPORTED_PUT_HEADERS = Set.of(
            "x-amz-server-side-encryption",
            "x-amz-server-side-encryption-customer-algorithm",
            "x-amz-website-redirect-location");

    private final ObjectStore store;
    private final Authorizer authorizer;

    public ObjectHandlers(ObjectStore store, Authorizer authorizer) {
        this.store = store;
        this.authorizer = authorizer;
    }

    /** PutObject; {@code withCommit} (null: none) offers the call's audit event to the write to keep with its commit. */
    public S3Response put(S3Request r, dev.appliance.s3.audit.CommitAudit withCommit) throws IOException {
        for (String h : UNSUPPORTED_PUT_HEADERS) {
            if (r.header(h) != null) {
                throw new S3Exception(S3ErrorCode.NotImplemented, "The header " + h + " is not supported yet.");
            }
        }
        String storageClass = r.header("x-amz-storage-class");
        if (storageClass != null && !storageClass.equals("STANDARD")) {
            throw new S3Exception(S3ErrorCode.NotImplemented, "Only the STANDARD storage class is supported.");
        }
        long size = r.bodySize();
        if (size < 0) {
            throw new S3Exception(S3ErrorCode.MissingContentLength);
        }
        if (size > MAX_PUT_SIZE) {
            throw new S3Exception(S3ErrorCode.EntityTooLarge);
        }
        Map<String, String> lock = LockHeaders.entries(r);
        LockHeaders.authorizeWrite(lock, r.access("s3:PutObject"), authorizer);
        if (!lock.isEmpty()) {
            if (store.objectLockConfiguration(r.bucket()) == null) {
                throw new S3Exception(S3ErrorCode.InvalidRequest, "Bucket is missing Object Lock Configuration");
            }
            if (!LockHeaders.hasIntegrityHeader(r)) {
                throw new S3Exception(
                        S3ErrorCode.InvalidRequest,
                        "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object"
                                + " Lock parameters");
            }
        }
        byte[] md5 = contentMd5(r.header("content-md5"));
        Map<String, String> metadata = userMetadata(r);
        metadata.putAll(lock);
        PutRequest request = new PutRequest(size, r.header("content-type"), metadata, md5);
        WriteConditions conditions = writeConditions(r);
        if (conditions != WriteConditions.NONE) {
            request = request.withConditions(conditions.ifMatch(), conditions.ifNoneMatchAny());
        }
        // Keep the checksum the body was verified against, to return it with x-amz-checksum-mode: ENABLED.
        request = request.withMetadataAfterBody(r.verifiedChecksums());
        if (withCommit != null) {
            request = withCommit.attachTo(request);
        }
        ObjectInfo info = store.putObject(r.bucket(), r.key(), request, r.body());
        S3Response resp = S3Response.ok().header("ETag", Params.quotedEtag(info.etag()));
        // as S3, the response confirms the checksum the body was verified against
        Map<String, String> checksums = r.verifiedChecksums().get();
        checksums.forEach(resp::header);
        if (!checksums.isEmpty()) {
            resp.header("x-amz-checksum-type", "FULL_OBJECT");
        }
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        LifecycleHandlers.addExpiration(store, resp, info);
        return resp;
    }

    /** If-Match / If-None-Match of a write (PutObject, CompleteMultipartUpload): S3 takes only {@code *} for the latter. */
    public static WriteConditions writeConditions(S3Request r) {
        String ifNoneMatch = r.header("if-none-match");
        String ifMatch = r.header("if-match");
        if (ifNoneMatch != null && !ifNoneMatch.trim().equals("*")) {
            throw new S3Exception(S3ErrorCode.NotImplemented, "If-None-Match on a write supports only '*'.");
        }
        return ifNoneMatch == null && ifMatch == null
                ? WriteConditions.NONE
                : new WriteConditions(ifMatch, ifNoneMatch != null);
    }

    public static byte[] contentMd5(String header) {
        if (header == null) {
            return null;
        }
        try {
            byte[] md5 = Base64.getDecoder().decode(header.strip());
            if (md5.length == 16) {
                return md5;
            }
        } catch (IllegalArgumentException e) {
            // refused below
        }
        throw new S3Exception(S3ErrorCode.InvalidDigest);
    }

    public static Map<String, String> userMetadata(S3Request r) {
        Map<String, String> meta = new LinkedHashMap<>();
        int userBytes = 0;
        for (Map.Entry<String, List<String>> e : r.headers().entrySet()) {
            String name = e.getKey();
            if (name.startsWith("x-amz-meta-") && !e.getValue().isEmpty()) {
                String value = String.join(",", e.getValue());
                userBytes += name.length() - "x-amz-meta-".length() + value.getBytes(StandardCharsets.UTF_8).length;
                meta.put(name, value);
            }
        }
        if (userBytes > MAX_USER_METADATA) {
            throw new S3Exception(
                    S3ErrorCode.MetadataTooLarge,
                    "Your metadata headers exceed the maximum allowed metadata size (" + MAX_USER_METADATA + ").");
        }
        for (String name : STORED_HEADERS) {
            String value = r.header(name);
            if (name.equals("content-encoding") && value != null) {
                value = withoutAwsChunked(value);
            }
            if (value != null && !value.isEmpty()) {
                meta.put(name, value);
            }
        }
        String tagging = r.header(Tags.STORED_KEY);
        if (tagging != null && !tagging.isEmpty()) {
            Map<String, String> tags = Tags.fromHeader(tagging, Tags.MAX_OBJECT_TAGS);
            if (!tags.isEmpty()) {
                meta.put(Tags.STORED_KEY, Tags.toHeader(tags));
            }
        }
        return meta;
    }

    /** {@code aws-chunked} describes the transfer, not the object: it is never stored. */
    static String withoutAwsChunked(String contentEncoding) {
        if (!contentEncoding.toLowerCase(Locale.ROOT).contains("aws-chunked")) {
            return contentEncoding; // stored exactly as sent
        }
        StringBuilder sb = new StringBuilder();
        for (String token : contentEncoding.split(",")) {
            String t = token.strip();
            if (!t.isEmpty() && !t.equalsIgnoreCase("aws-chunked")) {
                if (!sb.isEmpty()) {
                    sb.append(',');
                }
                sb.append(t);
            }
        }
        return sb.toString();
    }

    /** GetObject, or HeadObject when {@code head}: same headers, HEAD without a body. */
    public S3Response get(S3Request r, boolean head) {
        String partParam = r.param("partNumber");
        if (partParam == null) {
            return get(r, head, r.header("range"));
        }
        if (r.header("range") != null) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest, "Cannot specify both Range header and partNumber query parameter.");
        }
        int part;
        try {
            part = Integer.parseInt(partParam);
        } catch (NumberFormatException e) {
            part = 0;
        }
        if (part < 1 || part > 10_000) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive");
        }
        ObjectInfo info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        List<Long> sizes = info.partSizes();
        if (part > sizes.size()) {
            throw new S3Exception(S3ErrorCode.InvalidPartNumber);
        }
        long offset = 0;
        for (int i = 0; i < part - 1; i++) {
            offset += sizes.get(i);
        }
        long length = sizes.get(part - 1);
        String range = length == 0 ? null : "bytes=" + offset + "-" + (offset + length - 1);
        S3Response resp = get(r, head, range).header("x-amz-mp-parts-count", Integer.toString(sizes.size()));
        if (checksumMode(r)) {
            partChecksum(info, part).ifPresent(c -> resp.header(c.algorithm().headerName(), c.value())
                    .header("x-amz-checksum-type", c.type().name()));
        }
        return resp;
    }

    /** A stored object checksum: its algorithm, base64 value (with {@code -N} when composite) and type. */
    public record StoredChecksum(ChecksumAlgorithm algorithm, String value, ChecksumType type) {}

    /**
     * The checksum kept with the object ({@code x-amz-checksum-<algorithm>} entry; {@code x-amz-checksum-type}, which a
     * single PUT does not store, defaults to full-object), or empty.
     */
    public static Optional<StoredChecksum> storedChecksum(ObjectInfo info) {
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            String v = info.userMetadata().get(a.headerName());
            if (v != null) {
                ChecksumType type = ChecksumType.forName(info.userMetadata().get("x-amz-checksum-type"))
                        .orElse(ChecksumType.FULL_OBJECT);
                return Optional.of(new StoredChecksum(a, v, type));
            }
        }
        return Optional.empty();
    }

    /**
     * The checksum of one part, as S3 returns it for a GET or HEAD with {@code partNumber}: the part's own for a
     * multipart object, the object's for part 1 of a single PUT.
     */
    static Optional<StoredChecksum> partChecksum(ObjectInfo info, int part) {
        Optional<StoredChecksum> object = storedChecksum(info);
        if (object.isEmpty()) {
            return Optional.empty();
        }
        List<String> parts = info.partChecksums();
        if (part <= parts.size() && parts.get(part - 1) != null) {
            return Optional.of(new StoredChecksum(
                    object.get().algorithm(), parts.get(part - 1), object.get().type()));
        }
        boolean singlePut = info.etag() == null || !info.etag().contains("-");
        return singlePut && part == 1 ? object : Optional.empty();
    }

    private static boolean checksumMode(S3Request r) {
        return "ENABLED".equalsIgnoreCase(r.header("x-amz-checksum-mode"));
    }

    private S3Response get(S3Request r, boolean head, String rangeHeader) {
        String versionId = r.param("versionId");
        boolean conditional = r.header("if-match") != null
                || r.header("if-none-match") != null
                || r.header("if-modified-since") != null
                || r.header("if-unmodified-since") != null;

        if (head || rangeHeader != null || conditional) {
            ObjectInfo info = store.headObject(r.bucket(), r.key(), versionId);
            S3Response notModified = preconditions(r, info);
            if (notModified != null) {
                return notModified;
            }
            ByteRange range = ByteRange.parse(rangeHeader, info.size());
            if (head) {
                S3Response resp = S3Response.status(range == null ? 200 : 206);
                objectHeaders(resp, info, range == null ? info.size() : range.length());
                LifecycleHandlers.addExpiration(store, resp, info);
                if (range != null) {
                    resp.header("Content-Range", range.contentRange(info.size()));
                } else {
                    checksumHeaders(r, resp, info);
                }
                return resp;
            }
            // pin the version that was checked, so the body matches the headers
            long offset = range == null ? 0 : range.offset();
            long length = range == null ? -1 : range.length();
            return stream(r, store.getObject(r.bucket(), r.key(), info.versionId(), offset, length), range);
        }
        return stream(r, store.getObject(r.bucket(), r.key(), versionId, 0, -1), null);
    }

    private S3Response stream(S3Request r, ObjectReader reader, ByteRange range) {
        try {
            ObjectInfo info = reader.info();
            S3Response resp = S3Response.status(range == null ? 200 : 206);
            objectHeaders(resp, info, reader.length());
            LifecycleHandlers.addExpiration(store, resp, info);
            if (range != null) {
                resp.header("Content-Range", range.contentRange(info.size()));
            } else {
                checksumHeaders(r, resp, info);
            }
            for (Map.Entry<String, String> o : RESPONSE_OVERRIDES.entrySet()) {
                String v = r.param(o.getKey());
                if (v != null) {
                    resp.header(o.getValue(), v);
                }
            }
            return resp.streaming(new S3Response.StreamingBody() {
                @Override
                public long length() {
                    return reader.length();
                }

                @Override
                public void writeTo(OutputStream out) throws IOException {
                    reader.transferTo(out);
                }

                @Override
                public void close() {
                    reader.close();
                }
            });
        } catch (RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /**
     * With {@code x-amz-checksum-mode: ENABLED}, the full-object checksum stored at upload time (as S3, none for a
     * range, whose bytes it does not describe).
     */
    private static void checksumHeaders(S3Request r, S3Response resp, ObjectInfo info) {
        if (!checksumMode(r)) {
            return;
        }
        storedChecksum(info).ifPresent(c -> resp.header(c.algorithm().headerName(), c.value())
                .header("x-amz-checksum-type", c.type().name()));
    }

    private static void objectHeaders(S3Response resp, ObjectInfo info, long contentLength) {
        resp.header("ETag", Params.quotedEtag(info.etag()))
                .header("Last-Modified", Params.httpDate(info.modTime()))
                .header("Content-Type", info.contentType() == null ? "application/octet-stream" : info.contentType())
                .header("Content-Length", Long.toString(contentLength))
                .header("Accept-Ranges", "bytes");
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        for (Map.Entry<String, String> m : info.userMetadata().entrySet()) {
            String name = m.getKey();
            if (name.startsWith("x-amz-meta-") || STORED_HEADERS.contains(name)) {
                resp.header(name, m.getValue());
            }
        }
        LockHeaders.addTo(resp, info);
        String tagging = info.userMetadata().get(Tags.STORED_KEY);
        if (tagging != null) {
            resp.header(
                    "x-amz-tagging-count",
                    Integer.toString(Tags.fromHeader(tagging, Integer.MAX_VALUE).size()));
        }
    }

    /** Conditional GET/HEAD: null to proceed, a 304 response, or PreconditionFailed thrown. */
    private static S3Response preconditions(S3Request r, ObjectInfo info) {
        String etag = info.etag() == null ? "" : info.etag();
        Instant modified = info.modTime().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String ifMatch = r.header("if-match");
        String ifNoneMatch = r.header("if-none-match");
        Instant ifModifiedSince = httpTime(r.header("if-modified-since"));
        Instant ifUnmodifiedSince = httpTime(r.header("if-unmodified-since"));
        if (ifMatch != null) {
            if (!etagMatches(ifMatch, etag)) {
                throw new S3Exception(S3ErrorCode.PreconditionFailed);
            }
        } else if (ifUnmodifiedSince != null && modified.isAfter(ifUnmodifiedSince)) {
            throw new S3Exception(S3ErrorCode.PreconditionFailed);
        }
        boolean notModified = ifNoneMatch != null
                ? etagMatches(ifNoneMatch, etag)
                : ifModifiedSince != null && !modified.isAfter(ifModifiedSince);
        if (notModified) {
            return S3Response.status(304)
                    .header("ETag", Params.quotedEtag(info.etag()))
                    .header("Last-Modified", Params.httpDate(info.modTime()));
        }
        return null;
    }

    private static boolean etagMatches(String header, String etag) {
        for (String candidate : header.split(",")) {
            String c = candidate.strip();
            if (c.equals("*") || c.replace("\"", "").equalsIgnoreCase(etag)) {
                return true;
            }
        }
        return false;
    }

    private static Instant httpTime(String value) {
        if (value == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(value.strip(), DateTimeFormatter.RFC_1123_DATE_TIME.withLocale(Locale.US))
                    .toInstant();
        } catch (DateTimeParseException e) {
            return null; // S3 ignores unparsable dates
        }
    }

    public S3Response delete(S3Request r) {
        String versionId = r.param("versionId");
        DeleteResult result;
        try {
            result = store.deleteObject(
                    r.bucket(), r.key(), versionId, LockHeaders.bypassGovernance(r, authorizer, r.key()));
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.OBJECT_NOT_FOUND || e.kind() == ErrorKind.VERSION_NOT_FOUND) {
                return S3Response.noContent(); // deletes are idempotent in S3
            }
            throw e;
        }
        S3Response resp = S3Response.noContent();
        if (result.deleteMarker()) {
            resp.header("x-amz-delete-marker", "true");
        }
        if (result.versionId() != null) {
            resp.header("x-amz-version-id", result.versionId());
        }
        return resp;
    }
}
