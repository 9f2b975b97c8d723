package dev.appliance.s3.api.objectlock;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.auth.AccessRequest;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Object Lock headers of PutObject, CopyObject and CreateMultipartUpload ({@code x-amz-object-lock-mode}, {@code
 * -retain-until-date}, {@code -legal-hold}), the same headers on GET and HEAD, and {@code
 * x-amz-bypass-governance-retention}.
 */
public final class LockHeaders {
    public static final String BYPASS_HEADER = "x-amz-bypass-governance-retention";
    public static final String BYPASS_ACTION = "s3:BypassGovernanceRetention";

    private LockHeaders() {}

    /**
     * The lock entries a write request names, checked for form: a known mode and a parsable date, both or neither; legal
     * hold {@code ON} or {@code OFF}. Empty when the request names none. Whether the bucket has lock enabled and the
     * date lies in the future is the engine's to check.
     */
    public static Map<String, String> entries(S3Request r) {
        return entries(r::header);
    }

    /** As {@link #entries(S3Request)}, from fields looked up by lower-case name (the form fields of a POST upload). */
    public static Map<String, String> entries(java.util.function.Function<String, String> field) {
        String mode = field.apply(ObjectLock.MODE_KEY);
        String until = field.apply(ObjectLock.RETAIN_UNTIL_KEY);
        String hold = field.apply(ObjectLock.LEGAL_HOLD_KEY);
        Map<String, String> entries = new TreeMap<>();
        if ((mode == null) != (until == null)) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument,
                    "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied");
        }
        if (mode != null) {
            RetentionMode m = RetentionMode.forName(mode.strip())
                    .orElseThrow(() -> new S3Exception(S3ErrorCode.InvalidArgument, "Unknown wormMode directive."));
            Instant date = ObjectLock.parseDate(until);
            if (date == null) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument, "The retain until date must be provided in ISO 8601 format");
            }
            entries.put(ObjectLock.MODE_KEY, m.name());
            entries.put(ObjectLock.RETAIN_UNTIL_KEY, ObjectLock.format(date));
        }
        if (hold != null) {
            String h = hold.strip();
            if (!h.equals("ON") && !h.equals("OFF")) {
                throw new S3Exception(S3ErrorCode.InvalidArgument, "Legal Hold must be either of 'ON' or 'OFF'");
            }
            entries.put(ObjectLock.LEGAL_HOLD_KEY, h);
        }
        return entries;
    }

    /**
     * As S3: a write that sets retention needs {@code s3:PutObjectRetention}, one that sets legal hold needs {@code
     * s3:PutObjectLegalHold}, besides the permission of the write itself.
     */
    public static void authorizeWrite(Map<String, String> entries, AccessRequest write, Authorizer authorizer) {
        if (entries.containsKey(ObjectLock.MODE_KEY)
                && !authorizer.allowed(write.forAction("s3:PutObjectRetention", write.bucket(), write.key()))) {
            throw new S3Exception(S3ErrorCode.AccessDenied);
        }
        if (entries.containsKey(ObjectLock.LEGAL_HOLD_KEY)
                && !authorizer.allowed(write.forAction("s3:PutObjectLegalHold", write.bucket(), write.key()))) {
            throw new S3Exception(S3ErrorCode.AccessDenied);
        }
    }

    /** Adds the version's lock state to a GET or HEAD response. */
    public static void addTo(S3Response resp, ObjectInfo info) {
        Map<String, String> meta = info.userMetadata();
        String mode = meta.get(ObjectLock.MODE_KEY);
        String until = meta.get(ObjectLock.RETAIN_UNTIL_KEY);
        if (mode != null && until != null) {
            resp.header(ObjectLock.MODE_KEY, mode).header(ObjectLock.RETAIN_UNTIL_KEY, until);
        }
        String hold = meta.get(ObjectLock.LEGAL_HOLD_KEY);
        if (hold != null) {
            resp.header(ObjectLock.LEGAL_HOLD_KEY, hold);
        }
    }

    /**
     * True when the request asks to bypass governance retention ({@code x-amz-bypass-governance-retention: true}) and
     * the caller is allowed {@code s3:BypassGovernanceRetention} on the key; a request that asks without the permission
     * is treated as not asking, so the engine refuses whatever needed the bypass.
     */
    public static boolean bypassGovernance(S3Request r, Authorizer authorizer, String key) {
        String h = r.header(BYPASS_HEADER);
        return h != null
                && h.strip().equalsIgnoreCase("true")
                && authorizer.allowed(r.access(BYPASS_ACTION, r.bucket(), key));
    }

    /**
     * Reads a small configuration body that S3 requires an integrity header for (retention, legal hold, lifecycle):
     * refused without {@code Content-MD5} or an {@code x-amz-checksum-*} header or trailer; a {@code Content-MD5} is
     * verified here (an {@code x-amz-checksum-*} by the body stream as it ends).
     */
    public static byte[] readIntegrityCheckedBody(S3Request r, int limit) throws java.io.IOException {
        if (!hasIntegrityHeader(r)) {
            throw new S3Exception(S3ErrorCode.InvalidRequest, ObjectLockHandlers.MISSING_INTEGRITY);
        }
        byte[] expected = contentMd5(r.header("content-md5"));
        byte[] body = dev.appliance.s3.api.Params.readSmallBody(r, limit);
        if (expected != null && !java.security.MessageDigest.isEqual(md5(body), expected)) {
            throw new S3Exception(S3ErrorCode.BadDigest);
        }
        return body;
    }

    private static byte[] contentMd5(String header) {
        if (header == null) {
            return null;
        }
        try {
            byte[] md5 = java.util.Base64.getDecoder().decode(header.strip());
            if (md5.length == 16) {
                return md5;
            }
        } catch (IllegalArgumentException e) {
            // refused below
        }
        throw new S3Exception(S3ErrorCode.InvalidDigest);
    }

    private static byte[] md5(byte[] body) {
        try {
            return java.security.MessageDigest.getInstance("MD5").digest(body);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("MD5 unavailable", e);
        }
    }

    /** True when the request carries {@code Content-MD5} or an {@code x-amz-checksum-*} header or trailer. */
    public static boolean hasIntegrityHeader(S3Request r) {
        if (r.header("content-md5") != null || r.header("x-amz-trailer") != null) {
            return true;
        }
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            if (r.header(a.headerName()) != null) {
                return true;
            }
        }
        return false;
    }
}
