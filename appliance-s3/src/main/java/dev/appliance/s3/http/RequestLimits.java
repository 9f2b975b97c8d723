package dev.appliance.s3.http;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * S3's size limits that can be checked from the request head, before any body byte is read: user metadata
 * ({@code x-amz-meta-*} names without the prefix, plus values, in UTF-8) at most 2 KiB, and the body of one PUT at
 * most 5 GiB ({@code x-amz-decoded-content-length} for aws-chunked bodies, else {@code Content-Length}). The header
 * section limit (8 KiB) is the HTTP decoder's.
 */
final class RequestLimits {
    static final int MAX_USER_METADATA = 2048;
    static final long MAX_PUT_SIZE = 5L << 30;

    private RequestLimits() {}

    static void check(ParsedRequest p) {
        Map<String, List<String>> headers = p.headers();
        int metadata = 0;
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey().startsWith("x-amz-meta-")) {
                metadata += e.getKey().length() - "x-amz-meta-".length();
                metadata += String.join(",", e.getValue()).getBytes(StandardCharsets.UTF_8).length;
            }
        }
        if (metadata > MAX_USER_METADATA) {
            throw new S3Exception(
                    S3ErrorCode.MetadataTooLarge,
                    "Your metadata headers exceed the maximum allowed metadata size (" + metadata + " > "
                            + MAX_USER_METADATA + " bytes).");
        }
        if (p.method().equals("PUT") && p.key() != null) {
            long size = length(headers, "x-amz-decoded-content-length");
            if (size < 0) {
                size = length(headers, "content-length");
            }
            if (size > MAX_PUT_SIZE) {
                throw new S3Exception(
                        S3ErrorCode.EntityTooLarge,
                        "Your proposed upload of " + size + " bytes exceeds the maximum allowed size of " + MAX_PUT_SIZE
                                + " bytes.");
            }
        }
    }

    private static long length(Map<String, List<String>> headers, String name) {
        List<String> v = headers.get(name);
        if (v == null || v.isEmpty()) {
            return -1;
        }
        try {
            return Long.parseLong(v.getFirst().strip());
        } catch (NumberFormatException e) {
            return -1; // malformed values are refused where the body is opened
        }
    }
}
