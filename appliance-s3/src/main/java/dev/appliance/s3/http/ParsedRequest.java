package dev.appliance.s3.http;

import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The addressing of a request, path-style: {@code /bucket/key?query}. The path is percent-decoded as UTF-8; the key is
 * everything after the first '/' following the bucket, kept verbatim (S3 does not normalise "." or "//").
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
        String bucket = null;
        String key = null;
        if (!path.isEmpty()) {
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
                    .add(h.getValue());
        }
        return new ParsedRequest(req.method().name(), rawPath, rawQuery, bucket, key, query, headers);
    }

    String resource() {
        if (bucket == null) {
            return "/";
        }
        return key == null ? "/" + bucket : "/" + bucket + "/" + key;
    }
}
