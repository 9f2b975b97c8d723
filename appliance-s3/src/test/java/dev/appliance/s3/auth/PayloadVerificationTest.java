package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.Crc64Nvme;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PayloadVerificationTest {
    private static final byte[] DATA = "hello, chunked world".repeat(50).getBytes(StandardCharsets.UTF_8);

    private static AuthResult auth(PayloadMode mode, String contentSha) {
        return new AuthResult(
                "AK",
                ChunkedBodies.KEY,
                ChunkedBodies.AMZ_DATE,
                ChunkedBodies.SCOPE,
                ChunkedBodies.SEED,
                mode,
                contentSha);
    }

    private static Map<String, List<String>> headers(String... kv) {
        Map<String, List<String>> h = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            h.put(kv[i], List.of(kv[i + 1]));
        }
        return h;
    }

    private static byte[] readAll(InputStream in) throws Exception {
        return in.readAllBytes();
    }

    @Test
    void crc64nvme_checkValue() {
        Crc64Nvme c = new Crc64Nvme();
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        c.update(check, 0, check.length);
        assertThat(c.getValue()).isEqualTo(0xae8b14860a799888L);
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void trailerChecksum_whenCorrect_streamsBody(ChecksumAlgorithm a) throws Exception {
        byte[] body =
                ChunkedBodies.encode(DATA, 100, true, Map.of(a.headerName(), ChunkedBodies.checksum(a, DATA)), true);
        var v = PayloadVerification.open(
                new ByteArrayInputStream(body),
                auth(PayloadMode.STREAMING_SIGNED_TRAILER, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"),
                headers("x-amz-trailer", a.headerName(), "x-amz-decoded-content-length", "" + DATA.length),
                body.length);
        assertThat(v.size()).isEqualTo(DATA.length);
        assertThat(readAll(v.stream())).isEqualTo(DATA);
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void trailerChecksum_whenWrong_failsWithBadDigestBeforeEnd(ChecksumAlgorithm a) {
        byte[] other = "something else".getBytes(StandardCharsets.UTF_8);
        byte[] body =
                ChunkedBodies.encode(DATA, 100, false, Map.of(a.headerName(), ChunkedBodies.checksum(a, other)), false);
        var v = PayloadVerification.open(
                new ByteArrayInputStream(body),
                auth(PayloadMode.STREAMING_UNSIGNED_TRAILER, "STREAMING-UNSIGNED-PAYLOAD-TRAILER"),
                headers("x-amz-trailer", a.headerName(), "x-amz-decoded-content-length", "" + DATA.length),
                body.length);
        assertThatThrownBy(() -> readAll(v.stream()))
                .isInstanceOf(BodyException.class)
                .hasMessageContaining("did not match the calculated checksum")
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.BadDigest);
    }

    @Test
    void headerChecksum_whenWrong_failsWithBadDigest() {
        String wrong = ChunkedBodies.checksum(ChecksumAlgorithm.SHA256, new byte[1]);
        var v = PayloadVerification.open(
                new ByteArrayInputStream(DATA),
                auth(PayloadMode.UNSIGNED, "UNSIGNED-PAYLOAD"),
                headers("x-amz-checksum-sha256", wrong),
                DATA.length);
        assertThatThrownBy(() -> readAll(v.stream()))
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.BadDigest);
    }

    @Test
    void headerChecksum_whenNotBase64_isInvalidRequestUpFront() {
        assertThatThrownBy(() -> PayloadVerification.open(
                        new ByteArrayInputStream(DATA),
                        auth(PayloadMode.UNSIGNED, "UNSIGNED-PAYLOAD"),
                        headers("x-amz-checksum-crc32", "!!"),
                        DATA.length))
                .isInstanceOf(S3Exception.class)
                .extracting(e -> ((S3Exception) e).code())
                .isEqualTo(S3ErrorCode.InvalidRequest);
    }

    @Test
    void sha256Payload_whenMatching_streams_andWhenNot_throwsBeforeEof() throws Exception {
        String good = SigV4.sha256Hex(DATA);
        var ok = PayloadVerification.open(
                new ByteArrayInputStream(DATA), auth(PayloadMode.SHA256, good), headers(), DATA.length);
        assertThat(readAll(ok.stream())).isEqualTo(DATA);

        String bad = SigV4.sha256Hex("x");
        var v = PayloadVerification.open(
                new ByteArrayInputStream(DATA), auth(PayloadMode.SHA256, bad), headers(), DATA.length);
        InputStream in = v.stream();
        byte[] buf = new byte[DATA.length];
        assertThat(in.readNBytes(buf, 0, buf.length)).isEqualTo(DATA.length);
        assertThatThrownBy(in::read)
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.XAmzContentSHA256Mismatch);
    }

    @Test
    void sha256Payload_ofAnEmptyBody_isCheckedWithoutBytes() throws Exception {
        var empty = PayloadVerification.open(
                new ByteArrayInputStream(new byte[0]), auth(PayloadMode.SHA256, SigV4.EMPTY_SHA256), headers(), 0);
        assertThat(empty.stream().read()).isEqualTo(-1);

        // a body that ends before any byte still has to match the hash it was signed with
        var missing = PayloadVerification.open(
                new ByteArrayInputStream(new byte[0]), auth(PayloadMode.SHA256, SigV4.sha256Hex(DATA)), headers(), 0);
        assertThatThrownBy(() -> missing.stream().read())
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.XAmzContentSHA256Mismatch);
    }

    @Test
    void chunked_whenDecodedLengthDiffers_isIncompleteBody() {
        byte[] body = ChunkedBodies.encode(DATA, 100, true, Map.of(), false);
        var v = PayloadVerification.open(
                new ByteArrayInputStream(body),
                auth(PayloadMode.STREAMING_SIGNED, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"),
                headers("x-amz-decoded-content-length", "" + (DATA.length + 1)),
                body.length);
        assertThatThrownBy(() -> readAll(v.stream()))
                .extracting(e -> ((BodyException) e).code())
                .isEqualTo(S3ErrorCode.IncompleteBody);
    }

    @Test
    void chunked_withoutDecodedLength_isMissingContentLength() {
        assertThatThrownBy(() -> PayloadVerification.open(
                        new ByteArrayInputStream(new byte[0]),
                        auth(PayloadMode.STREAMING_SIGNED, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"),
                        headers(),
                        10))
                .extracting(e -> ((S3Exception) e).code())
                .isEqualTo(S3ErrorCode.MissingContentLength);
    }
}
