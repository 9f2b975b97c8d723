package dev.appliance.s3.api;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.auth.AuthResult;
import java.io.InputStream;
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
        boolean secure) {
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

    public S3Request {
        requireNonNull(method, "method");
        query = Map.copyOf(query);
        requireNonNull(headers, "headers");
        requireNonNull(auth, "auth");
        requireNonNull(body, "body");
        requireNonNull(requestId, "requestId");
        verifiedChecksums = verifiedChecksums == null ? Map::of : verifiedChecksums;
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
