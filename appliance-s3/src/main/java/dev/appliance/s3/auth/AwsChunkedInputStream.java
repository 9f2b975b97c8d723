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
    private final byte[] in = new byte[16 * 1024];
    private byte[] out = new byte[16 * 1024];
    private int outPos;
    private int outLen;
    private boolean eof;

    AwsChunkedInputStream(InputStream raw, AwsChunkedDecoder decoder, long expectedLength) {
        this.raw = raw;
        this.decoder = decoder;
        this.expectedLength = expectedLength;
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
            decoder.feed(in, 0, n, this::append);
            if (decoder.decodedLength() > expectedLength) {
                throw new BodyException(
                        S3ErrorCode.IncompleteBody, "body longer than x-amz-decoded-content-length " + expectedLength);
            }
        }
        int n = Math.min(len, outLen - outPos);
        System.arraycopy(out, outPos, b, off, n);
        outPos += n;
        return n;
    }

    private void append(byte[] b, int off, int len) {
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
