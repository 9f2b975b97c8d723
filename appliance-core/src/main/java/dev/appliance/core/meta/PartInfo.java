package dev.appliance.core.meta;

/**
 * One S3 part of a version (a single PUT has one part, number 1).
 *
 * @param size bytes of the part before erasure coding
 * @param etag hex MD5 of the part, or null for a single PUT (the version's etag applies)
 * @param checksum base64 checksum of the part in the algorithm of the version's {@code x-amz-checksum-*} entry, or null
 */
public record PartInfo(int number, long size, String etag, String checksum) {
    public PartInfo(int number, long size, String etag) {
        this(number, size, etag, null);
    }

    public PartInfo {
        if (number < 1 || number > 10_000) {
            throw new IllegalArgumentException("part number: " + number + " (expected 1..10000)");
        }
        if (size < 0) {
            throw new IllegalArgumentException("part size: " + size + " (expected >= 0)");
        }
    }
}
