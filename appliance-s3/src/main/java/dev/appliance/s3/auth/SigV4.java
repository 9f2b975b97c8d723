package dev.appliance.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.StringJoiner;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The readable reference of AWS Signature Version 4 for S3, one step per method, following the published algorithm:
 *
 * <pre>
 * CanonicalRequest = Method \n CanonicalURI \n CanonicalQuery \n CanonicalHeaders \n SignedHeaders \n PayloadHash
 * StringToSign     = "AWS4-HMAC-SHA256" \n AmzDate \n Scope \n hex(SHA256(CanonicalRequest))
 * Scope            = yyyyMMdd / region / s3 / aws4_request
 * SigningKey       = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")
 * Signature        = hex(HMAC(SigningKey, StringToSign))
 * </pre>
 *
 * S3 differs from other services in one point: the path is encoded once (decoded, then re-encoded), not twice.
 * {@link SigV4Verifier} uses these methods with per-thread {@link Mac}/{@link MessageDigest} instances.
 */
public final class SigV4 {
    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    /** Hex SHA-256 of the empty string. */
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final HexFormat HEX = HexFormat.of();
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    });
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(SigV4::newSha256);

    private SigV4() {}

    /** The path as S3 canonicalises it: decoded, then every byte but unreserved ones and '/' encoded. */
    public static String canonicalUri(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        return UriEncoding.encode(UriEncoding.decode(rawPath), true);
    }

    /** Parameters decoded, re-encoded (with '/' encoded too), sorted by name then value; no value means empty. */
    public static String canonicalQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> params = new ArrayList<>();
        for (String part : rawQuery.split("&")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            String value = eq < 0 ? "" : part.substring(eq + 1);
            params.add(new String[] {
                UriEncoding.encode(UriEncoding.decode(name), false),
                UriEncoding.encode(UriEncoding.decode(value), false)
            });
        }
        params.sort((a, b) -> {
            int c = a[0].compareTo(b[0]);
            return c != 0 ? c : a[1].compareTo(b[1]);
        });
        StringJoiner joined = new StringJoiner("&");
        for (String[] p : params) {
            joined.add(p[0] + "=" + p[1]);
        }
        return joined.toString();
    }

    /** A header value as signed: trimmed, inner runs of whitespace collapsed to one space. */
    public static String canonicalHeaderValue(String value) {
        return appendHeaderValue(new StringBuilder(value.length()), value).toString();
    }

    private static StringBuilder appendHeaderValue(StringBuilder sb, String value) {
        int start = sb.length();
        boolean space = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ' ' || c == '\t') {
                space = true;
            } else {
                if (space && sb.length() > start) {
                    sb.append(' ');
                }
                space = false;
                sb.append(c);
            }
        }
        return sb;
    }

    /**
     * Canonical headers block (each line {@code name:value\n}) for the signed names, taking values from {@code
     * headers} (lower-case names; several values joined with ','). A signed header the request lacks signs as empty.
     */
    public static String canonicalHeaders(List<String> signedHeaders, Map<String, List<String>> headers) {
        return appendCanonicalHeaders(new StringBuilder(), signedHeaders, headers)
                .toString();
    }

    private static StringBuilder appendCanonicalHeaders(
            StringBuilder sb, List<String> signedHeaders, Map<String, List<String>> headers) {
        for (String name : signedHeaders) {
            sb.append(name).append(':');
            List<String> values = headers.getOrDefault(name, List.of());
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                appendHeaderValue(sb, values.get(i));
            }
            sb.append('\n');
        }
        return sb;
    }

    /**
     * Written into one builder, not concatenated from the parts' own strings: the verifier computes it for every signed
     * request on the event loop.
     */
    public static String canonicalRequest(
            String method,
            String rawPath,
            String rawQuery,
            List<String> signedHeaders,
            Map<String, List<String>> headers,
            String payloadHash) {
        StringBuilder sb = new StringBuilder(512);
        sb.append(method).append('\n');
        sb.append(canonicalUri(rawPath)).append('\n');
        sb.append(canonicalQuery(rawQuery)).append('\n');
        appendCanonicalHeaders(sb, signedHeaders, headers).append('\n');
        for (int i = 0; i < signedHeaders.size(); i++) {
            if (i > 0) {
                sb.append(';');
            }
            sb.append(signedHeaders.get(i));
        }
        return sb.append('\n').append(payloadHash).toString();
    }

    public static String scope(String date, String region, String service) {
        return date + '/' + region + '/' + service + "/aws4_request";
    }

    public static String stringToSign(String amzDate, String scope, String canonicalRequest) {
        return ALGORITHM + '\n' + amzDate + '\n' + scope + '\n' + sha256Hex(canonicalRequest);
    }

    public static byte[] signingKey(String secret, String date, String region, String service) {
        byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
        k = hmac(k, region);
        k = hmac(k, service);
        return hmac(k, "aws4_request");
    }

    public static String signature(byte[] signingKey, String stringToSign) {
        return HEX.formatHex(hmac(signingKey, stringToSign));
    }

    /** The whole computation, for tests and for clients: the signature of a header-signed request. */
    public static String sign(
            String secret,
            String date,
            String region,
            String amzDate,
            String method,
            String rawPath,
            String rawQuery,
            SortedMap<String, List<String>> headers,
            String payloadHash) {
        List<String> signed = List.copyOf(headers.keySet());
        String canonical = canonicalRequest(method, rawPath, rawQuery, signed, headers, payloadHash);
        return signature(
                signingKey(secret, date, region, "s3"), stringToSign(amzDate, scope(date, region, "s3"), canonical));
    }

    public static byte[] hmac(byte[] key, String data) {
        Mac mac = HMAC.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC key rejected", e);
        }
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    public static String sha256Hex(String data) {
        return sha256Hex(data.getBytes(StandardCharsets.UTF_8));
    }

    public static String sha256Hex(byte[] data) {
        MessageDigest md = SHA256.get();
        md.reset();
        return HEX.formatHex(md.digest(data));
    }

    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }
}
