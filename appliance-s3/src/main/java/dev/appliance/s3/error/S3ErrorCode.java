package dev.appliance.s3.error;

/**
 * The table of S3 errors this endpoint answers with: wire code, HTTP status, default message.
 *
 * <p>Codes are S3's own, except {@link #InsufficientStorage} (HTTP 507, our name for "the drives are full"; S3 has no
 * such condition), {@link #QuotaExceeded} (HTTP 403, as Ceph RGW answers a write past a bucket quota; S3 has no
 * quotas) and {@link #InvalidObjectName} (a key the engine cannot store). Messages are written for this
 * project; a handler may pass a more specific one.
 */
public enum S3ErrorCode {
    AccessDenied(403, "Access Denied."),
    /** A request to the bucket name the health probes reserve (as MinIO answers for {@code minio}). */
    AllAccessDisabled(403, "All access to this resource has been disabled."),
    AccessForbidden(403, "CORSResponse: This CORS request is not allowed."),
    AccessControlListNotSupported(400, "The bucket does not allow ACLs."),
    AuthorizationHeaderMalformed(400, "The authorization header is malformed."),
    AuthorizationQueryParametersError(400, "Error parsing the query-string authentication parameters."),
    BadDigest(400, "The Content-MD5 or checksum you specified did not match what was received."),
    BucketAlreadyExists(409, "The requested bucket name is not available."),
    BucketAlreadyOwnedByYou(409, "Your previous request to create the named bucket succeeded and you already own it."),
    BucketNotEmpty(409, "The bucket you tried to delete is not empty."),
    EntityTooLarge(400, "Your proposed upload exceeds the maximum allowed object size."),
    IllegalLocationConstraintException(400, "The location constraint does not match the region of this endpoint."),
    IncompleteBody(400, "You did not provide the number of bytes specified by the Content-Length HTTP header."),
    InsufficientStorage(507, "The storage drives are full; delete objects or add capacity to proceed."),
    InternalError(500, "We encountered an internal error. Please try again."),
    InvalidAccessKeyId(403, "The access key ID you provided does not exist in our records."),
    InvalidArgument(400, "Invalid argument."),
    InvalidBucketName(400, "The specified bucket is not valid."),
    InvalidBucketState(409, "The request is not valid with the current state of the bucket."),
    InvalidDigest(400, "The Content-MD5 you specified is not valid."),
    InvalidObjectName(400, "The object name is not valid."),
    InvalidRange(416, "The requested range is not satisfiable."),
    InvalidRequest(400, "Invalid request."),
    InvalidRetentionPeriod(400, "Default retention period must be a positive integer value."),
    InvalidURI(400, "Could not parse the specified URI."),
    KeyTooLongError(400, "Your key is too long."),
    MalformedACLError(
            400, "The XML you provided was not well-formed or did not validate against our published schema."),
    MissingSecurityHeader(400, "Your request was missing a required header."),
    UnexpectedContent(400, "This request does not support content."),
    MalformedPolicy(400, "Policies must be valid JSON and the first byte must be '{'."),
    MalformedXML(400, "The XML you provided was not well-formed or did not validate against our published schema."),
    MetadataTooLarge(400, "Your metadata headers exceed the maximum allowed metadata size."),
    MethodNotAllowed(405, "The specified method is not allowed against this resource."),
    MissingContentLength(411, "You must provide the Content-Length HTTP header."),
    NoSuchBucket(404, "The specified bucket does not exist."),
    NoSuchBucketPolicy(404, "The bucket policy does not exist."),
    NoSuchKey(404, "The specified key does not exist."),
    NoSuchLifecycleConfiguration(404, "The lifecycle configuration does not exist."),
    NoSuchObjectLockConfiguration(404, "The specified object does not have a ObjectLock configuration."),
    NoSuchVersion(404, "The specified version does not exist."),
    ObjectLockConfigurationNotFoundError(404, "Object Lock configuration does not exist for this bucket."),
    NotImplemented(501, "A header or query you provided implies functionality that is not implemented."),
    PreconditionFailed(412, "At least one of the preconditions you specified did not hold."),
    NoSuchUpload(404, "The specified multipart upload does not exist."),
    InvalidPolicyDocument(
            400, "The content of the form does not meet the conditions specified in the policy document."),
    MalformedPOSTRequest(400, "The body of your POST request is not well-formed multipart/form-data."),
    MaxPostPreDataLengthExceededError(400, "Your POST request fields preceding the upload file were too large."),
    InvalidPart(400, "One or more of the specified parts could not be found."),
    InvalidPartOrder(400, "The list of parts was not in ascending order. Parts must be ordered by part number."),
    EntityTooSmall(400, "Your proposed upload is smaller than the minimum allowed object size."),
    InvalidPartNumber(416, "The requested partnumber is not satisfiable."),
    InvalidTag(400, "The tag provided was not a valid tag."),
    NoSuchTagSet(404, "The TagSet does not exist."),
    BadRequest(400, "Bad Request"),
    QuotaExceeded(403, "The bucket quota would be exceeded: delete objects or raise the quota to proceed."),
    RequestHeaderSectionTooLarge(400, "Your request header section exceeds the maximum allowed size."),
    RequestTimeout(
            400, "Your socket connection to the server was not read from or written to within the timeout period."),
    RequestTimeTooSkewed(403, "The difference between the request time and the server's time is too large."),
    ServiceUnavailable(503, "The storage is temporarily unable to serve this request. Please retry."),
    SignatureDoesNotMatch(
            403,
            "The request signature we calculated does not match the signature you provided. Check your key and"
                    + " signing method."),
    SlowDown(503, "Please reduce your request rate."),
    XAmzContentSHA256Mismatch(400, "The provided 'x-amz-content-sha256' header does not match what was computed.");

    private final int status;
    private final String defaultMessage;

    S3ErrorCode(int status, String defaultMessage) {
        this.status = status;
        this.defaultMessage = defaultMessage;
    }

    /** The code as it appears in the XML body ({@code <Code>}). */
    public String code() {
        return name();
    }

    public int status() {
        return status;
    }

    public String defaultMessage() {
        return defaultMessage;
    }
}
