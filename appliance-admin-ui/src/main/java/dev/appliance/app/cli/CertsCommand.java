package dev.appliance.app.cli;

import dev.appliance.s3.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
        Path[] dir = {Path.of("certs")};
        List<String> hosts = new ArrayList<>();
        boolean[] force = {false};
        Arguments.walk(
                args.subList(1, args.size()), Set.of("--dir", "--host"), Set.of("--force"), new Arguments.Visitor() {
                    @Override
                    public void option(String flag, String value) {
                        switch (flag) {
                            case "--dir" -> dir[0] = Path.of(value);
                            case "--host" -> {
                                for (String h : value.split(",")) {
                                    if (!h.isBlank()) {
                                        hosts.add(h.strip());
                                    }
                                }
                            }
                            default -> force[0] = true;
                        }
                    }

                    @Override
                    public void positional(String arg) {
                        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
                    }
                });
        return new Options(dir[0], hosts, force[0]);
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
