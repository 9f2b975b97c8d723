package dev.appliance.s3.api.iam;

import dev.appliance.core.identity.AccessKey;
import dev.appliance.core.identity.Group;
import dev.appliance.core.identity.User;
import dev.appliance.s3.xml.XmlWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** IAM's XML: the {@code <ActionResponse>} envelope, its entities, and {@code <ErrorResponse>}. */
final class IamXml {
    static final String NAMESPACE = "https://iam.amazonaws.com/doc/2010-05-08/";
    private static final String XMLNS = "xmlns=\"" + NAMESPACE + "\"";

    private IamXml() {}

    /**
     * {@code <ActionResponse><ActionResult>...</ActionResult><ResponseMetadata><RequestId/></ResponseMetadata>}; a
     * null {@code result} writes no result element (the calls that answer nothing).
     */
    static byte[] response(String action, String requestId, Consumer<XmlWriter> result) {
        XmlWriter w = new XmlWriter().startWithAttributes(action + "Response", XMLNS);
        if (result != null) {
            w.start(action + "Result");
            result.accept(w);
            w.end();
        }
        w.start("ResponseMetadata").element("RequestId", requestId).end();
        return w.toBytes();
    }

    /** {@code <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>}. */
    static byte[] error(String code, int status, String message, String requestId) {
        return new XmlWriter()
                .startWithAttributes("ErrorResponse", XMLNS)
                .start("Error")
                .element("Type", status >= 500 ? "Receiver" : "Sender")
                .element("Code", code)
                .element("Message", message)
                .end()
                .element("RequestId", requestId)
                .toBytes();
    }

    static void user(XmlWriter w, User u, String arn) {
        w.element("Path", u.path())
                .element("UserName", u.name())
                .element("UserId", u.id())
                .element("Arn", arn)
                .element("CreateDate", u.created());
    }

    static void group(XmlWriter w, Group g, String arn) {
        w.element("Path", g.path())
                .element("GroupName", g.name())
                .element("GroupId", g.id())
                .element("Arn", arn)
                .element("CreateDate", g.created());
    }

    static void accessKey(XmlWriter w, AccessKey k) {
        w.element("UserName", k.userName())
                .element("AccessKeyId", k.accessKeyId())
                .element("Status", k.status().name())
                .element("CreateDate", k.created());
    }

    static void policy(XmlWriter w, PolicyView p, int attachments) {
        w.element("PolicyName", p.name())
                .element("PolicyId", p.id())
                .element("Arn", p.arn())
                .element("Path", "/")
                .element("DefaultVersionId", PolicyView.VERSION)
                .element("AttachmentCount", attachments)
                .element("PermissionsBoundaryUsageCount", 0)
                .element("IsAttachable", true)
                .element("CreateDate", p.created())
                .element("UpdateDate", p.updated());
    }

    /** {@code <AttachedPolicies><member><PolicyName/><PolicyArn/></member>...}. */
    static void attachedPolicy(XmlWriter w, String arn) {
        w.start("member")
                .element("PolicyName", arn.substring(arn.lastIndexOf('/') + 1))
                .element("PolicyArn", arn)
                .end();
    }

    /** A policy document as IAM answers it in Get*Policy and GetPolicyVersion: percent-encoded (RFC 3986). */
    static String encodedDocument(String json) {
        return URLEncoder.encode(json, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code <IsTruncated>} and, when truncated, the {@code <Marker>} to ask for the next page with. */
    static void pageEnd(XmlWriter w, Page<?> page) {
        w.element("IsTruncated", page.truncated());
        if (page.truncated()) {
            w.element("Marker", page.nextMarker());
        }
    }
}
