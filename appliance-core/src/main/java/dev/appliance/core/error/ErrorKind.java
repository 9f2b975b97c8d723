package dev.appliance.core.error;

/** What went wrong, in terms a front end can map to its own protocol's errors. */
public enum ErrorKind {
    BUCKET_NOT_FOUND,
    BUCKET_ALREADY_OWNED,
    BUCKET_NOT_EMPTY,
    INVALID_BUCKET_NAME,
    OBJECT_NOT_FOUND,
    VERSION_NOT_FOUND,
    /** The addressed version is a delete marker (GET/HEAD with its version id). */
    METHOD_NOT_ALLOWED,
    INVALID_OBJECT_NAME,
    KEY_TOO_LONG,
    INVALID_ARGUMENT,
    /** A request S3 answers {@code InvalidRequest} (e.g. a checksum of another algorithm than the upload's). */
    INVALID_REQUEST,
    INVALID_RANGE,
    BAD_DIGEST,
    INCOMPLETE_BODY,
    ENTITY_TOO_LARGE,
    TOO_MANY_VERSIONS,
    /** A conditional write or copy found the object not in the state it required. */
    PRECONDITION_FAILED,
    NO_SUCH_UPLOAD,
    /** A part named in a completion is missing or its ETag does not match. */
    INVALID_PART,
    INVALID_PART_ORDER,
    /** A part other than the last is below the minimum part size. */
    ENTITY_TOO_SMALL,
    /** A version protected by Object Lock (retention or legal hold) cannot be removed or its retention shortened. */
    OBJECT_LOCKED,
    /** The bucket's state forbids the change (suspending versioning of a lock bucket, locking an unversioned one). */
    INVALID_BUCKET_STATE,
    /** The bucket has no Object Lock configuration. */
    OBJECT_LOCK_CONFIGURATION_NOT_FOUND,
    /** The version has no retention (or no legal hold) to return. */
    NO_SUCH_OBJECT_LOCK_CONFIGURATION,
    WRITE_QUORUM,
    READ_QUORUM,
    STORAGE_FULL,
    /** The write would take the bucket past its quota. */
    QUOTA_EXCEEDED,
    /** The bucket's settings refuse the change (a public bucket policy while its public access block blocks one). */
    ACCESS_DENIED,
    INTERNAL
}
