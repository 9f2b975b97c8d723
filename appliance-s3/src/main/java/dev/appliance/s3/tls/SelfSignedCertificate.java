package dev.appliance.s3.tls;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate for first installs and labs: RSA 2048, SHA-256, valid for {@link #VALIDITY} from now
 * (back-dated one hour for clock differences), subject alternative names for the given host names and addresses plus
 * {@code localhost}, {@code 127.0.0.1} and {@code ::1}. It is its own issuer and marked as a CA (path length 0) so that
 * clients can trust it directly as their trust anchor (curl {@code --cacert}, boto3 {@code verify=}, a Java trust
 * store), including OpenSSL's strict X.509 checks.
 */
public final class SelfSignedCertificate {
    public static final Duration VALIDITY = Duration.ofDays(730);

    private SelfSignedCertificate() {}

    /** What was written. */
    public record Generated(Path certFile, Path keyFile, X509Certificate certificate, List<String> names) {}

    /**
     * Writes {@code dir/public.crt} and {@code dir/private.key} (PKCS#8, mode 0600 where POSIX permissions exist),
     * creating {@code dir}. Existing files are only replaced with {@code overwrite}.
     */
    public static Generated generate(Path dir, List<String> hosts, Clock clock, boolean overwrite) throws IOException {
        requireNonNull(dir, "dir");
        Path certFile = dir.resolve(ServerTls.CERT_FILE);
        Path keyFile = dir.resolve(ServerTls.KEY_FILE);
        if (!overwrite) {
            for (Path f : List.of(certFile, keyFile)) {
                if (Files.exists(f)) {
                    throw new IllegalArgumentException(f + ": already exists (use --force to replace it)");
                }
            }
        }
        Set<String> names = new LinkedHashSet<>();
        for (String h : hosts) {
            String n = h.strip().toLowerCase(Locale.ROOT);
            if (n.isEmpty() || n.contains("/") || n.contains(" ")) {
                throw new IllegalArgumentException("--host '" + h + "': not a host name or IP address");
            }
            names.add(n);
        }
        names.add("localhost");
        names.add("127.0.0.1");
        names.add("::1");
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048, new SecureRandom());
            KeyPair pair = g.generateKeyPair();
            X509Certificate cert = certificate(pair, List.copyOf(names), clock.instant());
            Files.createDirectories(dir);
            writeAtomically(keyFile, pkcs8Pem(pair), true);
            writeAtomically(certFile, pem(cert), false);
            return new Generated(certFile, keyFile, cert, List.copyOf(names));
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate the certificate: " + e.getMessage(), e);
        }
    }

    static X509Certificate certificate(KeyPair pair, List<String> names, Instant now)
            throws GeneralSecurityException, OperatorCreationException, IOException {
        String cn = names.getFirst();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "Appliance (self-signed)")
                .addRDN(BCStyle.CN, cn)
                .build();
        byte[] serial = new byte[16];
        new SecureRandom().nextBytes(serial);
        serial[0] &= 0x7f;
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                subject,
                new BigInteger(1, serial),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(VALIDITY)),
                subject,
                pair.getPublic());
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        List<GeneralName> alt = new ArrayList<>();
        for (String n : names) {
            alt.add(new GeneralName(isIpAddress(n) ? GeneralName.iPAddress : GeneralName.dNSName, n));
        }
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        b.addExtension(
                Extension.keyUsage,
                true,
                new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment | KeyUsage.keyCertSign));
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
        b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(pair.getPublic()));
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(alt.toArray(GeneralName[]::new)));
        var signer = new JcaContentSignerBuilder("SHA256withRSA").build(pair.getPrivate());
        return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    }

    static boolean isIpAddress(String n) {
        if (n.contains(":")) {
            return true; // IPv6 literal (host names never contain ':')
        }
        if (!n.matches("[0-9.]+")) {
            return false;
        }
        try {
            InetAddress.ofLiteral(n);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String pkcs8Pem(KeyPair pair) {
        String b64 = Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(pair.getPrivate().getEncoded());
        return "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\n";
    }

    private static String pem(X509Certificate cert) throws IOException {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            pw.writeObject(cert);
        }
        return w.toString();
    }

    private static void writeAtomically(Path target, String text, boolean secret) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        boolean posix = Files.getFileStore(target.getParent()).supportsFileAttributeView("posix");
        if (posix) {
            Files.createFile(
                    tmp,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--")));
        }
        Files.writeString(tmp, text, StandardCharsets.US_ASCII);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
