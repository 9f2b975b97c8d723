package dev.appliance.core;

import java.time.Instant;

/**
 * A part stored for a multipart upload.
 *
 * @param etag hex MD5 of the part's bytes, unquoted
 */
public record UploadedPart(int partNumber, String etag, long size, Instant modTime) {}
