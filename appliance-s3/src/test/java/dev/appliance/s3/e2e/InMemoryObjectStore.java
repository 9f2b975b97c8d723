package dev.appliance.s3.e2e;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.DeleteResult;
import dev.appliance.core.ErrorKind;
import dev.appliance.core.ListObjectsResult;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectReader;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.PutRequest;
import dev.appliance.core.StorageException;
import dev.appliance.core.VersioningState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * TEMPORARY stand-in for the storage engine, only until the real engine is merged into this branch; then the
 * end-to-end tests run over ObjectStore.open(...) and this class is deleted.
 */
final class InMemoryObjectStore implements ObjectStore {
    private record Version(ObjectInfo info, byte[] data) {}

    private static final class Bucket {
        final Instant created = Instant.now();
        VersioningState versioning = VersioningState.UNVERSIONED;
        final TreeMap<String, LinkedList<Version>> keys = new TreeMap<>(InMemoryObjectStore::utf8Compare);
    }

    private final TreeMap<String, Bucket> buckets = new TreeMap<>();

    private static int utf8Compare(String a, String b) {
        return Arrays.compareUnsigned(
                a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private Bucket bucket(String name) {
        Bucket b = buckets.get(name);
        if (b == null) {
            throw new StorageException(ErrorKind.BUCKET_NOT_FOUND, name);
        }
        return b;
    }

    @Override
    public synchronized void makeBucket(String bucket) {
        if (buckets.containsKey(bucket)) {
            throw new StorageException(ErrorKind.BUCKET_ALREADY_OWNED, bucket);
        }
        buckets.put(bucket, new Bucket());
    }

    @Override
    public synchronized void deleteBucket(String bucket) {
        if (!bucket(bucket).keys.isEmpty()) {
            throw new StorageException(ErrorKind.BUCKET_NOT_EMPTY, bucket);
        }
        buckets.remove(bucket);
    }

    @Override
    public synchronized List<BucketInfo> listBuckets() {
        List<BucketInfo> out = new ArrayList<>();
        buckets.forEach((n, b) -> out.add(new BucketInfo(n, b.created, b.versioning)));
        return out;
    }

    @Override
    public synchronized BucketInfo bucketInfo(String bucket) {
        Bucket b = bucket(bucket);
        return new BucketInfo(bucket, b.created, b.versioning);
    }

    @Override
    public synchronized void setVersioning(String bucket, VersioningState state) {
        bucket(bucket).versioning = state;
    }

    @Override
    public synchronized VersioningState versioning(String bucket) {
        return bucket(bucket).versioning;
    }

    @Override
    public ObjectInfo putObject(String bucket, String key, PutRequest request, InputStream body) throws IOException {
        synchronized (this) {
            bucket(bucket);
        }
        byte[] data = body.readAllBytes(); // throws the body's own failure: nothing stored
        if (request.size() >= 0 && data.length != request.size()) {
            throw new StorageException(ErrorKind.INCOMPLETE_BODY, "size");
        }
        byte[] md5;
        try {
            md5 = MessageDigest.getInstance("MD5").digest(data);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        if (request.expectedMd5() != null && !Arrays.equals(md5, request.expectedMd5())) {
            throw new StorageException(ErrorKind.BAD_DIGEST, "md5");
        }
        synchronized (this) {
            Bucket b = bucket(bucket);
            String vid =
                    b.versioning == VersioningState.ENABLED ? UUID.randomUUID().toString() : "null";
            ObjectInfo info = new ObjectInfo(
                    bucket,
                    key,
                    vid,
                    true,
                    false,
                    data.length,
                    HexFormat.of().formatHex(md5),
                    Instant.now(),
                    request.contentType(),
                    request.userMetadata());
            add(b, key, new Version(info, data));
            return info;
        }
    }

    private static void add(Bucket b, String key, Version v) {
        LinkedList<Version> versions = b.keys.computeIfAbsent(key, k -> new LinkedList<>());
        if (v.info().versionId().equals("null")) {
            versions.removeIf(x -> x.info().versionId().equals("null"));
        }
        versions.addFirst(v);
    }

    private Version find(String bucket, String key, String versionId) {
        LinkedList<Version> versions = bucket(bucket).keys.get(key);
        if (versions == null || versions.isEmpty()) {
            throw new StorageException(
                    versionId == null ? ErrorKind.OBJECT_NOT_FOUND : ErrorKind.VERSION_NOT_FOUND, key);
        }
        Version v = versionId == null
                ? versions.getFirst()
                : versions.stream()
                        .filter(x -> x.info().versionId().equals(versionId))
                        .findFirst()
                        .orElse(null);
        if (v == null) {
            throw new StorageException(ErrorKind.VERSION_NOT_FOUND, key);
        }
        if (v.info().deleteMarker()) {
            throw new StorageException(
                    versionId == null ? ErrorKind.OBJECT_NOT_FOUND : ErrorKind.METHOD_NOT_ALLOWED,
                    key,
                    null,
                    true,
                    v.info().versionId());
        }
        return v;
    }

    @Override
    public synchronized ObjectInfo headObject(String bucket, String key, String versionId) {
        return latestFlag(bucket, key, find(bucket, key, versionId).info());
    }

    private ObjectInfo latestFlag(String bucket, String key, ObjectInfo i) {
        boolean latest = bucket(bucket).keys.get(key).getFirst().info() == i;
        return new ObjectInfo(
                i.bucket(),
                i.key(),
                i.versionId(),
                latest,
                i.deleteMarker(),
                i.size(),
                i.etag(),
                i.modTime(),
                i.contentType(),
                i.userMetadata());
    }

    @Override
    public synchronized ObjectReader getObject(String bucket, String key, String versionId, long offset, long length) {
        Version v = find(bucket, key, versionId);
        long len = length < 0 ? v.data().length - offset : length;
        return new ObjectReader() {
            @Override
            public ObjectInfo info() {
                return v.info();
            }

            @Override
            public long offset() {
                return offset;
            }

            @Override
            public long length() {
                return len;
            }

            @Override
            public void transferTo(OutputStream out) throws IOException {
                out.write(v.data(), (int) offset, (int) len);
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public synchronized DeleteResult deleteObject(String bucket, String key, String versionId) {
        Bucket b = bucket(bucket);
        LinkedList<Version> versions = b.keys.get(key);
        if (versionId != null) {
            if (versions == null || !versions.removeIf(x -> x.info().versionId().equals(versionId))) {
                throw new StorageException(ErrorKind.VERSION_NOT_FOUND, key);
            }
            if (versions.isEmpty()) {
                b.keys.remove(key);
            }
            return new DeleteResult(versionId, false);
        }
        if (b.versioning == VersioningState.UNVERSIONED) {
            if (versions != null) {
                b.keys.remove(key);
            }
            return new DeleteResult(null, false);
        }
        String vid = b.versioning == VersioningState.ENABLED ? UUID.randomUUID().toString() : "null";
        add(
                b,
                key,
                new Version(
                        new ObjectInfo(bucket, key, vid, true, true, 0, null, Instant.now(), null, Map.of()), null));
        return new DeleteResult(vid, true);
    }

    @Override
    public synchronized ListObjectsResult listObjects(
            String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        Bucket b = bucket(bucket);
        List<ObjectInfo> objects = new ArrayList<>();
        TreeSet<String> prefixes = new TreeSet<>();
        String last = null;
        for (Map.Entry<String, LinkedList<Version>> e : b.keys.entrySet()) {
            String key = e.getKey();
            if (prefix != null && !key.startsWith(prefix)) {
                continue;
            }
            if (startAfter != null && utf8Compare(key, startAfter) <= 0) {
                continue;
            }
            ObjectInfo latest = e.getValue().getFirst().info();
            if (latest.deleteMarker()) {
                continue;
            }
            String entry = key;
            if (delimiter != null) {
                int d = key.indexOf(delimiter, prefix == null ? 0 : prefix.length());
                if (d >= 0) {
                    entry = key.substring(0, d + delimiter.length());
                    if (startAfter != null && startAfter.startsWith(entry)) {
                        continue;
                    }
                    if (prefixes.contains(entry)) {
                        continue;
                    }
                }
            }
            if (objects.size() + prefixes.size() == maxKeys) {
                return new ListObjectsResult(objects, List.copyOf(prefixes), true, last);
            }
            if (entry.equals(key)) {
                objects.add(latest);
            } else {
                prefixes.add(entry);
            }
            last = entry;
        }
        return new ListObjectsResult(objects, List.copyOf(prefixes), false, null);
    }

    @Override
    public synchronized ListVersionsResult listObjectVersions(
            String bucket, String prefix, String delimiter, String keyMarker, String versionIdMarker, int maxKeys) {
        Bucket b = bucket(bucket);
        List<ObjectInfo> out = new ArrayList<>();
        for (Map.Entry<String, LinkedList<Version>> e : b.keys.entrySet()) {
            if (prefix != null && !e.getKey().startsWith(prefix)) {
                continue;
            }
            if (keyMarker != null && utf8Compare(e.getKey(), keyMarker) < 0) {
                continue;
            }
            boolean first = true;
            boolean skipping = keyMarker != null && e.getKey().equals(keyMarker);
            for (Version v : e.getValue()) {
                ObjectInfo i = v.info();
                if (skipping) {
                    if (versionIdMarker == null || i.versionId().equals(versionIdMarker)) {
                        skipping = versionIdMarker != null && i.versionId().equals(versionIdMarker) ? false : true;
                        if (versionIdMarker == null) {
                            break;
                        }
                    }
                    first = false;
                    continue;
                }
                if (out.size() == maxKeys) {
                    ObjectInfo prev = out.getLast();
                    return new ListVersionsResult(out, List.of(), true, prev.key(), prev.versionId());
                }
                out.add(new ObjectInfo(
                        i.bucket(),
                        i.key(),
                        i.versionId(),
                        first,
                        i.deleteMarker(),
                        i.size(),
                        i.etag(),
                        i.modTime(),
                        i.contentType(),
                        i.userMetadata()));
                first = false;
            }
        }
        return new ListVersionsResult(out, List.of(), false, null, null);
    }

    @Override
    public void close() {}
}
