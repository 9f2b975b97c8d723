package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.auth.AwsChunkedDecoder.DecodingException;
import dev.appliance.s3.auth.AwsChunkedDecoder.Failure;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Fuzzes the aws-chunked decoder in its three modes (signed chunks; unsigned chunks with a checksum trailer; signed
 * chunks with a signed trailer), fed in fuzzed pieces. Invariants: every input ends in decoded data or a {@link
 * DecodingException}, never another exception; the decoder hands out no more bytes than it was fed and exactly as
 * many as it counts; once refused or done it stays so ({@code finish} agrees with {@code done}); a well-formed body
 * built from the fuzzed data decodes back to that data, however it is split, and a flipped byte in it is refused.
 */
class AwsChunkedDecoderFuzzTest {
    private static final String CRC = "x-amz-checksum-crc32";

    private static AwsChunkedDecoder decoder(int mode) {
        return switch (mode) {
            case 0 -> new AwsChunkedDecoder(ChunkedBodies.signing(), false, Set.of());
            case 1 -> new AwsChunkedDecoder(null, false, Set.of(CRC));
            default -> new AwsChunkedDecoder(ChunkedBodies.signing(), true, Set.of(CRC));
        };
    }

    @FuzzTest
    void decoderYieldsDataOrTypedFailure(FuzzedDataProvider data) {
        int mode = data.consumeInt(0, 2);
        boolean wellFormed = data.consumeBoolean();
        int[] pieces = {data.consumeInt(1, 64), data.consumeInt(1, 4096), data.consumeInt(1, 7)};
        if (wellFormed) {
            roundTrip(mode, data, pieces);
        } else {
            arbitrary(mode, data.consumeRemainingAsBytes(), pieces);
        }
    }

    private static void arbitrary(int mode, byte[] body, int[] pieces) {
        AwsChunkedDecoder d = decoder(mode);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int off = 0;
        int p = 0;
        DecodingException refused = null;
        try {
            while (off < body.length) {
                int n = Math.min(pieces[p++ % pieces.length], body.length - off);
                d.feed(body, off, n, out::write);
                off += n;
                assertThat(d.decodedLength()).isLessThanOrEqualTo(off);
            }
        } catch (DecodingException e) {
            refused = e;
            assertThat(e.failure()).isNotNull();
            assertThat(e.code()).isEqualTo(e.failure().code());
        }
        assertThat((long) out.size()).isEqualTo(d.decodedLength()).isLessThanOrEqualTo(body.length);
        if (refused == null) {
            if (d.done()) {
                // nothing may follow the end of the body
                assertThatThrownBy(() -> d.feed(new byte[] {'0'}, 0, 1, (b, o, l) -> {}))
                        .isInstanceOf(DecodingException.class)
                        .extracting(e -> ((DecodingException) e).failure())
                        .isEqualTo(Failure.TRAILING_DATA);
            } else {
                assertThatThrownBy(d::finish)
                        .isInstanceOf(DecodingException.class)
                        .extracting(e -> ((DecodingException) e).failure())
                        .isEqualTo(Failure.TRUNCATED);
            }
        }
    }

    private static void roundTrip(int mode, FuzzedDataProvider data, int[] pieces) {
        int chunkSize = data.consumeInt(1, 300);
        int flip = data.consumeInt(-1, 10_000);
        byte[] payload = data.consumeRemainingAsBytes();
        Map<String, String> trailers = new LinkedHashMap<>();
        if (mode != 0) {
            trailers.put(CRC, ChunkedBodies.checksum(ChecksumAlgorithm.CRC32, payload));
        }
        byte[] body = ChunkedBodies.encode(payload, chunkSize, mode != 1, trailers, mode == 2);
        AwsChunkedDecoder d = decoder(mode);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            feedAll(d, body, pieces, out);
            d.finish();
        } catch (DecodingException e) {
            throw new AssertionError("a well-formed body was refused: " + e.getMessage(), e);
        }
        assertThat(out.toByteArray()).isEqualTo(payload);
        assertThat(d.decodedLength()).isEqualTo(payload.length);
        if (mode != 0) {
            assertThat(d.trailers()).isEqualTo(trailers);
        }

        if (flip >= 0 && flip < body.length && mode != 1) {
            // with signatures every byte counts: a changed byte is refused (or, in a signature, mismatches)
            byte[] bad = body.clone();
            bad[flip] ^= 0x01;
            AwsChunkedDecoder d2 = decoder(mode);
            assertThatThrownBy(() -> {
                        feedAll(d2, bad, pieces, new ByteArrayOutputStream());
                        d2.finish();
                    })
                    .as("flipped byte %d of %d", flip, body.length)
                    .isInstanceOf(DecodingException.class);
        }
    }

    private static void feedAll(AwsChunkedDecoder d, byte[] body, int[] pieces, ByteArrayOutputStream out)
            throws DecodingException {
        int off = 0;
        int p = 0;
        while (off < body.length) {
            int n = Math.min(pieces[p++ % pieces.length], body.length - off);
            d.feed(body, off, n, out::write);
            off += n;
        }
    }
}
