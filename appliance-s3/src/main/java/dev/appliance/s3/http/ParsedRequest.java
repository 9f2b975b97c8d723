package dev.appliance.s3.http;

import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The addressing of a request. Path style: {@code /bucket/key?query}. Virtual-hosted style, when a domain is
 * configured and the Host header is {@code bucket.DOMAIN[:port]}: the bucket from the host, the key is the whole path
 * after its leading '/'. Any other Host (the domain itself, an IP address, an unknown name) means path style. The path
 * is percent-decoded as UTF-8; the key is kept verbatim (S3 does not normalise "." or "//"). {@code rawPath} stays the
 * path as sent: it is what SigV4 signs in both styles.
 */
record ParsedRequest(
        String method,
        String rawPath,
        String rawQuery,
        String bucket,
        String key,
        Map<String, String> query,
        Map<String, List<String>> headers) {

    static final int MAX_KEY_BYTES = 1024;

    static ParsedRequest parse(HttpRequest req) {
        return parse(req, null);
    }

    /** @param domain the virtual-hosted-style domain (lower case), or null for path style only */
    static ParsedRequest parse(HttpRequest req, String domain) {
        String uri = req.uri();
        int scheme = uri.indexOf("://");
        if (scheme > 0 && scheme < 8) {
            int slash = uri.indexOf('/', scheme + 3);
            uri = slash < 0 ? "/" : uri.substring(slash);
        }
        if (!uri.startsWith("/")) {
            throw new S3Exception(S3ErrorCode.InvalidURI);
        }
        int q = uri.indexOf('?');
        String rawPath = q < 0 ? uri : uri.substring(0, q);
        String rawQuery = q < 0 ? null : uri.substring(q + 1);

        String path = UriEncoding.decode(rawPath).substring(1);
        String bucket = domain == null ? null : virtualHostBucket(req.headers().get("host"), domain);
        String key = null;
        if (bucket != null) {
            key = path.isEmpty() ? null : path;
        } else if (!path.isEmpty()) {
            int slash = path.indexOf('/');
            bucket = slash < 0 ? path : path.substring(0, slash);
            if (bucket.isEmpty()) {
                throw new S3Exception(S3ErrorCode.InvalidURI, "Could not parse the specified URI: empty bucket name.");
            }
            key = slash < 0 ? null : path.substring(slash + 1);
            if (key != null && key.isEmpty()) {
                key = null;
            }
        }
        if (key != null && key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new S3Exception(S3ErrorCode.KeyTooLongError);
        }

        Map<String, String> query = new LinkedHashMap<>();
        if (rawQuery != null) {
            for (String part : rawQuery.split("&")) {
                if (part.isEmpty()) {
                    continue;
                }
                int eq = part.indexOf('=');
                String name = UriEncoding.decode(eq < 0 ? part : part.substring(0, eq));
                String value = eq < 0 ? "" : UriEncoding.decode(part.substring(eq + 1));
                query.putIfAbsent(name, value);
            }
        }

        Map<String, List<String>> headers = new TreeMap<>();
        for (Map.Entry<String, String> h : req.headers()) {
            headers.computeIfAbsent(h.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>(1))
                    .add(wireText(h.getValue()));
        }
        return new ParsedRequest(req.method().name(), rawPath, rawQuery, bucket, key, query, headers);
    }

    /**
     * A header value as the client meant it. Netty maps each byte to one char (ISO-8859-1); clients send non-ASCII
     * values (user metadata) as UTF-8 bytes and sign those bytes, so a value that is valid UTF-8 is decoded as such.
     * Anything else is kept byte for byte.
     */
    static String wireText(String value) {
        boolean ascii = true;
        for (int i = 0; i < value.length() && ascii; i++) {
            ascii = value.charAt(i) < 0x80;
        }
        if (ascii) {
            return value;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(value.getBytes(StandardCharsets.ISO_8859_1)))
                    .toString();
        } catch (CharacterCodingException e) {
            return value;
        }
    }

    /** The bucket named by {@code host} ({@code bucket.domain[:port]}), or null for path style. */
    static String virtualHostBucket(String host, String domain) {
        if (host == null) {
            return null;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            return null; // an IPv6 literal
        }
        int colon = h.lastIndexOf(':');
        if (colon >= 0) {
            h = h.substring(0, colon);
        }
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        if (h.length() <= domain.length() + 1
                || !h.endsWith(domain)
                || h.charAt(h.length() - domain.length() - 1) != '.') {
            return null;
        }
        return h.substring(0, h.length() - domain.length() - 1);
    }

    /**
     * The query without the SigV4 query-authentication parameters ({@code X-Amz-Algorithm}, {@code
     * X-Amz-Credential}, ... : every name starting with {@code X-Amz-}), which address no operation.
     */
    Map<String, String> operationQuery() {
        boolean any = false;
        for (String name : query.keySet()) {
            if (name.startsWith("X-Amz-")) {
                any = true;
                break;
            }
        }
        if (!any) {
            return query;
        }
        Map<String, String> q = new LinkedHashMap<>(query);
        q.keySet().removeIf(n -> n.startsWith("X-Amz-"));
        return q;
    }

    String resource() {
        if (bucket == null) {
            return "/";
        }
        return key == null ? "/" + bucket : "/" + bucket + "/" + key;
    }
}
