package dev.appliance.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a PUT carries besides its body.
 *
 * @param size exact body length in bytes, or -1 when unknown
 * @param contentType MIME type to store, or null for {@code application/octet-stream}
 * @param userMetadata headers to keep verbatim, keys lower-case (e.g. {@code x-amz-meta-color}, {@code cache-control})
 * @param expectedMd5 the 16-byte MD5 the body must have (from Content-MD5), or null
 */
public record PutRequest(long size, String contentType, Map<String, String> userMetadata, byte[] expectedMd5) {
    public PutRequest {
        if (size < -1) {
            throw new IllegalArgumentException("size: " + size + " (expected -1 or >= 0)");
        }
        if (expectedMd5 != null && expectedMd5.length != 16) {
            throw new IllegalArgumentException("expectedMd5: " + expectedMd5.length + " bytes (expected 16)");
        }
        userMetadata = userMetadata == null ? Map.of() : Map.copyOf(new TreeMap<>(userMetadata));
        expectedMd5 = expectedMd5 == null ? null : expectedMd5.clone();
    }

    public static PutRequest of(long size) {
        return new PutRequest(size, null, Map.of(), null);
    }
}
