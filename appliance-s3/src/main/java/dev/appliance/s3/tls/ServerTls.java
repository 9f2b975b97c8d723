package dev.appliance.s3.tls;

import static java.util.Objects.requireNonNull;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLException;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * The server side of TLS on the S3 port, from a certificate directory in the usual layout: {@code public.crt} (PEM
 * certificate chain, server certificate first) and {@code private.key} (PEM private key: PKCS#8 {@code PRIVATE KEY},
 * PKCS#1 {@code RSA PRIVATE KEY} or SEC1 {@code EC PRIVATE KEY}; not encrypted).
 *
 * <p>Every problem (missing or unreadable file, no certificate, no key, a key that does not belong to the certificate)
 * is an {@link IllegalArgumentException} whose message names the file and the problem, so that the process can refuse
 * to start with one clear line.
 *
 * @param sslContext the Netty server context (JDK provider, TLS 1.2 and 1.3)
 * @param chain the certificate chain, server certificate first
 */
public record ServerTls(SslContext sslContext, List<X509Certificate> chain) {
    public static final String CERT_FILE = "public.crt";
    public static final String KEY_FILE = "private.key";

    public ServerTls {
        requireNonNull(sslContext, "sslContext");
        chain = List.copyOf(chain);
    }

    /** Loads and checks {@code dir/public.crt} and {@code dir/private.key}. */
    public static ServerTls load(Path dir) {
        requireNonNull(dir, "dir");
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("certificate directory " + dir + ": not a directory");
        }
        Path certFile = dir.resolve(CERT_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        List<X509Certificate> chain = readChain(certFile);
        PrivateKey key = readKey(keyFile);
        if (!matches(key, chain.getFirst().getPublicKey())) {
            throw new IllegalArgumentException(
                    keyFile + ": this private key does not belong to the certificate in " + certFile + " ("
                            + chain.getFirst().getSubjectX500Principal().getName() + ")");
        }
        try {
            SslContext ctx = SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .build();
            return new ServerTls(ctx, chain);
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException(certFile + ", " + keyFile + ": cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** The server certificate. */
    public X509Certificate certificate() {
        return chain.getFirst();
    }

    /** A warning for the start banner when the server certificate is not valid at {@code now}, else null. */
    public String validityWarning(Instant now) {
        X509Certificate c = certificate();
        if (now.isAfter(c.getNotAfter().toInstant())) {
            return "the TLS certificate expired on " + c.getNotAfter().toInstant() + "; clients will refuse it";
        }
        if (now.isBefore(c.getNotBefore().toInstant())) {
            return "the TLS certificate is not valid before " + c.getNotBefore().toInstant();
        }
        return null;
    }

    static List<X509Certificate> readChain(Path certFile) {
        byte[] pem = readFile(certFile);
        Collection<? extends Certificate> certs;
        try {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        } catch (CertificateException e) {
            throw new IllegalArgumentException(certFile + ": not a PEM certificate chain (" + e.getMessage() + ")", e);
        }
        List<X509Certificate> chain = new ArrayList<>();
        for (Certificate c : certs) {
            chain.add((X509Certificate) c);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(certFile + ": contains no certificate");
        }
        return chain;
    }

    static PrivateKey readKey(Path keyFile) {
        String pem = new String(readFile(keyFile), StandardCharsets.US_ASCII);
        if (pem.contains("ENCRYPTED")) {
            throw new IllegalArgumentException(
                    keyFile + ": the private key is encrypted; give it without a passphrase");
        }
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (o instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                // EC parameters and other blocks before the key are skipped
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    keyFile + ": not a readable PEM private key (" + e.getMessage() + ")", e);
        }
        throw new IllegalArgumentException(
                keyFile + ": contains no private key (expected PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
    }

    private static byte[] readFile(Path f) {
        if (!Files.exists(f)) {
            throw new IllegalArgumentException(f + ": missing");
        }
        if (!Files.isRegularFile(f) || !Files.isReadable(f)) {
            throw new IllegalArgumentException(f + ": not a readable file");
        }
        try {
            byte[] data = Files.readAllBytes(f);
            if (data.length == 0) {
                throw new IllegalArgumentException(f + ": empty");
            }
            return data;
        } catch (IOException e) {
            throw new IllegalArgumentException(f + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** Whether the key signs what the certificate's public key verifies. */
    static boolean matches(PrivateKey key, PublicKey pub) {
        String alg =
                switch (key.getAlgorithm()) {
                    case "RSA" -> "SHA256withRSA";
                    case "EC", "ECDSA" -> "SHA256withECDSA";
                    case "Ed25519", "EdDSA" -> "Ed25519";
                    default -> null;
                };
        if (alg == null) {
            return true; // an unusual key type: left to the TLS handshake
        }
        try {
            byte[] probe = "appliance key check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(pub);
            v.update(probe);
            return v.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
