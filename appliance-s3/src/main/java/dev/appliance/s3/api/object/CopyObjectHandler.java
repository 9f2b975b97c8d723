package dev.appliance.s3.api.object;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** CopyObject: {@code PUT /bucket/key} with {@code x-amz-copy-source}. */
public final class CopyObjectHandler {
    /** S3's limit for a single copy; larger objects are copied with UploadPartCopy. */
    static final long MAX_COPY_SIZE = 5L << 30;

    private final ObjectStore store;
    private final dev.appliance.s3.auth.Authorizer authorizer;

    public CopyObjectHandler(ObjectStore store, dev.appliance.s3.auth.Authorizer authorizer) {
        this.store = store;
        this.authorizer = authorizer;
    }

    public S3Response copy(S3Request r) throws IOException {
        CopySource src = CopySource.parse(r);
        src.authorize(r, authorizer);
        String directive = r.header("x-amz-metadata-directive");
        boolean replace = "REPLACE".equalsIgnoreCase(directive);
        if (directive != null && !replace && !"COPY".equalsIgnoreCase(directive)) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Unknown metadata directive: " + directive);
        }
        String taggingDirective = r.header("x-amz-tagging-directive");
        boolean replaceTags = "REPLACE".equalsIgnoreCase(taggingDirective);
        if (taggingDirective != null && !replaceTags && !"COPY".equalsIgnoreCase(taggingDirective)) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Unknown tagging directive: " + taggingDirective);
        }
        ObjectInfo source = store.headObject(src.bucket(), src.key(), src.versionId());
        CopySource.checkConditions(r, source);
        if (source.size() > MAX_COPY_SIZE) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest,
                    "The specified copy source is larger than the maximum allowable size for a copy source: 5368709120");
        }
        boolean toItself = src.bucket().equals(r.bucket()) && src.key().equals(r.key()) && src.versionId() == null;
        if (toItself && !replace) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest,
                    "This copy request is illegal because it is trying to copy an object to itself without changing the"
                            + " object's metadata, storage class, website redirect location or encryption attributes.");
        }
        PutRequest request = null;
        if (replace || replaceTags) {
            // The two directives are independent (as S3): metadata from one side, tags from the other.
            Map<String, String> metadata =
                    replace ? ObjectHandlers.userMetadata(r) : new LinkedHashMap<>(source.userMetadata());
            String tags = replaceTags
                    ? ObjectHandlers.userMetadata(r).get(Tags.STORED_KEY)
                    : source.userMetadata().get(Tags.STORED_KEY);
            metadata.remove(Tags.STORED_KEY);
            if (tags != null) {
                metadata.put(Tags.STORED_KEY, tags);
            }
            request = new PutRequest(-1, replace ? r.header("content-type") : source.contentType(), metadata, null);
        }
        if (request != null && (r.header("if-match") != null || r.header("if-none-match") != null)) {
            request = request.withConditions(r.header("if-match"), "*".equals(r.header("if-none-match")));
        }
        // Pin the version whose conditions were checked.
        Map<String, String> lock = LockHeaders.entries(r);
        LockHeaders.authorizeWrite(lock, r.access("s3:PutObject"), authorizer);
        ObjectInfo copied =
                store.copyObject(src.bucket(), src.key(), source.versionId(), r.bucket(), r.key(), request, lock);
        XmlWriter x = new XmlWriter().startDocument("CopyObjectResult");
        x.element("LastModified", copied.modTime())
                .element("ETag", Params.quotedEtag(copied.etag()))
                .end();
        S3Response resp = S3Response.xml(x.toBytes());
        if (!"null".equals(copied.versionId())) {
            resp.header("x-amz-version-id", copied.versionId());
        }
        if (!"null".equals(source.versionId())) {
            resp.header("x-amz-copy-source-version-id", source.versionId());
        }
        return resp;
    }
}
