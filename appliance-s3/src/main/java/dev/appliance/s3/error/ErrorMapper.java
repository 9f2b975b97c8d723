package dev.appliance.s3.error;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.io.IOException;

/** The one place where internal failures become S3 errors. */
public final class ErrorMapper {
    private ErrorMapper() {}

    /** Table entry for an engine failure kind. */
    public static S3ErrorCode codeFor(ErrorKind kind) {
        return switch (kind) {
            case BUCKET_NOT_FOUND -> S3ErrorCode.NoSuchBucket;
            case BUCKET_ALREADY_OWNED -> S3ErrorCode.BucketAlreadyOwnedByYou;
            case BUCKET_NOT_EMPTY -> S3ErrorCode.BucketNotEmpty;
            case INVALID_BUCKET_NAME -> S3ErrorCode.InvalidBucketName;
            case OBJECT_NOT_FOUND -> S3ErrorCode.NoSuchKey;
            case VERSION_NOT_FOUND -> S3ErrorCode.NoSuchVersion;
            case METHOD_NOT_ALLOWED -> S3ErrorCode.MethodNotAllowed;
            case INVALID_OBJECT_NAME -> S3ErrorCode.InvalidObjectName;
            case KEY_TOO_LONG -> S3ErrorCode.KeyTooLongError;
            case INVALID_ARGUMENT -> S3ErrorCode.InvalidArgument;
            case INVALID_REQUEST -> S3ErrorCode.InvalidRequest;
            case INVALID_RANGE -> S3ErrorCode.InvalidRange;
            case BAD_DIGEST -> S3ErrorCode.BadDigest;
            case INCOMPLETE_BODY -> S3ErrorCode.IncompleteBody;
            case ENTITY_TOO_LARGE -> S3ErrorCode.EntityTooLarge;
            case TOO_MANY_VERSIONS -> S3ErrorCode.InvalidRequest;
            case PRECONDITION_FAILED -> S3ErrorCode.PreconditionFailed;
            case NO_SUCH_UPLOAD -> S3ErrorCode.NoSuchUpload;
            case INVALID_PART -> S3ErrorCode.InvalidPart;
            case INVALID_PART_ORDER -> S3ErrorCode.InvalidPartOrder;
            case ENTITY_TOO_SMALL -> S3ErrorCode.EntityTooSmall;
            case OBJECT_LOCKED -> S3ErrorCode.AccessDenied;
            case INVALID_BUCKET_STATE -> S3ErrorCode.InvalidBucketState;
            case OBJECT_LOCK_CONFIGURATION_NOT_FOUND -> S3ErrorCode.ObjectLockConfigurationNotFoundError;
            case NO_SUCH_OBJECT_LOCK_CONFIGURATION -> S3ErrorCode.NoSuchObjectLockConfiguration;
            case WRITE_QUORUM, READ_QUORUM -> S3ErrorCode.ServiceUnavailable;
            case STORAGE_FULL -> S3ErrorCode.InsufficientStorage;
            case QUOTA_EXCEEDED -> S3ErrorCode.QuotaExceeded;
            case ACCESS_DENIED -> S3ErrorCode.AccessDenied;
            case INTERNAL -> S3ErrorCode.InternalError;
        };
    }

    /**
     * Turns anything a handler may throw into the S3 error to send. Engine messages are passed on for client-side
     * errors only; internal failures get the table's generic message so nothing internal leaks.
     */
    public static S3Exception map(Throwable t) {
        Throwable body = findBodyFailure(t);
        if (body instanceof BodyException be) {
            return new S3Exception(be.code(), be.getMessage(), be);
        }
        return switch (t) {
            case S3Exception s3 -> s3;
            case StorageException se -> fromStorage(se);
            case IOException io ->
                new S3Exception(S3ErrorCode.IncompleteBody, "The request body could not be read.", io);
            default -> new S3Exception(S3ErrorCode.InternalError, null, t);
        };
    }

    private static S3Exception fromStorage(StorageException se) {
        S3ErrorCode code = codeFor(se.kind());
        String message = code.status() >= 500 ? null : se.getMessage();
        S3Exception e = new S3Exception(code, message, se);
        if (se.deleteMarker()) {
            e.withHeader("x-amz-delete-marker", "true");
        }
        if (se.versionId() != null && (se.deleteMarker() || se.kind() == ErrorKind.METHOD_NOT_ALLOWED)) {
            e.withHeader("x-amz-version-id", se.versionId());
        }
        return e;
    }

    /** The engine may wrap the body's own failure; look for it along the cause chain. */
    private static Throwable findBodyFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BodyException) {
                return c;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }
}
