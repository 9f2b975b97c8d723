package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * TLS on the S3 port with a certificate made by {@code appliance certs generate}: the SDK v2 client (Apache HTTP client
 * trusting that certificate), boto3 ({@code verify=public.crt}) and curl ({@code --cacert}) all reach it, several
 * requests per connection; a certificate directory with a foreign key or a missing file stops the start with a message
 * naming the file. The console serves HTTPS with the same certificate: a session logs in over it with Secure cookies,
 * plain HTTP on the console port gets no page, and the CLI reaches it with {@code --cacert}.
 */
class TlsIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static Path certs;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        certs = Commands.generateCerts(tmp, tmp.resolve("certs"), "s3.tls.lab");
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "tls-it-admin", "tls-it-secret-" + UUID.randomUUID())
                        .withArgs("--certs-dir", certs.toString()))
                .start();
        s3 = appliance.client(
                appliance.accessKey(),
                appliance.secretKey(),
                b -> b.httpClientBuilder(ApacheHttpClient.builder()
                        .tlsTrustManagersProvider(() -> trusting(certs.resolve("public.crt")))));
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
        if (appliance != null) {
            appliance.stop();
        }
    }

    static TrustManager[] trusting(Path pem) {
        try {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(pem)));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setCertificateEntry("appliance", cert);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            return tmf.getTrustManagers();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void certsGenerate_writesPemPair_keyOwnerOnly_andTheServerAnnouncesTls() throws Exception {
        assertThat(Files.readString(certs.resolve("public.crt"))).startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(Files.readString(certs.resolve("private.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(certs.resolve("private.key"))))
                .isEqualTo("rw-------");
        assertThat(appliance.s3Endpoint().getScheme()).isEqualTo("https");
        assertThat(appliance.stdout()).contains("S3 TLS:   on");
    }

    @Test
    void sdkClient_overTls_roundTripsObjects() {
        s3.createBucket(b -> b.bucket("tls-sdk"));
        byte[] data = TestData.bytes(11, 3 * 1024 * 1024 + 7);
        s3.putObject(b -> b.bucket("tls-sdk").key("big.bin"), RequestBody.fromBytes(data));
        for (int i = 0; i < 3; i++) {
            assertThat(s3.getObjectAsBytes(b -> b.bucket("tls-sdk").key("big.bin"))
                            .asByteArray())
                    .isEqualTo(data);
        }
        assertThat(s3.listObjectsV2(b -> b.bucket("tls-sdk")).contents()).hasSize(1);
    }

    @Test
    void boto3_overTls_withVerifyPointingAtTheCertificate() {
        s3.createBucket(b -> b.bucket("tls-boto3"));
        String script = """
                import boto3, sys
                from botocore.config import Config
                c = boto3.client("s3", endpoint_url=sys.argv[1], verify=sys.argv[2], region_name="us-east-1",
                                 aws_access_key_id=sys.argv[3], aws_secret_access_key=sys.argv[4],
                                 config=Config(s3={"addressing_style": "path"}))
                c.put_object(Bucket="tls-boto3", Key="from-python", Body=b"boto3 over tls")
                for _ in range(3):
                    body = c.get_object(Bucket="tls-boto3", Key="from-python")["Body"].read()
                print(body.decode())
                print(len(c.list_buckets()["Buckets"]) > 0)
                """;
        Commands.Result r = Commands.run(
                tmp,
                List.of(
                        "python3",
                        "-c",
                        script,
                        appliance.s3Endpoint().toString(),
                        certs.resolve("public.crt").toString(),
                        appliance.accessKey(),
                        appliance.secretKey()),
                Map.of(),
                60);
        assertThat(r.status()).as(r.stderr()).isZero();
        assertThat(r.stdout()).isEqualTo("boto3 over tls\nTrue\n");
        assertThat(s3.getObjectAsBytes(b -> b.bucket("tls-boto3").key("from-python"))
                        .asUtf8String())
                .isEqualTo("boto3 over tls");
    }

    @Test
    void curl_trustsTheCertificate_andRefusesWithoutIt() {
        URI e = appliance.s3Endpoint();
        Commands.Result ok = Commands.run(
                tmp,
                List.of(
                        "curl",
                        "-sS",
                        "--cacert",
                        certs.resolve("public.crt").toString(),
                        "-o",
                        "/dev/null",
                        "-w",
                        "%{http_code} %{ssl_verify_result}",
                        e + "/"),
                Map.of(),
                30);
        // anonymous request: the TLS handshake and verification succeed, S3 answers 403
        assertThat(ok.stdout()).as(ok.stderr()).isEqualTo("403 0");
        Commands.Result untrusted = Commands.run(tmp, List.of("curl", "-sS", "-o", "/dev/null", e + "/"), Map.of(), 30);
        assertThat(untrusted.status()).isEqualTo(60); // peer certificate cannot be authenticated
    }

    @Test
    void mismatchedKeyOrMissingCertificate_refusesToStart_namingTheFile() throws Exception {
        Path other = Commands.generateCerts(tmp, tmp.resolve("other"));
        Path mixed = Files.createDirectories(tmp.resolve("mixed"));
        Files.copy(certs.resolve("public.crt"), mixed.resolve("public.crt"));
        Files.copy(other.resolve("private.key"), mixed.resolve("private.key"), StandardCopyOption.REPLACE_EXISTING);
        ApplianceProcess bad =
                LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("bad"), "u-bad", "secret-bad-1234")
                        .withArgs("--certs-dir", mixed.toString()));
        ApplianceProcess.Exit exit =
                bad.runUntilExit(bad.drives().stream().map(Path::toString).toList(), Duration.ofSeconds(60));
        assertThat(exit.status()).isEqualTo(1);
        assertThat(exit.stderr())
                .contains(mixed.resolve("private.key").toString())
                .contains("does not belong");

        Files.delete(mixed.resolve("public.crt"));
        exit = bad.runUntilExit(bad.drives().stream().map(Path::toString).toList(), Duration.ofSeconds(60));
        assertThat(exit.status()).isEqualTo(1);
        assertThat(exit.stderr()).contains(mixed.resolve("public.crt") + ": missing");
        assertThat(new String(Files.readAllBytes(certs.resolve("public.crt")), StandardCharsets.US_ASCII))
                .contains("CERTIFICATE");
    }

    /** curl trusting the certificate, with a cookie jar: a browser's session over the console's HTTPS. */
    private static Commands.Result consoleCurl(Path jar, String method, String path, String json, String... extra)
            throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(
                "curl",
                "-sS",
                "--cacert",
                certs.resolve("public.crt").toString(),
                "-b",
                jar.toString(),
                "-c",
                jar.toString(),
                "-o",
                "-",
                "-w",
                "\n%{http_code}",
                "-X",
                method,
                appliance.consoleUri() + path));
        if (json != null) {
            cmd.addAll(List.of("-H", "Content-Type: application/json", "--data-raw", json));
        }
        cmd.addAll(List.of(extra));
        return Commands.run(tmp, cmd, Map.of(), 30);
    }

    private static String jarCookie(Path jar, String name) throws Exception {
        for (String line : Files.readAllLines(jar)) {
            String[] f = line.split("\t");
            if (f.length == 7 && f[5].equals(name)) {
                return line;
            }
        }
        throw new AssertionError("no cookie " + name + " in " + Files.readString(jar));
    }

    @Test
    void console_overHttpsWithTheSameCertificate_sessionLogsIn_cookiesSecure() throws Exception {
        assertThat(appliance.consoleUri().getScheme()).isEqualTo("https");
        assertThat(appliance.stdout()).contains("Console:  https://");
        Path jar = tmp.resolve("console-cookies.txt");
        Commands.Result csrf = consoleCurl(jar, "GET", "/api/v1/session/csrf", null);
        assertThat(csrf.status()).as(csrf.stderr()).isZero();
        assertThat(csrf.stdout()).endsWith("\n200");
        String[] xsrf = jarCookie(jar, "XSRF-TOKEN").split("\t");
        assertThat(xsrf[3]).as("the CSRF cookie's secure flag").isEqualTo("TRUE");

        Commands.Result login = consoleCurl(
                jar,
                "POST",
                "/api/v1/session",
                "{\"accessKey\":\"" + appliance.accessKey() + "\",\"secretKey\":\"" + appliance.secretKey() + "\"}",
                "-H",
                "X-XSRF-TOKEN: " + xsrf[6]);
        assertThat(login.stdout()).as(login.stderr()).endsWith("\n200");
        String session = jarCookie(jar, "APPLIANCE_SESSION");
        assertThat(session).startsWith("#HttpOnly_");
        assertThat(session.split("\t")[3])
                .as("the session cookie's secure flag")
                .isEqualTo("TRUE");
        Commands.Result users = consoleCurl(jar, "GET", "/api/v1/admin/iam/users", null);
        assertThat(users.stdout()).as(users.stderr()).endsWith("\n200");

        // the page itself is served over https too
        Commands.Result page = consoleCurl(jar, "GET", "/", null);
        assertThat(page.stdout()).contains("<html").endsWith("\n200");
    }

    @Test
    void console_plainHttpOnItsPort_getsNoPageAndNoCookie() {
        URI plain = URI.create("http://" + appliance.consoleUri().getHost() + ":"
                + appliance.consoleUri().getPort() + "/api/v1/session/csrf");
        Commands.Result r = Commands.run(
                tmp, List.of("curl", "-sS", "-i", "-o", "-", "-w", "\n%{http_code}", plain.toString()), Map.of(), 30);
        assertThat(r.stdout()).as(r.stderr()).endsWith("\n400").contains("requires TLS");
        assertThat(r.stdout().toLowerCase(java.util.Locale.ROOT)).doesNotContain("set-cookie");
    }

    @Test
    void healCli_reachesTheHttpsConsole_withCacert_andSaysSoWithout() {
        Map<String, String> env =
                Map.of("APPLIANCE_ROOT_USER", appliance.accessKey(), "APPLIANCE_ROOT_PASSWORD", appliance.secretKey());
        Commands.Result ok = Commands.run(
                tmp,
                ApplianceProcess.jarCommand(
                        "heal",
                        "status",
                        "--json",
                        "--console",
                        appliance.consoleUri().toString(),
                        "--cacert",
                        certs.resolve("public.crt").toString()),
                env,
                60);
        assertThat(ok.status()).as(ok.stderr()).isZero();
        assertThat(ok.stdout()).contains("\"drives\"");
        Commands.Result untrusted = Commands.run(
                tmp,
                ApplianceProcess.jarCommand(
                        "heal", "status", "--console", appliance.consoleUri().toString()),
                env,
                60);
        assertThat(untrusted.status()).isEqualTo(1);
        assertThat(untrusted.stderr()).contains("--cacert");
    }
}
