package dev.appliance.s3.auth;

import dev.appliance.core.checksum.ChecksumAlgorithm;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/** Test-side encoder of aws-chunked bodies, written from the published format. */
final class ChunkedBodies {
    static final byte[] KEY = SigV4.signingKey("secret", "20250101", "us-east-1", "s3");
    static final String AMZ_DATE = "20250101T000000Z";
    static final String SCOPE = SigV4.scope("20250101", "us-east-1", "s3");
    static final String SEED = "a".repeat(64);

    static AwsChunkedDecoder.Signing signing() {
        return new AwsChunkedDecoder.Signing(KEY, AMZ_DATE, SCOPE, SEED);
    }

    /** Encodes {@code data} in chunks of {@code chunkSize}; signed when {@code signed}; trailers appended if given. */
    static byte[] encode(
            byte[] data, int chunkSize, boolean signed, Map<String, String> trailers, boolean signTrailer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String prev = SEED;
        int off = 0;
        while (true) {
            int n = Math.min(chunkSize, data.length - off);
            byte[] chunk = java.util.Arrays.copyOfRange(data, off, off + n);
            StringBuilder header = new StringBuilder(Integer.toHexString(n));
            if (signed) {
                String toSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + AMZ_DATE + "\n" + SCOPE + "\n" + prev + "\n"
                        + SigV4.EMPTY_SHA256 + "\n" + SigV4.sha256Hex(chunk);
                prev = SigV4.signature(KEY, toSign);
                header.append(";chunk-signature=").append(prev);
            }
            out.writeBytes((header + "\r\n").getBytes(StandardCharsets.US_ASCII));
            if (n == 0) {
                break;
            }
            out.writeBytes(chunk);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            off += n;
        }
        StringBuilder canonical = new StringBuilder();
        for (Map.Entry<String, String> t : trailers.entrySet()) {
            out.writeBytes((t.getKey() + ":" + t.getValue() + "\r\n").getBytes(StandardCharsets.US_ASCII));
            canonical.append(t.getKey()).append(':').append(t.getValue()).append('\n');
        }
        if (signTrailer) {
            String toSign = "AWS4-HMAC-SHA256-TRAILER\n" + AMZ_DATE + "\n" + SCOPE + "\n" + prev + "\n"
                    + SigV4.sha256Hex(canonical.toString());
            out.writeBytes(("x-amz-trailer-signature:" + SigV4.signature(KEY, toSign) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    static String checksum(ChecksumAlgorithm a, byte[] data) {
        ChecksumAlgorithm.Running r = a.newRunning();
        r.update(data, 0, data.length);
        return Base64.getEncoder().encodeToString(r.value());
    }

    private ChunkedBodies() {}
}
