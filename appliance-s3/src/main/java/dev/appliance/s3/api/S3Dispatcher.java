package dev.appliance.s3.api;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.s3.api.acl.AclHandlers;
import dev.appliance.s3.api.bucket.BucketHandlers;
import dev.appliance.s3.api.bucket.ListingHandlers;
import dev.appliance.s3.api.health.HealthProbes;
import dev.appliance.s3.api.iam.IamHandler;
import dev.appliance.s3.api.lifecycle.LifecycleHandlers;
import dev.appliance.s3.api.multipart.MultipartHandlers;
import dev.appliance.s3.api.object.AttributesHandler;
import dev.appliance.s3.api.object.CopyObjectHandler;
import dev.appliance.s3.api.object.DeleteObjects;
import dev.appliance.s3.api.object.ObjectHandlers;
import dev.appliance.s3.api.object.TaggingHandlers;
import dev.appliance.s3.api.objectlock.ObjectLockHandlers;
import dev.appliance.s3.api.policy.BucketPolicyHandlers;
import dev.appliance.s3.api.post.PostObjectHandler;
import dev.appliance.s3.api.sosapi.SosApi;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.IOException;
import java.time.Clock;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;

/**
 * Routes a request to its operation, asks the {@link Authorizer}, runs the handler. Routing is by method, by whether
 * a bucket and key are addressed, and by sub-resource query parameters; a parameter this endpoint does not know (e.g.
 * {@code ?uploads}, {@code ?tagging}) means an operation that is not implemented, and is answered
 * {@code NotImplemented} rather than served as something else.
 */
public final class S3Dispatcher {
    /** S3 operations served, with the IAM-style action the authorizer is asked about. */
    public enum Operation {
        LIST_BUCKETS("s3:ListAllMyBuckets"),
        CREATE_BUCKET("s3:CreateBucket"),
        HEAD_BUCKET("s3:ListBucket"),
        DELETE_BUCKET("s3:DeleteBucket"),
        GET_BUCKET_LOCATION("s3:GetBucketLocation"),
        GET_BUCKET_VERSIONING("s3:GetBucketVersioning"),
        PUT_BUCKET_VERSIONING("s3:PutBucketVersioning"),
        LIST_OBJECTS("s3:ListBucket"),
        LIST_OBJECTS_V2("s3:ListBucket"),
        LIST_OBJECT_VERSIONS("s3:ListBucketVersions"),
        PUT_OBJECT("s3:PutObject"),
        /** Browser-based upload: authenticated and authorized by the handler from the form's signed policy. */
        POST_OBJECT("s3:PutObject"),
        GET_OBJECT("s3:GetObject"),
        HEAD_OBJECT("s3:GetObject"),
        DELETE_OBJECT("s3:DeleteObject"),
        COPY_OBJECT("s3:PutObject"),
        CREATE_MULTIPART_UPLOAD("s3:PutObject"),
        UPLOAD_PART("s3:PutObject"),
        COMPLETE_MULTIPART_UPLOAD("s3:PutObject"),
        ABORT_MULTIPART_UPLOAD("s3:AbortMultipartUpload"),
        LIST_PARTS("s3:ListMultipartUploadParts"),
        LIST_MULTIPART_UPLOADS("s3:ListBucketMultipartUploads"),
        PUT_OBJECT_TAGGING("s3:PutObjectTagging"),
        GET_OBJECT_TAGGING("s3:GetObjectTagging"),
        DELETE_OBJECT_TAGGING("s3:DeleteObjectTagging"),
        GET_OBJECT_ATTRIBUTES("s3:GetObjectAttributes"),
        PUT_BUCKET_TAGGING("s3:PutBucketTagging"),
        GET_BUCKET_TAGGING("s3:GetBucketTagging"),
        DELETE_BUCKET_TAGGING("s3:PutBucketTagging"),
        GET_BUCKET_LIFECYCLE("s3:GetLifecycleConfiguration"),
        PUT_BUCKET_LIFECYCLE("s3:PutLifecycleConfiguration"),
        /** S3 authorizes removal with the Put permission. */
        DELETE_BUCKET_LIFECYCLE("s3:PutLifecycleConfiguration"),
        GET_BUCKET_ACL("s3:GetBucketAcl"),
        PUT_BUCKET_ACL("s3:PutBucketAcl"),
        GET_OBJECT_ACL("s3:GetObjectAcl"),
        PUT_OBJECT_ACL("s3:PutObjectAcl"),
        GET_OBJECT_LOCK_CONFIGURATION("s3:GetBucketObjectLockConfiguration"),
        PUT_OBJECT_LOCK_CONFIGURATION("s3:PutBucketObjectLockConfiguration"),
        GET_OBJECT_RETENTION("s3:GetObjectRetention"),
        PUT_OBJECT_RETENTION("s3:PutObjectRetention"),
        GET_OBJECT_LEGAL_HOLD("s3:GetObjectLegalHold"),
        PUT_OBJECT_LEGAL_HOLD("s3:PutObjectLegalHold"),
        /** Authorized per key by the handler ({@code s3:DeleteObject} / {@code s3:DeleteObjectVersion}). */
        DELETE_OBJECTS("s3:DeleteObject"),
        GET_BUCKET_POLICY("s3:GetBucketPolicy"),
        PUT_BUCKET_POLICY("s3:PutBucketPolicy"),
        DELETE_BUCKET_POLICY("s3:DeleteBucketPolicy"),
        GET_BUCKET_POLICY_STATUS("s3:GetBucketPolicyStatus"),
        GET_PUBLIC_ACCESS_BLOCK("s3:GetBucketPublicAccessBlock"),
        PUT_PUBLIC_ACCESS_BLOCK("s3:PutBucketPublicAccessBlock"),
        /** S3 authorizes removal with the Put permission. */
        DELETE_PUBLIC_ACCESS_BLOCK("s3:PutBucketPublicAccessBlock"),
        GET_BUCKET_OWNERSHIP_CONTROLS("s3:GetBucketOwnershipControls"),
        PUT_BUCKET_OWNERSHIP_CONTROLS("s3:PutBucketOwnershipControls"),
        /** S3 authorizes removal with the Put permission. */
        DELETE_BUCKET_OWNERSHIP_CONTROLS("s3:PutBucketOwnershipControls");

        private final String action;

        Operation(String action) {
            this.action = action;
        }

        /**
         * Whether the handler authorizes the request itself, before it touches the store: DeleteObjects per key, and
         * PutObjectRetention once its body gives the condition keys (s3:object-lock-mode, ...) policies may test.
         */
        boolean authorizedByHandler() {
            return this == DELETE_OBJECTS || this == PUT_OBJECT_RETENTION;
        }

        /**
         * Whether an anonymous request may be put to the bucket's policy at all: not for the account's operations
         * (listing, creating buckets), a bucket's configuration and deletion, which are the owner's alone, nor an
         * object's retention and legal hold; nor DeleteObjects, which reads its body before it authorizes each key.
         */
        boolean anonymousMayAsk() {
            return switch (this) {
                case LIST_BUCKETS,
                        CREATE_BUCKET,
                        DELETE_BUCKET,
                        PUT_BUCKET_VERSIONING,
                        PUT_OBJECT_LOCK_CONFIGURATION,
                        PUT_BUCKET_LIFECYCLE,
                        DELETE_BUCKET_LIFECYCLE,
                        PUT_BUCKET_TAGGING,
                        DELETE_BUCKET_TAGGING,
                        PUT_BUCKET_ACL,
                        PUT_OBJECT_ACL,
                        GET_BUCKET_POLICY,
                        PUT_BUCKET_POLICY,
                        DELETE_BUCKET_POLICY,
                        GET_BUCKET_POLICY_STATUS,
                        GET_PUBLIC_ACCESS_BLOCK,
                        PUT_PUBLIC_ACCESS_BLOCK,
                        DELETE_PUBLIC_ACCESS_BLOCK,
                        GET_BUCKET_OWNERSHIP_CONTROLS,
                        PUT_BUCKET_OWNERSHIP_CONTROLS,
                        DELETE_BUCKET_OWNERSHIP_CONTROLS,
                        DELETE_OBJECTS,
                        PUT_OBJECT_RETENTION,
                        PUT_OBJECT_LEGAL_HOLD -> false;
                default -> true;
            };
        }

        /** The action name; reads and deletes of a specific version use S3's "...Version" actions. */
        public String action(boolean withVersionId) {
            if (withVersionId
                    && (this == GET_OBJECT
                            || this == HEAD_OBJECT
                            || this == DELETE_OBJECT
                            || this == GET_OBJECT_ACL
                            || this == PUT_OBJECT_ACL)) {
                return action + "Version";
            }
            return action;
        }
    }

    private static final Set<String> LIST_PARAMS = Set.of(
            "list-type",
            "prefix",
            "delimiter",
            "max-keys",
            "marker",
            "continuation-token",
            "start-after",
            "fetch-owner",
            "encoding-type",
            "key-marker",
            "version-id-marker",
            "upload-id-marker",
            "max-uploads",
            "x-id");
    private static final Set<String> BUCKET_SUBRESOURCES = Set.of(
            "versioning",
            "versions",
            "location",
            "uploads",
            "tagging",
            "delete",
            "acl",
            "object-lock",
            "lifecycle",
            "policy",
            "policyStatus",
            "publicAccessBlock",
            "ownershipControls");
    private static final Set<String> OBJECT_PARAMS = Set.of(
            "versionId",
            "acl",
            "retention",
            "legal-hold",
            "tagging",
            "attributes",
            "uploads",
            "uploadId",
            "partNumber",
            "part-number-marker",
            "max-parts",
            "x-id",
            "response-content-type",
            "response-content-language",
            "response-expires",
            "response-cache-control",
            "response-content-disposition",
            "response-content-encoding");

    private final Authorizer authorizer;
    private final BucketHandlers buckets;
    private final ListingHandlers listings;
    private final ObjectHandlers objects;
    private final CopyObjectHandler copies;
    private final MultipartHandlers multipart;
    private final TaggingHandlers tagging;
    private final AttributesHandler attributes;
    private final DeleteObjects deleteObjects;
    private final AclHandlers acls;
    private final ObjectLockHandlers locks;
    private final PostObjectHandler postObjects;
    private final SosApi sosapi;
    private final LifecycleHandlers lifecycle;
    private final HealthProbes health;
    private final IamHandler iam;
    private final BucketPolicyHandlers policies;
    /** The calls that delete data or change retention, legal hold, versioning, lock, lifecycle or policy. */
    private final S3Audit audit;
    /** How many requests refused at authentication the audit log takes. */
    private final dev.appliance.s3.audit.RefusalAuditBudget refusalBudget;

    /**
     * @param verifier verifies the signed policies of browser-based uploads (POST Object), whose credentials are in
     *     the body
     */
    public S3Dispatcher(ObjectStore store, Authorizer authorizer, String region, SigV4Verifier verifier) {
        this(store, authorizer, region, verifier, dev.appliance.s3.audit.AuditSink.NONE);
    }

    /** As {@link #S3Dispatcher(ObjectStore, Authorizer, String, SigV4Verifier)}, audited calls told to {@code audit}. */
    public S3Dispatcher(
            ObjectStore store,
            Authorizer authorizer,
            String region,
            SigV4Verifier verifier,
            dev.appliance.s3.audit.AuditSink audit) {
        this(store, authorizer, region, verifier, audit, dev.appliance.s3.audit.RefusalAuditBudget.standard());
    }

    /**
     * As {@link #S3Dispatcher(ObjectStore, Authorizer, String, SigV4Verifier, dev.appliance.s3.audit.AuditSink)}, with
     * requests refused at authentication audited within {@code refusalBudget}.
     */
    public S3Dispatcher(
            ObjectStore store,
            Authorizer authorizer,
            String region,
            SigV4Verifier verifier,
            dev.appliance.s3.audit.AuditSink audit,
            dev.appliance.s3.audit.RefusalAuditBudget refusalBudget) {
        requireNonNull(store, "store");
        this.audit = new S3Audit(requireNonNull(audit, "audit"));
        this.refusalBudget = requireNonNull(refusalBudget, "refusalBudget");
        requireNonNull(authorizer, "authorizer");
        authorizer = refusingUndecidedAnonymous(authorizer);
        this.authorizer = authorizer;
        this.policies = new BucketPolicyHandlers(store);
        this.buckets = new BucketHandlers(store, region);
        this.listings = new ListingHandlers(store);
        this.objects = new ObjectHandlers(store, authorizer);
        this.copies = new CopyObjectHandler(store, authorizer);
        this.multipart = new MultipartHandlers(store, authorizer);
        this.tagging = new TaggingHandlers(store);
        this.attributes = new AttributesHandler(store);
        this.deleteObjects = new DeleteObjects(store, authorizer, audit);
        this.acls = new AclHandlers(store);
        this.locks = new ObjectLockHandlers(store, authorizer);
        this.postObjects = new PostObjectHandler(store, authorizer, verifier, Clock.systemUTC(), audit, refusalBudget);
        this.lifecycle = new LifecycleHandlers(store);
        this.health = HealthProbes.of(store);
        // The IAM API manages the store's users; a store without an identity store answers it ServiceFailure
        this.iam = new IamHandler(
                store instanceof StoreAdmin admin ? admin.identity() : null,
                authorizer,
                verifier,
                audit,
                refusalBudget);
        String version = S3Dispatcher.class.getPackage().getImplementationVersion();
        // SOSAPI is on where a bucket's settings say so, and by default in Object Lock buckets (Veeam's immutable ones)
        this.sosapi = new SosApi(
                store,
                "Appliance " + (version == null ? "dev" : version),
                bucket -> store.objectLockConfiguration(bucket) != null);
    }

    /**
     * Whether a request is a browser-based upload (POST Object): {@code POST} to a bucket, no sub-resource, body of
     * type {@code multipart/form-data}. Such a request carries its credentials in form fields, so it is not
     * authenticated by headers; {@link #dispatch} hands it to its handler only.
     */
    public static boolean isFormPost(
            String method, String bucket, String key, Collection<String> queryNames, String contentType) {
        if (!method.equals("POST") || bucket == null || key != null || contentType == null) {
            return false;
        }
        for (String q : queryNames) {
            if (BUCKET_SUBRESOURCES.contains(q)) {
                return false;
            }
        }
        int semi = contentType.indexOf(';');
        String media = (semi < 0 ? contentType : contentType.substring(0, semi)).strip();
        return media.toLowerCase(Locale.ROOT).equals("multipart/form-data");
    }

    /** The operation a request addresses; {@code NotImplemented} for anything else. */
    public static Operation route(S3Request r) {
        String m = r.method();
        if (r.bucket() == null) {
            if (m.equals("GET")) {
                return Operation.LIST_BUCKETS;
            }
            throw notImplemented(m + " on the service");
        }
        if (r.key() == null) {
            for (String p : r.query().keySet()) {
                if (!LIST_PARAMS.contains(p) && !BUCKET_SUBRESOURCES.contains(p)) {
                    throw notImplemented("the bucket sub-resource '" + p + "'");
                }
            }
            if (r.hasParam("versioning")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_VERSIONING;
                    case "PUT" -> Operation.PUT_BUCKET_VERSIONING;
                    default -> throw notImplemented(m + " ?versioning");
                };
            }
            if (r.hasParam("delete")) {
                if (m.equals("POST")) {
                    return Operation.DELETE_OBJECTS;
                }
                throw notImplemented(m + " ?delete");
            }
            if (r.hasParam("versions") && m.equals("GET")) {
                return Operation.LIST_OBJECT_VERSIONS;
            }
            if (r.hasParam("location") && m.equals("GET")) {
                return Operation.GET_BUCKET_LOCATION;
            }
            if (r.hasParam("tagging")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_TAGGING;
                    case "PUT" -> Operation.PUT_BUCKET_TAGGING;
                    case "DELETE" -> Operation.DELETE_BUCKET_TAGGING;
                    default -> throw notImplemented(m + " ?tagging on a bucket");
                };
            }
            if (r.hasParam("object-lock")) {
                return switch (m) {
                    case "GET" -> Operation.GET_OBJECT_LOCK_CONFIGURATION;
                    case "PUT" -> Operation.PUT_OBJECT_LOCK_CONFIGURATION;
                    default -> throw notImplemented(m + " ?object-lock");
                };
            }
            if (r.hasParam("lifecycle")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_LIFECYCLE;
                    case "PUT" -> Operation.PUT_BUCKET_LIFECYCLE;
                    case "DELETE" -> Operation.DELETE_BUCKET_LIFECYCLE;
                    default -> throw notImplemented(m + " ?lifecycle");
                };
            }
            if (r.hasParam("acl")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_ACL;
                    case "PUT" -> Operation.PUT_BUCKET_ACL;
                    default -> throw notImplemented(m + " ?acl on a bucket");
                };
            }
            if (r.hasParam("policy")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_POLICY;
                    case "PUT" -> Operation.PUT_BUCKET_POLICY;
                    case "DELETE" -> Operation.DELETE_BUCKET_POLICY;
                    default -> throw notImplemented(m + " ?policy");
                };
            }
            if (r.hasParam("policyStatus")) {
                if (m.equals("GET")) {
                    return Operation.GET_BUCKET_POLICY_STATUS;
                }
                throw notImplemented(m + " ?policyStatus");
            }
            if (r.hasParam("publicAccessBlock")) {
                return switch (m) {
                    case "GET" -> Operation.GET_PUBLIC_ACCESS_BLOCK;
                    case "PUT" -> Operation.PUT_PUBLIC_ACCESS_BLOCK;
                    case "DELETE" -> Operation.DELETE_PUBLIC_ACCESS_BLOCK;
                    default -> throw notImplemented(m + " ?publicAccessBlock");
                };
            }
            if (r.hasParam("ownershipControls")) {
                return switch (m) {
                    case "GET" -> Operation.GET_BUCKET_OWNERSHIP_CONTROLS;
                    case "PUT" -> Operation.PUT_BUCKET_OWNERSHIP_CONTROLS;
                    case "DELETE" -> Operation.DELETE_BUCKET_OWNERSHIP_CONTROLS;
                    default -> throw notImplemented(m + " ?ownershipControls");
                };
            }
            if (r.hasParam("uploads") && m.equals("GET")) {
                return Operation.LIST_MULTIPART_UPLOADS;
            }
            if (r.hasParam("uploads")) {
                throw notImplemented(m + " ?uploads on a bucket");
            }
            if (r.hasParam("versions") || r.hasParam("location")) {
                throw notImplemented(m + " on this bucket sub-resource");
            }
            return switch (m) {
                case "GET" -> {
                    String listType = r.param("list-type");
                    if (listType == null) {
                        yield Operation.LIST_OBJECTS;
                    }
                    if (listType.equals("2")) {
                        yield Operation.LIST_OBJECTS_V2;
                    }
                    throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid list-type: " + listType);
                }
                case "PUT" -> Operation.CREATE_BUCKET;
                case "HEAD" -> Operation.HEAD_BUCKET;
                case "DELETE" -> Operation.DELETE_BUCKET;
                case "POST" -> Operation.POST_OBJECT;
                default -> throw notImplemented(m + " on a bucket");
            };
        }
        for (String p : r.query().keySet()) {
            if (!OBJECT_PARAMS.contains(p)) {
                throw notImplemented("the object sub-resource '" + p + "'");
            }
        }
        if (r.hasParam("tagging")) {
            return switch (m) {
                case "GET" -> Operation.GET_OBJECT_TAGGING;
                case "PUT" -> Operation.PUT_OBJECT_TAGGING;
                case "DELETE" -> Operation.DELETE_OBJECT_TAGGING;
                default -> throw notImplemented(m + " ?tagging on an object");
            };
        }
        if (r.hasParam("acl")) {
            return switch (m) {
                case "GET" -> Operation.GET_OBJECT_ACL;
                case "PUT" -> Operation.PUT_OBJECT_ACL;
                default -> throw notImplemented(m + " ?acl on an object");
            };
        }
        if (r.hasParam("retention")) {
            return switch (m) {
                case "GET" -> Operation.GET_OBJECT_RETENTION;
                case "PUT" -> Operation.PUT_OBJECT_RETENTION;
                default -> throw notImplemented(m + " ?retention");
            };
        }
        if (r.hasParam("legal-hold")) {
            return switch (m) {
                case "GET" -> Operation.GET_OBJECT_LEGAL_HOLD;
                case "PUT" -> Operation.PUT_OBJECT_LEGAL_HOLD;
                default -> throw notImplemented(m + " ?legal-hold");
            };
        }
        if (r.hasParam("attributes")) {
            if (m.equals("GET")) {
                return Operation.GET_OBJECT_ATTRIBUTES;
            }
            throw notImplemented(m + " ?attributes");
        }
        if (r.hasParam("uploadId")) {
            return switch (m) {
                case "PUT" -> Operation.UPLOAD_PART;
                case "POST" -> Operation.COMPLETE_MULTIPART_UPLOAD;
                case "DELETE" -> Operation.ABORT_MULTIPART_UPLOAD;
                case "GET" -> Operation.LIST_PARTS;
                default -> throw notImplemented(m + " ?uploadId");
            };
        }
        if (r.hasParam("uploads")) {
            if (m.equals("POST")) {
                return Operation.CREATE_MULTIPART_UPLOAD;
            }
            throw notImplemented(m + " ?uploads on an object");
        }
        if (r.hasParam("partNumber") && !m.equals("GET") && !m.equals("HEAD")) {
            throw new S3Exception(S3ErrorCode.InvalidRequest, "partNumber needs an uploadId on " + m);
        }
        return switch (m) {
            case "GET" -> Operation.GET_OBJECT;
            case "HEAD" -> Operation.HEAD_OBJECT;
            case "PUT" -> r.header("x-amz-copy-source") != null ? Operation.COPY_OBJECT : Operation.PUT_OBJECT;
            case "DELETE" -> Operation.DELETE_OBJECT;
            default -> throw notImplemented(m + " on an object");
        };
    }

    /** The health probes, answered by the connection handler before authentication. */
    public HealthProbes health() {
        return health;
    }

    /**
     * Routes, authorizes and runs the request; failures are thrown for the HTTP layer to render. An audited call
     * ({@link S3Audit}) is recorded, refusals included, before its answer is returned.
     */
    public S3Response dispatch(S3Request r) throws IOException {
        if (!audit.enabled() || r.auth().isFormFields()) { // IAM calls audit themselves; POST Object's fields are its
            return dispatchCall(r, S3Audit.NO_COMMIT_AUDIT);
        }
        Operation op;
        try {
            op = route(r);
        } catch (RuntimeException e) {
            op = null; // refused by dispatchCall below, unaudited: nothing was addressed
        }
        boolean audited = S3Audit.audited(op, r);
        java.io.ByteArrayOutputStream body = audited ? new java.io.ByteArrayOutputStream() : null;
        S3Request call = audited ? S3Audit.copyingBody(op, r, body) : r;
        // a PutObject's event is kept by the engine with its commit, not forced after it
        dev.appliance.s3.audit.CommitAudit withCommit = audited ? audit.commitAudit(op, r) : S3Audit.NO_COMMIT_AUDIT;
        S3Response response;
        try {
            response = dispatchCall(call, withCommit);
        } catch (IOException | RuntimeException | Error e) {
            if (audited || op == Operation.DELETE_OBJECTS) {
                S3Exception failure = dev.appliance.s3.error.ErrorMapper.map(e);
                java.util.Map<String, String> details = new java.util.LinkedHashMap<>(S3Audit.bodyFields(body));
                // refusing a caller without credentials is as free for it as a refusal at authentication: budgeted
                if (r.auth().isAnonymous() && failure.code() == S3ErrorCode.AccessDenied) {
                    long leftOut = refusalBudget.take();
                    if (leftOut < 0) {
                        throw e;
                    }
                    details.putAll(dev.appliance.s3.audit.RefusalAuditBudget.refusalDetails("anonymous", leftOut));
                }
                audit.answered(op, r, 0, failure, details);
            }
            throw e;
        }
        if (audited && !withCommit.taken()) {
            audit.answered(op, r, response.status(), null, S3Audit.bodyFields(body));
        }
        return response;
    }

    /**
     * Whether a request the verifier refused (before routing, on the event loop) is to be audited: it addresses an
     * audited operation ({@link S3Audit#audited}, judged from its method, address and headers alone) and the refusal
     * budget is not spent. When it is, its worker calls {@link #refusedAtAuthentication}; the number of refusals the
     * budget left out before it is returned (0 and more), else -1. Cheap enough for the event loop.
     *
     * @param r the request, taken as anonymous: nothing of it has been verified
     */
    public long auditsRefusal(S3Request r) {
        if (!audit.enabled() || r.auth().isFormFields()) {
            return -1;
        }
        Operation op;
        try {
            op = route(r);
        } catch (RuntimeException e) {
            return -1; // nothing audited is addressed
        }
        // DeleteObjects refused whole is one s3:DeleteObjects event, as when its caller is not allowed
        if (op != Operation.DELETE_OBJECTS && !S3Audit.audited(op, r)) {
            return -1;
        }
        return refusalBudget.take();
    }

    /**
     * Records a request refused at authentication that {@link #auditsRefusal} chose, on a worker thread, then throws
     * {@code failure}: nothing of the request is run.
     *
     * @param claimedKey the access key id it claims ({@link SigV4Verifier#claimedAccessKey}), never verified
     * @param reason why authentication failed, in the words of the metrics ({@code signature_mismatch}...)
     * @param leftOut refusals the budget left out before this one
     */
    public S3Response refusedAtAuthentication(
            S3Request r, String claimedKey, S3Exception failure, String reason, long leftOut) {
        Operation op = route(r);
        java.util.Map<String, String> details =
                dev.appliance.s3.audit.RefusalAuditBudget.refusalDetails(reason, leftOut);
        audit.refused(op, r, claimedKey, failure, details);
        throw failure;
    }

    /** {@code withCommit}: the audit event a PutObject hands the engine to keep with its commit. */
    private S3Response dispatchCall(S3Request r, dev.appliance.s3.audit.CommitAudit withCommit) throws IOException {
        if (HealthProbes.addresses(r.bucket())) {
            throw HealthProbes.reserved(); // the connection handler answers the probes; nothing else goes there
        }
        if (r.auth().isFormFields() && IamHandler.isIamRequest(r.headers())) {
            return iam.handle(r); // signed for iam: verified by the handler with its body
        }
        if (r.auth().isFormFields()) {
            // not authenticated yet: nothing but POST Object, which verifies the form's signature first
            Operation op;
            try {
                op = route(r);
            } catch (S3Exception e) {
                throw new S3Exception(S3ErrorCode.AccessDenied);
            }
            if (op != Operation.POST_OBJECT) {
                throw new S3Exception(S3ErrorCode.AccessDenied);
            }
            return postObjects.handle(r);
        }
        Operation op;
        try {
            op = route(r);
        } catch (S3Exception e) {
            // an anonymous caller learns nothing about what the endpoint implements
            throw r.auth().isAnonymous() ? accessDenied(r) : e;
        }
        if (op == Operation.POST_OBJECT) {
            return postObjects.handle(r); // authorized by the handler, for the key named in the form
        }
        if (r.auth().isAnonymous() && !op.anonymousMayAsk()) {
            throw accessDenied(r);
        }
        String action = op.action(r.param("versionId") != null);
        if (!op.authorizedByHandler() && !authorizer.allowed(r.access(action))) {
            throw accessDenied(r);
        }
        if (op == Operation.CREATE_BUCKET
                || op == Operation.PUT_OBJECT
                || op == Operation.COPY_OBJECT
                || op == Operation.CREATE_MULTIPART_UPLOAD) {
            AclHandlers.checkAclHeaders(r);
        }
        if (r.key() != null && SosApi.isVirtualKey(r.key())) {
            S3Response virtual = sosapiObject(op, r);
            if (virtual != null) {
                return virtual;
            }
        }
        return switch (op) {
            case LIST_BUCKETS -> buckets.listBuckets(r);
            case CREATE_BUCKET -> {
                authorizeLockedBucket(r);
                yield buckets.createBucket(r);
            }
            case HEAD_BUCKET -> buckets.headBucket(r);
            case DELETE_BUCKET -> buckets.deleteBucket(r);
            case GET_BUCKET_LOCATION -> buckets.location(r);
            case GET_BUCKET_VERSIONING -> buckets.getVersioning(r);
            case PUT_BUCKET_VERSIONING -> buckets.putVersioning(r);
            case LIST_OBJECTS -> listings.listObjectsV1(r);
            case LIST_OBJECTS_V2 -> listings.listObjectsV2(r);
            case LIST_OBJECT_VERSIONS -> listings.listVersions(r);
            case PUT_OBJECT -> objects.put(r, withCommit);
            case POST_OBJECT -> postObjects.handle(r);
            case GET_OBJECT -> withPermittedLockHeaders(r, objects.get(r, false));
            case HEAD_OBJECT -> withPermittedLockHeaders(r, objects.get(r, true));
            case DELETE_OBJECT -> objects.delete(r);
            case COPY_OBJECT -> copies.copy(r);
            case CREATE_MULTIPART_UPLOAD -> multipart.create(r);
            case UPLOAD_PART -> multipart.uploadPart(r);
            case COMPLETE_MULTIPART_UPLOAD -> multipart.complete(r);
            case ABORT_MULTIPART_UPLOAD -> multipart.abort(r);
            case LIST_PARTS -> multipart.listParts(r);
            case LIST_MULTIPART_UPLOADS -> multipart.listUploads(r);
            case PUT_OBJECT_TAGGING -> tagging.putObjectTags(r);
            case GET_OBJECT_TAGGING -> tagging.getObjectTags(r);
            case DELETE_OBJECT_TAGGING -> tagging.deleteObjectTags(r);
            case GET_OBJECT_ATTRIBUTES -> attributes.get(r);
            case PUT_BUCKET_TAGGING -> tagging.putBucketTags(r);
            case GET_BUCKET_TAGGING -> tagging.getBucketTags(r);
            case DELETE_BUCKET_TAGGING -> tagging.deleteBucketTags(r);
            case DELETE_OBJECTS -> deleteObjects.handle(r);
            case GET_BUCKET_LIFECYCLE -> lifecycle.get(r);
            case PUT_BUCKET_LIFECYCLE -> lifecycle.put(r);
            case DELETE_BUCKET_LIFECYCLE -> lifecycle.delete(r);
            case GET_BUCKET_ACL -> acls.getBucketAcl(r);
            case PUT_BUCKET_ACL -> acls.putBucketAcl(r);
            case GET_OBJECT_ACL -> acls.getObjectAcl(r);
            case PUT_OBJECT_ACL -> acls.putObjectAcl(r);
            case GET_OBJECT_LOCK_CONFIGURATION -> locks.getConfiguration(r);
            case PUT_OBJECT_LOCK_CONFIGURATION -> locks.putConfiguration(r);
            case GET_OBJECT_RETENTION -> locks.getRetention(r);
            case PUT_OBJECT_RETENTION -> locks.putRetention(r);
            case GET_OBJECT_LEGAL_HOLD -> locks.getLegalHold(r);
            case PUT_OBJECT_LEGAL_HOLD -> locks.putLegalHold(r);
            case GET_BUCKET_POLICY -> policies.getPolicy(r);
            case PUT_BUCKET_POLICY -> policies.putPolicy(r);
            case DELETE_BUCKET_POLICY -> policies.deletePolicy(r);
            case GET_BUCKET_POLICY_STATUS -> policies.getPolicyStatus(r);
            case GET_PUBLIC_ACCESS_BLOCK -> policies.getPublicAccessBlock(r);
            case PUT_PUBLIC_ACCESS_BLOCK -> policies.putPublicAccessBlock(r);
            case DELETE_PUBLIC_ACCESS_BLOCK -> policies.deletePublicAccessBlock(r);
            case GET_BUCKET_OWNERSHIP_CONTROLS -> policies.getOwnershipControls(r);
            case PUT_BUCKET_OWNERSHIP_CONTROLS -> policies.putOwnershipControls(r);
            case DELETE_BUCKET_OWNERSHIP_CONTROLS -> policies.deleteOwnershipControls(r);
        };
    }

    /** Veeam's SOSAPI objects: answered when the bucket has SOSAPI on, never written by a client. */
    private S3Response sosapiObject(Operation op, S3Request r) {
        return switch (op) {
            case GET_OBJECT, HEAD_OBJECT -> sosapi.get(r, op == Operation.HEAD_OBJECT);
            case PUT_OBJECT,
                    COPY_OBJECT,
                    DELETE_OBJECT,
                    CREATE_MULTIPART_UPLOAD,
                    UPLOAD_PART,
                    COMPLETE_MULTIPART_UPLOAD,
                    PUT_OBJECT_TAGGING,
                    DELETE_OBJECT_TAGGING,
                    PUT_OBJECT_ACL -> throw SosApi.readOnly();
            default -> null;
        };
    }

    /**
     * As S3: GET/HEAD show an object's retention only to callers allowed {@code s3:GetObjectRetention}, and its legal
     * hold only to those allowed {@code s3:GetObjectLegalHold}.
     */
    private S3Response withPermittedLockHeaders(S3Request r, S3Response resp) {
        if (!authorizer.allowed(r.access("s3:GetObjectRetention"))) {
            resp.headers().remove(ObjectLock.MODE_KEY);
            resp.headers().remove(ObjectLock.RETAIN_UNTIL_KEY);
        }
        if (!authorizer.allowed(r.access("s3:GetObjectLegalHold"))) {
            resp.headers().remove(ObjectLock.LEGAL_HOLD_KEY);
        }
        return resp;
    }

    /** Creating a bucket with Object Lock also needs the permissions to set lock and versioning, as on S3. */
    private void authorizeLockedBucket(S3Request r) {
        if ("true".equalsIgnoreCase(r.header("x-amz-bucket-object-lock-enabled"))) {
            for (String action : new String[] {"s3:PutBucketObjectLockConfiguration", "s3:PutBucketVersioning"}) {
                if (!authorizer.allowed(r.access(action, r.bucket(), null))) {
                    throw new S3Exception(S3ErrorCode.AccessDenied);
                }
            }
        }
    }

    /**
     * Anonymous requests reach only an authorizer that decides them (by bucket policy and public access block); any
     * other refuses them, whatever it would answer for a signed request.
     */
    private static Authorizer refusingUndecidedAnonymous(Authorizer authorizer) {
        if (authorizer.decidesAnonymous()) {
            return authorizer;
        }
        return request -> !request.anonymous() && authorizer.allowed(request);
    }

    /** AccessDenied; for a request without credentials in the words the metrics count as an anonymous refusal. */
    private static S3Exception accessDenied(S3Request r) {
        return r.auth().isAnonymous()
                ? new S3Exception(S3ErrorCode.AccessDenied, "Anonymous access is not allowed.")
                : new S3Exception(S3ErrorCode.AccessDenied);
    }

    private static S3Exception notImplemented(String what) {
        return new S3Exception(S3ErrorCode.NotImplemented, "Not implemented: " + what + ".");
    }
}
