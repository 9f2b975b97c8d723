package dev.appliance.core;

import static java.util.Objects.requireNonNull;

/** A part named in CompleteMultipartUpload: its number and the ETag its upload returned (quotes optional). */
public record CompletedPart(int partNumber, String etag) {
    public CompletedPart {
        requireNonNull(etag, "etag");
        etag = etag.startsWith("\"") && etag.endsWith("\"") && etag.length() >= 2
                ? etag.substring(1, etag.length() - 1)
                : etag;
    }
}
