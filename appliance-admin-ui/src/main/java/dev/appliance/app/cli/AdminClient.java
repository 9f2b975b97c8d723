package dev.appliance.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.SigV4;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Talks to a running appliance's admin API (its console port) for CLI commands: requests SigV4-signed with the root
 * credentials, as the console expects; failures become {@link Unreachable} with a message for the operator.
 */
public final class AdminClient {
    static final String DEFAULT_CONSOLE = "http://127.0.0.1:9001";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Says why the server could not answer; the message is meant for the operator. */
    public static final class Unreachable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message);
        }
    }

    /** An answer: HTTP status and body. */
    record Answer(int status, String body) {}

    private final URI console;
    private final String user;
    private final String password;
    private final SSLContext trust; // null: the JDK's trusted authorities

    AdminClient(URI console, String user, String password) {
        this(console, user, password, null);
    }

    /** @param trust the context from {@link #trusting}, for a console whose certificate no public authority signed */
    AdminClient(URI console, String user, String password, SSLContext trust) {
        this.console = console;
        this.user = user;
        this.password = password;
        this.trust = trust;
    }

    /**
     * {@code --cacert FILE}: trust the PEM certificate(s) in FILE, as {@code curl --cacert} does; for a console over
     * TLS with a self-signed certificate ({@code appliance certs generate} writes it as {@code public.crt}). Null when
     * the flag is absent.
     */
    static SSLContext trusting(Path pem) {
        if (pem == null) {
            return null;
        }
        try (InputStream in = Files.newInputStream(pem)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IllegalArgumentException("--cacert " + pem + ": contains no certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("--cacert " + pem + ": not a readable PEM certificate (" + e + ")", e);
        }
    }

    /** The console address from {@code --console}: http(s)://HOST:PORT, the scheme optional. */
    static URI consoleUri(String value) {
        String v = value.contains("://") ? value : "http://" + value;
        try {
            URI u = new URI(v);
            if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())
                    || u.getHost() == null
                    || (u.getPath() != null
                            && !u.getPath().isEmpty()
                            && !u.getPath().equals("/"))) {
                throw new URISyntaxException(v, "not an http(s)://HOST:PORT address");
            }
            return new URI(u.getScheme(), null, u.getHost(), u.getPort(), null, null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "--console '" + value + "': expected the console address, e.g. " + DEFAULT_CONSOLE);
        }
    }

    /** Encodes one path segment (an alert id holds a colon and the bucket's dots). */
    static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Sends a request with an empty body; {@code rawPath} is already encoded, {@code rawQuery} may be empty. */
    Answer send(String method, String rawPath, String rawQuery) throws Unreachable {
        return send(method, rawPath, rawQuery, null);
    }

    /** As {@link #send(String, String, String)}, with {@code json} (null: none) as the body, signed with it. */
    Answer send(String method, String rawPath, String rawQuery, String json) throws Unreachable {
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        String payload = json == null ? SigV4.EMPTY_SHA256 : SigV4.sha256Hex(body);
        String amzDate = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        String host = console.getPort() < 0 ? console.getHost() : console.getHost() + ":" + console.getPort();
        TreeMap<String, List<String>> headers = new TreeMap<>();
        headers.put("host", List.of(host));
        headers.put("x-amz-content-sha256", List.of(payload));
        headers.put("x-amz-date", List.of(amzDate));
        String region = S3ServerConfig.DEFAULT_REGION;
        String signature = SigV4.sign(password, date, region, amzDate, method, rawPath, rawQuery, headers, payload);
        String authorization = SigV4.ALGORITHM + " Credential=" + user + "/" + SigV4.scope(date, region, "s3")
                + ", SignedHeaders=" + String.join(";", headers.keySet()) + ", Signature=" + signature;
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(console + rawPath + (rawQuery.isEmpty() ? "" : "?" + rawQuery)))
                .timeout(Duration.ofSeconds(30))
                .header("x-amz-content-sha256", payload)
                .header("x-amz-date", amzDate)
                .header("Authorization", authorization)
                .method(
                        method,
                        json == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        HttpClient.Builder builder =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1);
        if (trust != null) {
            builder.sslContext(trust);
        }
        try (HttpClient client = builder.build()) {
            HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (ConnectException | HttpConnectTimeoutException e) {
            throw new Unreachable("cannot reach the appliance console at " + console
                    + " (connection refused or timed out): is the server running? Give its console address with"
                    + " --console");
        } catch (SSLHandshakeException e) {
            throw new Unreachable(
                    "cannot reach the appliance console at " + console + ": its TLS certificate is not" + " trusted ("
                            + e.getMessage() + "); give it with --cacert FILE (e.g. the --certs-dir's public.crt)");
        } catch (IOException e) {
            throw new Unreachable("cannot reach the appliance console at " + console + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted");
        }
    }

    /** Sends and parses a JSON answer; a status other than 200 becomes {@link Unreachable} with the server's reason. */
    JsonNode json(String method, String rawPath, String rawQuery) throws Unreachable {
        return json(method, rawPath, rawQuery, null);
    }

    /** As {@link #json(String, String, String)} with a JSON body (null: none); 202 Accepted is an answer too. */
    JsonNode json(String method, String rawPath, String rawQuery, String body) throws Unreachable {
        Answer a = send(method, rawPath, rawQuery, body);
        JsonNode root;
        try {
            root = JSON.readTree(a.body());
        } catch (IOException e) {
            root = null;
        }
        if (a.status() != 200 && a.status() != 202) {
            String detail = root != null && root.has("code")
                    ? root.path("code").asText() + ": " + root.path("message").asText()
                    : abbreviate(a.body());
            throw new Unreachable("the console at " + console + " answered " + a.status()
                    + (a.status() == 403 ? " (are --user/--password the root credentials?)" : "") + ": " + detail);
        }
        if (root == null) {
            throw new Unreachable(
                    "the console at " + console + " answered something that is not JSON: " + abbreviate(a.body()));
        }
        return root;
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    /** Credentials from the flags or the environment; a clear error when neither gives them. */
    static String[] credentials(String user, String password, Map<String, String> env) {
        String u = user != null ? user : env.get("APPLIANCE_ROOT_USER");
        String p = password != null ? password : env.get("APPLIANCE_ROOT_PASSWORD");
        if (u == null || u.isBlank() || p == null || p.isBlank()) {
            throw new IllegalArgumentException("no credentials: give --user and --password, or set"
                    + " APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD");
        }
        return new String[] {u, p};
    }
}
