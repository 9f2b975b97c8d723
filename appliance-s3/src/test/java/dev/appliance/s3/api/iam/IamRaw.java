package dev.appliance.s3.api.iam;

import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.testing.S3TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.TreeMap;

/**
 * A request signed with the test key for a chosen service, its body's SHA-256 signed as IAM clients sign it (no
 * {@code x-amz-content-sha256} header): for the requests SDKs never send (an unknown action, the wrong service).
 */
final class IamRaw {
    private IamRaw() {}

    record Answer(int status, String body) {}

    static Answer send(int port, String service, String method, String path, String form) throws Exception {
        return send(port, S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY, service, method, path, form);
    }

    /** {@code GET /?query} signed for iam: the query protocol's other form. */
    static Answer get(int port, String query) throws Exception {
        return send(port, S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY, "iam", "GET", "/?" + query, "");
    }

    /** POST / signed for iam with another key pair. */
    static Answer sendAs(int port, String accessKey, String secret, String form) throws Exception {
        return send(port, accessKey, secret, "iam", "POST", "/", form);
    }

    private static Answer send(
            int port, String accessKey, String secret, String service, String method, String path, String form)
            throws Exception {
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneOffset.UTC)
                .format(ZonedDateTime.now());
        String date = amzDate.substring(0, 8);
        byte[] body = form.getBytes(StandardCharsets.UTF_8);
        String payloadHash = SigV4.sha256Hex(body);
        TreeMap<String, List<String>> h = new TreeMap<>();
        h.put("content-type", List.of("application/x-www-form-urlencoded; charset=utf-8"));
        h.put("host", List.of("127.0.0.1:" + port));
        h.put("x-amz-date", List.of(amzDate));
        String scope = SigV4.scope(date, "us-east-1", service);
        int q = path.indexOf('?');
        String rawPath = q < 0 ? path : path.substring(0, q);
        String rawQuery = q < 0 ? "" : path.substring(q + 1);
        String canonical = SigV4.canonicalRequest(method, rawPath, rawQuery, List.copyOf(h.keySet()), h, payloadHash);
        String signature = SigV4.signature(
                SigV4.signingKey(secret, date, "us-east-1", service), SigV4.stringToSign(amzDate, scope, canonical));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body))
                .header("content-type", h.get("content-type").getFirst())
                .header("x-amz-date", amzDate)
                .header(
                        "authorization",
                        SigV4.ALGORITHM + " Credential=" + accessKey + "/" + scope + ", SignedHeaders="
                                + String.join(";", h.keySet()) + ", Signature=" + signature);
        try (HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        }
    }
}
