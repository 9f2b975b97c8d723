package dev.appliance.s3.e2e;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * Hand-signed S3 requests in every SigV4 style, sent raw on their own connection, with a hook to spoil each part of
 * the signing (secret, key, time, what was signed, headers added afterwards, chunk signatures, trailer). The request
 * layout, the aws-chunked framing and the chunk and trailer signatures are written here from the published formats;
 * HMAC, hashing and the canonical request come from the server's readable reference {@link SigV4} (which the SDK-signed
 * tests keep honest), so these tests are about what is signed and sent, not about canonicalisation.
 */
final class RawSigner {
    static final String REGION = "us-east-1";
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private RawSigner() {}

    /** How the request is authenticated and its body protected. */
    enum Style {
        SIGNED_PAYLOAD("header, signed payload hash", false),
        UNSIGNED_PAYLOAD("header, UNSIGNED-PAYLOAD", false),
        STREAMING_SIGNED("aws-chunked, chunk signatures", true),
        STREAMING_SIGNED_TRAILER("aws-chunked, chunk signatures + signed trailer", true),
        STREAMING_UNSIGNED_TRAILER("aws-chunked, unsigned + checksum trailer", true),
        PRESIGNED("presigned URL (X-Amz-* query)", false);

        final String label;
        final boolean chunked;

        Style(String label, boolean chunked) {
            this.label = label;
            this.chunked = chunked;
        }

        boolean chunkSignatures() {
            return this == STREAMING_SIGNED || this == STREAMING_SIGNED_TRAILER;
        }

        boolean trailer() {
            return this == STREAMING_SIGNED_TRAILER || this == STREAMING_UNSIGNED_TRAILER;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** What goes wrong in the aws-chunked body. */
    enum Chunks {
        INTACT,
        /** The first chunk (data and signature) sent again in place of the second. */
        REPLAYED,
        /** The first two chunks swapped, each with its own signature. */
        REORDERED,
        /** The first chunk's signature cut to 63 hex digits. */
        SIGNATURE_TRUNCATED,
        /** Chunks signed in the chain of another request's seed signature. */
        FROM_OTHER_REQUEST,
        /** Every data chunk right, the final empty chunk's signature wrong. */
        FINAL_SIGNATURE_WRONG,
        /** The body ends after the first chunk (Content-Length says so too). */
        BODY_TRUNCATED,
        /** The checksum trailer changed after the trailer was signed (or, unsigned, a wrong checksum). */
        TRAILER_TAMPERED
    }

    /** A request to send: method, raw (encoded) path and query, headers the operation needs, body. */
    record Request(String method, String path, String query, Map<String, String> headers, byte[] body) {
        Request {
            headers = new TreeMap<>(headers);
        }

        Request(String method, String path, String query) {
            this(method, path, query, Map.of(), new byte[0]);
        }
    }

    /** Deviations from a correct signature; the defaults make a correct request. */
    static final class Spoil {
        String secret = S3TestServer.SECRET_KEY;
        String accessKey = S3TestServer.ACCESS_KEY;
        Instant time;
        String signedMethod;
        String signedPath;
        /** Appended to the query that is signed, but not sent. */
        String signedQueryExtra = "";

        String signedHost;
        /** Added to the request after signing. */
        final Map<String, String> unsignedHeaders = new TreeMap<>();

        long expiresSeconds = 300;
        Chunks chunks = Chunks.INTACT;
        /** A signed x-amz-content-sha256 naming another body (signed-payload style). */
        String contentSha256;
    }

    static RawHttp send(int port, Style style, Request r) throws Exception {
        return send(port, style, r, new Spoil());
    }

    static RawHttp send(int port, Style style, Request r, Spoil spoil) throws Exception {
        return exchange(port, encode(port, style, r, spoil), r.method().equals("HEAD"));
    }

    /** Writes {@code request} on a new connection and reads the one response. */
    static RawHttp exchange(int port, byte[] request, boolean head) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(15_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            return RawHttp.read(s.getInputStream(), head);
        }
    }

    /** The request as bytes on the wire. */
    static byte[] encode(int port, Style style, Request r, Spoil spoil) {
        Instant t = spoil.time != null ? spoil.time : Instant.now();
        String amzDate = AMZ_DATE.format(t);
        String date = amzDate.substring(0, 8);
        String scope = SigV4.scope(date, REGION, "s3");
        byte[] key = SigV4.signingKey(spoil.secret, date, REGION, "s3");
        String host = "127.0.0.1:" + port;

        TreeMap<String, String> h = new TreeMap<>(r.headers());
        h.put("host", host);
        String payloadHash;
        String query = r.query();
        switch (style) {
            case SIGNED_PAYLOAD ->
                payloadHash = spoil.contentSha256 != null ? spoil.contentSha256 : SigV4.sha256Hex(r.body());
            case UNSIGNED_PAYLOAD -> payloadHash = SigV4.UNSIGNED_PAYLOAD;
            case STREAMING_SIGNED -> payloadHash = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
            case STREAMING_SIGNED_TRAILER -> payloadHash = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
            case STREAMING_UNSIGNED_TRAILER -> payloadHash = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
            case PRESIGNED -> payloadHash = SigV4.UNSIGNED_PAYLOAD;
            default -> throw new IllegalArgumentException(style.name());
        }
        if (style != Style.PRESIGNED) {
            h.put("x-amz-date", amzDate);
            h.put("x-amz-content-sha256", payloadHash);
        }
        if (style.chunked) {
            h.put("content-encoding", "aws-chunked");
            h.put("x-amz-decoded-content-length", Integer.toString(r.body().length));
        }
        if (style.trailer()) {
            h.put("x-amz-trailer", "x-amz-checksum-crc32");
        }

        String signedHeaderNames = String.join(";", h.keySet());
        if (style == Style.PRESIGNED) {
            String auth = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
                    + spoil.accessKey + "%2F" + date + "%2F" + REGION + "%2Fs3%2Faws4_request&X-Amz-Date=" + amzDate
                    + "&X-Amz-Expires=" + spoil.expiresSeconds + "&X-Amz-SignedHeaders="
                    + signedHeaderNames.replace(";", "%3B");
            query = query.isEmpty() ? auth : query + "&" + auth;
        }
        String signature = signature(key, amzDate, scope, r.method(), r.path(), query, h, payloadHash, spoil, host);

        byte[] body = r.body();
        if (style.chunked) {
            String seed = signature;
            if (spoil.chunks == Chunks.FROM_OTHER_REQUEST) {
                Spoil other = new Spoil();
                other.secret = spoil.secret;
                other.signedPath = r.path() + "-another-request";
                seed = signature(key, amzDate, scope, r.method(), r.path(), query, h, payloadHash, other, host);
            }
            body = chunked(style, r.body(), key, amzDate, scope, seed, spoil.chunks);
        }

        StringBuilder head = new StringBuilder();
        head.append(r.method()).append(' ').append(r.path());
        if (style == Style.PRESIGNED) {
            head.append('?').append(query).append("&X-Amz-Signature=").append(signature);
        } else if (!query.isEmpty()) {
            head.append('?').append(query);
        }
        head.append(" HTTP/1.1\r\n");
        h.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        spoil.unsignedHeaders.forEach(
                (k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        if (style != Style.PRESIGNED) {
            head.append("Authorization: AWS4-HMAC-SHA256 Credential=")
                    .append(spoil.accessKey)
                    .append('/')
                    .append(scope)
                    .append(", SignedHeaders=")
                    .append(signedHeaderNames)
                    .append(", Signature=")
                    .append(signature)
                    .append("\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
        out.writeBytes(body);
        return out.toByteArray();
    }

    private static String signature(
            byte[] key,
            String amzDate,
            String scope,
            String method,
            String path,
            String query,
            TreeMap<String, String> headers,
            String payloadHash,
            Spoil spoil,
            String host) {
        TreeMap<String, List<String>> signed = new TreeMap<>();
        headers.forEach((k, v) -> signed.put(k, List.of(v)));
        signed.put("host", List.of(spoil.signedHost != null ? spoil.signedHost : host));
        String canonical;
        try {
            canonical = SigV4.canonicalRequest(
                    spoil.signedMethod != null ? spoil.signedMethod : method,
                    spoil.signedPath != null ? spoil.signedPath : path,
                    query + spoil.signedQueryExtra,
                    List.copyOf(signed.keySet()),
                    signed,
                    payloadHash);
        } catch (RuntimeException undecodable) {
            // a path or query that is not valid percent-encoded UTF-8 has no canonical form: the server must refuse
            // it before looking at the signature, so any well-formed signature will do
            return "0".repeat(64);
        }
        return SigV4.signature(key, SigV4.stringToSign(amzDate, scope, canonical));
    }

    /** aws-chunked encoding of {@code data} in three chunks (fewer when short), spoiled as asked. */
    static byte[] chunked(
            Style style, byte[] data, byte[] key, String amzDate, String scope, String seed, Chunks spoil) {
        List<byte[]> pieces = new ArrayList<>();
        int size = Math.max(1, (data.length + 2) / 3);
        for (int off = 0; off < data.length; off += size) {
            pieces.add(Arrays.copyOfRange(data, off, Math.min(data.length, off + size)));
        }
        boolean signed = style.chunkSignatures();
        List<String> sigs = new ArrayList<>();
        String prev = seed;
        for (byte[] p : pieces) {
            prev = signed ? chunkSignature(key, amzDate, scope, prev, p) : null;
            sigs.add(prev);
        }
        String finalSig = signed ? chunkSignature(key, amzDate, scope, prev, new byte[0]) : null;
        if (spoil == Chunks.FINAL_SIGNATURE_WRONG) {
            finalSig = chunkSignature(key, amzDate, scope, seed, new byte[0]);
        }
        if (spoil == Chunks.SIGNATURE_TRUNCATED) {
            sigs.set(0, sigs.getFirst().substring(1));
        }
        if (spoil == Chunks.REPLAYED && pieces.size() > 1) {
            pieces.set(1, pieces.getFirst());
            sigs.set(1, sigs.getFirst());
        }
        if (spoil == Chunks.REORDERED && pieces.size() > 1) {
            byte[] p0 = pieces.getFirst();
            pieces.set(0, pieces.get(1));
            pieces.set(1, p0);
            String s0 = sigs.getFirst();
            sigs.set(0, sigs.get(1));
            sigs.set(1, s0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < pieces.size(); i++) {
            byte[] p = pieces.get(i);
            out.writeBytes((Integer.toHexString(p.length) + (signed ? ";chunk-signature=" + sigs.get(i) : "") + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(p);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            if (spoil == Chunks.BODY_TRUNCATED) {
                return out.toByteArray();
            }
        }
        out.writeBytes(
                ("0" + (signed ? ";chunk-signature=" + finalSig : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
        if (style.trailer()) {
            String crc = crc32(data);
            String trailer = "x-amz-checksum-crc32:" + crc + "\n";
            String sent = spoil == Chunks.TRAILER_TAMPERED
                    ? "x-amz-checksum-crc32:" + crc32(new byte[] {1})
                    : trailer.strip();
            out.writeBytes((sent + "\r\n").getBytes(StandardCharsets.US_ASCII));
            if (signed) {
                String toSign = "AWS4-HMAC-SHA256-TRAILER\n" + amzDate + "\n" + scope + "\n" + finalSig + "\n"
                        + SigV4.sha256Hex(trailer);
                out.writeBytes(("x-amz-trailer-signature:" + SigV4.signature(key, toSign) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
            }
        }
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static String chunkSignature(byte[] key, String amzDate, String scope, String prev, byte[] data) {
        String toSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + prev + "\n" + SigV4.EMPTY_SHA256
                + "\n" + SigV4.sha256Hex(data);
        return SigV4.signature(key, toSign);
    }

    static String crc32(byte[] data) {
        CRC32 c = new CRC32();
        c.update(data);
        long v = c.getValue();
        return Base64.getEncoder()
                .encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    static String md5(byte[] data) {
        try {
            return Base64.getEncoder()
                    .encodeToString(
                            java.security.MessageDigest.getInstance("MD5").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
