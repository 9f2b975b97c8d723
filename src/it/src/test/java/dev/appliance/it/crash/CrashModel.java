package dev.appliance.it.crash;

import dev.appliance.it.veeam.Payload;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the crash workload knows about every key it writes: the versions whose writes were acknowledged, newest first,
 * and the one operation whose outcome is unknown (in flight at the kill, or failed), which may have happened or not.
 * Contents are kept as (seed, size) segments and regenerated to compare, never held.
 */
public final class CrashModel {
    private CrashModel() {}

    /** A run of bytes regenerated from a seed ({@link Payload}). */
    public record Segment(long seed, int size) {}

    /** One version: its id ("null" in an unversioned bucket), a delete marker or an object made of segments. */
    public record Ver(String versionId, boolean marker, List<Segment> content, String etag) {
        static Ver marker(String versionId) {
            return new Ver(versionId, true, List.of(), null);
        }

        Ver withId(String id) {
            return new Ver(id, marker, content, etag);
        }

        public long size() {
            long n = 0;
            for (Segment s : content) {
                n += s.size();
            }
            return n;
        }
    }

    /** What an operation of unknown outcome would have done. */
    public enum PendingKind {
        /** A PUT or a multipart completion: a new version {@link Pending#ver()} (id unknown) may exist. */
        PUT,
        /**
         * A PUT with Object Lock headers (COMPLIANCE until {@link KeyState#pendingRetention}), Veeam's block write: as
         * {@link #PUT}, and a version that appeared holds that retention.
         */
        LOCKED_PUT,
        /** A DELETE without version id in a versioned bucket: a new delete marker may exist. */
        MARKER,
        /** A DELETE of the version {@link Pending#versionId()}: it may be gone. */
        DELETE_VERSION,
        /** A DELETE in an unversioned bucket (with or without {@code versionId=null}): the object may be gone. */
        DELETE_NULL,
        /** A step of a multipart upload before its completion: an upload the model does not know may exist. */
        UPLOAD,
        /**
         * A PutObjectRetention of version {@link Pending#versionId()} to {@link KeyState#pendingRetention}: it may have
         * been set or not.
         */
        RETENTION
    }

    public record Pending(PendingKind kind, Ver ver, String versionId) {}

    /** An acknowledged PUT with Object Lock headers: its audit event must be recorded under its request id. */
    public record LockedPut(String key, String versionId, String requestId) {}

    /** A multipart upload the load created (acknowledged) and did not complete with an acknowledgement. */
    public record Upload(String uploadId, List<Segment> parts, List<String> partEtags, boolean allParts) {}

    /** One key; a worker owns it exclusively while it runs an operation on it ({@link #claim()}). */
    public static final class KeyState {
        public final String bucket;
        public final String key;
        public final boolean versioned;
        /** In the Object Lock bucket: versions get COMPLIANCE retention, and deleting those must be refused. */
        public final boolean locked;
        /** Acknowledged COMPLIANCE retain-until dates, by version id. */
        public final java.util.Map<String, java.time.Instant> retained = new java.util.concurrent.ConcurrentHashMap<>();
        /** The date a retention update or a PUT with Object Lock headers of unknown outcome asked for. */
        public java.time.Instant pendingRetention;
        /** Acknowledged versions, newest first (at most one, "null", in an unversioned bucket). */
        public final List<Ver> versions = new ArrayList<>();
        /** The operation of unknown outcome, or null; a key with one is not touched again until verified. */
        public Pending pending;

        public Upload upload;
        /** Uploads of this key completed or aborted with an answer: none of them may be listed again. */
        public final java.util.Set<String> endedUploads = java.util.concurrent.ConcurrentHashMap.newKeySet();

        private final AtomicBoolean busy = new AtomicBoolean();

        KeyState(String bucket, String key, boolean versioned) {
            this(bucket, key, versioned, false);
        }

        KeyState(String bucket, String key, boolean versioned, boolean locked) {
            this.bucket = bucket;
            this.key = key;
            this.versioned = versioned;
            this.locked = locked;
        }

        boolean claim() {
            return pending == null && busy.compareAndSet(false, true);
        }

        void release() {
            busy.set(false);
        }

        Ver latest() {
            return versions.isEmpty() ? null : versions.getFirst();
        }

        @Override
        public String toString() {
            return bucket + "/" + key;
        }
    }

    static String md5Hex(byte[] data) {
        return HexFormat.of().formatHex(Payload.digest("MD5", data));
    }

    /** S3's multipart ETag: the MD5 of the parts' binary MD5s, then {@code -N}. */
    static String multipartEtag(List<String> partEtags) {
        java.io.ByteArrayOutputStream md5s = new java.io.ByteArrayOutputStream();
        for (String e : partEtags) {
            md5s.writeBytes(HexFormat.of().parseHex(e));
        }
        return md5Hex(md5s.toByteArray()) + "-" + partEtags.size();
    }
}
