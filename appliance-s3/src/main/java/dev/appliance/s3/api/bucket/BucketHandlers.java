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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/** Bucket operations: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation, bucket versioning. */
public final class BucketHandlers {
    /** The largest ListBuckets page (and the default when {@code max-buckets} is absent). */
    static final int MAX_BUCKETS_PAGE = 10_000;

    private final ObjectStore store;
    private final String region;

    public BucketHandlers(ObjectStore store, String region) {
        this.store = store;
        this.region = region;
    }

    /** ListBuckets: all buckets, or a page with {@code max-buckets} (1..10000), {@code continuation-token}, {@code prefix}. */
    public S3Response listBuckets(S3Request r) {
        Owner owner = Owner.of(r.auth().accessKey());
        String prefix = r.param("prefix");
        String maxParam = r.param("max-buckets");
        int max = MAX_BUCKETS_PAGE;
        if (maxParam != null) {
            try {
                max = Integer.parseInt(maxParam);
            } catch (NumberFormatException e) {
                max = -1;
            }
            if (max < 1 || max > MAX_BUCKETS_PAGE) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument, "max-buckets must be between 1 and " + MAX_BUCKETS_PAGE + ".");
            }
        }
        String after = null;
        String token = r.param("continuation-token");
        if (token != null) {
            try {
                after = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new S3Exception(S3ErrorCode.InvalidArgument, "The continuation token provided is incorrect.");
            }
        }
        List<BucketInfo> all = new ArrayList<>(store.listBuckets());
        all.sort(Comparator.comparing(BucketInfo::name));
        List<BucketInfo> page = new ArrayList<>();
        boolean truncated = false;
        for (BucketInfo b : all) {
            if ((prefix != null && !b.name().startsWith(prefix))
                    || (after != null && b.name().compareTo(after) <= 0)) {
                continue;
            }
            if (page.size() == max) {
                truncated = true;
                break;
            }
            page.add(b);
        }
        XmlWriter x = new XmlWriter().startDocument("ListAllMyBucketsResult");
        x.start("Owner")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
        x.start("Buckets");
        for (BucketInfo b : page) {
            x.start("Bucket")
                    .element("Name", b.name())
                    .element("CreationDate", b.created())
                    .element("BucketRegion", region)
                    .end();
        }
        x.end();
        if (truncated) {
            String next = page.getLast().name();
            x.element(
                    "ContinuationToken",
                    Base64.getUrlEncoder().withoutPadding().encodeToString(next.getBytes(StandardCharsets.UTF_8)));
        }
        if (prefix != null) {
            x.element("Prefix", prefix);
        }
        return S3Response.xml(x.toBytes());
    }

    public S3Response createBucket(S3Request r) throws IOException {
        dev.appliance.core.naming.BucketNames.validate(r.bucket());
        // With the lock header the bucket gets Object Lock (no default retention) and versioning, for good.
        boolean objectLock = "true".equalsIgnoreCase(r.header("x-amz-bucket-object-lock-enabled"));
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
        store.makeBucket(r.bucket(), objectLock);
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
