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

    ListObjectsResult listObjects(String bucket, String prefix, String delimiter, String startAfter, int maxKeys);

    ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys);

    @Override
    void close();
}
