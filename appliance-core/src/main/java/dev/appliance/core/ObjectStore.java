package dev.appliance.core;

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

    /** Opens the erasure-coded store on {@code config}'s drives, formatting them on first use. */
    static ObjectStore open(StoreConfig config) {
        return dev.appliance.core.erasure.ErasureObjectStore.open(config);
    }

    void makeBucket(String bucket);

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
    DeleteResult deleteObject(String bucket, String key, String versionId);

    /**
     * Copies a version into a new object (streamed block by block, never whole in memory). With {@code request} null
     * the source's metadata is kept (S3's COPY directive); else the request's metadata replaces it (REPLACE).
     */
    ObjectInfo copyObject(
            String sourceBucket,
            String sourceKey,
            String sourceVersionId,
            String bucket,
            String key,
            PutRequest request)
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

    /** Starts a multipart upload; the returned id names it in the calls below. */
    String createMultipartUpload(String bucket, String key, PutRequest request);

    /** Stores one part (1..10000), erasure-coded as it arrives; a part uploaded again replaces the earlier one. */
    UploadedPart uploadPart(
            String bucket, String key, String uploadId, int partNumber, PutRequest request, InputStream body)
            throws IOException;

    /**
     * Assembles the named parts, in ascending order, into a new version: metadata only, the part files move into
     * place without being copied. The ETag is the MD5 of the parts' binary MD5s, a dash and the part count.
     */
    ObjectInfo completeMultipartUpload(String bucket, String key, String uploadId, List<CompletedPart> parts);

    void abortMultipartUpload(String bucket, String key, String uploadId);

    /** The upload's parts in part-number order, after {@code partNumberMarker}, at most {@code maxParts}. */
    List<UploadedPart> listParts(String bucket, String key, String uploadId, int partNumberMarker, int maxParts);

    /** Uploads in progress whose keys start with {@code prefix}, by key then initiation time. */
    List<MultipartUpload> listMultipartUploads(String bucket, String prefix);

    ListObjectsResult listObjects(String bucket, String prefix, String delimiter, String startAfter, int maxKeys);

    ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys);

    @Override
    void close();
}
