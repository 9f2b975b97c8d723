package dev.appliance.s3.api.iam;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.AccessKey;
import dev.appliance.core.identity.Credential;
import dev.appliance.core.identity.Group;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.identity.User;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.policy.PolicyKind;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The IAM query API on the S3 address: requests signed for the service {@code iam} ({@link #isIamRequest}) with
 * {@code Action=...} in a form-encoded body (POST) or the query (GET), to the path {@code /}. Run on the worker thread
 * (the identity store's writes block on the drives).
 *
 * <p>Order of work: the body is read whole (it is small and its hash is part of the signature: IAM clients do not send
 * {@code x-amz-content-sha256}) and the signature verified for the service {@code iam}; the action is looked up; the
 * caller is asked of the {@link Authorizer} under the IAM action name ({@code iam:CreateUser}); parameters are
 * validated (policy documents by the policy engine) before the identity store changes anything. Every answer, error or
 * not, is IAM's XML. Access-key secrets are in CreateAccessKey's answer only and are never logged.
 */
public final class IamHandler {
    /** Bigger than any IAM call: a policy document (at most 10,240 characters) percent-encoded, plus the rest. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private static final String FORM_TYPE = "application/x-www-form-urlencoded";

    private final IdentityStore identity;
    private final Authorizer authorizer;
    private final SigV4Verifier verifier;

    /** @param identity the users' store, or null where the store has none (every call then fails ServiceFailure) */
    private final dev.appliance.s3.audit.AuditSink audit;
    /** How many calls refused at authentication the audit log takes. */
    private final dev.appliance.s3.audit.RefusalAuditBudget refusalBudget;

    public IamHandler(IdentityStore identity, Authorizer authorizer, SigV4Verifier verifier) {
        this(identity, authorizer, verifier, dev.appliance.s3.audit.AuditSink.NONE);
    }

    /** Every call that changes IAM state (all but Get* and List*) is told to {@code audit}, refusals included. */
    public IamHandler(
            IdentityStore identity,
            Authorizer authorizer,
            SigV4Verifier verifier,
            dev.appliance.s3.audit.AuditSink audit) {
        this(identity, authorizer, verifier, audit, dev.appliance.s3.audit.RefusalAuditBudget.standard());
    }

    /** As above; calls refused at authentication are audited within {@code refusalBudget}. */
    public IamHandler(
            IdentityStore identity,
            Authorizer authorizer,
            SigV4Verifier verifier,
            dev.appliance.s3.audit.AuditSink audit,
            dev.appliance.s3.audit.RefusalAuditBudget refusalBudget) {
        this.identity = identity;
        this.authorizer = requireNonNull(authorizer, "authorizer");
        this.verifier = requireNonNull(verifier, "verifier");
        this.audit = requireNonNull(audit, "audit");
        this.refusalBudget = requireNonNull(refusalBudget, "refusalBudget");
    }

    /**
     * Whether {@code r} is signed for the service {@code iam}: such a request is not verified with the request head
     * (its body is part of the signature) and is handed to {@link #handle} only.
     */
    public static boolean isIamRequest(Map<String, List<String>> headers) {
        return SigV4Verifier.IAM_SERVICE.equals(SigV4Verifier.signedService(headers));
    }

    /**
     * Answers one IAM call. A request signed for {@code iam} that addresses a bucket or object is refused with an S3
     * error (thrown), as it is no IAM call.
     */
    public S3Response handle(S3Request r) {
        Audited audited = new Audited();
        S3Response response = handle(r, audited);
        if (audited.action != null && audit != dev.appliance.s3.audit.AuditSink.NONE && mutates(audited.action)) {
            int status = response.status();
            String outcome =
                    status < 400 ? "allowed" : audited.errorCode.equals("AccessDenied") ? "denied" : audited.errorCode;
            audit.record(new dev.appliance.s3.audit.AuditSink.AuditedCall(
                    java.time.Instant.now(),
                    audited.accessKey,
                    r.sourceIp(),
                    "iam:" + audited.action,
                    audited.resource,
                    outcome,
                    status,
                    r.requestId(),
                    audited.details));
        }
        return response;
    }

    /**
     * Prepares the audit event of a call the verifier refused: when it names a mutating action (read from its
     * unverified parameters) and the refusal budget allows, its principal is the access key id it claims.
     */
    private void refusedAtAuthentication(S3Request r, byte[] body, Audited audited, S3Exception failure) {
        if (audit == dev.appliance.s3.audit.AuditSink.NONE) {
            return;
        }
        IamParams params;
        try {
            params = IamParams.of(r.query(), isForm(r) ? new String(body, StandardCharsets.UTF_8) : "");
        } catch (RuntimeException e) {
            return; // parameters that do not decode: nothing audited is named
        }
        String action = params.optional("Action");
        if (action == null || !mutates(action)) {
            return;
        }
        long leftOut = refusalBudget.take();
        if (leftOut < 0) {
            return;
        }
        audited.action = action;
        audited.accessKey = verifier.auditedKey(SigV4Verifier.claimedAccessKey(rawQuery(r.query()), r.headers()));
        audited.resource = resourceOf(params);
        Map<String, String> details = dev.appliance.s3.audit.RefusalAuditBudget.refusalDetails(
                dev.appliance.s3.audit.AuditSink.authenticationFailure(failure), leftOut);
        audited.details = details;
    }

    /** What an IAM call said of itself, for its audit event: filled as the call is read. */
    private static final class Audited {
        String action;
        String accessKey = "";
        String resource = "";
        String errorCode = "";
        Map<String, String> details = Map.of();

        S3Response error(String code, int status, String message, String requestId) {
            errorCode = code;
            return IamHandler.error(code, status, message, requestId);
        }
    }

    /** IAM calls that change nothing are not audited. */
    static boolean mutates(String action) {
        return !action.startsWith("Get") && !action.startsWith("List");
    }

    /** The user, group or policy a call names: its audit event's resource (never a secret or a policy document). */
    private static String resourceOf(IamParams params) {
        StringJoiner j = new StringJoiner(" ");
        for (String name : List.of("UserName", "GroupName", "PolicyArn", "PolicyName", "AccessKeyId", "NewUserName")) {
            String v = params.optional(name);
            if (v != null) {
                j.add(name + "=" + v);
            }
        }
        return j.toString();
    }

    private S3Response handle(S3Request r, Audited audited) {
        return handleCall(r, audited);
    }

    private S3Response handleCall(S3Request r, Audited audited) {
        if (r.bucket() != null || r.key() != null) {
            throw new S3Exception(
                    S3ErrorCode.AccessDenied, "Requests signed for the service iam are served at the path / only.");
        }
        if (!r.method().equals("POST") && !r.method().equals("GET")) {
            return audited.error(
                    "MethodNotAllowed", 405, "IAM calls are POST or GET, not " + r.method() + ".", r.requestId());
        }
        String action = null;
        try {
            byte[] body = readBody(r.body());
            AuthResult auth;
            try {
                auth = verifier.verifyIam(r.method(), "/", rawQuery(r.query()), r.headers(), body);
            } catch (S3Exception e) {
                refusedAtAuthentication(r, body, audited, e);
                throw e;
            }
            String form = isForm(r) ? new String(body, StandardCharsets.UTF_8) : "";
            IamParams params = IamParams.of(r.query(), form);
            action = params.optional("Action");
            if (action == null) {
                throw new IamError("MissingAction", 400, "The request must contain the parameter Action.");
            }
            String version = params.optional("Version");
            if (version != null && !version.equals("2010-05-08")) {
                throw new IamError("InvalidParameterValue", 400, "Version: '" + version + "' (expected 2010-05-08)");
            }
            audited.action = action;
            audited.accessKey = auth.accessKey();
            audited.resource = resourceOf(params);
            Call call = new Call(action, params, auth.accessKey(), r.requestId());
            return ok(run(call));
        } catch (IamError e) {
            return audited.error(e.code(), e.status(), e.getMessage(), r.requestId());
        } catch (IdentityException e) {
            return audited.error(e.kind().code(), e.kind().httpStatus(), e.getMessage(), r.requestId());
        } catch (MalformedPolicyException e) {
            return e.reason() == MalformedPolicyException.Reason.TOO_LARGE
                    ? audited.error("LimitExceeded", 409, e.getMessage(), r.requestId())
                    : audited.error("MalformedPolicyDocument", 400, e.getMessage(), r.requestId());
        } catch (RuntimeException e) {
            S3Exception s3 = ErrorMapper.map(e);
            String code = s3.code() == S3ErrorCode.InvalidAccessKeyId
                    ? "InvalidClientTokenId" // IAM's name for an unknown key
                    : s3.code().code();
            if (s3.code().status() >= 500) {
                System.getLogger(IamHandler.class.getName())
                        .log(System.Logger.Level.WARNING, "IAM " + action + " " + r.requestId() + " failed", e);
            }
            // a refusal of the verifier is counted as one thrown would be
            return audited.error(code, s3.code().status(), s3.getMessage(), r.requestId())
                    .refusal(s3);
        }
    }

    private static S3Response ok(byte[] xml) {
        return S3Response.status(200).header("Content-Type", "text/xml").body(xml);
    }

    private static S3Response error(String code, int status, String message, String requestId) {
        return S3Response.status(status)
                .header("Content-Type", "text/xml")
                .body(IamXml.error(code, status, message, requestId));
    }

    private static boolean isForm(S3Request r) {
        String type = r.header("content-type");
        return type != null && type.toLowerCase(Locale.ROOT).startsWith(FORM_TYPE);
    }

    private static byte[] readBody(InputStream in) {
        try {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw IamError.validation("The request body is larger than " + MAX_BODY_BYTES + " bytes.");
            }
            return body;
        } catch (IOException e) {
            throw new S3Exception(S3ErrorCode.IncompleteBody, "The request body could not be read.", e);
        }
    }

    /**
     * The query as signed: the decoded parameters encoded again (SigV4's canonical query decodes and re-encodes each,
     * so this signs the same); a repeated parameter, of which only the first value is kept, then fails verification.
     */
    private static String rawQuery(Map<String, String> query) {
        if (query.isEmpty()) {
            return null;
        }
        StringJoiner q = new StringJoiner("&");
        query.forEach((k, v) -> q.add(UriEncoding.encode(k, false) + "=" + UriEncoding.encode(v, false)));
        return q.toString();
    }

    /** One call: its action, parameters, caller and request id. */
    private record Call(String action, IamParams params, String accessKey, String requestId) {
        String required(String name) {
            return params.required(name);
        }

        String optional(String name) {
            return params.optional(name);
        }

        byte[] answer(Consumer<XmlWriter> result) {
            return IamXml.response(action, requestId, result);
        }

        byte[] done() {
            return IamXml.response(action, requestId, null);
        }
    }

    private IdentityStore store() {
        if (identity == null) {
            throw new IamError("ServiceFailure", 500, "This endpoint keeps no users.");
        }
        return identity;
    }

    /**
     * The authorization seam: the caller must be allowed the IAM action. The resource ARN is what the action is on;
     * the {@link Authorizer} does not take one yet (it asks about buckets and keys), so only the action is asked.
     */
    private void authorize(Call c, String resourceArn) {
        if (!authorizer.allowed(c.accessKey(), "iam:" + c.action(), null, null)) {
            throw new IamError(
                    "AccessDenied",
                    403,
                    "User with access key " + c.accessKey() + " is not authorized to perform: iam:" + c.action()
                            + " on resource: " + resourceArn);
        }
    }

    private String account() {
        return store().accountId();
    }

    private String userArn(String name) {
        return "arn:aws:iam::" + account() + ":user/" + name;
    }

    private String groupArn(String name) {
        return "arn:aws:iam::" + account() + ":group/" + name;
    }

    private String policyArn(String name) {
        return "arn:aws:iam::" + account() + ":policy/" + name;
    }

    /** UserName, or when absent the user who signed the call (IAM's default); the root credential is no user. */
    private String userNameOrCaller(Call c) {
        String name = c.optional("UserName");
        if (name != null) {
            return name;
        }
        return store().credential(c.accessKey())
                .map(Credential::userName)
                .orElseThrow(() -> IamError.validation(
                        "UserName: required when the call is signed by the root credential, which is no IAM user"));
    }

    private byte[] run(Call c) {
        return switch (c.action()) {
            case "CreateUser" -> createUser(c);
            case "GetUser" -> getUser(c);
            case "ListUsers" -> listUsers(c);
            case "UpdateUser" -> updateUser(c);
            case "DeleteUser" -> deleteUser(c);
            case "CreateAccessKey" -> createAccessKey(c);
            case "ListAccessKeys" -> listAccessKeys(c);
            case "UpdateAccessKey" -> updateAccessKey(c);
            case "DeleteAccessKey" -> deleteAccessKey(c);
            case "PutUserPolicy" -> putPolicy(c, USER);
            case "GetUserPolicy" -> getPolicy(c, USER);
            case "DeleteUserPolicy" -> deletePolicy(c, USER);
            case "ListUserPolicies" -> listPolicies(c, USER);
            case "AttachUserPolicy" -> attachPolicy(c, USER);
            case "DetachUserPolicy" -> detachPolicy(c, USER);
            case "ListAttachedUserPolicies" -> listAttachedPolicies(c, USER);
            case "CreatePolicy" -> createPolicy(c);
            case "GetPolicy" -> getPolicy(c);
            case "GetPolicyVersion" -> getPolicyVersion(c);
            case "ListPolicies" -> listPolicies(c);
            case "DeletePolicy" -> deletePolicy(c);
            case "CreateGroup" -> createGroup(c);
            case "GetGroup" -> getGroup(c);
            case "ListGroups" -> listGroups(c);
            case "DeleteGroup" -> deleteGroup(c);
            case "AddUserToGroup" -> addUserToGroup(c);
            case "RemoveUserFromGroup" -> removeUserFromGroup(c);
            case "ListGroupsForUser" -> listGroupsForUser(c);
            case "PutGroupPolicy" -> putPolicy(c, GROUP);
            case "GetGroupPolicy" -> getPolicy(c, GROUP);
            case "DeleteGroupPolicy" -> deletePolicy(c, GROUP);
            case "ListGroupPolicies" -> listPolicies(c, GROUP);
            case "AttachGroupPolicy" -> attachPolicy(c, GROUP);
            case "DetachGroupPolicy" -> detachPolicy(c, GROUP);
            case "ListAttachedGroupPolicies" -> listAttachedPolicies(c, GROUP);
            default ->
                throw new IamError(
                        "InvalidAction", 400, "Could not find operation " + c.action() + " for version 2010-05-08");
        };
    }

    // ------------------------------------------------------------------------------------------------------ users

    private byte[] createUser(Call c) {
        String name = c.required("UserName");
        authorize(c, userArn(name));
        c.params().requireRootPath("Path");
        User u = store().createUser(name);
        return c.answer(w -> userElement(w, u));
    }

    private void userElement(XmlWriter w, User u) {
        w.start("User");
        IamXml.user(w, u, userArn(u.name()));
        w.end();
    }

    private byte[] getUser(Call c) {
        String name = userNameOrCaller(c);
        authorize(c, userArn(name));
        User u = store().user(name);
        return c.answer(w -> userElement(w, u));
    }

    private byte[] listUsers(Call c) {
        authorize(c, userArn("*"));
        c.params().requireRootPath("PathPrefix");
        return pagedMembers(c, store().users(), u -> lower(u.name()), w -> {}, "Users", this::userMember);
    }

    private byte[] updateUser(Call c) {
        String name = c.required("UserName");
        authorize(c, userArn(name));
        c.params().requireRootPath("NewPath");
        String newName = c.optional("NewUserName");
        if (newName == null) {
            store().user(name); // nothing to change, but the user must exist
        } else {
            store().renameUser(name, newName);
        }
        return c.done();
    }

    private byte[] deleteUser(Call c) {
        String name = c.required("UserName");
        authorize(c, userArn(name));
        store().deleteUser(name);
        return c.done();
    }

    // ------------------------------------------------------------------------------------------------ access keys

    private byte[] createAccessKey(Call c) {
        String name = userNameOrCaller(c);
        authorize(c, userArn(name));
        NewAccessKey k = store().createAccessKey(name);
        return c.answer(w -> w.start("AccessKey")
                .element("UserName", k.key().userName())
                .element("AccessKeyId", k.key().accessKeyId())
                .element("Status", k.key().status().name())
                .element("SecretAccessKey", k.secretAccessKey())
                .element("CreateDate", k.key().created())
                .end());
    }

    private byte[] listAccessKeys(Call c) {
        String name = userNameOrCaller(c);
        authorize(c, userArn(name));
        List<AccessKey> keys = store().accessKeys(name);
        String userName = store().user(name).name();
        return pagedMembers(
                c,
                keys,
                AccessKey::accessKeyId,
                w -> w.element("UserName", userName),
                "AccessKeyMetadata",
                IamXml::accessKey);
    }

    private byte[] updateAccessKey(Call c) {
        String keyId = c.required("AccessKeyId");
        AccessKey.Status status = AccessKey.Status.parse(c.required("Status"));
        String name = c.optional("UserName");
        authorize(c, userArn(name == null ? "*" : name));
        store().updateAccessKey(name, keyId, status);
        return c.done();
    }

    private byte[] deleteAccessKey(Call c) {
        String keyId = c.required("AccessKeyId");
        String name = c.optional("UserName");
        authorize(c, userArn(name == null ? "*" : name));
        store().deleteAccessKey(name, keyId);
        return c.done();
    }

    // ------------------------------------------------------------------------------------------- inline policies

    private void userMember(XmlWriter w, User u) {
        IamXml.user(w, u, userArn(u.name()));
    }

    /**
     * A paged list answer: what {@code before} writes, then {@code list} with one {@code member} element per item of
     * the page asked for (Marker, MaxItems), written by {@code member}, then the paging elements.
     */
    private static <T> byte[] pagedMembers(
            Call c,
            List<T> all,
            Function<T, String> sortKey,
            Consumer<XmlWriter> before,
            String list,
            BiConsumer<XmlWriter, T> member) {
        Page<T> page = Page.of(all, sortKey, c.optional("Marker"), c.params().maxItems());
        return c.answer(w -> {
            before.accept(w);
            w.start(list);
            for (T item : page.items()) {
                w.start("member");
                member.accept(w, item);
                w.end();
            }
            w.end();
            IamXml.pageEnd(w, page);
        });
    }

    private static byte[] policyNames(Call c, java.util.Set<String> names) {
        Page<String> page = Page.of(
                new ArrayList<>(names), n -> n, c.optional("Marker"), c.params().maxItems());
        return c.answer(w -> {
            w.start("PolicyNames");
            page.items().forEach(n -> w.element("member", n));
            w.end();
            IamXml.pageEnd(w, page);
        });
    }

    // ------------------------------------------------------------------------------------------ managed policies

    /** PolicyArn: a built-in one must exist (the identity store takes any built-in name), a customer one is looked up. */
    private String attachableArn(Call c) {
        String arn = c.required("PolicyArn");
        if (PolicyView.isBuiltinArn(arn)) {
            PolicyView.builtin(arn);
        }
        return arn;
    }

    private static byte[] attachedPolicies(Call c, List<String> arns) {
        Page<String> page =
                Page.of(arns, a -> a, c.optional("Marker"), c.params().maxItems());
        return c.answer(w -> {
            w.start("AttachedPolicies");
            page.items().forEach(a -> IamXml.attachedPolicy(w, a));
            w.end();
            IamXml.pageEnd(w, page);
        });
    }

    private byte[] createPolicy(Call c) {
        String name = c.required("PolicyName");
        String document = c.required("PolicyDocument");
        authorize(c, policyArn(name));
        c.params().requireRootPath("Path");
        PolicyDocument.parse(document, PolicyKind.MANAGED);
        PolicyView p = PolicyView.of(store().createPolicy(name, document));
        return c.answer(w -> {
            w.start("Policy");
            IamXml.policy(w, p, 0);
            w.end();
        });
    }

    private PolicyView policyView(String arn) {
        return PolicyView.isBuiltinArn(arn) ? PolicyView.builtin(arn) : PolicyView.of(store().policyByArn(arn));
    }

    private byte[] getPolicy(Call c) {
        String arn = c.required("PolicyArn");
        authorize(c, arn);
        PolicyView p = policyView(arn);
        int attachments = store().attachmentCount(p.arn());
        return c.answer(w -> {
            w.start("Policy");
            IamXml.policy(w, p, attachments);
            w.end();
        });
    }

    private byte[] getPolicyVersion(Call c) {
        String arn = c.required("PolicyArn");
        String version = c.required("VersionId");
        authorize(c, arn);
        PolicyView p = policyView(arn);
        if (!version.equals(PolicyView.VERSION)) {
            throw IamError.noSuchEntity(
                    "Policy " + arn + " version " + version + " does not exist or is not attachable.");
        }
        return c.answer(w -> w.start("PolicyVersion")
                .element("Document", IamXml.encodedDocument(p.document()))
                .element("VersionId", PolicyView.VERSION)
                .element("IsDefaultVersion", true)
                .element("CreateDate", p.created())
                .end());
    }

    private byte[] listPolicies(Call c) {
        authorize(c, policyArn("*"));
        String scope = c.optional("Scope");
        scope = scope == null ? "All" : scope;
        List<PolicyView> all = new ArrayList<>();
        switch (scope) {
            case "All", "AWS", "Local" -> {
                if (!scope.equals("Local")) {
                    all.addAll(PolicyView.builtins());
                }
                if (!scope.equals("AWS")) {
                    store().policies().forEach(p -> all.add(PolicyView.of(p)));
                }
            }
            default -> throw IamError.validation("Scope: '" + scope + "' (expected All, AWS or Local)");
        }
        c.params().requireRootPath("PathPrefix");
        boolean onlyAttached = c.params().bool("OnlyAttached", false);
        List<PolicyView> listed = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        for (PolicyView p : all) {
            int n = store().attachmentCount(p.arn());
            if (!onlyAttached || n > 0) {
                listed.add(p);
            }
        }
        Page<PolicyView> page = Page.of(
                listed, PolicyView::arn, c.optional("Marker"), c.params().maxItems());
        for (PolicyView p : page.items()) {
            counts.add(store().attachmentCount(p.arn()));
        }
        return c.answer(w -> {
            w.start("Policies");
            for (int i = 0; i < page.items().size(); i++) {
                w.start("member");
                IamXml.policy(w, page.items().get(i), counts.get(i));
                w.end();
            }
            w.end();
            IamXml.pageEnd(w, page);
        });
    }

    private byte[] deletePolicy(Call c) {
        String arn = c.required("PolicyArn");
        authorize(c, arn);
        if (PolicyView.isBuiltinArn(arn)) {
            PolicyView.builtin(arn);
            throw IamError.invalidInput("Policy " + arn + " is a built-in policy and cannot be deleted.");
        }
        store().deletePolicy(store().policyByArn(arn).name());
        return c.done();
    }

    // ----------------------------------------------------------------------------------------------------- groups

    private void groupElement(XmlWriter w, Group g) {
        w.start("Group");
        IamXml.group(w, g, groupArn(g.name()));
        w.end();
    }

    private byte[] createGroup(Call c) {
        String name = c.required("GroupName");
        authorize(c, groupArn(name));
        c.params().requireRootPath("Path");
        Group g = store().createGroup(name);
        return c.answer(w -> groupElement(w, g));
    }

    private byte[] getGroup(Call c) {
        String name = c.required("GroupName");
        authorize(c, groupArn(name));
        Group g = store().group(name);
        List<User> members = new ArrayList<>();
        for (String m : g.members()) {
            store().findUser(m).ifPresent(members::add);
        }
        return pagedMembers(c, members, u -> lower(u.name()), w -> groupElement(w, g), "Users", this::userMember);
    }

    private byte[] groupList(Call c, List<Group> groups) {
        return pagedMembers(
                c, groups, g -> lower(g.name()), w -> {}, "Groups", (w, g) -> IamXml.group(w, g, groupArn(g.name())));
    }

    private byte[] listGroups(Call c) {
        authorize(c, groupArn("*"));
        c.params().requireRootPath("PathPrefix");
        return groupList(c, store().groups());
    }

    private byte[] listGroupsForUser(Call c) {
        String name = c.required("UserName");
        authorize(c, userArn(name));
        return groupList(c, store().groupsForUser(name));
    }

    private byte[] deleteGroup(Call c) {
        String name = c.required("GroupName");
        authorize(c, groupArn(name));
        store().deleteGroup(name);
        return c.done();
    }

    private byte[] addUserToGroup(Call c) {
        String name = c.required("GroupName");
        String user = c.required("UserName");
        authorize(c, groupArn(name));
        store().addUserToGroup(name, user);
        return c.done();
    }

    private byte[] removeUserFromGroup(Call c) {
        String name = c.required("GroupName");
        String user = c.required("UserName");
        authorize(c, groupArn(name));
        store().removeUserFromGroup(name, user);
        return c.done();
    }

    // ------------------------------------------------------------------- policies of a user or a group, alike

    /**
     * Users and groups hold inline and attached policies the same way; the IAM actions on them differ only in the
     * parameter naming the holder, its ARN, the inline documents' size limit and the store's calls.
     */
    private record Holder(
            String nameParameter,
            String element,
            PolicyKind inlineKind,
            String arnKind,
            PutInline put,
            GetInline get,
            NamedChange deleteInline,
            NamedChange attach,
            NamedChange detach,
            Function<IdentityStore, Function<String, String>> canonicalName,
            Function<IdentityStore, Function<String, java.util.Set<String>>> inlineNames,
            Function<IdentityStore, Function<String, List<String>>> attached) {}

    @FunctionalInterface
    private interface PutInline {
        void put(IdentityStore store, String holder, String policyName, String document);
    }

    @FunctionalInterface
    private interface GetInline {
        String get(IdentityStore store, String holder, String policyName);
    }

    @FunctionalInterface
    private interface NamedChange {
        void apply(IdentityStore store, String holder, String name);
    }

    private static final Holder USER = new Holder(
            "UserName",
            "UserName",
            PolicyKind.USER_INLINE,
            "user",
            IdentityStore::putUserPolicy,
            IdentityStore::userPolicy,
            IdentityStore::deleteUserPolicy,
            IdentityStore::attachUserPolicy,
            IdentityStore::detachUserPolicy,
            store -> name -> store.user(name).name(),
            store -> name -> store.user(name).inlinePolicies().keySet(),
            store -> name -> store.user(name).attachedPolicies());

    private static final Holder GROUP = new Holder(
            "GroupName",
            "GroupName",
            PolicyKind.GROUP_INLINE,
            "group",
            IdentityStore::putGroupPolicy,
            IdentityStore::groupPolicy,
            IdentityStore::deleteGroupPolicy,
            IdentityStore::attachGroupPolicy,
            IdentityStore::detachGroupPolicy,
            store -> name -> store.group(name).name(),
            store -> name -> store.group(name).inlinePolicies().keySet(),
            store -> name -> store.group(name).attachedPolicies());

    private String holderArn(Holder h, String name) {
        return h == USER ? userArn(name) : groupArn(name);
    }

    /** The holder named by the call's parameter, after the caller was authorized for it. */
    private String authorizedHolder(Call c, Holder h) {
        String name = c.required(h.nameParameter());
        authorize(c, holderArn(h, name));
        return name;
    }

    private byte[] putPolicy(Call c, Holder h) {
        String name = c.required(h.nameParameter());
        String policyName = c.required("PolicyName");
        String document = c.required("PolicyDocument");
        authorize(c, holderArn(h, name));
        PolicyDocument.parse(document, h.inlineKind()); // refused here, before anything is stored
        h.put().put(store(), name, policyName, document);
        return c.done();
    }

    private byte[] getPolicy(Call c, Holder h) {
        String name = c.required(h.nameParameter());
        String policyName = c.required("PolicyName");
        authorize(c, holderArn(h, name));
        String document = h.get().get(store(), name, policyName);
        String holderName = h.canonicalName().apply(store()).apply(name);
        return c.answer(w -> w.element(h.element(), holderName)
                .element("PolicyName", policyName)
                .element("PolicyDocument", IamXml.encodedDocument(document)));
    }

    private byte[] deletePolicy(Call c, Holder h) {
        String name = c.required(h.nameParameter());
        String policyName = c.required("PolicyName");
        authorize(c, holderArn(h, name));
        h.deleteInline().apply(store(), name, policyName);
        return c.done();
    }

    private byte[] listPolicies(Call c, Holder h) {
        String name = authorizedHolder(c, h);
        return policyNames(c, h.inlineNames().apply(store()).apply(name));
    }

    private byte[] attachPolicy(Call c, Holder h) {
        String name = authorizedHolder(c, h);
        h.attach().apply(store(), name, attachableArn(c));
        return c.done();
    }

    private byte[] detachPolicy(Call c, Holder h) {
        String name = authorizedHolder(c, h);
        h.detach().apply(store(), name, c.required("PolicyArn"));
        return c.done();
    }

    private byte[] listAttachedPolicies(Call c, Holder h) {
        String name = authorizedHolder(c, h);
        return attachedPolicies(c, h.attached().apply(store()).apply(name));
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
