package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Decoded bytes go straight into the reader's buffer while it has room and wait in the stream's own buffer otherwise:
 * whatever the sizes the raw body arrives in and the reader asks for (smaller than a chunk, larger than a raw read,
 * one byte), the reader gets exactly the body, in order, and a bad chunk signature still fails the read.
 */
class AwsChunkedInputStreamTest {
    private final Random random = new Random(11);

    @Test
    void anyReadSizes_yieldTheBodyInOrder() throws IOException {
        for (int round = 0; round < 60; round++) {
            byte[] data = new byte[random.nextInt(600_000)];
            random.nextBytes(data);
            int chunkSize = 1 + random.nextInt(100_000);
            byte[] raw = ChunkedBodies.encode(data, chunkSize, true, Map.of(), false);
            int maxRaw = 1 + random.nextInt(100_000);
            int maxRead = round % 3 == 0 ? 1 + random.nextInt(16) : 1 + random.nextInt(700_000);
            AwsChunkedInputStream in = new AwsChunkedInputStream(
                    new PiecewiseInputStream(raw, maxRaw),
                    new AwsChunkedDecoder(ChunkedBodies.signing(), false, Set.of()),
                    data.length);
            assertThat(readAll(in, maxRead))
                    .as("body %d, chunks %d, raw pieces %d, reads %d", data.length, chunkSize, maxRaw, maxRead)
                    .isEqualTo(data);
        }
    }

    @Test
    void aForgedChunk_failsTheRead_whenReadStraightIntoTheCallersBuffer() {
        byte[] data = new byte[200_000];
        random.nextBytes(data);
        byte[] raw = ChunkedBodies.encode(data, 64 * 1024, true, Map.of(), false);
        raw[raw.length / 2] ^= 1; // a byte of the second chunk's data
        AwsChunkedInputStream in = new AwsChunkedInputStream(
                new ByteArrayInputStream(raw),
                new AwsChunkedDecoder(ChunkedBodies.signing(), false, Set.of()),
                data.length);
        assertThatThrownBy(() -> readAll(in, 1 << 20))
                .isInstanceOf(BodyException.class)
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.SignatureDoesNotMatch);
    }

    private byte[] readAll(InputStream in, int maxRead) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[maxRead];
        int n;
        while ((n = in.read(buf, 0, 1 + random.nextInt(maxRead))) >= 0) {
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    /** Hands out at most {@code max} bytes a read, as a socket does. */
    private final class PiecewiseInputStream extends InputStream {
        private final ByteArrayInputStream in;
        private final int max;

        PiecewiseInputStream(byte[] bytes, int max) {
            this.in = new ByteArrayInputStream(bytes);
            this.max = max;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, Math.min(len, 1 + random.nextInt(max)));
        }
    }
}
