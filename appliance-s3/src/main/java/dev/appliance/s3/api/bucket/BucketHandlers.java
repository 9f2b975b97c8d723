package dev.appliance.s3.api.bucket;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.VersioningState;
import dev.appliance.s3.api.Owner;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;

/** Bucket operations: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation, bucket versioning. */
public final class BucketHandlers {
    private final ObjectStore store;
    private final String region;

    public BucketHandlers(ObjectStore store, String region) {
        this.store = store;
        this.region = region;
    }

    public S3Response listBuckets(S3Request r) {
        Owner owner = Owner.of(r.auth().accessKey());
        XmlWriter x = new XmlWriter().startDocument("ListAllMyBucketsResult");
        x.start("Owner")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
        x.start("Buckets");
        for (BucketInfo b : store.listBuckets()) {
            x.start("Bucket")
                    .element("Name", b.name())
                    .element("CreationDate", b.created())
                    .end();
        }
        x.end();
        return S3Response.xml(x.toBytes());
    }

    public S3Response createBucket(S3Request r) throws IOException {
        dev.appliance.core.naming.BucketNames.validate(r.bucket());
        if ("true".equalsIgnoreCase(r.header("x-amz-bucket-object-lock-enabled"))) {
            throw new S3Exception(S3ErrorCode.NotImplemented, "Object lock is not supported yet.");
        }
        byte[] body = Params.readSmallBody(r, XmlReader.MAX_BODY);
        if (body.length > 0) {
            XmlElement config = XmlReader.parse(body);
            if (!config.name().equals("CreateBucketConfiguration")) {
                throw new S3Exception(S3ErrorCode.MalformedXML);
            }
            String location = config.childText("LocationConstraint").orElse("");
            if (!location.isEmpty() && !location.equals(region)) {
                throw new S3Exception(
                        S3ErrorCode.IllegalLocationConstraintException,
                        "The " + location + " location constraint is incompatible for the region specific endpoint"
                                + " this request was sent to.");
            }
        }
        store.makeBucket(r.bucket());
        return S3Response.ok().header("Location", "/" + r.bucket());
    }

    public S3Response headBucket(S3Request r) {
        store.bucketInfo(r.bucket());
        return S3Response.ok().header("x-amz-bucket-region", region);
    }

    public S3Response deleteBucket(S3Request r) {
        store.deleteBucket(r.bucket());
        return S3Response.noContent();
    }

    public S3Response location(S3Request r) {
        store.bucketInfo(r.bucket());
        // S3 answers an empty constraint for us-east-1
        String value = region.equals("us-east-1") ? "" : region;
        return S3Response.xml(locationDocument(value));
    }

    private static byte[] locationDocument(String value) {
        String doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint xmlns=\"" + XmlWriter.S3_NS
                + "\">" + XmlWriter.escape(value) + "</LocationConstraint>";
        return doc.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    public S3Response getVersioning(S3Request r) {
        VersioningState state = store.versioning(r.bucket());
        XmlWriter x = new XmlWriter().startDocument("VersioningConfiguration");
        switch (state) {
            case ENABLED -> x.element("Status", "Enabled");
            case SUSPENDED -> x.element("Status", "Suspended");
            case UNVERSIONED -> {
                // never enabled: an empty configuration
            }
        }
        return S3Response.xml(x.toBytes());
    }

    public S3Response putVersioning(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, XmlReader.MAX_BODY);
        if (body.length == 0) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        XmlElement config = XmlReader.parse(body);
        if (!config.name().equals("VersioningConfiguration")) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        if (config.childText("MfaDelete").filter("Enabled"::equals).isPresent()) {
            throw new S3Exception(S3ErrorCode.NotImplemented, "MFA delete is not supported.");
        }
        VersioningState state =
                switch (config.childText("Status").orElse("")) {
                    case "Enabled" -> VersioningState.ENABLED;
                    case "Suspended" -> VersioningState.SUSPENDED;
                    default -> throw new S3Exception(S3ErrorCode.MalformedXML);
                };
        store.setVersioning(r.bucket(), state);
        return S3Response.ok();
    }
}
