package dev.appliance.s3.api.policy;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.PublicAccessBlock;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.policy.PolicyDocument;
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
import java.util.Set;

/**
 * Bucket policy ({@code ?policy}, {@code ?policyStatus}), public access block ({@code ?publicAccessBlock}) and object
 * ownership ({@code ?ownershipControls}) of a bucket.
 *
 * <p>A policy is parsed by the policy engine before it is stored ({@code MalformedPolicy} naming the element at
 * fault), kept as the client gave it and answered as given. A public policy is refused ({@code AccessDenied}) while the
 * bucket's public access block has BlockPublicPolicy. Public access is blocked by default: a bucket that never had a
 * public access block set answers all four flags true, and deleting it returns it to that default.
 *
 * <p>ACLs are disabled: the only object ownership is {@code BucketOwnerEnforced}, answered by GET and the only value
 * PUT accepts. DELETE is accepted (204) and changes nothing: on AWS it returns a bucket to the ownership it had
 * without controls, and here that is {@code BucketOwnerEnforced} too, so GET answers it afterwards as before.
 */
public final class BucketPolicyHandlers {
    /** S3's limit is 20 KiB of characters; as UTF-8 that is at most four times the bytes. */
    private static final int MAX_POLICY_BODY = 4 * 20 * 1024;

    private static final String BLOCK_PUBLIC_ACLS = "BlockPublicAcls";
    private static final String IGNORE_PUBLIC_ACLS = "IgnorePublicAcls";
    private static final String BLOCK_PUBLIC_POLICY = "BlockPublicPolicy";
    private static final String RESTRICT_PUBLIC_BUCKETS = "RestrictPublicBuckets";
    private static final Set<String> BLOCK_FLAGS =
            Set.of(BLOCK_PUBLIC_ACLS, IGNORE_PUBLIC_ACLS, BLOCK_PUBLIC_POLICY, RESTRICT_PUBLIC_BUCKETS);
    private static final String BUCKET_OWNER_ENFORCED = "BucketOwnerEnforced";

    private final ObjectStore store;

    public BucketPolicyHandlers(ObjectStore store) {
        this.store = requireNonNull(store, "store");
    }

    public S3Response putPolicy(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, MAX_POLICY_BODY);
        String json = new String(body, StandardCharsets.UTF_8);
        try {
            // parsed here for the error; the store parses again under the bucket's lock to check BlockPublicPolicy
            PolicyDocument.parseBucketPolicy(json, r.bucket());
            store.setBucketPolicy(r.bucket(), json);
        } catch (MalformedPolicyException e) {
            throw new S3Exception(S3ErrorCode.MalformedPolicy, e.getMessage());
        }
        return S3Response.noContent();
    }

    public S3Response getPolicy(S3Request r) {
        String json = store.bucketPolicy(r.bucket());
        if (json == null) {
            throw new S3Exception(S3ErrorCode.NoSuchBucketPolicy);
        }
        return S3Response.ok().header("Content-Type", "application/json").body(json.getBytes(StandardCharsets.UTF_8));
    }

    public S3Response deletePolicy(S3Request r) {
        store.bucketPolicy(r.bucket()); // NoSuchBucket first
        store.setBucketPolicy(r.bucket(), null);
        return S3Response.noContent();
    }

    public S3Response getPolicyStatus(S3Request r) {
        String json = store.bucketPolicy(r.bucket());
        if (json == null) {
            throw new S3Exception(S3ErrorCode.NoSuchBucketPolicy);
        }
        boolean isPublic = PolicyDocument.parseBucketPolicy(json, r.bucket()).isPublic();
        return S3Response.xml(new XmlWriter()
                .startDocument("PolicyStatus")
                .element("IsPublic", isPublic)
                .end()
                .toBytes());
    }

    public S3Response getPublicAccessBlock(S3Request r) {
        PublicAccessBlock b = store.publicAccessBlock(r.bucket());
        return S3Response.xml(new XmlWriter()
                .startDocument("PublicAccessBlockConfiguration")
                .element(BLOCK_PUBLIC_ACLS, b.blockPublicAcls())
                .element(IGNORE_PUBLIC_ACLS, b.ignorePublicAcls())
                .element(BLOCK_PUBLIC_POLICY, b.blockPublicPolicy())
                .element(RESTRICT_PUBLIC_BUCKETS, b.restrictPublicBuckets())
                .end()
                .toBytes());
    }

    /** As S3: a flag left out is false. */
    public S3Response putPublicAccessBlock(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, XmlReader.MAX_BODY);
        if (body.length == 0) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        XmlElement config = XmlReader.parse(body);
        if (!config.name().equals("PublicAccessBlockConfiguration")) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        config.requireOnly(BLOCK_FLAGS, BLOCK_FLAGS);
        store.setPublicAccessBlock(
                r.bucket(),
                new PublicAccessBlock(
                        flag(config, BLOCK_PUBLIC_ACLS),
                        flag(config, IGNORE_PUBLIC_ACLS),
                        flag(config, BLOCK_PUBLIC_POLICY),
                        flag(config, RESTRICT_PUBLIC_BUCKETS)));
        return S3Response.ok();
    }

    public S3Response deletePublicAccessBlock(S3Request r) {
        store.publicAccessBlock(r.bucket()); // NoSuchBucket first
        store.setPublicAccessBlock(r.bucket(), null);
        return S3Response.noContent();
    }

    public S3Response getOwnershipControls(S3Request r) {
        store.bucketInfo(r.bucket()); // NoSuchBucket
        return S3Response.xml(new XmlWriter()
                .startDocument("OwnershipControls")
                .start("Rule")
                .element("ObjectOwnership", BUCKET_OWNER_ENFORCED)
                .end()
                .end()
                .toBytes());
    }

    /** Accepts {@code BucketOwnerEnforced}, the only ownership there is (ACLs are disabled); refuses the others. */
    public S3Response putOwnershipControls(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, XmlReader.MAX_BODY);
        if (body.length == 0) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        XmlElement config = XmlReader.parse(body);
        if (!config.name().equals("OwnershipControls")) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        config.requireOnly(Set.of("Rule"), Set.of());
        XmlElement rule = config.child("Rule").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedXML));
        rule.requireOnly(Set.of("ObjectOwnership"), Set.of("ObjectOwnership"));
        String ownership = rule.childText("ObjectOwnership").orElse("");
        store.bucketInfo(r.bucket()); // NoSuchBucket
        switch (ownership) {
            case BUCKET_OWNER_ENFORCED -> {}
            case "BucketOwnerPreferred", "ObjectWriter" ->
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument,
                        "ObjectOwnership " + ownership + " needs ACLs, which are disabled on this appliance: only "
                                + BUCKET_OWNER_ENFORCED + " is supported.");
            default -> throw new S3Exception(S3ErrorCode.MalformedXML, "Unknown ObjectOwnership: " + ownership);
        }
        return S3Response.ok();
    }

    /** Nothing to remove: without controls a bucket is still {@code BucketOwnerEnforced} (ACLs are disabled). */
    public S3Response deleteOwnershipControls(S3Request r) {
        store.bucketInfo(r.bucket()); // NoSuchBucket
        return S3Response.noContent();
    }

    private static boolean flag(XmlElement config, String name) {
        String text = config.childText(name).orElse("false");
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new S3Exception(S3ErrorCode.MalformedXML, name + ": " + text + " (expected true or false)");
        };
    }
}
