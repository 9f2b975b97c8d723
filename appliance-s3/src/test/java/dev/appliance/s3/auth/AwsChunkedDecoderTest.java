package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.s3.auth.AwsChunkedDecoder.DecodingException;
import dev.appliance.s3.auth.AwsChunkedDecoder.Failure;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AwsChunkedDecoderTest {
    private static final byte[] DATA = data(300);
    private static final String CRC = "x-amz-checksum-crc32";

    private static byte[] data(int n) {
        byte[] d = new byte[n];
        new Random(42).nextBytes(d);
        return d;
    }

    private static AwsChunkedDecoder signedDecoder() {
        return new AwsChunkedDecoder(ChunkedBodies.signing(), false, Set.of());
    }

    private static AwsChunkedDecoder signedTrailerDecoder() {
        return new AwsChunkedDecoder(ChunkedBodies.signing(), true, Set.of(CRC));
    }

    private static AwsChunkedDecoder unsignedTrailerDecoder() {
        return new AwsChunkedDecoder(null, false, Set.of(CRC));
    }

    /** Decodes {@code body} fed in the given piece sizes (cycled). */
    private static byte[] decode(AwsChunkedDecoder d, byte[] body, int... pieces) throws DecodingException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int off = 0;
        int p = 0;
        while (off < body.length) {
            int n = Math.min(pieces[p++ % pieces.length], body.length - off);
            d.feed(body, off, n, out::write);
            off += n;
        }
        d.finish();
        return out.toByteArray();
    }

    private static byte[] decodeSplitAt(AwsChunkedDecoder d, byte[] body, int split) throws DecodingException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        d.feed(body, 0, split, out::write);
        d.feed(body, split, body.length - split, out::write);
        d.finish();
        return out.toByteArray();
    }

    @Test
    void decode_signedBody_splitAtEveryByte_givesSameOutput() throws Exception {
        byte[] body = ChunkedBodies.encode(DATA, 64, true, Map.of(), false);
        for (int split = 0; split <= body.length; split++) {
            assertThat(decodeSplitAt(signedDecoder(), body, split))
                    .as("split at %d", split)
                    .isEqualTo(DATA);
        }
    }

    @Test
    void decode_signedTrailerBody_splitAtEveryByte_givesSameOutputAndTrailer() throws Exception {
        String crc = ChunkedBodies.checksum(ChecksumAlgorithm.CRC32, DATA);
        byte[] body = ChunkedBodies.encode(DATA, 100, true, Map.of(CRC, crc), true);
        for (int split = 0; split <= body.length; split++) {
            AwsChunkedDecoder d = signedTrailerDecoder();
            assertThat(decodeSplitAt(d, body, split)).as("split at %d", split).isEqualTo(DATA);
            assertThat(d.trailers()).containsEntry(CRC, crc);
        }
    }

    @Test
    void decode_unsignedTrailerBody_splitAtEveryByte_givesSameOutput() throws Exception {
        String crc = ChunkedBodies.checksum(ChecksumAlgorithm.CRC32, DATA);
        byte[] body = ChunkedBodies.encode(DATA, 128, false, Map.of(CRC, crc), false);
        for (int split = 0; split <= body.length; split++) {
            assertThat(decodeSplitAt(unsignedTrailerDecoder(), body, split)).isEqualTo(DATA);
        }
    }

    @Test
    void decode_inRandomSmallPieces_givesSameOutput() throws Exception {
        byte[] body = ChunkedBodies.encode(DATA, 37, true, Map.of(), false);
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int[] pieces = random.ints(20, 1, 9).toArray();
            assertThat(decode(signedDecoder(), body, pieces)).isEqualTo(DATA);
        }
        assertThat(decode(signedDecoder(), body, 1)).isEqualTo(DATA);
    }

    @Test
    void decode_emptyBody() throws Exception {
        byte[] body = ChunkedBodies.encode(new byte[0], 64, true, Map.of(), false);
        assertThat(decode(signedDecoder(), body, 3)).isEmpty();
    }

    @Test
    void decode_whenOneDataByteFlipped_refusesWithChunkSignatureMismatch() {
        byte[] body = ChunkedBodies.encode(DATA, 64, true, Map.of(), false);
        int firstData = new String(body, StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
        body[firstData + 5] ^= 1;
        assertFailure(signedDecoder(), body, Failure.CHUNK_SIGNATURE_MISMATCH);
    }

    @Test
    void decode_whenChunkSignatureMissing_refuses() {
        byte[] body = ChunkedBodies.encode(DATA, 64, false, Map.of(), false);
        assertFailure(signedDecoder(), body, Failure.MISSING_CHUNK_SIGNATURE);
    }

    @Test
    void decode_whenChunksReordered_refuses() {
        // two equal-size chunks signed in order; swapping their data breaks the signature chain
        byte[] data = data(128);
        byte[] body = ChunkedBodies.encode(data, 64, true, Map.of(), false);
        String s = new String(body, StandardCharsets.ISO_8859_1);
        int a = s.indexOf("\r\n") + 2;
        int b = s.indexOf("\r\n", s.indexOf("\r\n", a + 64) + 2) + 2;
        byte[] tmp = java.util.Arrays.copyOfRange(body, a, a + 64);
        System.arraycopy(body, b, body, a, 64);
        System.arraycopy(tmp, 0, body, b, 64);
        assertFailure(signedDecoder(), body, Failure.CHUNK_SIGNATURE_MISMATCH);
    }

    @Test
    void decode_whenTrailerTampered_refusesWithTrailerSignatureMismatch() {
        String crc = ChunkedBodies.checksum(ChecksumAlgorithm.CRC32, DATA);
        byte[] body = ChunkedBodies.encode(DATA, 100, true, Map.of(CRC, crc), true);
        String s = new String(body, StandardCharsets.ISO_8859_1).replace(CRC + ":" + crc, CRC + ":AAAAAA==");
        assertFailure(
                signedTrailerDecoder(), s.getBytes(StandardCharsets.ISO_8859_1), Failure.TRAILER_SIGNATURE_MISMATCH);
    }

    @Test
    void decode_whenTrailerSignatureMissing_refuses() {
        String crc = ChunkedBodies.checksum(ChecksumAlgorithm.CRC32, DATA);
        byte[] body = ChunkedBodies.encode(DATA, 100, true, Map.of(CRC, crc), false);
        assertFailure(signedTrailerDecoder(), body, Failure.MISSING_TRAILER_SIGNATURE);
    }

    @Test
    void decode_whenTrailerNotAnnounced_refuses() {
        byte[] body = ChunkedBodies.encode(DATA, 100, false, Map.of("x-amz-checksum-sha1", "AAAA"), false);
        assertFailure(unsignedTrailerDecoder(), body, Failure.UNEXPECTED_TRAILER);
    }

    @Test
    void decode_whenAnnouncedTrailerMissing_refuses() {
        byte[] body = ChunkedBodies.encode(DATA, 100, false, Map.of(), false);
        assertFailure(unsignedTrailerDecoder(), body, Failure.MISSING_TRAILER);
    }

    @Test
    void decode_whenTruncated_refusesAtFinish() {
        byte[] body = ChunkedBodies.encode(DATA, 64, true, Map.of(), false);
        for (int cut : new int[] {1, 10, body.length / 2, body.length - 1}) {
            byte[] part = java.util.Arrays.copyOf(body, cut);
            assertFailure(signedDecoder(), part, Failure.TRUNCATED);
        }
    }

    @Test
    void decode_malformedFraming_refusesWithTypedFailure() {
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("zz\r\n"), Failure.MALFORMED_CHUNK_HEADER);
        assertFailure(
                new AwsChunkedDecoder(null, false, Set.of()),
                ascii("fffffffffffffffff\r\n"),
                Failure.MALFORMED_CHUNK_HEADER);
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("ffffffff\r\n"), Failure.CHUNK_TOO_LARGE);
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("3\r\nabcX\n"), Failure.MISSING_CRLF);
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("3\nabc"), Failure.MISSING_CRLF);
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("0\r\n\r\nextra"), Failure.TRAILING_DATA);
        assertFailure(new AwsChunkedDecoder(null, false, Set.of()), ascii("1".repeat(5000)), Failure.LINE_TOO_LONG);
    }

    @Test
    void failures_mapToS3Errors() {
        assertThat(Failure.CHUNK_SIGNATURE_MISMATCH.code().code()).isEqualTo("SignatureDoesNotMatch");
        assertThat(Failure.TRUNCATED.code().code()).isEqualTo("IncompleteBody");
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void assertFailure(AwsChunkedDecoder d, byte[] body, Failure expected) {
        assertThatThrownBy(() -> decode(d, body, 7))
                .isInstanceOf(DecodingException.class)
                .extracting(e -> ((DecodingException) e).failure())
                .isEqualTo(expected);
    }
}
