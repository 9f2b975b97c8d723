package dev.appliance.s3.api.object;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlReader;
import java.io.IOException;
import java.util.Map;

/** Put/Get/DeleteObjectTagging ({@code ?tagging} on a key) and Put/Get/DeleteBucketTagging ({@code ?tagging} on a bucket). */
public final class TaggingHandlers {
    private final ObjectStore store;

    public TaggingHandlers(ObjectStore store) {
        this.store = store;
    }

    public S3Response putObjectTags(S3Request r) throws IOException {
        Map<String, String> tags =
                Tags.fromXml(XmlReader.parse(Params.readSmallBody(r, XmlReader.MAX_BODY)), Tags.MAX_OBJECT_TAGS);
        ObjectInfo info = store.updateMetadata(
                r.bucket(),
                r.key(),
                r.param("versionId"),
                name -> !name.equals(Tags.STORED_KEY),
                tags.isEmpty() ? Map.of() : Map.of(Tags.STORED_KEY, Tags.toHeader(tags)));
        return withVersion(S3Response.ok(), info);
    }

    public S3Response getObjectTags(S3Request r) {
        ObjectInfo info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        Map<String, String> tags = Tags.fromHeader(info.userMetadata().get(Tags.STORED_KEY), Integer.MAX_VALUE);
        return withVersion(S3Response.xml(Tags.toXml(tags)), info);
    }

    public S3Response deleteObjectTags(S3Request r) {
        ObjectInfo info = store.updateMetadata(
                r.bucket(), r.key(), r.param("versionId"), name -> !name.equals(Tags.STORED_KEY), Map.of());
        return withVersion(S3Response.noContent(), info);
    }

    public S3Response putBucketTags(S3Request r) throws IOException {
        Map<String, String> tags =
                Tags.fromXml(XmlReader.parse(Params.readSmallBody(r, XmlReader.MAX_BODY)), Tags.MAX_BUCKET_TAGS);
        store.setBucketTags(r.bucket(), tags);
        return S3Response.noContent();
    }

    public S3Response getBucketTags(S3Request r) {
        Map<String, String> tags = store.bucketTags(r.bucket());
        if (tags.isEmpty()) {
            throw new S3Exception(S3ErrorCode.NoSuchTagSet);
        }
        return S3Response.xml(Tags.toXml(new java.util.TreeMap<>(tags)));
    }

    public S3Response deleteBucketTags(S3Request r) {
        store.setBucketTags(r.bucket(), Map.of());
        return S3Response.noContent();
    }

    private static S3Response withVersion(S3Response resp, ObjectInfo info) {
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        return resp;
    }
}
