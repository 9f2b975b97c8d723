package dev.appliance.s3.api.bucket;

import dev.appliance.core.ListObjectsResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.s3.api.Owner;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * ListObjects (V1), ListObjectsV2 and ListObjectVersions. Paging comes from the engine; the V2 continuation token is
 * the engine's next marker, base64url-encoded (opaque to clients).
 */
public final class ListingHandlers {
    private static final String STORAGE_CLASS = "STANDARD";

    private final ObjectStore store;

    public ListingHandlers(ObjectStore store) {
        this.store = store;
    }

    public S3Response listObjectsV2(S3Request r) {
        String prefix = Params.emptyToNull(r.param("prefix"));
        String delimiter = Params.emptyToNull(r.param("delimiter"));
        int maxKeys = Params.maxKeys(r);
        boolean url = Params.urlEncoding(r);
        boolean fetchOwner = "true".equalsIgnoreCase(r.param("fetch-owner"));
        String startAfter = Params.emptyToNull(r.param("start-after"));
        String token = r.param("continuation-token");
        String from = startAfter;
        if (token != null) {
            from = decodeToken(token);
        }
        ListObjectsResult page = list(r.bucket(), prefix, delimiter, from, maxKeys);

        XmlWriter x = new XmlWriter().startDocument("ListBucketResult");
        x.element("Name", r.bucket())
                .element("Prefix", Params.encodeIf(url, prefix == null ? "" : prefix))
                .element("Delimiter", Params.encodeIf(url, delimiter))
                .element("MaxKeys", maxKeys)
                .element("EncodingType", url ? "url" : null)
                .element(
                        "KeyCount",
                        page.objects().size() + page.commonPrefixes().size())
                .element("IsTruncated", page.truncated())
                .element("ContinuationToken", token)
                .element("NextContinuationToken", page.truncated() ? encodeToken(page.nextMarker()) : null)
                .element("StartAfter", Params.encodeIf(url, startAfter));
        Owner owner = fetchOwner ? Owner.of(r.auth().accessKey()) : null;
        writeContents(x, page.objects(), url, owner);
        writePrefixes(x, page.commonPrefixes(), url);
        return S3Response.xml(x.toBytes());
    }

    public S3Response listObjectsV1(S3Request r) {
        String prefix = Params.emptyToNull(r.param("prefix"));
        String delimiter = Params.emptyToNull(r.param("delimiter"));
        int maxKeys = Params.maxKeys(r);
        boolean url = Params.urlEncoding(r);
        String marker = Params.emptyToNull(r.param("marker"));
        ListObjectsResult page = list(r.bucket(), prefix, delimiter, marker, maxKeys);

        XmlWriter x = new XmlWriter().startDocument("ListBucketResult");
        // V1 echoes Prefix as given even with encoding-type=url (unlike V2 and ListObjectVersions); SDKs decode
        // only Delimiter, Marker, NextMarker, Key and CommonPrefixes here.
        x.element("Name", r.bucket())
                .element("Prefix", prefix == null ? "" : prefix)
                .element("Marker", Params.encodeIf(url, marker == null ? "" : marker))
                .element("MaxKeys", maxKeys)
                .element("Delimiter", Params.encodeIf(url, delimiter))
                .element("EncodingType", url ? "url" : null)
                .element("IsTruncated", page.truncated());
        if (page.truncated() && delimiter != null) {
            // as S3: NextMarker only with a delimiter; otherwise clients continue from the last key
            x.element("NextMarker", Params.encodeIf(url, page.nextMarker()));
        }
        writeContents(x, page.objects(), url, Owner.of(r.auth().accessKey()));
        writePrefixes(x, page.commonPrefixes(), url);
        return S3Response.xml(x.toBytes());
    }

    public S3Response listVersions(S3Request r) {
        String prefix = Params.emptyToNull(r.param("prefix"));
        String delimiter = Params.emptyToNull(r.param("delimiter"));
        int maxKeys = Params.maxKeys(r);
        boolean url = Params.urlEncoding(r);
        String keyMarker = Params.emptyToNull(r.param("key-marker"));
        String versionIdMarker = Params.emptyToNull(r.param("version-id-marker"));
        if (versionIdMarker != null && keyMarker == null) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument, "A version-id marker cannot be specified without a key marker.");
        }
        ListVersionsResult page;
        if (maxKeys == 0) {
            store.bucketInfo(r.bucket());
            page = new ListVersionsResult(List.of(), List.of(), false, null, null);
        } else {
            page = store.listObjectVersions(r.bucket(), prefix, delimiter, keyMarker, versionIdMarker, maxKeys);
        }
        Owner owner = Owner.of(r.auth().accessKey());
        XmlWriter x = new XmlWriter().startDocument("ListVersionsResult");
        x.element("Name", r.bucket())
                .element("Prefix", Params.encodeIf(url, prefix == null ? "" : prefix))
                .element("KeyMarker", Params.encodeIf(url, keyMarker == null ? "" : keyMarker))
                .element("VersionIdMarker", versionIdMarker == null ? "" : versionIdMarker)
                .element("MaxKeys", maxKeys)
                .element("Delimiter", Params.encodeIf(url, delimiter))
                .element("EncodingType", url ? "url" : null)
                .element("IsTruncated", page.truncated());
        if (page.truncated()) {
            x.element("NextKeyMarker", Params.encodeIf(url, page.nextKeyMarker()))
                    .element("NextVersionIdMarker", page.nextVersionIdMarker());
        }
        for (ObjectInfo v : page.versions()) {
            x.start(v.deleteMarker() ? "DeleteMarker" : "Version")
                    .element("Key", Params.encodeIf(url, v.key()))
                    .element("VersionId", v.versionId())
                    .element("IsLatest", v.latest())
                    .element("LastModified", v.modTime());
            if (!v.deleteMarker()) {
                x.element("ETag", Params.quotedEtag(v.etag()))
                        .element("Size", v.size())
                        .element("StorageClass", STORAGE_CLASS);
            }
            writeOwner(x, owner);
            x.end();
        }
        writePrefixes(x, page.commonPrefixes(), url);
        return S3Response.xml(x.toBytes());
    }

    private ListObjectsResult list(String bucket, String prefix, String delimiter, String from, int maxKeys) {
        if (maxKeys == 0) {
            store.bucketInfo(bucket);
            return new ListObjectsResult(List.of(), List.of(), false, null);
        }
        return store.listObjects(bucket, prefix, delimiter, from, maxKeys);
    }

    private static void writeContents(XmlWriter x, List<ObjectInfo> objects, boolean url, Owner owner) {
        for (ObjectInfo o : objects) {
            x.start("Contents")
                    .element("Key", Params.encodeIf(url, o.key()))
                    .element("LastModified", o.modTime())
                    .element("ETag", Params.quotedEtag(o.etag()))
                    .element("Size", o.size());
            if (owner != null) {
                writeOwner(x, owner);
            }
            x.element("StorageClass", STORAGE_CLASS).end();
        }
    }

    private static void writeOwner(XmlWriter x, Owner owner) {
        x.start("Owner")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
    }

    private static void writePrefixes(XmlWriter x, List<String> prefixes, boolean url) {
        for (String p : prefixes) {
            x.start("CommonPrefixes").element("Prefix", Params.encodeIf(url, p)).end();
        }
    }

    static String encodeToken(String marker) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(marker.getBytes(StandardCharsets.UTF_8));
    }

    static String decodeToken(String token) {
        try {
            return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "The continuation token provided is incorrect");
        }
    }
}
