package dev.appliance.s3.api.multipart;

import dev.appliance.core.CompleteChecksum;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartChecksum;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.s3.api.Owner;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.object.CopySource;
import dev.appliance.s3.api.object.ObjectHandlers;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CreateMultipartUpload ({@code POST ?uploads}), UploadPart and UploadPartCopy ({@code PUT ?partNumber&uploadId}),
 * CompleteMultipartUpload ({@code POST ?uploadId}), AbortMultipartUpload ({@code DELETE ?uploadId}), ListParts
 * ({@code GET ?uploadId}) and ListMultipartUploads ({@code GET /bucket?uploads}).
 */
public final class MultipartHandlers {
    /** S3's limit on one part. */
    static final long MAX_PART_SIZE = 5L << 30;

    private static final Pattern COPY_RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
    private final ObjectStore store;
    private final dev.appliance.s3.auth.Authorizer authorizer;

    public MultipartHandlers(ObjectStore store, dev.appliance.s3.auth.Authorizer authorizer) {
        this.store = store;
        this.authorizer = authorizer;
    }

    public S3Response create(S3Request r) {
        MultipartChecksum checksum = declaredChecksum(r);
        Map<String, String> metadata = ObjectHandlers.userMetadata(r);
        Map<String, String> lock = LockHeaders.entries(r);
        LockHeaders.authorizeWrite(lock, r.access("s3:PutObject"), authorizer);
        metadata.putAll(lock); // recorded with the upload, applied at completion
        String uploadId = store.createMultipartUpload(
                r.bucket(), r.key(), new PutRequest(-1, r.header("content-type"), metadata, null), checksum);
        XmlWriter x = new XmlWriter().startDocument("InitiateMultipartUploadResult");
        x.element("Bucket", r.bucket())
                .element("Key", r.key())
                .element("UploadId", uploadId)
                .end();
        S3Response resp = S3Response.xml(x.toBytes());
        if (checksum != null) {
            resp.header("x-amz-checksum-algorithm", checksum.algorithm().name())
                    .header("x-amz-checksum-type", checksum.type().name());
        }
        return resp;
    }

    /**
     * {@code x-amz-checksum-algorithm} and {@code x-amz-checksum-type} of CreateMultipartUpload, with S3's rules: the
     * type needs an algorithm; CRC64NVME is full-object only, SHA-1 and SHA-256 composite only, CRC32 and CRC32C either
     * (composite by default).
     */
    static MultipartChecksum declaredChecksum(S3Request r) {
        String algorithmHeader = r.header("x-amz-checksum-algorithm");
        String typeHeader = r.header("x-amz-checksum-type");
        ChecksumType type = null;
        if (typeHeader != null) {
            type = ChecksumType.forName(typeHeader)
                    .orElseThrow(() -> new S3Exception(
                            S3ErrorCode.InvalidRequest, "Value for x-amz-checksum-type header is invalid."));
        }
        if (algorithmHeader == null) {
            if (type != null) {
                throw new S3Exception(
                        S3ErrorCode.InvalidRequest,
                        "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.");
            }
            return null;
        }
        ChecksumAlgorithm algorithm = ChecksumAlgorithm.forName(algorithmHeader)
                .orElseThrow(() -> new S3Exception(
                        S3ErrorCode.InvalidRequest,
                        "Checksum algorithm provided is unsupported. Please try again with any of the valid types:"
                                + " [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]"));
        if (type == null) {
            type = algorithm.defaultType();
        }
        if (!algorithm.supports(type)) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest,
                    "The " + type + " checksum type cannot be used with the "
                            + algorithm.name().toLowerCase(Locale.ROOT) + " checksum algorithm.");
        }
        return new MultipartChecksum(algorithm, type);
    }

    private static int partNumber(S3Request r) {
        String p = r.param("partNumber");
        try {
            int n = Integer.parseInt(p);
            if (n >= 1 && n <= 10_000) {
                return n;
            }
        } catch (NumberFormatException | NullPointerException e) {
            // answered below
        }
        throw new S3Exception(
                S3ErrorCode.InvalidArgument, "Part number must be an integer between 1 and 10000, inclusive");
    }

    public S3Response uploadPart(S3Request r) throws IOException {
        int part = partNumber(r);
        String uploadId = r.param("uploadId");
        if (r.header("x-amz-copy-source") != null) {
            return uploadPartCopy(r, part, uploadId);
        }
        long size = r.bodySize();
        if (size < 0) {
            throw new S3Exception(S3ErrorCode.MissingContentLength);
        }
        if (size > MAX_PART_SIZE) {
            throw new S3Exception(S3ErrorCode.EntityTooLarge);
        }
        PutRequest request = new PutRequest(size, null, null, ObjectHandlers.contentMd5(r.header("content-md5")))
                .withVerifiedChecksum(r.checksumAlgorithm(), r.verifiedChecksums());
        UploadedPart stored = store.uploadPart(r.bucket(), r.key(), uploadId, part, request, r.body());
        S3Response resp = S3Response.ok().header("ETag", Params.quotedEtag(stored.etag()));
        if (stored.checksum() != null) {
            resp.header(stored.checksumAlgorithm().headerName(), stored.checksum());
        }
        return resp;
    }

    private S3Response uploadPartCopy(S3Request r, int part, String uploadId) throws IOException {
        CopySource src = CopySource.parse(r);
        src.authorize(r, authorizer);
        ObjectInfo source = store.headObject(src.bucket(), src.key(), src.versionId());
        CopySource.checkConditions(r, source);
        long offset = 0;
        long length = source.size();
        String range = r.header("x-amz-copy-source-range");
        if (range != null) {
            Matcher m = COPY_RANGE.matcher(range.trim());
            if (!m.matches()) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument,
                        "The x-amz-copy-source-range value must be of the form bytes=first-last");
            }
            offset = Long.parseLong(m.group(1));
            long last = Long.parseLong(m.group(2));
            if (last < offset || last >= source.size()) {
                throw new S3Exception(S3ErrorCode.InvalidRange, "The requested range is not satisfiable: " + range);
            }
            length = last - offset + 1;
        }
        if (length > MAX_PART_SIZE) {
            throw new S3Exception(S3ErrorCode.EntityTooLarge);
        }
        UploadedPart stored;
        try (ObjectReader reader = store.getObject(src.bucket(), src.key(), source.versionId(), offset, length);
                InputStream in = reader.openStream()) {
            stored = store.uploadPart(r.bucket(), r.key(), uploadId, part, PutRequest.copy(length), in);
        }
        XmlWriter x = new XmlWriter().startDocument("CopyPartResult");
        x.element("LastModified", stored.modTime()).element("ETag", Params.quotedEtag(stored.etag()));
        if (stored.checksum() != null) {
            x.element(stored.checksumAlgorithm().xmlElement(), stored.checksum());
        }
        x.end();
        S3Response resp = S3Response.xml(x.toBytes());
        if (!"null".equals(source.versionId())) {
            resp.header("x-amz-copy-source-version-id", source.versionId());
        }
        return resp;
    }

    public S3Response complete(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, 2 * 1024 * 1024);
        XmlElement doc = XmlReader.parse(body);
        if (!doc.name().equals("CompleteMultipartUpload")) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        List<CompletedPart> parts = new ArrayList<>();
        for (XmlElement p : doc.children()) {
            if (!p.name().equals("Part")) {
                continue;
            }
            String number = p.childText("PartNumber").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedXML));
            String etag = p.childText("ETag").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedXML));
            Map<ChecksumAlgorithm, String> checksums = new EnumMap<>(ChecksumAlgorithm.class);
            for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
                p.childText(a.xmlElement()).ifPresent(v -> checksums.put(a, v.strip()));
            }
            try {
                parts.add(new CompletedPart(Integer.parseInt(number.trim()), etag.trim(), checksums));
            } catch (NumberFormatException e) {
                throw new S3Exception(S3ErrorCode.MalformedXML);
            }
        }
        if (parts.isEmpty()) {
            throw new S3Exception(S3ErrorCode.MalformedXML, "The XML you provided named no parts.");
        }
        ObjectInfo done = store.completeMultipartUpload(
                r.bucket(),
                r.key(),
                r.param("uploadId"),
                parts,
                completeChecksum(r),
                ObjectHandlers.writeConditions(r));
        XmlWriter x = new XmlWriter().startDocument("CompleteMultipartUploadResult");
        x.element("Location", "/" + r.bucket() + "/" + r.key())
                .element("Bucket", r.bucket())
                .element("Key", r.key())
                .element("ETag", Params.quotedEtag(done.etag()));
        ObjectHandlers.storedChecksum(done)
                .ifPresent(c -> x.element(c.algorithm().xmlElement(), c.value())
                        .element("ChecksumType", c.type().name()));
        x.end();
        S3Response resp = S3Response.xml(x.toBytes());
        if (!"null".equals(done.versionId())) {
            resp.header("x-amz-version-id", done.versionId());
        }
        dev.appliance.s3.api.lifecycle.LifecycleHandlers.addExpiration(store, resp, done);
        return resp;
    }

    /** {@code x-amz-checksum-type} and an {@code x-amz-checksum-<algorithm>} header of CompleteMultipartUpload. */
    private static CompleteChecksum completeChecksum(S3Request r) {
        ChecksumType type = null;
        if (r.header("x-amz-checksum-type") != null) {
            type = ChecksumType.forName(r.header("x-amz-checksum-type"))
                    .orElseThrow(() -> new S3Exception(
                            S3ErrorCode.InvalidRequest, "Value for x-amz-checksum-type header is invalid."));
        }
        ChecksumAlgorithm algorithm = null;
        String value = null;
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            String v = r.header(a.headerName());
            if (v == null) {
                continue;
            }
            if (algorithm != null) {
                throw new S3Exception(S3ErrorCode.InvalidRequest, "Expecting a single x-amz-checksum- header.");
            }
            // A composite value may carry its part count ("-N").
            String bare = v.strip().replaceFirst("-[0-9]+$", "");
            if (a.decode(bare).isEmpty()) {
                throw new S3Exception(
                        S3ErrorCode.InvalidRequest, "Value for " + a.headerName() + " header is invalid.");
            }
            algorithm = a;
            value = v.strip();
        }
        return new CompleteChecksum(type, algorithm, value);
    }

    public S3Response abort(S3Request r) {
        store.abortMultipartUpload(r.bucket(), r.key(), r.param("uploadId"));
        return S3Response.noContent();
    }

    public S3Response listParts(S3Request r) {
        int marker = intParam(r, "part-number-marker", 0, 0, Integer.MAX_VALUE);
        int max = intParam(r, "max-parts", 1000, 0, Integer.MAX_VALUE);
        max = Math.min(max, 1000);
        String uploadId = r.param("uploadId");
        MultipartChecksum declared =
                store.multipartUpload(r.bucket(), r.key(), uploadId).checksum();
        List<UploadedPart> parts = store.listParts(r.bucket(), r.key(), uploadId, marker, max + 1);
        boolean truncated = parts.size() > max;
        if (truncated) {
            parts = parts.subList(0, max);
        }
        Owner owner = Owner.of(r.auth().accessKey());
        XmlWriter x = new XmlWriter().startDocument("ListPartsResult");
        x.element("Bucket", r.bucket()).element("Key", r.key()).element("UploadId", uploadId);
        initiatorAndOwner(x, owner);
        x.element("StorageClass", "STANDARD").element("PartNumberMarker", marker);
        if (!parts.isEmpty()) {
            x.element("NextPartNumberMarker", parts.getLast().partNumber());
        }
        x.element("MaxParts", max).element("IsTruncated", truncated);
        for (UploadedPart p : parts) {
            x.start("Part")
                    .element("PartNumber", p.partNumber())
                    .element("LastModified", p.modTime())
                    .element("ETag", Params.quotedEtag(p.etag()))
                    .element("Size", p.size());
            if (p.checksum() != null) {
                x.element(p.checksumAlgorithm().xmlElement(), p.checksum());
            }
            x.end();
        }
        if (declared != null) {
            x.element("ChecksumAlgorithm", declared.algorithm().name())
                    .element("ChecksumType", declared.type().name());
        }
        x.end();
        return S3Response.xml(x.toBytes());
    }

    /**
     * ListMultipartUploads, as S3 pages it: uploads ordered by key (UTF-8 byte order), then by initiation time (then
     * upload id, for uploads initiated in the same millisecond); {@code key-marker} alone resumes after every upload of
     * that key, with {@code upload-id-marker} after that upload within the key (by the same order; an id not found
     * there resumes after the ids that sort lower); {@code upload-id-marker} without {@code key-marker} is ignored.
     * With a delimiter, the keys that hold it past the prefix roll up into one {@code CommonPrefixes} entry each, which
     * counts toward {@code max-uploads} like an upload, and a common prefix at or before {@code key-marker} (the
     * previous page ended in it) is not repeated.
     */
    public S3Response listUploads(S3Request r) {
        String prefix = r.param("prefix") == null ? "" : r.param("prefix");
        String delimiter = Params.emptyToNull(r.param("delimiter"));
        String keyMarker = Params.emptyToNull(r.param("key-marker"));
        String uploadIdMarker = keyMarker == null ? null : Params.emptyToNull(r.param("upload-id-marker"));
        int max = maxUploads(r);
        boolean url = Params.urlEncoding(r);
        List<MultipartUpload> all = store.listMultipartUploads(r.bucket(), prefix);
        int markerPosition = -1;
        if (uploadIdMarker != null) {
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).key().equals(keyMarker) && all.get(i).uploadId().equals(uploadIdMarker)) {
                    markerPosition = i;
                    break;
                }
            }
        }
        List<MultipartUpload> uploads = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastPrefix = null;
        String nextKeyMarker = null;
        String nextUploadIdMarker = null;
        boolean truncated = false;
        int count = 0;
        for (int i = 0; i < all.size(); i++) {
            MultipartUpload u = all.get(i);
            if (keyMarker != null) {
                int c = ObjectKeys.compare(u.key(), keyMarker);
                if (c < 0) {
                    continue;
                }
                if (c == 0) {
                    boolean after = uploadIdMarker != null
                            && (markerPosition >= 0
                                    ? i > markerPosition
                                    : u.uploadId().compareTo(uploadIdMarker) > 0);
                    if (!after) {
                        continue;
                    }
                }
            }
            String common = null;
            if (delimiter != null) {
                int at = u.key().indexOf(delimiter, prefix.length());
                if (at >= 0) {
                    common = u.key().substring(0, at + delimiter.length());
                }
            }
            if (common != null
                    && (common.equals(lastPrefix)
                            || (keyMarker != null && ObjectKeys.compare(common, keyMarker) <= 0))) {
                continue;
            }
            if (count == max) {
                truncated = max > 0;
                break;
            }
            count++;
            if (common != null) {
                prefixes.add(common);
                lastPrefix = common;
                nextKeyMarker = common;
                nextUploadIdMarker = "";
            } else {
                uploads.add(u);
                nextKeyMarker = u.key();
                nextUploadIdMarker = u.uploadId();
            }
        }
        Owner owner = Owner.of(r.auth().accessKey());
        XmlWriter x = new XmlWriter().startDocument("ListMultipartUploadsResult");
        x.element("Bucket", r.bucket())
                .element("KeyMarker", Params.encodeIf(url, keyMarker == null ? "" : keyMarker))
                .element("UploadIdMarker", uploadIdMarker == null ? "" : uploadIdMarker);
        if (truncated) {
            x.element("NextKeyMarker", Params.encodeIf(url, nextKeyMarker))
                    .element("NextUploadIdMarker", nextUploadIdMarker);
        }
        x.element("Prefix", Params.encodeIf(url, prefix));
        if (delimiter != null) {
            x.element("Delimiter", Params.encodeIf(url, delimiter));
        }
        if (url) {
            x.element("EncodingType", "url");
        }
        x.element("MaxUploads", max).element("IsTruncated", truncated);
        for (MultipartUpload u : uploads) {
            x.start("Upload").element("Key", Params.encodeIf(url, u.key())).element("UploadId", u.uploadId());
            initiatorAndOwner(x, owner);
            x.element("StorageClass", "STANDARD").element("Initiated", u.initiated());
            if (u.checksum() != null) {
                x.element("ChecksumAlgorithm", u.checksum().algorithm().name())
                        .element("ChecksumType", u.checksum().type().name());
            }
            x.end();
        }
        for (String p : prefixes) {
            x.start("CommonPrefixes").element("Prefix", Params.encodeIf(url, p)).end();
        }
        x.end();
        return S3Response.xml(x.toBytes());
    }

    /** {@code max-uploads}: default 1000, larger values clamped to 1000, negative or not a number refused. */
    private static int maxUploads(S3Request r) {
        String v = r.param("max-uploads");
        if (v == null || v.isEmpty()) {
            return 1000;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) {
                return Math.min(n, 1000);
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new S3Exception(
                S3ErrorCode.InvalidArgument,
                "Provided max-uploads not an integer or within integer range: " + v + " (expected 0..2147483647)");
    }

    private static int intParam(S3Request r, String name, int dflt, int min, int max) {
        String v = r.param(name);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid value for " + name + ": " + v);
    }

    /** The root user both initiated and owns every upload. */
    private static void initiatorAndOwner(XmlWriter x, Owner owner) {
        x.start("Initiator")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
        x.start("Owner")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
    }
}
