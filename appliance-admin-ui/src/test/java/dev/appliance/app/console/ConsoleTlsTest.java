package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.StoreBucketPolicies;
import dev.appliance.s3.tls.SelfSignedCertificate;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code --certs-dir}, the console serves HTTPS with the S3 port's certificate: a browser trusting that
 * certificate logs in and its session and CSRF cookies are marked Secure; plain HTTP on the console port gets no page
 * and no cookie (Tomcat has only the TLS connector), and a client that does not trust the certificate is refused.
 */
class ConsoleTlsTest {
    private static final String SECRET = "root-secret-for-the-console-tls-test";

    @TempDir
    static Path tmp;

    private static ApplianceStore store;
    private static S3Server s3;
    private static ConsoleApplication.Running console;
    private static Path certs;

    @BeforeAll
    static void start() throws Exception {
        certs = tmp.resolve("certs");
        SelfSignedCertificate.generate(certs, List.of("localhost", "127.0.0.1"), Clock.systemUTC(), false);
        store = TestStore.on(tmp.resolve("drives")).open();
        CredentialsProvider credentials =
                k -> k.equals(ConsoleTestAppliance.ACCESS_KEY) ? Optional.of(SECRET) : Optional.empty();
        store.identity().reserveAccessKeyId(ConsoleTestAppliance.ACCESS_KEY);
        var authorizer = new PolicyAuthorizer(
                ConsoleTestAppliance.ACCESS_KEY,
                store.identity(),
                new UserPolicies(store.identity(), new PolicySetCache(100)),
                new StoreBucketPolicies(store));
        s3 = S3Server.start(store, new S3ServerConfig("127.0.0.1", 0, null, credentials, authorizer));
        var properties = ServerOptions.parse(
                        List.of("--console-address", "127.0.0.1:0", "--certs-dir", certs.toString()),
                        Map.of(),
                        Map.of())
                .properties();
        console = ConsoleApplication.start(properties, store, s3, credentials, authorizer);
    }

    @AfterAll
    static void stop() {
        if (console != null) {
            console.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private static HttpClient trustingTheCertificate() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(certs.resolve("public.crt"))) {
            ks.setCertificateEntry(
                    "appliance", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder()
                .sslContext(ctx)
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    private static String cookie(HttpResponse<?> r, String name) {
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " cookie in " + r.headers()));
    }

    @Test
    void overHttps_aBrowserLogsIn_andItsCookiesAreSecure() throws Exception {
        String base = "https://localhost:" + console.port();
        try (HttpClient http = trustingTheCertificate()) {
            HttpResponse<String> csrf = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/session/csrf"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(csrf.statusCode()).isEqualTo(200);
            String xsrf = cookie(csrf, "XSRF-TOKEN");
            assertThat(xsrf).contains("Secure");
            String token = xsrf.substring("XSRF-TOKEN=".length(), xsrf.indexOf(';'));

            HttpResponse<String> login = http.send(
                    HttpRequest.newBuilder(URI.create(base + "/api/v1/session"))
                            .header("Content-Type", "application/json")
                            .header("Cookie", "XSRF-TOKEN=" + token)
                            .header("X-XSRF-TOKEN", token)
                            .POST(HttpRequest.BodyPublishers.ofString("{\"accessKey\":\""
                                    + ConsoleTestAppliance.ACCESS_KEY + "\",\"secretKey\":\"" + SECRET + "\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
            assertThat(cookie(login, ConsoleSecurity.SESSION_COOKIE))
                    .contains("Secure")
                    .contains("HttpOnly");
        }
    }

    @Test
    void plainHttpOnTheConsolePort_getsNoPageAndNoCookie() throws Exception {
        try (HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build()) {
            HttpRequest plain = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + console.port() + "/api/v1/session/csrf"))
                    .timeout(Duration.ofSeconds(30))
                    .build();
            HttpResponse<String> r = http.send(plain, HttpResponse.BodyHandlers.ofString());
            // Tomcat's TLS connector answers a plain request with a fixed 400 and closes: no page, no cookie
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("requires TLS");
            assertThat(r.headers().allValues("Set-Cookie")).isEmpty();
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificate_isRefused() {
        try (HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build()) {
            Throwable t = catchThrowable(() -> http.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + console.port() + "/api/v1/status"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString()));
            assertThat(t).isInstanceOf(SSLHandshakeException.class);
        }
    }
}
