package dev.appliance.s3.auth;

import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Push decoder for {@code Content-Encoding: aws-chunked} bodies, an explicit state machine fed any split of the input.
 *
 * <pre>
 * body    = *chunk last-chunk *trailer CRLF
 * chunk   = hex-size [";chunk-signature=" 64HEX] CRLF data CRLF
 * last    = "0" [";chunk-signature=" 64HEX] CRLF
 * trailer = name ":" value CRLF          (x-amz-checksum-*, then x-amz-trailer-signature when signed)
 * </pre>
 *
 * With chunk signatures each chunk is checked, when its closing CRLF arrives, against {@code HMAC(key,
 * "AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + previousSignature + "\n" + hex(sha256("")) + "\n" +
 * hex(sha256(data)))}, the seed being the header signature. A signed trailer is checked against {@code HMAC(key,
 * "AWS4-HMAC-SHA256-TRAILER\n" + amzDate + "\n" + scope + "\n" + lastChunkSignature + "\n" + hex(sha256(trailer lines
 * as "name:value\n")))}. Data is handed to the sink before its chunk's signature is checked; the consumer must treat
 * the body as untrusted until {@link #finish()} returns, which is how {@link AwsChunkedInputStream} uses it.
 */
public final class AwsChunkedDecoder {
    /** Longest accepted chunk header or trailer line, in bytes. */
    static final int MAX_LINE = 4096;
    /** Largest accepted chunk. */
    static final long MAX_CHUNK = 64L << 20;

    private static final int MAX_TRAILERS = 16;
    private static final String TRAILER_SIGNATURE = "x-amz-trailer-signature";
    private static final String CHUNK_SIGNATURE = "chunk-signature=";

    /** Why a body was refused. */
    public enum Failure {
        MALFORMED_CHUNK_HEADER(S3ErrorCode.InvalidRequest),
        CHUNK_TOO_LARGE(S3ErrorCode.InvalidRequest),
        LINE_TOO_LONG(S3ErrorCode.InvalidRequest),
        MISSING_CRLF(S3ErrorCode.InvalidRequest),
        MISSING_CHUNK_SIGNATURE(S3ErrorCode.SignatureDoesNotMatch),
        CHUNK_SIGNATURE_MISMATCH(S3ErrorCode.SignatureDoesNotMatch),
        MALFORMED_TRAILER(S3ErrorCode.InvalidRequest),
        UNEXPECTED_TRAILER(S3ErrorCode.InvalidRequest),
        MISSING_TRAILER(S3ErrorCode.InvalidRequest),
        MISSING_TRAILER_SIGNATURE(S3ErrorCode.SignatureDoesNotMatch),
        TRAILER_SIGNATURE_MISMATCH(S3ErrorCode.SignatureDoesNotMatch),
        TRUNCATED(S3ErrorCode.IncompleteBody),
        TRAILING_DATA(S3ErrorCode.InvalidRequest);

        private final S3ErrorCode code;

        Failure(S3ErrorCode code) {
            this.code = code;
        }

        public S3ErrorCode code() {
            return code;
        }
    }

    /** A refused body; an {@link java.io.IOException} so it passes through the engine's read of the body. */
    public static final class DecodingException extends BodyException {
        private static final long serialVersionUID = 1L;
        private final Failure failure;

        DecodingException(Failure failure, String detail) {
            super(
                    failure.code(),
                    "aws-chunked body refused: " + failure + (detail.isEmpty() ? "" : " (" + detail + ")"));
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }
    }

    /** Receives decoded data; the array is only valid during the call. */
    @FunctionalInterface
    public interface Sink {
        void accept(byte[] b, int off, int len);
    }

    /** What signature checking needs; null in the decoder for unsigned modes. */
    public record Signing(byte[] key, String amzDate, String scope, String seedSignature) {}

    private enum State {
        LINE,
        LINE_LF,
        DATA,
        DATA_CR,
        DATA_LF,
        DONE
    }

    private final Signing signing;
    private final boolean signedTrailer;
    private final Set<String> expectedTrailers;

    private State state = State.LINE;
    private boolean inTrailers;
    private final byte[] line = new byte[MAX_LINE];
    private int lineLength;
    private long remaining;
    private String chunkSignature;
    private String previousSignature;
    private final MessageDigest chunkDigest;
    private final Map<String, String> trailers = new LinkedHashMap<>();
    private final StringBuilder canonicalTrailers = new StringBuilder();
    private String trailerSignature;
    private long decodedLength;

    /**
     * @param signing keys for chunk signatures (and the trailer signature when {@code signedTrailer}); null when
     *     chunks are unsigned
     * @param expectedTrailers lower-case names announced in {@code x-amz-trailer}; any other trailer is refused
     */
    public AwsChunkedDecoder(Signing signing, boolean signedTrailer, Set<String> expectedTrailers) {
        if (signedTrailer && signing == null) {
            throw new IllegalArgumentException("signedTrailer: true (expected chunk signing keys as well)");
        }
        this.signing = signing;
        this.signedTrailer = signedTrailer;
        this.expectedTrailers = Set.copyOf(expectedTrailers);
        this.previousSignature = signing == null ? null : signing.seedSignature();
        this.chunkDigest = signing == null ? null : SigV4.newSha256();
    }

    /** Decodes {@code len} bytes of {@code in}, handing data to {@code sink}. */
    public void feed(byte[] in, int off, int len, Sink sink) throws DecodingException {
        int i = off;
        int end = off + len;
        while (i < end) {
            switch (state) {
                case LINE -> {
                    byte b = in[i++];
                    if (b == '\r') {
                        state = State.LINE_LF;
                    } else if (b == '\n') {
                        throw fail(Failure.MISSING_CRLF, "bare LF");
                    } else {
                        if (lineLength == MAX_LINE) {
                            throw fail(Failure.LINE_TOO_LONG, "");
                        }
                        line[lineLength++] = b;
                    }
                }
                case LINE_LF -> {
                    if (in[i++] != '\n') {
                        throw fail(Failure.MISSING_CRLF, "after a chunk header or trailer");
                    }
                    String text = new String(line, 0, lineLength, StandardCharsets.ISO_8859_1);
                    lineLength = 0;
                    state = State.LINE;
                    if (inTrailers) {
                        trailerLine(text);
                    } else {
                        chunkHeader(text);
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(remaining, end - i);
                    if (chunkDigest != null) {
                        chunkDigest.update(in, i, n);
                    }
                    sink.accept(in, i, n);
                    i += n;
                    remaining -= n;
                    decodedLength += n;
                    if (remaining == 0) {
                        state = State.DATA_CR;
                    }
                }
                case DATA_CR -> {
                    if (in[i++] != '\r') {
                        throw fail(Failure.MISSING_CRLF, "after chunk data");
                    }
                    state = State.DATA_LF;
                }
                case DATA_LF -> {
                    if (in[i++] != '\n') {
                        throw fail(Failure.MISSING_CRLF, "after chunk data");
                    }
                    if (signing != null) {
                        verifyChunk(SigV4.hex(chunkDigest.digest()));
                    }
                    state = State.LINE;
                }
                case DONE -> throw fail(Failure.TRAILING_DATA, "");
            }
        }
    }

    /** Called at the end of the raw body: refuses a body that stopped before its final empty line. */
    public void finish() throws DecodingException {
        if (state != State.DONE) {
            throw fail(Failure.TRUNCATED, "body ended in state " + state);
        }
    }

    public boolean done() {
        return state == State.DONE;
    }

    /** Decoded bytes so far. */
    public long decodedLength() {
        return decodedLength;
    }

    /** Trailers received (lower-case names), once {@link #done()}. */
    public Map<String, String> trailers() {
        return Collections.unmodifiableMap(trailers);
    }

    private void chunkHeader(String text) throws DecodingException {
        int semi = text.indexOf(';');
        String hex = semi < 0 ? text : text.substring(0, semi);
        if (hex.isEmpty() || hex.length() > 16) {
            throw fail(Failure.MALFORMED_CHUNK_HEADER, "chunk size");
        }
        long size = 0;
        for (int k = 0; k < hex.length(); k++) {
            int d = Character.digit(hex.charAt(k), 16);
            if (d < 0) {
                throw fail(Failure.MALFORMED_CHUNK_HEADER, "chunk size");
            }
            if (size > MAX_CHUNK) {
                throw fail(Failure.CHUNK_TOO_LARGE, "");
            }
            size = (size << 4) | d;
        }
        if (size > MAX_CHUNK) {
            throw fail(Failure.CHUNK_TOO_LARGE, "");
        }
        if (signing != null) {
            String ext = semi < 0 ? "" : text.substring(semi + 1);
            if (!ext.startsWith(CHUNK_SIGNATURE) || !PayloadMode.isSha256Hex(ext.substring(CHUNK_SIGNATURE.length()))) {
                throw fail(Failure.MISSING_CHUNK_SIGNATURE, "");
            }
            chunkSignature = ext.substring(CHUNK_SIGNATURE.length()).toLowerCase(Locale.ROOT);
        }
        if (size == 0) {
            if (signing != null) {
                verifyChunk(SigV4.EMPTY_SHA256);
            }
            inTrailers = true;
            state = State.LINE;
        } else {
            remaining = size;
            state = State.DATA;
        }
    }

    private void verifyChunk(String dataHash) throws DecodingException {
        String toSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + signing.amzDate() + '\n' + signing.scope() + '\n'
                + previousSignature + '\n' + SigV4.EMPTY_SHA256 + '\n' + dataHash;
        String expected = SigV4.signature(signing.key(), toSign);
        if (!constantTimeEquals(expected, chunkSignature)) {
            throw fail(Failure.CHUNK_SIGNATURE_MISMATCH, "");
        }
        previousSignature = chunkSignature;
    }

    private void trailerLine(String text) throws DecodingException {
        if (text.isEmpty()) {
            finishTrailers();
            state = State.DONE;
            return;
        }
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw fail(Failure.MALFORMED_TRAILER, "");
        }
        String name = text.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String value = text.substring(colon + 1).strip();
        if (trailerSignature != null) {
            throw fail(Failure.MALFORMED_TRAILER, "trailer after the trailer signature");
        }
        if (name.equals(TRAILER_SIGNATURE)) {
            if (!signedTrailer) {
                throw fail(Failure.UNEXPECTED_TRAILER, name);
            }
            trailerSignature = value.toLowerCase(Locale.ROOT);
            return;
        }
        if (!expectedTrailers.contains(name) || trailers.containsKey(name) || trailers.size() >= MAX_TRAILERS) {
            throw fail(Failure.UNEXPECTED_TRAILER, name);
        }
        trailers.put(name, value);
        canonicalTrailers.append(name).append(':').append(value).append('\n');
    }

    private void finishTrailers() throws DecodingException {
        for (String name : expectedTrailers) {
            if (!trailers.containsKey(name)) {
                throw fail(Failure.MISSING_TRAILER, name);
            }
        }
        if (!signedTrailer) {
            return;
        }
        if (trailerSignature == null) {
            throw fail(Failure.MISSING_TRAILER_SIGNATURE, "");
        }
        String toSign = "AWS4-HMAC-SHA256-TRAILER\n" + signing.amzDate() + '\n' + signing.scope() + '\n'
                + previousSignature + '\n' + SigV4.sha256Hex(canonicalTrailers.toString());
        if (!constantTimeEquals(SigV4.signature(signing.key(), toSign), trailerSignature)) {
            throw fail(Failure.TRAILER_SIGNATURE_MISMATCH, "");
        }
    }

    private static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    private DecodingException fail(Failure failure, String detail) {
        return new DecodingException(failure, detail);
    }
}
