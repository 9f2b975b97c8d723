package dev.appliance.s3.testing;

import dev.appliance.s3.auth.SigV4;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes of one HTTP/1.1 request signed with the test key ({@link S3TestServer#ACCESS_KEY}): SigV4 header
 * signature over {@code UNSIGNED-PAYLOAD}, every given header signed, {@code Content-Length} from the body. For tests
 * that write requests themselves (raw sockets, {@code EmbeddedChannel}).
 */
public final class SignedRequest {
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final String method;
    private final String path;
    private final String query;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Map<String, String> unsignedHeaders = new LinkedHashMap<>();
    private String secret = S3TestServer.SECRET_KEY;
    private byte[] body = new byte[0];

    private SignedRequest(String method, String path, String query) {
        this.method = method;
        this.path = path;
        this.query = query;
    }

    /** @param query the raw query string, empty for none */
    public static SignedRequest of(String method, String path, String query) {
        return new SignedRequest(method, path, query);
    }

    public static SignedRequest of(String method, String path) {
        return of(method, path, "");
    }

    /** A header that is signed (its name lower-case, as SigV4 signs it). */
    public SignedRequest header(String name, String value) {
        headers.put(name.toLowerCase(java.util.Locale.ROOT), value);
        return this;
    }

    /** A header sent but not signed, such as {@code Connection} or {@code Expect}. */
    public SignedRequest unsignedHeader(String name, String value) {
        unsignedHeaders.put(name, value);
        return this;
    }

    public SignedRequest body(String text) {
        body = text.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** Signs with another secret: the signature does not match. */
    public SignedRequest signedWith(String otherSecret) {
        secret = otherSecret;
        return this;
    }

    /** The request head alone (signed now, for host {@code host}). */
    public byte[] head(String host) {
        String amzDate = AMZ_DATE.format(ZonedDateTime.now(ZoneOffset.UTC));
        TreeMap<String, List<String>> signed = new TreeMap<>();
        signed.put("host", List.of(host));
        signed.put("x-amz-content-sha256", List.of(SigV4.UNSIGNED_PAYLOAD));
        signed.put("x-amz-date", List.of(amzDate));
        headers.forEach((k, v) -> signed.put(k, List.of(v)));
        String date = amzDate.substring(0, 8);
        String signature =
                SigV4.sign(secret, date, "us-east-1", amzDate, method, path, query, signed, SigV4.UNSIGNED_PAYLOAD);
        StringBuilder h = new StringBuilder()
                .append(method)
                .append(' ')
                .append(path)
                .append(query.isEmpty() ? "" : "?" + query)
                .append(" HTTP/1.1\r\n");
        signed.forEach((k, v) -> h.append(k).append(": ").append(v.getFirst()).append("\r\n"));
        h.append("Authorization: ")
                .append(SigV4.ALGORITHM)
                .append(" Credential=")
                .append(S3TestServer.ACCESS_KEY)
                .append('/')
                .append(SigV4.scope(date, "us-east-1", "s3"))
                .append(", SignedHeaders=")
                .append(String.join(";", signed.keySet()))
                .append(", Signature=")
                .append(signature)
                .append("\r\n");
        unsignedHeaders.forEach((k, v) -> h.append(k).append(": ").append(v).append("\r\n"));
        h.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        return h.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The body as given. */
    public byte[] body() {
        return body.clone();
    }

    /** Head and body. */
    public byte[] bytes(String host) {
        byte[] head = head(host);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }
}
