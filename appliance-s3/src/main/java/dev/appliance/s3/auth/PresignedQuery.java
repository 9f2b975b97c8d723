package dev.appliance.s3.auth;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The SigV4 query-authentication parameters of a presigned URL, parsed and checked for form: {@code
 * X-Amz-Algorithm}, {@code X-Amz-Credential}, {@code X-Amz-Date}, {@code X-Amz-Expires}, {@code X-Amz-SignedHeaders},
 * {@code X-Amz-Signature}. Malformed or missing parameters are {@code AuthorizationQueryParametersError} (400).
 */
record PresignedQuery(
        String accessKey,
        String credentialDate,
        String region,
        String service,
        String amzDate,
        Instant date,
        long expiresSeconds,
        List<String> signedHeaders,
        String signature,
        String payloadHash) {

    /** S3's longest presigned URL validity: 7 days. */
    static final long MAX_EXPIRES_SECONDS = 604_800;

    /** The decoded {@code X-Amz-*} parameters when the query carries query authentication, else an empty map. */
    static Map<String, String> authParams(String rawQuery) {
        if (rawQuery == null
                || !(rawQuery.contains("X-Amz-Algorithm=")
                        || rawQuery.contains("X-Amz-Credential=")
                        || rawQuery.contains("X-Amz-Signature="))) {
            return Map.of();
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (String part : rawQuery.split("&")) {
            int eq = part.indexOf('=');
            String name = UriEncoding.decode(eq < 0 ? part : part.substring(0, eq));
            if (name.startsWith("X-Amz-")) {
                String value = eq < 0 ? "" : UriEncoding.decode(part.substring(eq + 1));
                if (params.putIfAbsent(name, value) != null) {
                    throw error(name + " is given more than once");
                }
            }
        }
        return params;
    }

    static PresignedQuery parse(Map<String, String> q) {
        String algorithm = q.get("X-Amz-Algorithm");
        String credential = q.get("X-Amz-Credential");
        String amzDate = q.get("X-Amz-Date");
        String expires = q.get("X-Amz-Expires");
        String signedHeaders = q.get("X-Amz-SignedHeaders");
        String signature = q.get("X-Amz-Signature");
        if (algorithm == null
                || credential == null
                || amzDate == null
                || expires == null
                || signedHeaders == null
                || signature == null) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationQueryParametersError,
                    "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential,"
                            + " X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
        }
        if (!algorithm.equals(SigV4.ALGORITHM)) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationQueryParametersError,
                    "X-Amz-Algorithm only supports \"" + SigV4.ALGORITHM + "\"");
        }
        long seconds;
        try {
            seconds = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            throw error("X-Amz-Expires should be a number");
        }
        if (seconds < 1) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationQueryParametersError, "X-Amz-Expires must be at least 1 second");
        }
        if (seconds > MAX_EXPIRES_SECONDS) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationQueryParametersError,
                    "X-Amz-Expires must be less than a week (in seconds) that is 604800");
        }
        Instant date;
        try {
            date = AmzDate.parse(amzDate);
        } catch (DateTimeParseException e) {
            throw error("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
        }
        String[] scope = credential.split("/", -1);
        if (scope.length != 5 || scope[0].isEmpty() || !scope[4].equals("aws4_request")) {
            throw error(
                    "Error parsing the X-Amz-Credential parameter; expecting AccessKey/date/region/s3/aws4_request");
        }
        if (!scope[1].equals(amzDate.substring(0, 8))) {
            throw error("Error parsing the X-Amz-Credential parameter; the credential date does not match X-Amz-Date");
        }
        if (signature.length() != 64 || !PayloadMode.isSha256Hex(signature)) {
            throw error("X-Amz-Signature must be 64 hex digits");
        }
        List<String> names = List.of(signedHeaders.split(";", -1));
        String previous = "";
        for (String n : names) {
            if (n.isEmpty() || !n.equals(n.toLowerCase(Locale.ROOT)) || n.compareTo(previous) <= 0) {
                throw error("X-Amz-SignedHeaders must be lower-case, sorted and unique");
            }
            previous = n;
        }
        String payloadHash = q.getOrDefault("X-Amz-Content-Sha256", SigV4.UNSIGNED_PAYLOAD);
        return new PresignedQuery(
                scope[0],
                scope[1],
                scope[2],
                scope[3],
                amzDate,
                date,
                seconds,
                names,
                signature.toLowerCase(Locale.ROOT),
                payloadHash);
    }

    /** The raw query without its {@code X-Amz-Signature} parameter: what the signature covers. */
    static String withoutSignature(String rawQuery) {
        StringJoiner kept = new StringJoiner("&");
        for (String part : rawQuery.split("&")) {
            int eq = part.indexOf('=');
            String name = UriEncoding.decode(eq < 0 ? part : part.substring(0, eq));
            if (!part.isEmpty() && !name.equals("X-Amz-Signature")) {
                kept.add(part);
            }
        }
        return kept.toString();
    }

    static S3Exception error(String message) {
        return new S3Exception(S3ErrorCode.AuthorizationQueryParametersError, message);
    }
}
