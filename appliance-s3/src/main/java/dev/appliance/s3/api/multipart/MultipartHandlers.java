package dev.appliance.s3.api.multipart;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartUpload;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.s3.api.Owner;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.object.CopySource;
import dev.appliance.s3.api.object.ObjectHandlers;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
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
        String uploadId = store.createMultipartUpload(
                r.bucket(),
                r.key(),
                new PutRequest(-1, r.header("content-type"), ObjectHandlers.userMetadata(r), null));
        XmlWriter x = new XmlWriter().startDocument("InitiateMultipartUploadResult");
        x.element("Bucket", r.bucket())
                .element("Key", r.key())
                .element("UploadId", uploadId)
                .end();
        return S3Response.xml(x.toBytes());
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
        UploadedPart stored = store.uploadPart(
                r.bucket(),
                r.key(),
                uploadId,
                part,
                new PutRequest(size, null, null, ObjectHandlers.contentMd5(r.header("content-md5"))),
                r.body());
        return S3Response.ok().header("ETag", Params.quotedEtag(stored.etag()));
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
            stored = store.uploadPart(r.bucket(), r.key(), uploadId, part, PutRequest.of(length), in);
        }
        XmlWriter x = new XmlWriter().startDocument("CopyPartResult");
        x.element("LastModified", stored.modTime())
                .element("ETag", Params.quotedEtag(stored.etag()))
                .end();
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
            try {
                parts.add(new CompletedPart(Integer.parseInt(number.trim()), etag.trim()));
            } catch (NumberFormatException e) {
                throw new S3Exception(S3ErrorCode.MalformedXML);
            }
        }
        if (parts.isEmpty()) {
            throw new S3Exception(S3ErrorCode.MalformedXML, "The XML you provided named no parts.");
        }
        ObjectInfo done = store.completeMultipartUpload(r.bucket(), r.key(), r.param("uploadId"), parts);
        XmlWriter x = new XmlWriter().startDocument("CompleteMultipartUploadResult");
        x.element("Location", "/" + r.bucket() + "/" + r.key())
                .element("Bucket", r.bucket())
                .element("Key", r.key())
                .element("ETag", Params.quotedEtag(done.etag()))
                .end();
        S3Response resp = S3Response.xml(x.toBytes());
        if (!"null".equals(done.versionId())) {
            resp.header("x-amz-version-id", done.versionId());
        }
        return resp;
    }

    public S3Response abort(S3Request r) {
        store.abortMultipartUpload(r.bucket(), r.key(), r.param("uploadId"));
        return S3Response.noContent();
    }

    public S3Response listParts(S3Request r) {
        int marker = intParam(r, "part-number-marker", 0, 0, 10_000);
        int max = intParam(r, "max-parts", 1000, 0, Integer.MAX_VALUE);
        max = Math.min(max, 1000);
        String uploadId = r.param("uploadId");
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
                    .element("Size", p.size())
                    .end();
        }
        x.end();
        return S3Response.xml(x.toBytes());
    }

    public S3Response listUploads(S3Request r) {
        String prefix = r.param("prefix") == null ? "" : r.param("prefix");
        String keyMarker = Params.emptyToNull(r.param("key-marker"));
        String uploadIdMarker = Params.emptyToNull(r.param("upload-id-marker"));
        int max = Math.min(intParam(r, "max-uploads", 1000, 0, Integer.MAX_VALUE), 1000);
        boolean url = Params.urlEncoding(r);
        List<MultipartUpload> page = new ArrayList<>();
        boolean truncated = false;
        for (MultipartUpload u : store.listMultipartUploads(r.bucket(), prefix)) {
            if (keyMarker != null) {
                int c = u.key().compareTo(keyMarker);
                if (c < 0 || (c == 0 && (uploadIdMarker == null || u.uploadId().compareTo(uploadIdMarker) <= 0))) {
                    continue;
                }
            }
            if (page.size() == max) {
                truncated = true;
                break;
            }
            page.add(u);
        }
        Owner owner = Owner.of(r.auth().accessKey());
        XmlWriter x = new XmlWriter().startDocument("ListMultipartUploadsResult");
        x.element("Bucket", r.bucket())
                .element("KeyMarker", Params.encodeIf(url, keyMarker == null ? "" : keyMarker))
                .element("UploadIdMarker", uploadIdMarker == null ? "" : uploadIdMarker);
        if (truncated && !page.isEmpty()) {
            x.element("NextKeyMarker", Params.encodeIf(url, page.getLast().key()))
                    .element("NextUploadIdMarker", page.getLast().uploadId());
        }
        x.element("Prefix", Params.encodeIf(url, prefix));
        if (url) {
            x.element("EncodingType", "url");
        }
        x.element("MaxUploads", max).element("IsTruncated", truncated);
        for (MultipartUpload u : page) {
            x.start("Upload").element("Key", Params.encodeIf(url, u.key())).element("UploadId", u.uploadId());
            initiatorAndOwner(x, owner);
            x.element("StorageClass", "STANDARD")
                    .element("Initiated", u.initiated())
                    .end();
        }
        x.end();
        return S3Response.xml(x.toBytes());
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
