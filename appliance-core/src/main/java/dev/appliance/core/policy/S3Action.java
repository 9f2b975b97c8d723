package dev.appliance.core.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * The S3 actions the S3 front end maps requests to, under AWS's IAM names (the service authorization reference for
 * Amazon S3). A request is authorized against exactly one of these, e.g. ListObjectsV2 against {@code s3:ListBucket},
 * HeadObject against {@code s3:GetObject}, GetObject with {@code versionId} against {@code s3:GetObjectVersion},
 * CreateMultipartUpload/UploadPart/CompleteMultipartUpload against {@code s3:PutObject}, HeadBucket against {@code
 * s3:ListBucket} (AWS has no {@code s3:HeadBucket} action), GetObjectLockConfiguration against {@code
 * s3:GetBucketObjectLockConfiguration}.
 *
 * <p>Bucket policies may name only these actions (S3 refuses others with "Policy has invalid action"); identity
 * policies may name any well-formed action, as IAM accepts them (see {@link PolicyDocument#warnings()}).
 */
public enum S3Action {
    ABORT_MULTIPART_UPLOAD("AbortMultipartUpload", Scope.OBJECT, AccessLevel.WRITE),
    BYPASS_GOVERNANCE_RETENTION("BypassGovernanceRetention", Scope.OBJECT, AccessLevel.WRITE),
    CREATE_BUCKET("CreateBucket", Scope.BUCKET, AccessLevel.WRITE),
    DELETE_BUCKET("DeleteBucket", Scope.BUCKET, AccessLevel.WRITE),
    DELETE_BUCKET_OWNERSHIP_CONTROLS("DeleteBucketOwnershipControls", Scope.BUCKET, AccessLevel.WRITE),
    DELETE_BUCKET_POLICY("DeleteBucketPolicy", Scope.BUCKET, AccessLevel.PERMISSIONS),
    DELETE_BUCKET_WEBSITE("DeleteBucketWebsite", Scope.BUCKET, AccessLevel.WRITE),
    DELETE_OBJECT("DeleteObject", Scope.OBJECT, AccessLevel.WRITE),
    DELETE_OBJECT_TAGGING("DeleteObjectTagging", Scope.OBJECT, AccessLevel.TAGGING),
    DELETE_OBJECT_VERSION("DeleteObjectVersion", Scope.OBJECT, AccessLevel.WRITE),
    DELETE_OBJECT_VERSION_TAGGING("DeleteObjectVersionTagging", Scope.OBJECT, AccessLevel.TAGGING),
    GET_ACCOUNT_PUBLIC_ACCESS_BLOCK("GetAccountPublicAccessBlock", Scope.ACCOUNT, AccessLevel.READ),
    GET_BUCKET_ACL("GetBucketAcl", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_CORS("GetBucketCORS", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_LOCATION("GetBucketLocation", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_LOGGING("GetBucketLogging", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_NOTIFICATION("GetBucketNotification", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_OBJECT_LOCK_CONFIGURATION("GetBucketObjectLockConfiguration", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_OWNERSHIP_CONTROLS("GetBucketOwnershipControls", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_POLICY("GetBucketPolicy", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_POLICY_STATUS("GetBucketPolicyStatus", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_PUBLIC_ACCESS_BLOCK("GetBucketPublicAccessBlock", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_TAGGING("GetBucketTagging", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_VERSIONING("GetBucketVersioning", Scope.BUCKET, AccessLevel.READ),
    GET_BUCKET_WEBSITE("GetBucketWebsite", Scope.BUCKET, AccessLevel.READ),
    GET_ENCRYPTION_CONFIGURATION("GetEncryptionConfiguration", Scope.BUCKET, AccessLevel.READ),
    GET_LIFECYCLE_CONFIGURATION("GetLifecycleConfiguration", Scope.BUCKET, AccessLevel.READ),
    GET_REPLICATION_CONFIGURATION("GetReplicationConfiguration", Scope.BUCKET, AccessLevel.READ),
    GET_OBJECT("GetObject", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_ACL("GetObjectAcl", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_ATTRIBUTES("GetObjectAttributes", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_LEGAL_HOLD("GetObjectLegalHold", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_RETENTION("GetObjectRetention", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_TAGGING("GetObjectTagging", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_VERSION("GetObjectVersion", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_VERSION_ACL("GetObjectVersionAcl", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_VERSION_ATTRIBUTES("GetObjectVersionAttributes", Scope.OBJECT, AccessLevel.READ),
    GET_OBJECT_VERSION_TAGGING("GetObjectVersionTagging", Scope.OBJECT, AccessLevel.READ),
    LIST_ALL_MY_BUCKETS("ListAllMyBuckets", Scope.ACCOUNT, AccessLevel.LIST),
    LIST_BUCKET("ListBucket", Scope.BUCKET, AccessLevel.LIST),
    LIST_BUCKET_MULTIPART_UPLOADS("ListBucketMultipartUploads", Scope.BUCKET, AccessLevel.LIST),
    LIST_BUCKET_VERSIONS("ListBucketVersions", Scope.BUCKET, AccessLevel.LIST),
    LIST_MULTIPART_UPLOAD_PARTS("ListMultipartUploadParts", Scope.OBJECT, AccessLevel.LIST),
    PUT_ACCOUNT_PUBLIC_ACCESS_BLOCK("PutAccountPublicAccessBlock", Scope.ACCOUNT, AccessLevel.PERMISSIONS),
    PUT_BUCKET_ACL("PutBucketAcl", Scope.BUCKET, AccessLevel.PERMISSIONS),
    PUT_BUCKET_CORS("PutBucketCORS", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_LOGGING("PutBucketLogging", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_NOTIFICATION("PutBucketNotification", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_OBJECT_LOCK_CONFIGURATION("PutBucketObjectLockConfiguration", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_OWNERSHIP_CONTROLS("PutBucketOwnershipControls", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_POLICY("PutBucketPolicy", Scope.BUCKET, AccessLevel.PERMISSIONS),
    PUT_BUCKET_PUBLIC_ACCESS_BLOCK("PutBucketPublicAccessBlock", Scope.BUCKET, AccessLevel.PERMISSIONS),
    PUT_BUCKET_TAGGING("PutBucketTagging", Scope.BUCKET, AccessLevel.TAGGING),
    PUT_BUCKET_VERSIONING("PutBucketVersioning", Scope.BUCKET, AccessLevel.WRITE),
    PUT_BUCKET_WEBSITE("PutBucketWebsite", Scope.BUCKET, AccessLevel.WRITE),
    PUT_ENCRYPTION_CONFIGURATION("PutEncryptionConfiguration", Scope.BUCKET, AccessLevel.WRITE),
    PUT_LIFECYCLE_CONFIGURATION("PutLifecycleConfiguration", Scope.BUCKET, AccessLevel.WRITE),
    PUT_REPLICATION_CONFIGURATION("PutReplicationConfiguration", Scope.BUCKET, AccessLevel.WRITE),
    PUT_OBJECT("PutObject", Scope.OBJECT, AccessLevel.WRITE),
    PUT_OBJECT_ACL("PutObjectAcl", Scope.OBJECT, AccessLevel.PERMISSIONS),
    PUT_OBJECT_LEGAL_HOLD("PutObjectLegalHold", Scope.OBJECT, AccessLevel.WRITE),
    PUT_OBJECT_RETENTION("PutObjectRetention", Scope.OBJECT, AccessLevel.WRITE),
    PUT_OBJECT_TAGGING("PutObjectTagging", Scope.OBJECT, AccessLevel.TAGGING),
    PUT_OBJECT_VERSION_ACL("PutObjectVersionAcl", Scope.OBJECT, AccessLevel.PERMISSIONS),
    PUT_OBJECT_VERSION_TAGGING("PutObjectVersionTagging", Scope.OBJECT, AccessLevel.TAGGING),
    RESTORE_OBJECT("RestoreObject", Scope.OBJECT, AccessLevel.WRITE);

    /** What a request for the action names as its resource. */
    public enum Scope {
        /** {@code *} (the account; e.g. ListAllMyBuckets). */
        ACCOUNT,
        /** {@code arn:aws:s3:::<bucket>}. */
        BUCKET,
        /** {@code arn:aws:s3:::<bucket>/<key>}. */
        OBJECT
    }

    /** AWS's access levels, as its service authorization reference classes the actions. */
    public enum AccessLevel {
        LIST,
        READ,
        WRITE,
        PERMISSIONS,
        TAGGING
    }

    private static final Map<String, S3Action> BY_NAME = new HashMap<>();

    static {
        for (S3Action a : values()) {
            BY_NAME.put(a.iamName.toLowerCase(java.util.Locale.ROOT), a);
        }
    }

    private final String iamName;
    private final Scope scope;
    private final AccessLevel accessLevel;

    S3Action(String name, Scope scope, AccessLevel accessLevel) {
        this.iamName = "s3:" + name;
        this.scope = scope;
        this.accessLevel = accessLevel;
    }

    /** The action's name in policies and in {@link RequestContext#action()}, e.g. {@code s3:GetObject}. */
    public String iamName() {
        return iamName;
    }

    public Scope scope() {
        return scope;
    }

    public AccessLevel accessLevel() {
        return accessLevel;
    }

    /** The resource ARN a request for this action names: {@code *}, the bucket's ARN or the object's ARN. */
    public String resourceArn(String bucket, String key) {
        return switch (scope) {
            case ACCOUNT -> "*";
            case BUCKET -> "arn:aws:s3:::" + bucket;
            case OBJECT -> "arn:aws:s3:::" + bucket + "/" + key;
        };
    }

    /** The action named {@code iamName} (case-insensitive, with the {@code s3:} prefix), or null. */
    public static S3Action named(String iamName) {
        return BY_NAME.get(iamName.toLowerCase(java.util.Locale.ROOT));
    }
}
