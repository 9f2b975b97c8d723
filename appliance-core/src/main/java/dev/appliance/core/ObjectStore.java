package dev.appliance.core;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The one entry type of the storage engine: buckets, versioned objects and listings over erasure-coded drives.
 *
 * <p>Every method may block on disk I/O: callers run it on a worker thread (a virtual thread is fine), never on an
 * event loop. Failures the caller can explain to a client are {@link StorageException}s carrying an {@link
 * ErrorKind}; an {@link IOException} from {@code putObject} is the request body's own failure, passed through.
 */
public interface ObjectStore extends AutoCloseable {

    /** Creates a bucket without Object Lock. */
    default void makeBucket(String bucket) {
        makeBucket(bucket, false);
    }

    /**
     * Creates a bucket; with {@code objectLock}, Object Lock is enabled (without default retention) and versioning is
     * turned on, both for good.
     */
    void makeBucket(String bucket, boolean objectLock);

    /**
     * Enables Object Lock on a bucket, or changes its default retention. Versioning must be enabled ({@link
     * ErrorKind#INVALID_BUCKET_STATE} otherwise); lock can never be disabled again.
     */
    void setObjectLockConfiguration(String bucket, dev.appliance.core.objectlock.ObjectLockConfiguration config);

    /** The bucket's Object Lock configuration, or null when lock is not enabled. */
    dev.appliance.core.objectlock.ObjectLockConfiguration objectLockConfiguration(String bucket);

    /**
     * Sets (or with {@code retention} null, removes) the retention of one version (the latest when {@code versionId} is
     * null): metadata only, under the key's lock, by the rules of {@link dev.appliance.core.objectlock.ObjectLock}
     * ({@link ErrorKind#OBJECT_LOCKED} when refused). {@code bypassGovernance} means the caller asked to bypass
     * governance retention and is allowed to.
     */
    ObjectInfo putObjectRetention(
            String bucket,
            String key,
            String versionId,
            dev.appliance.core.objectlock.Retention retention,
            boolean bypassGovernance);

    /** Sets legal hold of one version on or off (metadata only). */
    ObjectInfo putObjectLegalHold(String bucket, String key, String versionId, boolean on);

    /** Trusted time of Object Lock (see {@link dev.appliance.core.objectlock.RetentionClock}). */
    java.time.Instant retentionNow();

    /** Removes an empty bucket; {@link ErrorKind#BUCKET_NOT_EMPTY} while any version or delete marker remains. */
    void deleteBucket(String bucket);

    /** All buckets, sorted by name. */
    List<BucketInfo> listBuckets();

    BucketInfo bucketInfo(String bucket);

    void setVersioning(String bucket, VersioningState state);

    VersioningState versioning(String bucket);

    /**
     * Streams {@code body} into erasure-coded shards and commits a new version (or replaces the {@code null} version),
     * acknowledging only once data and metadata are on stable storage on a write quorum of drives.
     *
     * @throws IOException when reading {@code body} fails; nothing is committed then
     */
    ObjectInfo putObject(String bucket, String key, PutRequest request, InputStream body) throws IOException;

    /** Metadata of the latest version ({@code versionId} null) or of one version ({@code "null"} names the null version). */
    ObjectInfo headObject(String bucket, String key, String versionId);

    /**
     * Opens a version for reading {@code length} bytes from {@code offset}; {@code length} -1 reads to the end.
     * The returned reader must be closed.
     */
    ObjectReader getObject(String bucket, String key, String versionId, long offset, long length);

    /**
     * Deletes as S3 does: without {@code versionId}, removes the null version of an unversioned bucket or adds a delete
     * marker in a versioned or suspended one; with it, removes that version permanently.
     */
    default DeleteResult deleteObject(String bucket, String key, String versionId) {
        return deleteObject(bucket, key, versionId, false);
    }

    /**
     * As above; in an Object Lock bucket a version under active retention or legal hold is not removed ({@link
     * ErrorKind#OBJECT_LOCKED}), unless its retention is GOVERNANCE and {@code bypassGovernance} is true. A delete
     * without {@code versionId} always succeeds by adding a delete marker.
     */
    DeleteResult deleteObject(String bucket, String key, String versionId, boolean bypassGovernance);

    /**
     * Copies a version into a new object (streamed block by block, never whole in memory). With {@code request} null
     * the source's metadata is kept (S3's COPY directive); else the request's metadata replaces it (REPLACE).
     */
    default ObjectInfo copyObject(
            String sourceBucket,
            String sourceKey,
            String sourceVersionId,
            String bucket,
            String key,
            PutRequest request)
            throws IOException {
        return copyObject(sourceBucket, sourceKey, sourceVersionId, bucket, key, request, java.util.Map.of());
    }

    /**
     * As above, with the Object Lock entries the copy request names ({@code objectLock}, see {@link
     * dev.appliance.core.objectlock.ObjectLock}); the source's lock state is never copied.
     */
    ObjectInfo copyObject(
            String sourceBucket,
            String sourceKey,
            String sourceVersionId,
            String bucket,
            String key,
            PutRequest request,
            java.util.Map<String, String> objectLock)
            throws IOException;

    /**
     * Replaces the stored metadata entries of one version (the latest when {@code versionId} is null) for which
     * {@code keep} is false with {@code entries}, leaving its data untouched (object tags live here as
     * {@code x-amz-tagging}). Returns the updated version.
     */
    ObjectInfo updateMetadata(
            String bucket,
            String key,
            String versionId,
            java.util.function.Predicate<String> keep,
            java.util.Map<String, String> entries);

    /** Sets (or with an empty map, removes) a bucket's tags. */
    void setBucketTags(String bucket, java.util.Map<String, String> tags);

    /** A bucket's tags (empty when none). */
    java.util.Map<String, String> bucketTags(String bucket);

    /** Starts a multipart upload without a declared checksum (the object gets S3's default, a full-object CRC64NVME). */
    default String createMultipartUpload(String bucket, String key, PutRequest request) {
        return createMultipartUpload(bucket, key, request, null);
    }

    /**
     * Starts a multipart upload; the returned id names it in the calls below.
     *
     * @param checksum the checksum the upload declares (every part gets one, and completing builds the object's from
     *     them), or null
     */
    String createMultipartUpload(String bucket, String key, PutRequest request, MultipartChecksum checksum);

    /** The upload as it was created (its key, initiation time and declared checksum). */
    MultipartUpload multipartUpload(String bucket, String key, String uploadId);

    /**
     * Stores one part (1..10000), erasure-coded as it arrives; a part uploaded again replaces the earlier one. When the
     * upload declared a checksum, a request checksum ({@link PutRequest#checksumAlgorithm()}) of another algorithm is
     * refused ({@link ErrorKind#INVALID_REQUEST}) before the body is read, and without one the part's is computed here.
     */
    UploadedPart uploadPart(
            String bucket, String key, String uploadId, int partNumber, PutRequest request, InputStream body)
            throws IOException;

    /**
     * Assembles the named parts, in ascending order, into a new version: metadata only, the part files move into
     * place without being copied. The ETag is the MD5 of the parts' binary MD5s, a dash and the part count.
     */
    default ObjectInfo completeMultipartUpload(String bucket, String key, String uploadId, List<CompletedPart> parts) {
        return completeMultipartUpload(bucket, key, uploadId, parts, CompleteChecksum.NONE);
    }

    /**
     * As above, checking the part checksums the request names ({@link ErrorKind#INVALID_PART} on a mismatch, {@link
     * ErrorKind#INVALID_REQUEST} when a composite upload's request leaves one out) and the whole-object checksum it
     * states ({@link ErrorKind#BAD_DIGEST}). The object's checksum, built from the part checksums, is stored as the
     * metadata entries {@code x-amz-checksum-<algorithm>} and {@code x-amz-checksum-type}, and each part's in its
     * {@link ObjectInfo#partChecksums()}.
     */
    default ObjectInfo completeMultipartUpload(
            String bucket, String key, String uploadId, List<CompletedPart> parts, CompleteChecksum checksum) {
        return completeMultipartUpload(bucket, key, uploadId, parts, checksum, WriteConditions.NONE);
    }

    /**
     * As above, only if {@code conditions} hold for the key's current object ({@link ErrorKind#PRECONDITION_FAILED},
     * or {@link ErrorKind#OBJECT_NOT_FOUND} for If-Match on a missing key); the upload stays open when they do not.
     * A repeated completion of an upload that already completed (a client retrying after a lost response) answers the
     * object it made, as long as that object is still the key's current one and the request names the same parts.
     */
    ObjectInfo completeMultipartUpload(
            String bucket,
            String key,
            String uploadId,
            List<CompletedPart> parts,
            CompleteChecksum checksum,
            WriteConditions conditions);

    void abortMultipartUpload(String bucket, String key, String uploadId);

    /** The upload's parts in part-number order, after {@code partNumberMarker}, at most {@code maxParts}. */
    List<UploadedPart> listParts(String bucket, String key, String uploadId, int partNumberMarker, int maxParts);

    /** Uploads in progress whose keys start with {@code prefix}, by key then initiation time. */
    List<MultipartUpload> listMultipartUploads(String bucket, String prefix);

    ListObjectsResult listObjects(String bucket, String prefix, String delimiter, String startAfter, int maxKeys);

    ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys);

    /** The pool's capacity after erasure overhead, from the drives' file systems now. */
    StorageCapacity capacity();

    /**
     * The bucket's usage, counted by walking all its versions; kept and recounted in the background when older than
     * the store's usage refresh interval (the first call for a bucket counts before answering).
     */
    BucketUsage bucketUsage(String bucket);

    /**
     * Every bucket's usage summed from the counts already kept, without walking any bucket: memory work only, however
     * many buckets exist (a summary page must not count thousands of buckets to show one figure). A bucket never
     * counted is left out until the scanner or a read of its own usage counts it.
     */
    UsageTotals usageTotals();

    /**
     * Sets a bucket's lifecycle configuration (replacing any earlier one), or with {@code config} null removes it. The
     * background scanner applies it.
     */
    void setLifecycleConfiguration(String bucket, dev.appliance.core.lifecycle.LifecycleConfiguration config);

    /** The bucket's lifecycle configuration, or null when it has none. */
    dev.appliance.core.lifecycle.LifecycleConfiguration lifecycleConfiguration(String bucket);

    /**
     * When the given current version expires by the bucket's lifecycle rules and by which rule (S3's {@code
     * x-amz-expiration}); null when no rule expires it, or {@code info} is not the current version.
     */
    dev.appliance.core.lifecycle.Lifecycle.Expiry expiration(ObjectInfo info);

    BucketSettings bucketSettings(String bucket);

    void setBucketSettings(String bucket, BucketSettings settings);

    /**
     * Sets the bucket's policy (JSON text, kept as given), or with {@code json} null removes it. Refused with {@link
     * dev.appliance.core.policy.MalformedPolicyException} when the document is not a valid bucket policy for {@code
     * bucket}, and with ACCESS_DENIED when it is public while the bucket's public access block has BlockPublicPolicy.
     */
    void setBucketPolicy(String bucket, String json);

    /** The bucket's policy (JSON text as given), or null when it has none. */
    String bucketPolicy(String bucket);

    /**
     * Sets the bucket's public access block, or with {@code block} null returns it to the default: {@link
     * PublicAccessBlock#BLOCK_ALL}.
     */
    void setPublicAccessBlock(String bucket, PublicAccessBlock block);

    /** The bucket's public access block; {@link PublicAccessBlock#BLOCK_ALL} unless one was set. */
    PublicAccessBlock publicAccessBlock(String bucket);

    @Override
    void close();
}
