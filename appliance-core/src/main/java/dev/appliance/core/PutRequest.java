package dev.appliance.core;

import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What a PUT carries besides its body.
 *
 * @param size exact body length in bytes, or -1 when unknown
 * @param contentType MIME type to store, or null for {@code application/octet-stream}
 * @param userMetadata headers to keep verbatim, keys lower-case (e.g. {@code x-amz-meta-color}, {@code cache-control})
 * @param expectedMd5 the 16-byte MD5 the body must have (from Content-MD5), or null
 * @param ifMatch write only if the current version's ETag (hex, unquoted) is this one (If-Match), or null
 * @param ifNoneMatchAny write only if the key has no current object (If-None-Match: *)
 * @param metadataAfterBody entries to store that are known only once the body has been read to its end (a checksum
 *     sent as a trailer), or null; asked for after the body ended and before the commit
 * @param checksumAlgorithm the algorithm of the {@code x-amz-checksum-*} value the caller verifies the body against,
 *     known before the body (the value itself comes with {@code metadataAfterBody}, under {@link
 *     ChecksumAlgorithm#headerName()}), or null when the body carries none
 * @param copiedFromStore the body is read from this store (UploadPartCopy), already guarded by its bitrot checksums,
 *     so no integrity header is expected with it
 * @param auditEvent the audit event of the call, or null: {@link ObjectStore#putObject} keeps it with the write's
 *     commit, durable on a write quorum of drives before it returns (stamped at the commit); other writes refuse one
 */
public record PutRequest(
        long size,
        String contentType,
        Map<String, String> userMetadata,
        byte[] expectedMd5,
        String ifMatch,
        boolean ifNoneMatchAny,
        Supplier<Map<String, String>> metadataAfterBody,
        ChecksumAlgorithm checksumAlgorithm,
        boolean copiedFromStore,
        AuditEvent auditEvent) {
    public PutRequest(long size, String contentType, Map<String, String> userMetadata, byte[] expectedMd5) {
        this(size, contentType, userMetadata, expectedMd5, null, false, null, null, false, null);
    }

    public PutRequest(
            long size,
            String contentType,
            Map<String, String> userMetadata,
            byte[] expectedMd5,
            String ifMatch,
            boolean ifNoneMatchAny) {
        this(size, contentType, userMetadata, expectedMd5, ifMatch, ifNoneMatchAny, null, null, false, null);
    }

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

    /** The same request with the write conditions of If-Match / If-None-Match: *. */
    public PutRequest withConditions(String ifMatch, boolean ifNoneMatchAny) {
        return new PutRequest(
                size,
                contentType,
                userMetadata,
                expectedMd5,
                ifMatch,
                ifNoneMatchAny,
                metadataAfterBody,
                checksumAlgorithm,
                copiedFromStore,
                auditEvent);
    }

    /** The same request with other metadata entries (Object Lock entries added by the engine). */
    public PutRequest withUserMetadata(Map<String, String> metadata) {
        return new PutRequest(
                size,
                contentType,
                metadata,
                expectedMd5,
                ifMatch,
                ifNoneMatchAny,
                metadataAfterBody,
                checksumAlgorithm,
                copiedFromStore,
                auditEvent);
    }

    /** The same request with entries to store once the body has ended. */
    public PutRequest withMetadataAfterBody(Supplier<Map<String, String>> supplier) {
        return new PutRequest(
                size,
                contentType,
                userMetadata,
                expectedMd5,
                ifMatch,
                ifNoneMatchAny,
                supplier,
                checksumAlgorithm,
                copiedFromStore,
                auditEvent);
    }

    /**
     * The same request with the body's verified checksum: its algorithm, known now, and its value, delivered under
     * {@code algorithm.headerName()} by {@code verified} once the body has ended.
     */
    public PutRequest withVerifiedChecksum(ChecksumAlgorithm algorithm, Supplier<Map<String, String>> verified) {
        return new PutRequest(
                size,
                contentType,
                userMetadata,
                expectedMd5,
                ifMatch,
                ifNoneMatchAny,
                verified,
                algorithm,
                copiedFromStore,
                auditEvent);
    }

    /** The same request with the call's audit event, for {@link ObjectStore#putObject} to keep with its commit. */
    public PutRequest withAuditEvent(AuditEvent event) {
        return new PutRequest(
                size,
                contentType,
                userMetadata,
                expectedMd5,
                ifMatch,
                ifNoneMatchAny,
                metadataAfterBody,
                checksumAlgorithm,
                copiedFromStore,
                event);
    }

    /** A body of {@code size} bytes read from this store: a part copied by UploadPartCopy. */
    public static PutRequest copy(long size) {
        return new PutRequest(size, null, Map.of(), null, null, false, null, null, true, null);
    }

    public static PutRequest of(long size) {
        return new PutRequest(size, null, Map.of(), null);
    }
}
