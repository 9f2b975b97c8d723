package dev.appliance.s3.api.object;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;

/**
 * A single satisfiable byte range of an object, parsed from {@code Range: bytes=a-b | bytes=a- | bytes=-n}.
 *
 * <p>As S3: a header that is not a single well-formed byte range is ignored (the whole object is served); a
 * well-formed range that selects nothing is {@code InvalidRange} (416).
 */
public record ByteRange(long offset, long length) {

    public long last() {
        return offset + length - 1;
    }

    public String contentRange(long size) {
        return "bytes " + offset + "-" + last() + "/" + size;
    }

    /** The range for an object of {@code size} bytes, or null when the header is absent or ignored. */
    public static ByteRange parse(String header, long size) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (!h.startsWith("bytes=") || h.indexOf(',') >= 0) {
            return null;
        }
        String spec = h.substring(6).strip();
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return null;
        }
        String first = spec.substring(0, dash).strip();
        String last = spec.substring(dash + 1).strip();
        if (first.isEmpty()) {
            long n = number(last);
            if (n < 0) {
                return null;
            }
            if (n == 0 || size == 0) {
                throw unsatisfiable(size);
            }
            long len = Math.min(n, size);
            return new ByteRange(size - len, len);
        }
        long start = number(first);
        if (start < 0) {
            return null;
        }
        long end;
        if (last.isEmpty()) {
            end = size - 1;
        } else {
            end = number(last);
            if (end < 0 || end < start) {
                return null;
            }
        }
        if (start >= size) {
            throw unsatisfiable(size);
        }
        end = Math.min(end, size - 1);
        return new ByteRange(start, end - start + 1);
    }

    private static long number(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(s);
    }

    private static S3Exception unsatisfiable(long size) {
        return new S3Exception(S3ErrorCode.InvalidRange).withHeader("Content-Range", "bytes */" + size);
    }
}
