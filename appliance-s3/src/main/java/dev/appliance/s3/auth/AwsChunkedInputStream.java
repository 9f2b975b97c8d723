package dev.appliance.s3.auth;

import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.io.BulkInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * Pull adapter over {@link AwsChunkedDecoder}: reads the raw body, yields decoded data, and returns -1 only after the
 * whole body decoded, every signature verified and the decoded length matched {@code x-amz-decoded-content-length}.
 */
final class AwsChunkedInputStream extends BulkInputStream {
    private final InputStream raw;
    private final AwsChunkedDecoder decoder;
    private final long expectedLength;
    /**
     * As large as a socket read brings at most (64 KiB), so that the body's stream wakes this reader once per such
     * piece; smaller for a small body, whose request would otherwise allocate far more than it carries.
     */
    private final byte[] in;

    private byte[] out;
    private int outPos;
    private int outLen;
    /** While a read feeds the decoder: the caller's buffer, where the next decoded byte goes, and its end. */
    private byte[] target;

    private int targetAt;
    private int targetEnd;
    private boolean eof;

    AwsChunkedInputStream(InputStream raw, AwsChunkedDecoder decoder, long expectedLength) {
        this.raw = raw;
        this.decoder = decoder;
        this.expectedLength = expectedLength;
        // the raw body is the decoded one plus chunk headers and signatures (about 90 bytes a chunk) and trailers
        int size = (int) Math.min(64 * 1024, Math.max(4 * 1024, expectedLength + 4 * 1024));
        this.in = new byte[size];
        this.out = new byte[Math.min(size, 16 * 1024)];
    }

    Map<String, String> trailers() {
        return decoder.trailers();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (outPos == outLen) {
            if (eof) {
                return -1;
            }
            int n = raw.read(in, 0, in.length);
            if (n < 0) {
                decoder.finish();
                if (decoder.decodedLength() != expectedLength) {
                    throw new BodyException(
                            S3ErrorCode.IncompleteBody,
                            "decoded " + decoder.decodedLength() + " bytes, x-amz-decoded-content-length says "
                                    + expectedLength);
                }
                eof = true;
                continue;
            }
            outPos = 0;
            outLen = 0;
            // decoded bytes go straight into the caller's buffer, only what does not fit into out for the next read:
            // one copy of the body fewer than passing it all through out
            target = b;
            targetAt = off;
            targetEnd = off + len;
            try {
                decoder.feed(in, 0, n, this::append);
            } finally {
                target = null;
            }
            if (decoder.decodedLength() > expectedLength) {
                throw new BodyException(
                        S3ErrorCode.IncompleteBody, "body longer than x-amz-decoded-content-length " + expectedLength);
            }
            if (targetAt > off) {
                return targetAt - off;
            }
        }
        int n = Math.min(len, outLen - outPos);
        System.arraycopy(out, outPos, b, off, n);
        outPos += n;
        return n;
    }

    private void append(byte[] b, int off, int len) {
        if (target != null) { // the caller's buffer first, while it has room; the rest after it, in out
            int direct = Math.min(len, targetEnd - targetAt);
            System.arraycopy(b, off, target, targetAt, direct);
            targetAt += direct;
            off += direct;
            len -= direct;
        }
        if (len == 0) {
            return;
        }
        if (outLen + len > out.length) {
            byte[] bigger = new byte[Math.max(out.length * 2, outLen + len)];
            System.arraycopy(out, 0, bigger, 0, outLen);
            out = bigger;
        }
        System.arraycopy(b, off, out, outLen, len);
        outLen += len;
    }

    @Override
    public void close() throws IOException {
        raw.close();
    }
}
