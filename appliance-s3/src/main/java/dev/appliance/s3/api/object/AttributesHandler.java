package dev.appliance.s3.api.object;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** GetObjectAttributes: {@code GET /bucket/key?attributes} with {@code x-amz-object-attributes}. */
public final class AttributesHandler {
    private static final Set<String> KNOWN = Set.of("ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize");
    private final ObjectStore store;

    public AttributesHandler(ObjectStore store) {
        this.store = store;
    }

    public S3Response get(S3Request r) {
        String header = r.headerList("x-amz-object-attributes");
        if (header == null || header.isBlank()) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument,
                    "The x-amz-object-attributes header specifying the attributes to be"
                            + " retrieved is either missing or empty");
        }
        Set<String> wanted = new LinkedHashSet<>();
        for (String a : header.split(",")) {
            String name = a.trim();
            if (!KNOWN.contains(name)) {
                throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid attribute name specified: " + name);
            }
            wanted.add(name);
        }
        ObjectInfo info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        XmlWriter x = new XmlWriter().startDocument("GetObjectAttributesResponse");
        if (wanted.contains("ETag")) {
            x.element("ETag", info.etag());
        }
        var checksum = ObjectHandlers.storedChecksum(info);
        if (wanted.contains("Checksum") && checksum.isPresent()) {
            x.start("Checksum")
                    .element(
                            checksum.get().algorithm().xmlElement(),
                            checksum.get().value())
                    .element("ChecksumType", checksum.get().type().name())
                    .end();
        }
        if (wanted.contains("ObjectParts") && info.etag() != null && info.etag().contains("-")) {
            List<Long> parts = info.partSizes();
            int maxParts = partsParam(r, "x-amz-max-parts", 1000);
            int marker = partsParam(r, "x-amz-part-number-marker", 0);
            int last = (int) Math.min(parts.size(), (long) marker + Math.min(maxParts, 1000));
            // the wire name is PartsCount (the API model calls it TotalPartsCount)
            x.start("ObjectParts").element("PartsCount", parts.size());
            x.element("PartNumberMarker", marker)
                    .element("NextPartNumberMarker", Math.max(last, marker))
                    .element("MaxParts", maxParts)
                    .element("IsTruncated", last < parts.size());
            for (int i = marker; i < last; i++) {
                x.start("Part").element("PartNumber", i + 1).element("Size", parts.get(i));
                String partChecksum =
                        i < info.partChecksums().size() ? info.partChecksums().get(i) : null;
                if (checksum.isPresent() && partChecksum != null) {
                    x.element(checksum.get().algorithm().xmlElement(), partChecksum);
                }
                x.end();
            }
            x.end();
        }
        if (wanted.contains("StorageClass")) {
            x.element("StorageClass", "STANDARD");
        }
        if (wanted.contains("ObjectSize")) {
            x.element("ObjectSize", info.size());
        }
        x.end();
        S3Response resp = S3Response.xml(x.toBytes()).header("Last-Modified", Params.httpDate(info.modTime()));
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        return resp;
    }

    private static int partsParam(S3Request r, String header, int absent) {
        String v = r.header(header);
        if (v == null || v.isBlank()) {
            return absent;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid value for " + header + ": " + v);
    }
}
