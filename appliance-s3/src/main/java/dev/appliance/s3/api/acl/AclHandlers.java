package dev.appliance.s3.api.acl;

import dev.appliance.core.ObjectStore;
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
import java.util.Locale;
import java.util.Set;

/**
 * Access control lists, as on an AWS bucket whose Object Ownership is "bucket owner enforced" (the AWS default since
 * 2023): ACLs are disabled, permissions come from the authorization seam only. Reading an ACL answers the owner's
 * FULL_CONTROL; setting one is accepted only when it grants exactly that (the {@code private} and
 * {@code bucket-owner-full-control} canned ACLs, or the equivalent XML), and refused with
 * {@code AccessControlListNotSupported} otherwise, so a request for public access never silently succeeds.
 */
public final class AclHandlers {
    private static final Set<String> CANNED = Set.of(
            "private",
            "public-read",
            "public-read-write",
            "authenticated-read",
            "aws-exec-read",
            "bucket-owner-read",
            "bucket-owner-full-control",
            "log-delivery-write");
    private static final Set<String> OWNER_ONLY = Set.of("private", "bucket-owner-full-control");
    private static final Set<String> GRANT_HEADERS = Set.of(
            "x-amz-grant-read",
            "x-amz-grant-write",
            "x-amz-grant-read-acp",
            "x-amz-grant-write-acp",
            "x-amz-grant-full-control");
    private static final String GRANTEE_ATTRIBUTES =
            "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"CanonicalUser\"";

    private final ObjectStore store;

    public AclHandlers(ObjectStore store) {
        this.store = store;
    }

    /**
     * Checks the ACL headers of a request that creates something (CreateBucket, PutObject, CopyObject,
     * CreateMultipartUpload): owner-only ACLs pass, any other is refused.
     */
    public static void checkAclHeaders(S3Request r) {
        String canned = r.header("x-amz-acl");
        if (canned != null) {
            checkCannedAcl(canned);
        }
        for (String h : GRANT_HEADERS) {
            if (r.header(h) != null) {
                throw notSupported();
            }
        }
    }

    /** A canned ACL (header {@code x-amz-acl}, or the {@code acl} field of a browser upload): owner-only passes. */
    public static void checkCannedAcl(String canned) {
        String acl = canned.strip().toLowerCase(Locale.ROOT);
        if (!CANNED.contains(acl)) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Unknown canned ACL: " + canned);
        }
        if (!OWNER_ONLY.contains(acl)) {
            throw notSupported();
        }
    }

    public S3Response getBucketAcl(S3Request r) {
        store.bucketInfo(r.bucket());
        return S3Response.xml(ownerOnly(Owner.of(r.auth().accessKey())));
    }

    public S3Response getObjectAcl(S3Request r) {
        var info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        S3Response resp = S3Response.xml(ownerOnly(Owner.of(r.auth().accessKey())));
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        return resp;
    }

    public S3Response putBucketAcl(S3Request r) throws IOException {
        store.bucketInfo(r.bucket());
        checkPut(r);
        return S3Response.ok();
    }

    public S3Response putObjectAcl(S3Request r) throws IOException {
        var info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        checkPut(r);
        S3Response resp = S3Response.ok();
        if (!"null".equals(info.versionId())) {
            resp.header("x-amz-version-id", info.versionId());
        }
        return resp;
    }

    /** A PutBucketAcl/PutObjectAcl: headers or a body, and either way nothing beyond the owner's FULL_CONTROL. */
    private static void checkPut(S3Request r) throws IOException {
        byte[] body = Params.readSmallBody(r, XmlReader.MAX_BODY);
        boolean headers =
                r.header("x-amz-acl") != null || GRANT_HEADERS.stream().anyMatch(h -> r.header(h) != null);
        if (headers && body.length > 0) {
            throw new S3Exception(
                    S3ErrorCode.UnexpectedContent, "This request does not support content with ACL headers.");
        }
        if (headers) {
            checkAclHeaders(r);
            return;
        }
        if (body.length == 0) {
            throw new S3Exception(S3ErrorCode.MissingSecurityHeader, "Your request was missing a required header.");
        }
        XmlElement policy = XmlReader.parse(body);
        if (!policy.name().equals("AccessControlPolicy")) {
            throw new S3Exception(S3ErrorCode.MalformedACLError);
        }
        String owner = Owner.of(r.auth().accessKey()).id();
        XmlElement list =
                policy.child("AccessControlList").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedACLError));
        for (XmlElement grant : list.children()) {
            if (!grant.name().equals("Grant")) {
                throw new S3Exception(S3ErrorCode.MalformedACLError);
            }
            XmlElement grantee =
                    grant.child("Grantee").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedACLError));
            String id = grantee.childText("ID").orElse(null);
            String permission = grant.childText("Permission").orElse("");
            if (!owner.equals(id) || !permission.equals("FULL_CONTROL")) {
                throw notSupported();
            }
        }
    }

    private static byte[] ownerOnly(Owner owner) {
        XmlWriter x = new XmlWriter().startDocument("AccessControlPolicy");
        x.start("Owner")
                .element("ID", owner.id())
                .element("DisplayName", owner.displayName())
                .end();
        x.start("AccessControlList").start("Grant").startWithAttributes("Grantee", GRANTEE_ATTRIBUTES);
        x.element("ID", owner.id()).element("DisplayName", owner.displayName()).end();
        x.element("Permission", "FULL_CONTROL");
        return x.toBytes();
    }

    private static S3Exception notSupported() {
        return new S3Exception(S3ErrorCode.AccessControlListNotSupported);
    }
}
