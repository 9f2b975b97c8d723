package dev.appliance.s3.api.sosapi;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.StorageCapacity;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.object.ByteRange;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Predicate;

/**
 * Veeam's Smart Object Storage API (SOSAPI 1.0): {@code system.xml} and {@code capacity.xml} under the bucket's
 * {@code .system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/} folder, made on every GET/HEAD from live figures. They are
 * never stored, so they are never listed, counted, healed or expired; writes to them are refused.
 *
 * <p>capacity.xml, all in client bytes (after erasure overhead): {@code Used} is the logical bytes of every version in
 * the bucket (noncurrent and locked ones included). Without a quota {@code Available} is what the pool still has free
 * and {@code Capacity} is {@code Used + Available}; with one, {@code Capacity} is the quota and {@code Available} what
 * is left of it, but never more than the pool has free and never negative.
 */
public final class SosApi {
    public static final String FOLDER = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/";
    public static final String SYSTEM_XML = FOLDER + "system.xml";
    public static final String CAPACITY_XML = FOLDER + "capacity.xml";

    private final ObjectStore store;
    private final String modelName;
    private final Predicate<String> onByDefault;

    /**
     * @param modelName the product and version Veeam shows and counts in its statistics
     * @param onByDefault whether a bucket without an explicit setting answers SOSAPI (Object Lock buckets do)
     */
    public SosApi(ObjectStore store, String modelName, Predicate<String> onByDefault) {
        this.store = store;
        this.modelName = modelName;
        this.onByDefault = onByDefault;
    }

    /** One of the two virtual objects (other names in the folder are ordinary keys). */
    public static boolean isVirtualKey(String key) {
        return SYSTEM_XML.equals(key) || CAPACITY_XML.equals(key);
    }

    public boolean enabled(String bucket) {
        BucketSettings settings = store.bucketSettings(bucket);
        return settings.sosapi() != null ? settings.sosapi() : onByDefault.test(bucket);
    }

    /** Writes (PUT, copy onto, multipart, DELETE) to the virtual objects: read-only for every client. */
    public static S3Exception readOnly() {
        return new S3Exception(
                S3ErrorCode.AccessDenied,
                "The Veeam SOSAPI objects of a bucket are read-only; they are set by the appliance.");
    }

    /** GET or HEAD of a virtual object (Range honoured), or null when SOSAPI is off for the bucket. */
    public S3Response get(S3Request r, boolean head) {
        if (r.param("versionId") != null || !enabled(r.bucket())) {
            return null;
        }
        byte[] body = r.key().equals(SYSTEM_XML) ? systemXml() : capacityXml(r.bucket());
        ByteRange range = ByteRange.parse(r.header("range"), body.length);
        S3Response resp = S3Response.status(range == null ? 200 : 206)
                .header("Content-Type", "application/xml")
                .header("ETag", Params.quotedEtag(md5Hex(body)))
                .header("Last-Modified", Params.httpDate(Instant.now().truncatedTo(ChronoUnit.SECONDS)))
                .header("Accept-Ranges", "bytes");
        byte[] sent = range == null
                ? body
                : Arrays.copyOfRange(body, (int) range.offset(), (int) (range.offset() + range.length()));
        if (range != null) {
            resp.header("Content-Range", range.contentRange(body.length));
        }
        if (head) {
            return resp.header("Content-Length", Integer.toString(sent.length));
        }
        return resp.body(sent);
    }

    byte[] systemXml() {
        // Veeam wants the quotes in ProtocolVersion and ModelName; no recommendations unless agreed with Veeam.
        return new XmlWriter()
                .start("SystemInfo")
                .element("ProtocolVersion", "\"1.0\"")
                .element("ModelName", "\"" + modelName + "\"")
                .start("ProtocolCapabilities")
                .element("CapacityInfo", true)
                .element("UploadSessions", false)
                .element("IAMSTS", false)
                .end()
                .toBytes();
    }

    byte[] capacityXml(String bucket) {
        StorageCapacity pool = store.capacity();
        BucketUsage usage = store.bucketUsage(bucket);
        Long quota = store.bucketSettings(bucket).quotaBytes();
        long used = usage.bytes();
        long free = Math.max(0, pool.freeBytes());
        long capacity;
        long available;
        if (quota != null) {
            capacity = quota;
            available = Math.max(0, Math.min(quota - used, free));
        } else {
            // The pool's total would count other buckets, other data on shared file systems and reserved blocks as
            // room: the bucket's own bytes plus what still fits is what Veeam can fill, and adds up as Veeam checks.
            available = free;
            capacity = used + available;
        }
        return new XmlWriter()
                .start("CapacityInfo")
                .element("Capacity", capacity)
                .element("Available", available)
                .element("Used", used)
                .toBytes();
    }

    private static String md5Hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
