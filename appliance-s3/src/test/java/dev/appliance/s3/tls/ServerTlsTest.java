package dev.appliance.s3.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerTlsTest {
    @TempDir
    Path tmp;

    @Test
    void generatedPair_loads_withSansAndTwoYearValidity_keyMode600() throws Exception {
        Path dir = tmp.resolve("certs");
        var g = SelfSignedCertificate.generate(dir, List.of("s3.example.lab", "10.1.2.3"), Clock.systemUTC(), false);

        ServerTls tls = ServerTls.load(dir);

        X509Certificate c = tls.certificate();
        assertThat(c.getSubjectAlternativeNames())
                .extracting(l -> l.get(1).toString())
                .contains("s3.example.lab", "10.1.2.3", "localhost", "127.0.0.1");
        Duration validity =
                Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant());
        assertThat(validity).isBetween(Duration.ofDays(729), Duration.ofDays(731));
        assertThat(tls.validityWarning(Instant.now())).isNull();
        assertThat(tls.validityWarning(Instant.now().plus(Duration.ofDays(800))))
                .contains("expired");
        assertThat(Files.getPosixFilePermissions(g.keyFile()))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(Files.readString(g.keyFile())).startsWith("-----BEGIN PRIVATE KEY-----");
    }

    @Test
    void generate_refusesToOverwrite_unlessForced() throws Exception {
        SelfSignedCertificate.generate(tmp, List.of(), Clock.systemUTC(), false);
        assertThatThrownBy(() -> SelfSignedCertificate.generate(tmp, List.of(), Clock.systemUTC(), false))
                .hasMessageContaining("already exists");
        SelfSignedCertificate.generate(tmp, List.of("x"), Clock.systemUTC(), true);
        assertThat(ServerTls.load(tmp).certificate().getSubjectAlternativeNames())
                .extracting(l -> l.get(1).toString())
                .contains("x");
    }

    @Test
    void missingDirectoryOrFiles_areNamed() throws Exception {
        assertThatThrownBy(() -> ServerTls.load(tmp.resolve("nope"))).hasMessageContaining("not a directory");
        assertThatThrownBy(() -> ServerTls.load(tmp)).hasMessageContaining("public.crt: missing");
        SelfSignedCertificate.generate(tmp, List.of(), Clock.systemUTC(), false);
        Files.delete(tmp.resolve("private.key"));
        assertThatThrownBy(() -> ServerTls.load(tmp)).hasMessageContaining("private.key: missing");
    }

    @Test
    void garbageFiles_areNamed() throws Exception {
        SelfSignedCertificate.generate(tmp, List.of(), Clock.systemUTC(), false);
        Path key = tmp.resolve("private.key");
        String goodKey = Files.readString(key);
        Files.writeString(key, "hello\n");
        assertThatThrownBy(() -> ServerTls.load(tmp))
                .hasMessageContaining(key.toString())
                .hasMessageContaining("no private key");
        Files.writeString(key, goodKey);
        Path cert = tmp.resolve("public.crt");
        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(() -> ServerTls.load(tmp)).hasMessageContaining(cert.toString());
        Files.writeString(cert, "");
        assertThatThrownBy(() -> ServerTls.load(tmp)).hasMessageContaining("public.crt: empty");
    }

    @Test
    void keyOfAnotherCertificate_isRefusedAsMismatch() throws Exception {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        SelfSignedCertificate.generate(a, List.of(), Clock.systemUTC(), false);
        SelfSignedCertificate.generate(b, List.of(), Clock.systemUTC(), false);
        Files.copy(
                b.resolve("private.key"), a.resolve("private.key"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> ServerTls.load(a))
                .hasMessageContaining(a.resolve("private.key").toString())
                .hasMessageContaining("does not belong to the certificate");
    }

    @Test
    void pkcs1RsaAndSec1EcKeys_areRead() throws Exception {
        for (String alg : List.of("RSA", "EC")) {
            // BouncyCastle's EC keys carry their curve inside the SEC1 structure, as OpenSSL's do
            KeyPairGenerator g = KeyPairGenerator.getInstance(alg, new BouncyCastleProvider());
            g.initialize(alg.equals("RSA") ? 2048 : 256);
            KeyPair pair = g.generateKeyPair();
            StringWriter w = new StringWriter();
            try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
                pw.writeObject(pair); // PKCS#1 "RSA PRIVATE KEY" / SEC1 "EC PRIVATE KEY"
            }
            assertThat(w.toString()).contains("BEGIN " + alg + " PRIVATE KEY");
            Path f = tmp.resolve(alg + ".key");
            Files.writeString(f, w.toString());
            var key = ServerTls.readKey(f);
            assertThat(ServerTls.matches(key, pair.getPublic())).isTrue();
        }
    }
}
