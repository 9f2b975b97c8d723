package dev.appliance.it.veeam;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The requests whose exact shape matters for Veeam and that the SDK would shape differently, sent as Veeam's own S3
 * client sends them: SigV4 with the SHA-256 of the payload in {@code x-amz-content-sha256} (no aws-chunked body),
 * {@code Content-MD5} on every body, Veeam's {@code User-Agent}, and XML bodies without the S3 namespace (a
 * {@code <Retention>} without {@code xmlns} is what broke other stores, seaweedfs#7516).
 *
 * <p>Signing is the SDK's {@link AwsV4HttpSigner} (the reference implementation), sending is the SDK's Apache client;
 * only the request shape is ours.
 */
final class VeeamWire implements AutoCloseable {
    /** What Veeam Backup & Replication sends; stores key Veeam quirks off the {@code APN/1.0 Veeam/1.0} part. */
    static final String USER_AGENT = "APN/1.0 Veeam/1.0 Backup/12.3";

    private final URI endpoint;
    private final String region;
    private final AwsCredentialsIdentity credentials;
    private final SdkHttpClient http;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    VeeamWire(URI endpoint, String region, String accessKey, String secretKey, int maxConnections) {
        this.endpoint = endpoint;
        this.region = region;
        this.credentials = AwsCredentialsIdentity.create(accessKey, secretKey);
        this.http = ApacheHttpClient.builder()
                .maxConnections(maxConnections)
                .connectionTimeout(Duration.ofSeconds(10))
                .socketTimeout(Duration.ofSeconds(120))
                .build();
    }

    /** A response read to its end. */
    record Response(int status, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return e.getValue().getFirst();
                }
            }
            return null;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The {@code <Code>} of an S3 error body, or null. */
        String errorCode() {
            if (body.length == 0) {
                return null;
            }
            Element root = parse(body).getDocumentElement();
            return "Error".equals(root.getTagName()) ? childText(root, "Code") : null;
        }

        @Override
        public String toString() {
            return status + " " + (body.length < 2048 ? text() : body.length + " bytes");
        }
    }

    /**
     * PutObject of one block as VBR sends it: real SHA-256 payload hash, {@code Content-MD5}, and when {@code lockMode}
     * is set the two lock headers (Veeam sets COMPLIANCE with a date, never a legal hold).
     */
    Response putObject(String bucket, String key, byte[] body, String lockMode, String retainUntil) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/octet-stream");
        headers.put("Content-MD5", Payload.md5Base64(body));
        if (lockMode != null) {
            headers.put("x-amz-object-lock-mode", lockMode);
            headers.put("x-amz-object-lock-retain-until-date", retainUntil);
        }
        return send(SdkHttpMethod.PUT, bucket, key, Map.of(), headers, body);
    }

    /** PutObjectRetention by version id, with Veeam's namespace-less body and its {@code Content-MD5}. */
    Response putRetention(String bucket, String key, String versionId, String mode, String retainUntil) {
        String xml = "<Retention><Mode>" + mode + "</Mode><RetainUntilDate>" + retainUntil
                + "</RetainUntilDate></Retention>";
        byte[] body = xml.getBytes(StandardCharsets.UTF_8);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("retention", "");
        query.put("versionId", versionId);
        return send(
                SdkHttpMethod.PUT,
                bucket,
                key,
                query,
                Map.of("Content-MD5", Payload.md5Base64(body), "Content-Type", "application/xml"),
                body);
    }

    /** One {@code <Object>} of a DeleteObjects request; {@code versionId} null for a delete without one. */
    record DeleteEntry(String key, String versionId) {}

    /** One per-key answer of DeleteObjects: {@code code} null for {@code <Deleted>}. */
    record DeleteOutcome(
            String key,
            String versionId,
            boolean deleteMarker,
            String deleteMarkerVersionId,
            String code,
            String message) {
        boolean deleted() {
            return code == null;
        }
    }

    /** DeleteObjects ({@code POST ?delete}) with a namespace-less body and {@code Content-MD5}, as Veeam batches it. */
    Response deleteObjects(String bucket, List<DeleteEntry> entries, boolean quiet) {
        StringBuilder xml = new StringBuilder("<Delete>");
        if (quiet) {
            xml.append("<Quiet>true</Quiet>");
        }
        for (DeleteEntry e : entries) {
            xml.append("<Object><Key>").append(escape(e.key())).append("</Key>");
            if (e.versionId() != null) {
                xml.append("<VersionId>").append(escape(e.versionId())).append("</VersionId>");
            }
            xml.append("</Object>");
        }
        xml.append("</Delete>");
        byte[] body = xml.toString().getBytes(StandardCharsets.UTF_8);
        return send(
                SdkHttpMethod.POST,
                bucket,
                null,
                Map.of("delete", ""),
                Map.of("Content-MD5", Payload.md5Base64(body), "Content-Type", "application/xml"),
                body);
    }

    /** The {@code <Deleted>} and {@code <Error>} entries of a DeleteObjects answer, in document order. */
    static List<DeleteOutcome> deleteOutcomes(byte[] body) {
        Element root = parse(body).getDocumentElement();
        if (!"DeleteResult".equals(root.getTagName())) {
            throw new IllegalStateException("not a DeleteResult: " + new String(body, StandardCharsets.UTF_8));
        }
        List<DeleteOutcome> out = new ArrayList<>();
        NodeList children = root.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (!(children.item(i) instanceof Element e)) {
                continue;
            }
            switch (e.getTagName()) {
                case "Deleted" ->
                    out.add(new DeleteOutcome(
                            childText(e, "Key"),
                            childText(e, "VersionId"),
                            "true".equals(childText(e, "DeleteMarker")),
                            childText(e, "DeleteMarkerVersionId"),
                            null,
                            null));
                case "Error" ->
                    out.add(new DeleteOutcome(
                            childText(e, "Key"),
                            childText(e, "VersionId"),
                            false,
                            null,
                            childText(e, "Code"),
                            childText(e, "Message")));
                default -> throw new IllegalStateException("unexpected element in DeleteResult: " + e.getTagName());
            }
        }
        return out;
    }

    /** Any signed request; {@code key} null for a bucket request; query values "" for value-less sub-resources. */
    Response send(
            SdkHttpMethod method,
            String bucket,
            String key,
            Map<String, String> query,
            Map<String, String> headers,
            byte[] body) {
        String path = "/" + bucket + (key == null ? "" : "/" + SdkHttpUtils.urlEncodeIgnoreSlashes(key));
        SdkHttpFullRequest.Builder b = SdkHttpFullRequest.builder()
                .method(method)
                .protocol(endpoint.getScheme())
                .host(endpoint.getHost())
                .port(endpoint.getPort() > 0 ? endpoint.getPort() : defaultPort())
                .encodedPath(path)
                .putHeader("User-Agent", USER_AGENT);
        query.forEach(b::putRawQueryParameter);
        headers.forEach(b::putHeader);
        byte[] payload = body == null ? new byte[0] : body;
        if (method == SdkHttpMethod.PUT || method == SdkHttpMethod.POST) {
            b.putHeader("Content-Length", Integer.toString(payload.length));
        }
        SdkHttpRequest unsigned = b.build();
        ContentStreamProvider content = ContentStreamProvider.fromByteArrayUnsafe(payload);
        SignedRequest signed = signer.sign(r -> r.identity(credentials)
                .request(unsigned)
                .payload(content)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true));
        HttpExecuteRequest.Builder exec = HttpExecuteRequest.builder().request(signed.request());
        if (method == SdkHttpMethod.PUT || method == SdkHttpMethod.POST) {
            exec.contentStreamProvider(signed.payload().orElse(content));
        }
        try {
            HttpExecuteResponse response = http.prepareRequest(exec.build()).call();
            byte[] responseBody;
            if (response.responseBody().isPresent()) {
                try (InputStream in = response.responseBody().get()) {
                    responseBody = in.readAllBytes();
                }
            } else {
                responseBody = new byte[0];
            }
            return new Response(
                    response.httpResponse().statusCode(),
                    response.httpResponse().headers(),
                    responseBody);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + ": " + e, e);
        }
    }

    private int defaultPort() {
        return "https".equals(endpoint.getScheme()) ? 443 : 80;
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    static Document parse(byte[] xml) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
        } catch (Exception e) {
            throw new IllegalStateException(
                    "unparsable XML: " + e.getMessage() + ": " + new String(xml, StandardCharsets.UTF_8), e);
        }
    }

    /** Text of the first child element named {@code name}, or null. */
    static String childText(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent();
            }
        }
        return null;
    }

    @Override
    public void close() {
        http.close();
    }
}
