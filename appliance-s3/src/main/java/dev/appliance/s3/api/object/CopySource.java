package dev.appliance.s3.api.object;

import dev.appliance.core.ObjectInfo;
import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * The source of CopyObject and UploadPartCopy: {@code x-amz-copy-source: [/]bucket/key[?versionId=id]}, URL-encoded,
 * and the {@code x-amz-copy-source-if-*} conditions on it.
 */
public record CopySource(String bucket, String key, String versionId) {

    public static CopySource parse(S3Request r) {
        String raw = r.header("x-amz-copy-source");
        if (raw == null || raw.isBlank()) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Copy Source must mention the source bucket and key");
        }
        String versionId = null;
        int q = raw.indexOf('?');
        if (q >= 0) {
            String query = raw.substring(q + 1);
            raw = raw.substring(0, q);
            if (!query.startsWith("versionId=")) {
                throw new S3Exception(S3ErrorCode.InvalidArgument, "Unsupported copy source parameter: " + query);
            }
            versionId = URLDecoder.decode(query.substring("versionId=".length()), StandardCharsets.UTF_8);
        }
        String path;
        try {
            path = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid copy source encoding");
        }
        if (path.startsWith("/")) {
            path = path.substring(1);
        }
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "Copy Source must mention the source bucket and key");
        }
        return new CopySource(path.substring(0, slash), path.substring(slash + 1), Params.emptyToNull(versionId));
    }

    /**
     * Copying reads the source: the caller must also be allowed {@code s3:GetObject} (or {@code s3:GetObjectVersion})
     * on it, checked through the same authorization seam as every other action.
     */
    public void authorize(S3Request r, dev.appliance.s3.auth.Authorizer authorizer) {
        String action = versionId == null ? "s3:GetObject" : "s3:GetObjectVersion";
        if (!authorizer.allowed(r.access(action, bucket, key))) {
            throw new S3Exception(S3ErrorCode.AccessDenied);
        }
    }

    /** Applies {@code x-amz-copy-source-if-match/none-match/modified-since/unmodified-since}: 412 when one fails. */
    public static void checkConditions(S3Request r, ObjectInfo source) {
        String etag = "\"" + source.etag() + "\"";
        String ifMatch = r.header("x-amz-copy-source-if-match");
        String ifNoneMatch = r.header("x-amz-copy-source-if-none-match");
        Instant modified = source.modTime();
        Instant modifiedSince = date(r.header("x-amz-copy-source-if-modified-since"));
        Instant unmodifiedSince = date(r.header("x-amz-copy-source-if-unmodified-since"));
        boolean ok = true;
        if (ifMatch != null) {
            ok = matches(ifMatch, etag);
            // As S3: a matching If-Match wins over a failing If-Unmodified-Since.
            unmodifiedSince = null;
        }
        if (ifNoneMatch != null) {
            ok &= !matches(ifNoneMatch, etag);
            modifiedSince = ifNoneMatch != null && !matches(ifNoneMatch, etag) ? null : modifiedSince;
        }
        if (unmodifiedSince != null && modified.getEpochSecond() > unmodifiedSince.getEpochSecond()) {
            ok = false;
        }
        if (modifiedSince != null && modified.getEpochSecond() <= modifiedSince.getEpochSecond()) {
            ok = false;
        }
        if (!ok) {
            throw new S3Exception(S3ErrorCode.PreconditionFailed);
        }
    }

    private static boolean matches(String header, String quotedEtag) {
        for (String candidate : header.split(",")) {
            String c = candidate.trim();
            if (c.equals("*") || c.equals(quotedEtag) || ("\"" + c + "\"").equals(quotedEtag)) {
                return true;
            }
        }
        return false;
    }

    private static Instant date(String value) {
        if (value == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException e2) {
                return null; // S3 ignores an unparsable date condition
            }
        }
    }
}
