package dev.appliance.s3.api;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.auth.AccessRequest;
import dev.appliance.s3.auth.AuthResult;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One authenticated S3 request as the operation handlers see it, free of any HTTP library type.
 *
 * @param bucket decoded bucket name, or null for the service ({@code GET /})
 * @param key decoded object key, or null for bucket-level requests
 * @param query decoded query parameters (first value of each; a parameter without value maps to "")
 * @param headers lower-case names, values in arrival order
 * @param body the verified body (see {@link dev.appliance.s3.auth.PayloadVerification}); empty when none was sent
 * @param bodySize decoded body size, -1 when unknown
 * @param verifiedChecksums the {@code x-amz-checksum-*} value the body was verified against (header name to base64),
 *     available once the body has been read to its end
 * @param checksumAlgorithm the algorithm of that checksum, known before the body (header or announced trailer), or
 *     null when the body carries none
 * @param secure whether the request came over TLS (for URLs the response names, e.g. POST Object's Location)
 * @param sourceIp the client's address (IPv4 or IPv6 literal), or null when unknown
 * @param received when the request arrived (the time policies see as aws:CurrentTime)
 */
public record S3Request(
        String method,
        String bucket,
        String key,
        Map<String, String> query,
        Map<String, List<String>> headers,
        AuthResult auth,
        InputStream body,
        long bodySize,
        String requestId,
        Supplier<Map<String, String>> verifiedChecksums,
        ChecksumAlgorithm checksumAlgorithm,
        boolean secure,
        String sourceIp,
        Instant received) {
    public S3Request(
            String method,
            String bucket,
            String key,
            Map<String, String> query,
            Map<String, List<String>> headers,
            AuthResult auth,
            InputStream body,
            long bodySize,
            String requestId,
            Supplier<Map<String, String>> verifiedChecksums,
            ChecksumAlgorithm checksumAlgorithm) {
        this(
                method,
                bucket,
                key,
                query,
                headers,
                auth,
                body,
                bodySize,
                requestId,
                verifiedChecksums,
                checksumAlgorithm,
                false);
    }

    public S3Request(
            String method,
            String bucket,
            String key,
            Map<String, String> query,
            Map<String, List<String>> headers,
            AuthResult auth,
            InputStream body,
            long bodySize,
            String requestId,
            Supplier<Map<String, String>> verifiedChecksums,
            ChecksumAlgorithm checksumAlgorithm,
            boolean secure) {
        this(
                method,
                bucket,
                key,
                query,
                headers,
                auth,
                body,
                bodySize,
                requestId,
                verifiedChecksums,
                checksumAlgorithm,
                secure,
                null,
                Instant.now());
    }

    public S3Request {
        requireNonNull(method, "method");
        query = Map.copyOf(query);
        requireNonNull(headers, "headers");
        requireNonNull(auth, "auth");
        requireNonNull(body, "body");
        requireNonNull(requestId, "requestId");
        verifiedChecksums = verifiedChecksums == null ? Map::of : verifiedChecksums;
        requireNonNull(received, "received");
    }

    /**
     * What the authorizer is asked for {@code action} on {@code bucket} and {@code key} by this request: its key,
     * address, transport, time and the S3 condition keys it carries (listing parameters, version id, canned ACL, Object
     * Lock headers, signature and authentication type).
     */
    public AccessRequest access(String action, String bucket, String key) {
        return access(auth.accessKey(), action, bucket, key);
    }

    /** As {@link #access(String, String, String)}, for a caller authenticated otherwise (POST Object's form). */
    public AccessRequest access(String accessKey, String action, String bucket, String key) {
        Map<String, String> keys = new HashMap<>();
        putIfPresent(keys, "s3:prefix", param("prefix"));
        putIfPresent(keys, "s3:delimiter", param("delimiter"));
        putIfPresent(keys, "s3:max-keys", param("max-keys"));
        putIfPresent(keys, "s3:versionid", param("versionId"));
        putIfPresent(keys, "s3:x-amz-acl", header("x-amz-acl"));
        putIfPresent(keys, "s3:x-amz-content-sha256", header("x-amz-content-sha256"));
        putIfPresent(keys, "s3:x-amz-copy-source", header("x-amz-copy-source"));
        putIfPresent(keys, "s3:object-lock-mode", header("x-amz-object-lock-mode"));
        putIfPresent(keys, "s3:object-lock-legal-hold", header("x-amz-object-lock-legal-hold"));
        String until = header("x-amz-object-lock-retain-until-date");
        if (until != null) {
            keys.put("s3:object-lock-retain-until-date", until);
            Long days = remainingDays(until, received);
            if (days != null) {
                keys.put("s3:object-lock-remaining-retention-days", Long.toString(days));
            }
        }
        if (!auth.isFormFields() && !auth.isAnonymous()) {
            keys.put("s3:signatureversion", "AWS4-HMAC-SHA256");
        }
        if (!auth.isAnonymous()) { // an anonymous request has no authentication type
            keys.put(
                    "s3:authtype",
                    auth.isFormFields()
                            ? "POST"
                            : header("authorization") != null ? "REST-HEADER" : "REST-QUERY-STRING");
        }
        return new AccessRequest(accessKey, action, bucket, key, sourceIp, secure, received, keys);
    }

    /** What the authorizer is asked for {@code action} on the bucket and key this request addresses. */
    public AccessRequest access(String action) {
        return access(action, bucket, key);
    }

    private static void putIfPresent(Map<String, String> keys, String name, String value) {
        if (value != null) {
            keys.put(name, value);
        }
    }

    /** Whole days from {@code now} until the retain-until date (0 once past), or null when it is no date. */
    static Long remainingDays(String retainUntil, Instant now) {
        try {
            Instant until = OffsetDateTime.parse(retainUntil).toInstant();
            return Math.max(0, Duration.between(now, until).toDays());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** First value of a header, or null. */
    public String header(String lowerCaseName) {
        List<String> v = headers.get(lowerCaseName);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    /** Every value of a list-valued header, in order, joined with commas as HTTP defines for repeated fields. */
    public String headerList(String lowerCaseName) {
        List<String> v = headers.get(lowerCaseName);
        return v == null || v.isEmpty() ? null : String.join(",", v);
    }

    public boolean hasParam(String name) {
        return query.containsKey(name);
    }

    public String param(String name) {
        return query.get(name);
    }

    /** The resource path for error bodies: {@code /bucket/key}. */
    public String resource() {
        if (bucket == null) {
            return "/";
        }
        return key == null ? "/" + bucket : "/" + bucket + "/" + key;
    }
}
