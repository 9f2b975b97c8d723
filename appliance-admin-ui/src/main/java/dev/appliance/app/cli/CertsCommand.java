package dev.appliance.app.cli;

import dev.appliance.s3.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code appliance certs generate [--dir DIR] [--host NAME ...] [--force]}: a self-signed certificate and key for the S3
 * port, for first installs and labs.
 */
public final class CertsCommand {
    public static final String USAGE = """
            usage: appliance certs generate [--dir DIR] [--host NAME ...] [--force]
              --dir    where to write public.crt and private.key (default ./certs)
              --host   a host name or IP address clients use (repeatable, or comma-separated);
                       localhost, 127.0.0.1 and ::1 are always included
              --force  replace an existing public.crt / private.key
            then: appliance server ... --certs-dir DIR""";

    /** The parsed arguments of {@code certs generate}. */
    public record Options(Path dir, List<String> hosts, boolean force) {}

    private CertsCommand() {}

    public static Options parse(List<String> args) {
        if (args.isEmpty() || !args.getFirst().equals("generate")) {
            throw new IllegalArgumentException(
                    args.isEmpty() ? "missing subcommand" : "unknown subcommand '" + args.getFirst() + "'");
        }
        Path dir = Path.of("certs");
        List<String> hosts = new ArrayList<>();
        boolean force = false;
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            String flag = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                flag = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            switch (flag) {
                case "--dir", "--host" -> {
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new IllegalArgumentException(flag + ": missing value");
                        }
                        value = args.get(++i);
                    }
                    if (flag.equals("--dir")) {
                        dir = Path.of(value);
                    } else {
                        for (String h : value.split(",")) {
                            if (!h.isBlank()) {
                                hosts.add(h.strip());
                            }
                        }
                    }
                }
                case "--force" -> force = true;
                default -> throw new IllegalArgumentException("unknown option '" + a + "'");
            }
        }
        return new Options(dir, hosts, force);
    }

    /** Generates and reports what was written. */
    public static void run(Options o, PrintStream out) throws IOException {
        SelfSignedCertificate.Generated g =
                SelfSignedCertificate.generate(o.dir(), o.hosts(), Clock.systemUTC(), o.force());
        out.println("Wrote " + g.certFile() + " (self-signed, valid until "
                + g.certificate().getNotAfter().toInstant() + ")");
        out.println("Wrote " + g.keyFile() + " (private key, mode 600)");
        out.println("Names: " + String.join(", ", g.names()));
        out.println("Start with: appliance server ... --certs-dir " + o.dir());
        out.println("Clients trust it with e.g. curl --cacert " + g.certFile() + ", boto3 verify='" + g.certFile()
                + "', AWS_CA_BUNDLE=" + g.certFile());
    }
}
