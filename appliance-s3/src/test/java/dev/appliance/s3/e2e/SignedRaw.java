package dev.appliance.s3.e2e;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A request signed with the test credentials (UNSIGNED-PAYLOAD, every given header signed), sent raw on its own
 * connection: for what SDKs never send. Answers the whole response, head and body.
 */
final class SignedRaw {
    private SignedRaw() {}

    /** @param query the raw query string, or empty for none */
    static String send(int port, String method, String path, String query, Map<String, String> extra, String body)
            throws Exception {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(ZonedDateTime.now());
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("host", List.of("127.0.0.1:" + port));
        h.put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
        h.put("x-amz-date", List.of(amzDate));
        extra.forEach((k, v) -> h.put(k, List.of(v)));
        String sig = SigV4.sign(
                S3TestServer.SECRET_KEY,
                amzDate.substring(0, 8),
                "us-east-1",
                amzDate,
                method,
                path,
                query,
                h,
                "UNSIGNED-PAYLOAD");
        StringBuilder req =
                new StringBuilder(method + " " + path + (query.isEmpty() ? "" : "?" + query) + " HTTP/1.1\r\n");
        h.forEach((k, v) -> req.append(k).append(": ").append(v.getFirst()).append("\r\n"));
        req.append("Authorization: AWS4-HMAC-SHA256 Credential=")
                .append(S3TestServer.ACCESS_KEY)
                .append('/')
                .append(amzDate, 0, 8)
                .append("/us-east-1/s3/aws4_request, SignedHeaders=")
                .append(String.join(";", h.keySet()))
                .append(", Signature=")
                .append(sig)
                .append("\r\n");
        req.append("Content-Length: ")
                .append(body.getBytes(StandardCharsets.UTF_8).length)
                .append("\r\nConnection: close\r\n\r\n")
                .append(body);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
